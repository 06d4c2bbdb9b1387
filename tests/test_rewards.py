"""``unified_dialogue.rewards`` called exactly as TRL 1.x's GRPOTrainer calls a reward function
(keyword arguments: ``prompts``, ``completions``, ``completion_ids``, every other dataset column
as a list, ``trainer_state``, ``log_extra``, ``log_metric``), on the fixtures: the gold scores
1.0, an unreadable text 0.0, and every value is the one ``--per-row`` of the scoring command
writes for the same text."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue import rewards
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.scoring import ScoringError
from unified_dialogue.scoring.configs import CONFIGS
from unified_dialogue.scoring.tool_calls import gold_call, gold_text

# (corpus, config, split): the configs with rewards, on their fixtures.
CASES = [("sgd", "dst-chat", "validation"), ("sgd", "d3st", "validation"), ("sgd", "agent-call-chat", "validation"),
         ("sgd", "nlg", "validation"), ("sgd", "nlg-chat", "validation"), ("sgd", "response-chat", "validation"),
         ("faithdial", "response-chat", "test_topic"), ("sgd", "nlu-chat", "validation"),
         ("ccpe", "nlu-chat", "train"), ("sgd", "user-chat", "validation"), ("faithdial", "critic-chat", "test"),
         ("faithdial", "critic", "validation")]
UNREADABLE = "}} not ] what [ any = scorer ; reads"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def make(cache, corpus, config, split, **options):
    return rewards.reward(corpus, config, split, data_dir=str(fixture_dir(corpus)), checksums=checksums(corpus),
                          cache_dir=cache, **options)


def gold_texts(build, corpus, config, split):
    rows = build(corpus, config)[split]
    if config == "d3st":
        return {row["id"]: row["target"] for row in rows}
    if config == "nlg":
        return {row["id"]: row["target"] for row in rows}
    if config == "agent-call-chat":
        return {row["id"]: gold_text(row) for row in rows}
    if config == "critic":
        return {row["id"]: row["label"] for row in rows}
    return {row["id"]: row["completion"][0]["content"] for row in rows}


class Log:
    """Stand-ins for GRPOTrainer's ``log_extra`` and ``log_metric``, which rewards may ignore."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))


def call_as_trl(function, texts, conversational=True, log_metric=None):
    """``function`` called as GRPOTrainer._calculate_rewards calls it."""
    ids = list(texts)
    completions = [[{"role": "assistant", "content": text}] if conversational else text for text in texts.values()]
    prompts = [[{"role": "user", "content": "..."}] if conversational else "..." for _ in ids]
    return function(prompts=prompts, completions=completions, completion_ids=[[1, 2, 3] for _ in ids], id=ids,
                    dialogue_id=[i.rsplit("/", 1)[0] for i in ids], turn_index=list(range(len(ids))),
                    trainer_state=object(), log_extra=Log(), log_metric=log_metric or Log())


@pytest.mark.parametrize("corpus, config, split", CASES)
@pytest.mark.parametrize("conversational", [True, False])
def test_the_gold_completion_scores_one_with_the_default_reward(build, cache, corpus, config, split, conversational):
    function = make(cache, corpus, config, split)
    values = call_as_trl(function, gold_texts(build, corpus, config, split), conversational)
    assert values == [1.0] * len(values) and len(values) > 3
    assert function.__name__ == f"{config}_{CONFIGS[config].row_metrics[0]}"


@pytest.mark.parametrize("corpus, config, split", [case for case in CASES if case[1] in (
    "dst-chat", "d3st", "agent-call-chat", "nlu-chat", "critic-chat")])
def test_an_unreadable_text_scores_zero_with_every_metric(build, cache, corpus, config, split):
    functions = make(cache, corpus, config, split, metric=list(CONFIGS[config].row_metrics))
    texts = dict.fromkeys(gold_texts(build, corpus, config, split), UNREADABLE)
    if config not in ("dst-chat", "nlu-chat"):  # an empty text of these is readable: nothing found
        texts[next(iter(texts))] = ""
    for function in functions:
        log = Log()
        assert call_as_trl(function, texts, log_metric=log) == [0.0] * len(texts), function.__name__
        assert log.calls == [((f"{function.__name__}/malformed", 1.0), {})]


