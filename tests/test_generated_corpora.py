"""Every config of every corpus on generated source files (``unified_dialogue.testing.strategies``):
valid copies with adversarial names and values, written in the upstream layout, loaded with
``load``. Each config builds; the gold texts of dst-chat, d3st (by default and under its
options) and agent-call-chat score 1.0 through the scoring command, nothing malformed; the
gold nlu-chat text parses back to its row's intents and spans.

The number of examples is the hypothesis profile's (``HYPOTHESIS_PROFILE``, tests/conftest.py):
``ci`` by default, ``thorough`` for many more (docs/testing.md).
"""

import contextlib
import itertools
import json
import shutil
import subprocess
import sys
from typing import List

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders.ccpe import format as ccpe_format
from loaders.faithdial import format as faithdial_format
from loaders.faithdial import mapping as faithdial_mapping
from loaders.sgd import format as sgd_format
from unified_dialogue import load, registry
from unified_dialogue.core.errors import UnifiedDialogueError
from unified_dialogue.scoring import score
from unified_dialogue.scoring.__main__ import main as score_main
from unified_dialogue.testing.strategies import SourceFiles, ccpe, faithdial, sgd
from unified_dialogue.views import d3st

SGD_SPLITS = ("train", "validation", "test")
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


def sgd_kwargs(corpus, folder, use_variant):
    kwargs = corpus.load_kwargs(folder)
    return kwargs if use_variant else {k: v for k, v in kwargs.items() if k != "variant"}


# ---------------------------------------------------------------- valid source files

def decoded(value, record_type, check):
    """Each record of a file's JSON value, decoded as its format's type and checked."""
    records = msgspec.json.decode(json.dumps(value).encode(), type=List[record_type])
    for record in records:
        check(record)
    return records


def check_sgd_files(corpus):
    """The files decode as SGD's format and pass its checks; dialogues name services of their schema."""
    for relpath, value in corpus.files.items():
        if relpath.endswith("schema.json"):
            services = decoded(value, sgd_format.Service, lambda service: None)
            assert len({s.service_name for s in services}) == len(services), relpath
        else:
            dialogues = decoded(value, sgd_format.Dialogue, sgd_format.check_dialogue)
            schema = {s["service_name"] for s in corpus.files[relpath.split("/")[0] + "/schema.json"]}
            assert all(set(d.services) <= schema for d in dialogues), relpath


def check_ccpe_files(corpus):
    """data.json decodes as CCPE-M's format; every segment locates its text."""
    for conversation in decoded(corpus.files["data.json"], ccpe_format.Conversation, ccpe_format.check_conversation):
        for utterance in conversation.utterances:
            for segment in utterance.segments or []:
                assert utterance.text[segment.startIndex:segment.endIndex] == segment.text


def check_faithdial_files(corpus):
    """The seven files decode as FaithDial's format; every dialogue's histories agree."""
    assert sorted(corpus.files) == sorted(faithdial_mapping.SPLIT_FILES.values())
    for value in corpus.files.values():
        for position, dialogue in enumerate(decoded(value, faithdial_format.Dialogue, faithdial_format.check_dialogue)):
            faithdial_mapping.dialogue_to_unified(dialogue, "train", position)


# ---------------------------------------------------------------- every config builds

@budget(0.2)
@given(corpus=sgd.corpora(variant=True), use_variant=st.booleans())
def test_every_sgd_config_builds(tmp_path_factory, corpus, use_variant):
    check_sgd_files(corpus)
    with example_folder(tmp_path_factory, "sgd") as folder:
        kwargs = sgd_kwargs(corpus, folder, use_variant)
        for config in registry.get("sgd").config_names:
            assert_builds("sgd", config, folder, kwargs, SGD_SPLITS)


@budget(0.5)
@given(corpus=ccpe.corpora())
def test_every_ccpe_config_builds(tmp_path_factory, corpus):
    check_ccpe_files(corpus)
    with example_folder(tmp_path_factory, "ccpe") as folder:
        kwargs = corpus.load_kwargs(folder)
        for config in registry.get("ccpe").config_names:
            assert_builds("ccpe", config, folder, kwargs, ("train",))


@budget(0.3)
@given(corpus=faithdial.corpora())
def test_every_faithdial_config_builds(tmp_path_factory, corpus):
    check_faithdial_files(corpus)
    with example_folder(tmp_path_factory, "faithdial") as folder:
        kwargs = corpus.load_kwargs(folder)
        splits = registry.get("faithdial").splits
        for config in registry.get("faithdial").config_names:
            assert_builds("faithdial", config, folder, kwargs, splits)


