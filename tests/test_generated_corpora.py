"""Every config of every corpus that has hypothesis strategies (its folder's ``strategies.py``,
found through the registry: ``unified_dialogue.testing.strategies``) on generated source
files: valid copies with adversarial names and values, written in the upstream layout, loaded
with ``load``, with the copy's load options or without them. Each config builds; the gold
texts of dst-chat, d3st (by default and under its options), agent-call-chat and critic-chat
score 1.0 through the scoring command, nothing malformed, and scores of preference pairs in
their order score 1.0; the gold nlu-chat text parses back to its row's intents and spans;
the card's counts of preference pairs and critic labels are the rows built. A corpus with strategies of its own is tested here, each test on
the corpora that have its config, with no edit of this file.

The number of examples is the hypothesis profile's (``HYPOTHESIS_PROFILE``, tests/conftest.py):
``ci`` by default, ``thorough`` for many more (docs/testing.md).
"""

import contextlib
import itertools
import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unified_dialogue import load, registry
from unified_dialogue.scoring import score
from unified_dialogue.scoring.__main__ import main as score_main
from unified_dialogue.scoring.tool_calls import gold_text
from unified_dialogue.testing.strategies import build_share, generated
from unified_dialogue.views import d3st

pytestmark = pytest.mark.both_lines

# {corpus: its strategies module}, for every corpus that has them.
GENERATED = generated()
# D3ST's options but upstream_compat, every combination of those with a few values; the
# delimiter and seed drawn besides.
D3ST_COMBINATIONS = [dict(zip(("level", "data_format", "multiple_choice", "lowercase", "randomize_items"), c))
                     for c in itertools.product(("dst", "dst_intent"), ("full_desc", "item_name", "rand_name"),
                                                ("none", "a", "1a"), (True, False), (True, False))]
D3ST_DELIMITERS = ("=", "~", "->")


# A generated corpus costs a dataset build per example: these tests run this fraction of the
# profile's examples (8 under ``ci``, within about a minute in all).
CORPUS_FRACTION = 2 / 15


def budget(share):
    """Settings running ``share`` of the corpus tests' examples (at least one)."""
    return settings(max_examples=max(1, round(settings.default.max_examples * CORPUS_FRACTION * share)))


@contextlib.contextmanager
def example_folder(tmp_path_factory, name):
    """A new folder for one example, removed after it (its datasets cache would pile up)."""
    folder = tmp_path_factory.mktemp(name)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def loaded(corpus_name, config, folder, kwargs, **options):
    """``load`` of a config, built in the example's own cache (removed with the example)."""
    return load(corpus_name, config, cache_dir=str(folder / "cache"), keep_in_memory=True, **kwargs, **options)


def assert_builds(corpus_name, config, folder, kwargs, splits):
    dataset = loaded(corpus_name, config, folder, kwargs)
    assert set(dataset) == set(splits), config
    assert all(part.num_rows > 0 for part in dataset.values()), config
    return dataset


def score_command(folder, kwargs, corpus_name, config, split, texts, options=(), subprocess_=False):
    """The metrics of ``texts`` ({id: text}) by the scoring command, in this process (its
    ``main``) or as ``python -m unified_dialogue.scoring``."""
    predictions, output = folder / f"{config}-{split}.jsonl", folder / f"{config}-{split}.json"
    predictions.write_text("".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n"
                                   for i, t in texts.items()), encoding="utf-8")
    argv = ["--corpus", corpus_name, "--config", config, "--split", split, "--data-dir", kwargs["data_dir"],
            "--checksums", kwargs["checksums"], "--cache-dir", str(folder / "cache"),
            "--predictions", str(predictions), "--output", str(output)]
    if kwargs.get("variant"):
        argv += ["--variant", kwargs["variant"]]
    for name, value in options:
        argv += ["--option", f"{name}={value}"]
    if subprocess_:
        done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", *argv], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    else:
        score_main(argv)
    return json.loads(output.read_text(encoding="utf-8"))