def test_a_message_without_text_scores_zero_and_tool_calls_of_a_message_are_read(build, cache):
    function = make(cache, "sgd", "agent-call-chat", "validation")
    rows = build("sgd", "agent-call-chat")["validation"]
    name, arguments, _ = gold_call(rows[0])
    message = {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": name,
                                                                                      "arguments": arguments}}]}
    ids = [rows[0]["id"], rows[1]["id"], rows[2]["id"]]
    values = function(prompts=[[]] * 3, completions=[[message], "", [{"role": "assistant", "content": None}]],
                      completion_ids=[[1]] * 3, id=ids)
    assert values == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("odd, shape", [(42, "a number"), (None, "null"), (["text"], "a list holding a string"),
                                        ([["text"]], "a list holding a list")])
def test_a_completion_in_neither_of_trls_forms_is_named_not_scored_zero(build, cache, odd, shape):
    function = make(cache, "sgd", "dst-chat", "validation")
    ids = list(gold_texts(build, "sgd", "dst-chat", "validation"))[:2]
    with pytest.raises(ScoringError, match=f"completion #1 \\(id '{ids[1]}'; 1 such\\) is {shape}: a reward takes "
                                           "each completion as TRL gives it, a string or a list of messages"):
        function(prompts=[[]] * 2, completions=["", odd], id=ids)


@pytest.mark.parametrize("options, words", [
    ({"metric": []}, "^metric=\\[\\]: name at least one of the per-row metrics of dst-chat \\(joint_goal_accuracy, "),
    ({"streaming": True}, "takes no streaming=True here: the rows are scored whole, not streamed; leave it out$"),
])
def test_no_metric_and_streamed_rows_are_refused_before_anything_loads(tmp_path, options, words):
    with pytest.raises((ConfigError, ScoringError), match=words):
        rewards.reward("sgd", "dst-chat", "validation", data_dir=str(tmp_path / "nothing here"), **options)


def per_row_of_the_command(cache, tmp_path, corpus, config, split, texts):
    """``{id: per-row record}`` and the malformed ids, from ``--per-row`` of the command run as a user runs it."""
    predictions = write_predictions(tmp_path / "p.jsonl", texts)
    per_row, output = tmp_path / "rows.jsonl", tmp_path / "metrics.json"
    subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", corpus, "--config", config,
                    "--split", split, "--data-dir", str(fixture_dir(corpus)), "--checksums", checksums(corpus),
                    "--cache-dir", cache, "--predictions", str(predictions), "--per-row", str(per_row),
                    "--output", str(output)], check=True)
    records = [json.loads(line) for line in per_row.read_text(encoding="utf-8").splitlines()]
    metrics = json.loads(output.read_text())
    malformed = metrics["malformed_ids"] if "malformed_ids" in metrics else metrics["malformed"]["ids"]
    return {record["id"]: record for record in records}, set(malformed)