@budget(0.6)
@given(corpus=faithdial.corpora())
def test_faithdial_card_counts_are_the_pairs_and_critic_rows_built(tmp_path_factory, corpus):
    """The statistics the card shows (the corpus's ``count``) of every split: the rows of
    ``preference`` and ``preference-unpaired``, and the labels of the ``critic`` rows."""
    from collections import Counter

    from unified_dialogue.tools import stats

    with example_folder(tmp_path_factory, "faithdial") as folder:
        kwargs = corpus.load_kwargs(folder)
        figures = stats.statistics(registry.get("faithdial"), loaded("faithdial", "unified", folder, kwargs))
        pairs, unpaired, critic = (loaded("faithdial", config, folder, kwargs)
                                   for config in ("preference", "preference-unpaired", "critic"))
        for split, counted in figures.items():
            assert counted["preference_pairs"] == pairs[split].num_rows == unpaired[split].num_rows / 2 > 0, split
            assert counted["critic_labels"] == dict(Counter(critic[split]["label"])), split


# ---------------------------------------------------------------- gold texts score 1.0

@budget(0.5)
@given(corpus=sgd.corpora(variant=True), use_variant=st.booleans())
def test_gold_dst_chat_scores_1(tmp_path_factory, corpus, use_variant):
    with example_folder(tmp_path_factory, "sgd") as folder:
        kwargs = sgd_kwargs(corpus, folder, use_variant)
        for split, rows in loaded("sgd", "dst-chat", folder, kwargs).items():
            texts = {row["id"]: row["completion"][0]["content"] for row in rows}
            assert_gold(score_command(folder, kwargs, "sgd", "dst-chat", split, texts), ("dst-chat", split))


@budget(0.4)
@given(corpus=sgd.corpora(variant=True), use_variant=st.booleans(), options=st.sampled_from(D3ST_COMBINATIONS),
       delimiter=st.sampled_from(D3ST_DELIMITERS), seed=st.integers(0, 2 ** 16))
def test_gold_d3st_scores_1_by_default_and_under_its_options(tmp_path_factory, corpus, use_variant, options,
                                                            delimiter, seed):
    with example_folder(tmp_path_factory, "sgd") as folder:
        kwargs = sgd_kwargs(corpus, folder, use_variant)
        for chosen in ({}, {**options, "delimiter": delimiter, "seed": seed}):
            for split, rows in loaded("sgd", "d3st", folder, kwargs, **chosen).items():
                texts = {row["id"]: row["target"] for row in rows}
                metrics = score_command(folder, kwargs, "sgd", "d3st", split, texts, sorted(chosen.items()))
                assert_gold(metrics, ("d3st", chosen, split))
                assert metrics["frames_not_predicted"] == 0


def gold_call(row):
    """The completion's tool call as a model writes it: ``{"name", "arguments"}`` as JSON."""
    (call,) = row["completion"][0]["tool_calls"]
    arguments = call["function"]["arguments"]
    arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    return json.dumps({"name": call["function"]["name"], "arguments": arguments}, ensure_ascii=False)


@budget(0.5)
@given(corpus=sgd.corpora(variant=True), use_variant=st.booleans())
def test_gold_agent_call_chat_scores_1(tmp_path_factory, corpus, use_variant):
    with example_folder(tmp_path_factory, "sgd") as folder:
        kwargs = sgd_kwargs(corpus, folder, use_variant)
        for split, rows in loaded("sgd", "agent-call-chat", folder, kwargs).items():
            texts = {row["id"]: gold_call(row) for row in rows}
            metrics = score_command(folder, kwargs, "sgd", "agent-call-chat", split, texts)
            assert_gold(metrics, ("agent-call-chat", split))
            assert metrics["extra_calls"] == 0


@budget(0.3)
@given(corpus=faithdial.corpora())
def test_gold_faithdial_critic_labels_and_preferences_score_1(tmp_path_factory, corpus):
    with example_folder(tmp_path_factory, "faithdial") as folder:
        kwargs = corpus.load_kwargs(folder)
        for split, rows in loaded("faithdial", "critic-chat", folder, kwargs).items():
            texts = {row["id"]: row["completion"][0]["content"] for row in rows}
            metrics = score_command(folder, kwargs, "faithdial", "critic-chat", split, texts)
            assert (metrics["accuracy"], metrics["macro"]["f1"], metrics["malformed"]) == (1.0, 1.0, 0), split
        for split, rows in loaded("faithdial", "preference", folder, kwargs).items():
            scores = {row["id"]: (0.0, -1.0) for row in rows}
            scored = score("faithdial", "preference", split, scores, data_dir=kwargs["data_dir"],
                           load_options={"checksums": kwargs["checksums"], "cache_dir": str(folder / "cache")})
            assert scored["accuracy"] == 1.0, split