def assert_gold(metrics, where):
    """Every score 1.0 (there may be none: a service without slots has no goal metrics, and
    level dst leaves out the intent ones), nothing malformed or missing."""
    assert metrics["malformed"] == 0, (where, metrics.get("malformed_problems") or metrics.get("malformed_ids"))
    assert metrics.get("missing", 0) == 0, where
    found = {key: value for key, value in metrics.items() if isinstance(value, float)}
    for group, values in metrics.items():
        if isinstance(values, dict) and not group.endswith("_problems"):
            found.update({f"{group}.{k}": v for k, v in values.items() if isinstance(v, float)})
    below = {k: v for k, v in found.items() if v != 1.0}
    assert below == {}, (where, below)


# ---------------------------------------------------------------- every config builds

@pytest.mark.parametrize("name", list(GENERATED))
def test_every_config_builds(tmp_path_factory, name):
    strategies, corpus = GENERATED[name], registry.get(name)

    @budget(build_share(strategies))
    @given(drawn=strategies.corpora(), with_options=st.booleans())
    def builds(drawn, with_options):
        strategies.check_files(drawn)
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            for config in corpus.config_names:
                assert_builds(name, config, folder, kwargs, corpus.splits)

    builds()


# ---------------------------------------------------------------- gold texts score 1.0

@pytest.mark.parametrize("name", list(generated("d3st")))
def test_gold_d3st_scores_1_by_default_and_under_its_options(tmp_path_factory, name):
    @budget(0.4)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans(), options=st.sampled_from(D3ST_COMBINATIONS),
           delimiter=st.sampled_from(D3ST_DELIMITERS), seed=st.integers(0, 2 ** 16))
    def scores_1(drawn, with_options, options, delimiter, seed):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            for chosen in ({}, {**options, "delimiter": delimiter, "seed": seed}):
                for split, rows in loaded(name, "d3st", folder, kwargs, **chosen).items():
                    texts = {row["id"]: row["target"] for row in rows}
                    metrics = score_command(folder, kwargs, name, "d3st", split, texts, sorted(chosen.items()))
                    assert_gold(metrics, ("d3st", chosen, split))
                    assert metrics["frames_not_predicted"] == 0

    scores_1()


@pytest.mark.parametrize("name", list(generated("user-chat")))
def test_gold_user_chat_scores_1_on_every_per_row_metric(tmp_path_factory, name):
    from unified_dialogue.core.answer import answer
    from unified_dialogue.scoring.user import ROW_METRICS, score_user

    @budget(0.4)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans())
    def scores_1(drawn, with_options):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            for split, rows in loaded(name, "user-chat", folder, kwargs).items():
                texts = {row["id"]: row["completion"][0]["content"] for row in rows}
                result = score_user(texts, rows, per_row=True,
                                    load_rows=lambda config, split=split: loaded(name, config, folder, kwargs)[split])
                # an utterance holding a reasoning marker is read as a model's output is (docs/views.md)
                own = {i for i, text in texts.items() if answer(text)[0] == text.strip()}
                below = [(r["id"], k, r[k]) for r in result["per_row"] for k in ROW_METRICS
                         if r[k] != 1.0 and r["id"] in own]
                assert below == [], (split, below)

    scores_1()


# The gold text of a row of each scored chat config, as a model writes it.
GOLD_TEXTS = {"dst-chat": lambda row: row["completion"][0]["content"], "agent-call-chat": gold_text,
              "critic-chat": lambda row: row["completion"][0]["content"]}


@pytest.mark.parametrize("name,config", [(name, config) for config in GOLD_TEXTS for name in generated(config)])
def test_gold_chat_texts_score_1(tmp_path_factory, name, config):
    @budget(0.5)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans())
    def scores_1(drawn, with_options):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            for split, rows in loaded(name, config, folder, kwargs).items():
                texts = {row["id"]: GOLD_TEXTS[config](row) for row in rows}
                metrics = score_command(folder, kwargs, name, config, split, texts)
                assert_gold(metrics, (config, split))
                assert metrics.get("extra_calls", 0) == 0

    scores_1()