def imperfect(texts):
    """Every third text the next row's, one cut short, one unreadable: right, wrong and malformed texts."""
    ids, values = list(texts), list(texts.values())
    out = {i: values[(k + 1) % len(ids)] if k % 3 == 1 else t for k, (i, t) in enumerate(texts.items())}
    out[ids[2]] = values[2][: len(values[2]) // 2]
    out[ids[0]] = UNREADABLE
    return out


@pytest.mark.parametrize("corpus, config, split", CASES)
def test_every_reward_is_the_per_row_value_of_the_command(build, cache, tmp_path, corpus, config, split):
    texts = imperfect(gold_texts(build, corpus, config, split))
    records, malformed = per_row_of_the_command(cache, tmp_path, corpus, config, split, texts)
    metrics = [name for name in CONFIGS[config].row_metrics if name in next(iter(records.values()))]
    # (the command scores SER on nlg rows, not on SGD's response rows: chrF alone there)
    assert CONFIGS[config].row_metrics[0] in metrics
    assert len(metrics) >= min(len(CONFIGS[config].row_metrics), 1 + ((corpus, config) != ("sgd", "response-chat")))
    functions = make(cache, corpus, config, split, metric=metrics)
    varied = set()
    for function, metric in zip(functions, metrics):
        values = call_as_trl(function, texts)
        expected = [0.0 if i in malformed else records[i].get(metric) for i in texts]  # None: no value for the row
        assert values == pytest.approx(expected, abs=1e-12), metric
        varied.update(value for value in values if value is not None)
    assert len(varied) > 1 and (config in ("nlg", "nlg-chat", "response-chat", "user-chat") or malformed)


def test_an_id_no_row_has_and_a_dataset_without_ids_are_errors_naming_them(build, cache):
    function = make(cache, "sgd", "dst-chat", "validation")
    texts = gold_texts(build, "sgd", "dst-chat", "validation")
    with pytest.raises(ScoringError, match="'sgd/train/nope/1' \\(they look like ids of the split train, not "
                                           "validation: score them against that split\\)"):
        call_as_trl(function, {**texts, "sgd/train/nope/1": "x"})
    with pytest.raises(ScoringError, match="name no row of the config: 3 \\(they have another shape"):
        function(prompts=["..."], completions=["x"], id=[3])
    with pytest.raises(ScoringError, match=r"no 'id' column.*keep it in the training dataset: "
                                           r'\.select_columns\(\["prompt", "id"\]\)'):
        function(prompts=["..."], completions=["x"], completion_ids=[[1]])


def test_several_metrics_give_one_function_each_and_unknown_names_are_refused(cache):
    functions = make(cache, "sgd", "dst-chat", "validation", metric=["joint_goal_accuracy", "requested_slots_f1"])
    assert [f.__name__ for f in functions] == ["dst-chat_joint_goal_accuracy", "dst-chat_requested_slots_f1"]
    with pytest.raises(ScoringError, match="no per-row metric 'bleu'.*joint_goal_accuracy"):
        make(cache, "sgd", "dst-chat", "validation", metric="bleu")
    with pytest.raises(ScoringError, match="no reward for config 'dst'"):
        make(cache, "sgd", "dst", "validation")
    with pytest.raises(ScoringError, match="nlg-chat: the knowledge scores need a knowledge sentence"):
        make(cache, "sgd", "nlg-chat", "validation", metric="knowledge_f1")
    with pytest.raises(ScoringError, match="response-chat: slot_accuracy needs the acts and schemas of SGD"):
        make(cache, "faithdial", "response-chat", "test_topic", metric="slot_accuracy")


def test_a_state_without_values_is_right_on_a_turn_whose_gold_has_none(build, cache):
    """The documented way to game joint goal accuracy (docs/rl.md, which offers denser signals):
    on a turn whose gold state fills no slot, naming the services and nothing else is right."""
    rows = build("sgd", "dst")["validation"]
    bare = [row for row in rows if not any(frame["state"]["slot_values"] for frame in row["frames"])]
    assert bare, "the fixtures have turns whose gold state fills no slot"
    texts = {row["id"]: "\n".join(f"{frame['service']}: intent={frame['state']['active_intent']}"
                                   for frame in row["frames"]) for row in bare}
    joint, requested = make(cache, "sgd", "dst-chat", "validation",
                            metric=["joint_goal_accuracy", "requested_slots_f1"])
    assert call_as_trl(joint, texts) == [1.0] * len(texts)
    gold = gold_texts(build, "sgd", "dst-chat", "validation")
    assert call_as_trl(requested, texts) == [1.0 if gold[i] == text else 0.0 for i, text in texts.items()]


def test_the_benchmark_times_each_reward_and_its_baseline_on_a_copy(tmp_path):
    from unified_dialogue.tools import bench_rewards

    lines = []
    results = bench_rewards.run(str(fixture_dir("sgd")), size=5, repeat=2, cache_dir=str(tmp_path / "cache"),
                                out=lines.append)
    assert set(results) == set(bench_rewards.CONFIGS) and len(lines) == 1 + len(bench_rewards.CONFIGS)
    for timings in results.values():
        assert {"reward", "corpus scorer (baseline)", "construction (once)"} == set(timings)
        assert all(wall > 0 and cpu >= 0 for wall, cpu in timings.values())


@pytest.mark.parametrize("config", ["dst-chat", "nlg-chat"])
def test_without_a_split_the_rows_of_every_split_are_rewarded_each_with_its_own_schemas(build, cache, config):
    function = make(cache, "sgd", config, None, metric=["joint_goal_accuracy" if config == "dst-chat"
                                                        else "slot_accuracy"])[0]
    splits = build("sgd", config)
    assert len(splits) > 1
    for split in splits:
        texts = gold_texts(build, "sgd", config, split)
        assert call_as_trl(function, texts) == [1.0] * len(texts), split


@pytest.mark.parametrize("corpus, config, split", CASES)
def test_no_text_makes_a_reward_raise_and_every_value_is_in_the_unit_interval(build, cache, corpus, config, split):
    from hypothesis import given, settings, strategies as st

    metrics = [name for name in CONFIGS[config].row_metrics
               if not name.startswith(("slot_accuracy", "knowledge")[corpus == "sgd"])]
    functions = make(cache, corpus, config, split, metric=metrics)
    gold = list(gold_texts(build, corpus, config, split).items())
    pieces = st.sampled_from([text for _, text in gold] + ["{", "}", "[", "]", '"', ";", "=", ":", "|", "\n",
                                                         "<tool_call>", "```", "[states]", "NONE"])
    texts = st.one_of(st.text(max_size=200), st.lists(st.one_of(pieces, st.text(max_size=5)), max_size=8).map("".join))

    @settings(max_examples=60, deadline=None, database=None)
    @given(st.lists(texts, min_size=1, max_size=4))
    def check(written):
        batch = {gold[k % len(gold)][0]: text for k, text in enumerate(written)}
        for function in functions:
            for value in call_as_trl(function, batch):
                assert value is None or 0.0 <= value <= 1.0

    check()


@pytest.mark.parametrize("options, words", [
    ({"split": "dev"}, "^split 'dev': sgd has the splits train, validation, test$"),
    ({"level": "dst"}, "^the dst-chat config of sgd takes no option 'level' \\(.*\\); level is an option of d3st$"),
    ({"bogus": 1}, "^the dst-chat config of sgd takes no option 'bogus' \\(its options: "),
    ({"use_fuzzy": True}, "takes no option 'use_fuzzy': did you mean 'use_fuzzy_match'\\? \\(.*its scorer settings: "
                          "use_fuzzy_match, joint_acc_across_turn;"),
])
def test_a_split_or_option_the_config_lacks_is_refused_before_anything_loads(tmp_path, options, words):
    split = options.pop("split", "validation")
    with pytest.raises(ConfigError, match=words):  # as load and scoring.score refuse them
        rewards.reward("sgd", "dst-chat", split, data_dir=str(tmp_path / "nothing here"), **options)


def test_a_completion_in_a_code_fence_after_reasoning_scores_as_its_answer(build, cache):
    function = make(cache, "sgd", "dst-chat", "validation")
    texts = gold_texts(build, "sgd", "dst-chat", "validation")
    wrapped = {i: f"<think>\nwhich services?\n</think>\n```\n{t}\n```" for i, t in texts.items()}
    assert call_as_trl(function, wrapped) == [1.0] * len(texts)


@pytest.mark.parametrize("corpus, config, split", CASES)
def test_the_reasoning_of_a_message_is_never_scored_and_a_block_that_never_ends_scores_zero(build, cache, corpus,
                                                                                             config, split):
    function = make(cache, corpus, config, split)
    gold = gold_texts(build, corpus, config, split)
    ids, draft = list(gold), f"{UNREADABLE} <tool_call>{{\"name\": \"Wrong_1__X\", \"arguments\": {{}}}}</tool_call>"
    # as a response parser or a server gives the reasoning: beside the content, or as a part of it
    messages = [{"role": "assistant", "content": gold[i], "reasoning_content": draft} if k % 3 == 0 else
                {"role": "assistant", "content": gold[i], "thinking": draft} if k % 3 == 1 else
                {"role": "assistant", "content": [{"type": "reasoning", "text": draft}, {"type": "text", "text": gold[i]}]}
                for k, i in enumerate(ids)]
    assert function(prompts=[[]] * len(ids), completions=[[m] for m in messages], id=ids) == [1.0] * len(ids)
    cut = [[{"role": "assistant", "content": f"<think>\n{gold[i]}"}] for i in ids]  # the draft is the gold
    assert function(prompts=[[]] * len(ids), completions=cut, id=ids) == [0.0] * len(ids)