@settings(max_examples=1)
@given(corpus=sgd.corpora(variant=True))
def test_the_scoring_command_as_a_process_scores_gold_texts_1(tmp_path_factory, corpus):
    with example_folder(tmp_path_factory, "sgd") as folder:
        kwargs = corpus.load_kwargs(folder)
        rows = loaded("sgd", "d3st", folder, kwargs, split="validation", level="dst", multiple_choice="a")
        texts = {row["id"]: row["target"] for row in rows}
        metrics = score_command(folder, kwargs, "sgd", "d3st", "validation", texts,
                                [("level", "dst"), ("multiple_choice", "a")], subprocess_=True)
        assert_gold(metrics, "d3st as a process")


# ---------------------------------------------------------------- nlu-chat reads back

def span_key(span):
    """A span as the nlu-chat text has it: ``(domain, label, type, text)``, "" read as none."""
    return tuple(span.get(k) or None for k in ("domain", "label", "type")) + (span["text"],)


def assert_nlu_parses_back(corpus_name, folder, kwargs):
    from unified_dialogue.chat.nlu_text import parse  # the nlu-chat text's reader

    views = loaded(corpus_name, "nlu", folder, kwargs)
    for split, chats in loaded(corpus_name, "nlu-chat", folder, kwargs).items():
        by_id = {row["id"]: row for row in views[split]}
        for chat in chats:
            record, problems = parse(chat["completion"][0]["content"])
            row = by_id[chat["id"]]
            assert problems == [], (chat["id"], problems)
            assert record.get("intents") == row["intents"], chat["id"]
            assert [span_key(s) for s in record["spans"]] == [span_key(s) for s in row["spans"]], chat["id"]


@budget(0.3)
@given(corpus=sgd.corpora(variant=True), use_variant=st.booleans())
def test_gold_sgd_nlu_chat_parses_back_to_its_frames(tmp_path_factory, corpus, use_variant):
    with example_folder(tmp_path_factory, "sgd") as folder:
        assert_nlu_parses_back("sgd", folder, sgd_kwargs(corpus, folder, use_variant))


@budget(0.3)
@given(corpus=ccpe.corpora())
def test_gold_ccpe_nlu_chat_parses_back_to_its_spans(tmp_path_factory, corpus):
    with example_folder(tmp_path_factory, "ccpe") as folder:
        assert_nlu_parses_back("ccpe", folder, corpus.load_kwargs(folder))


# ---------------------------------------------------------------- found on generated corpora

def test_a_file_without_rows_of_a_view_builds_when_its_split_has_rows(tmp_path):
    """A file whose dialogues have no row of a view (no system turn) once made every chat
    config fail: the chat rows of an empty view table could not be made."""
    files = SourceFiles({
        "train/schema.json": [{"service_name": "S", "description": "", "slots": [],
                               "intents": [{"name": "I", "description": "", "is_transactional": False,
                                            "required_slots": [], "optional_slots": {}, "result_slots": []}]}],
        "train/dialogues_001.json": [{"dialogue_id": "a", "services": ["S"], "turns": [
            {"speaker": "USER", "utterance": "hi", "frames": [{"service": "S", "slots": [], "actions": [], "state": {
                "active_intent": "I", "requested_slots": [], "slot_values": {}}}]}]}],
        "train/dialogues_002.json": [{"dialogue_id": "b", "services": ["S"], "turns": [
            {"speaker": "SYSTEM", "utterance": "ok", "frames": [{"service": "S", "slots": [], "actions": []}]}]}],
    })
    kwargs = files.load_kwargs(tmp_path)
    for config in ("nlg-chat", "response-chat"):
        assert loaded("sgd", config, tmp_path, kwargs)["train"].num_rows == 1


def test_a_split_without_rows_of_a_view_is_the_loaders_error_for_its_chat_config_too(tmp_path):
    files = SourceFiles({"data.json": [{"conversationId": "c", "utterances": [
        {"index": 0, "speaker": "USER", "text": "hi"}]}]})
    kwargs = files.load_kwargs(tmp_path)
    for config in ("response", "response-chat"):
        with pytest.raises(UnifiedDialogueError, match=f"the {config} config has no rows in this split"):
            loaded("ccpe", config, tmp_path, kwargs)


def test_every_d3st_combination_is_a_valid_option_set():
    """The combinations drawn above are options the view takes (so a failure is the rows')."""
    for options in D3ST_COMBINATIONS:
        for delimiter in D3ST_DELIMITERS:
            d3st.check_options(**{**d3st.DEFAULTS, **options, "delimiter": delimiter})
    assert len(D3ST_COMBINATIONS) == 72