@pytest.mark.parametrize("name", list(generated("preference")))
def test_preference_scores_in_the_pairs_order_score_1(tmp_path_factory, name):
    @budget(0.3)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans())
    def scores_1(drawn, with_options):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            load_options = {"cache_dir": str(folder / "cache"), **{k: v for k, v in kwargs.items() if k != "data_dir"}}
            for split, rows in loaded(name, "preference", folder, kwargs).items():
                scored = score(name, "preference", split, {row["id"]: (0.0, -1.0) for row in rows},
                               data_dir=kwargs["data_dir"], load_options=load_options)
                assert (scored["accuracy"], scored["missing"]) == (1.0, 0), split

    scores_1()


@pytest.mark.parametrize("name", list(generated("preference")))
def test_the_cards_counts_of_pairs_and_critic_labels_are_the_rows_built(tmp_path_factory, name):
    """The statistics the card shows (the corpus's ``count``) of every split: the rows of
    ``preference`` and ``preference-unpaired``, and the labels of the ``critic`` rows."""
    from collections import Counter

    from unified_dialogue.tools import stats

    @budget(0.6)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans())
    def counted_as_built(drawn, with_options):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            figures = stats.statistics(registry.get(name), loaded(name, "unified", folder, kwargs))
            pairs, unpaired, critic = (loaded(name, config, folder, kwargs)
                                       for config in ("preference", "preference-unpaired", "critic"))
            for split, counted in figures.items():
                assert counted["preference_pairs"] == pairs[split].num_rows == unpaired[split].num_rows / 2 > 0, split
                assert counted["critic_labels"] == dict(Counter(critic[split]["label"])), split

    counted_as_built()


@pytest.mark.parametrize("name", list(generated("d3st")))
def test_the_scoring_command_as_a_process_scores_gold_texts_1(tmp_path_factory, name):
    @settings(max_examples=1)
    @given(drawn=GENERATED[name].corpora())
    def scores_1(drawn):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder)
            split = registry.get(name).splits[0]
            rows = loaded(name, "d3st", folder, kwargs, split=split, level="dst", multiple_choice="a")
            texts = {row["id"]: row["target"] for row in rows}
            metrics = score_command(folder, kwargs, name, "d3st", split, texts,
                                    [("level", "dst"), ("multiple_choice", "a")], subprocess_=True)
            assert_gold(metrics, "d3st as a process")

    scores_1()


# ---------------------------------------------------------------- nlu-chat reads back

def span_key(span):
    """A span as the nlu-chat text has it: ``(domain, label, type, text)``, "" read as none."""
    return tuple(span.get(k) or None for k in ("domain", "label", "type")) + (span["text"],)


@pytest.mark.parametrize("name", list(generated("nlu-chat")))
def test_gold_nlu_chat_parses_back_to_its_rows_intents_and_spans(tmp_path_factory, name):
    from unified_dialogue.chat.nlu_text import parse  # the nlu-chat text's reader

    @budget(0.3)
    @given(drawn=GENERATED[name].corpora(), with_options=st.booleans())
    def parses_back(drawn, with_options):
        with example_folder(tmp_path_factory, name) as folder:
            kwargs = drawn.load_kwargs(folder, with_options)
            views = loaded(name, "nlu", folder, kwargs)
            for split, chats in loaded(name, "nlu-chat", folder, kwargs).items():
                by_id = {row["id"]: row for row in views[split]}
                for chat in chats:
                    record, problems = parse(chat["completion"][0]["content"])
                    row = by_id[chat["id"]]
                    assert problems == [], (chat["id"], problems)
                    assert record.get("intents") == row["intents"], chat["id"]
                    assert [span_key(s) for s in record["spans"]] == [span_key(s) for s in row["spans"]], chat["id"]

    parses_back()


def test_every_d3st_combination_is_a_valid_option_set():
    """The combinations drawn above are options the view takes (so a failure is the rows')."""
    for options in D3ST_COMBINATIONS:
        for delimiter in D3ST_DELIMITERS:
            d3st.check_options(**{**d3st.DEFAULTS, **options, "delimiter": delimiter})
    assert len(D3ST_COMBINATIONS) == 72


def test_every_bundled_corpus_has_strategies_of_its_own():
    """Each bundled corpus is generated here (a corpus's strategies are optional for a corpus
    of your own)."""
    bundled = [name for name, corpus in registry.corpora().items() if corpus.package.startswith(f"{registry.BUNDLED}.")]
    assert bundled and set(bundled) <= set(GENERATED)
