"""Each per-row record carries every problem of its row (``rows.row_record``): each problem
in its JSON form (``core.problems.Problem``: its kind, what its reader says, what was
unknown), whether the text could not be read (``malformed``) and whether the row had no
prediction (``missing``); for every scorer, the records say exactly what the metrics'
``*_ids`` list. On the SGD fixtures."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue import scoring
from unified_dialogue.core.problems import KINDS, MALFORMED
from unified_dialogue.scoring.rows import COUNTS
from unified_dialogue.scoring.tool_calls import gold_text


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def score(cache, config, texts, **options):
    return scoring.score("sgd", config, "validation", texts, data_dir=str(fixture_dir("sgd")), per_row=True,
                         load_options={"checksums": checksums("sgd"), "cache_dir": cache}, **options)


def listed(metrics, count):
    """The ids the metrics list under ``count`` (``<count>_ids``, or generated text's record;
    None where the scorer has no such count)."""
    if f"{count}_ids" in metrics:
        return set(metrics[f"{count}_ids"])
    value = metrics.get(count)
    return set(value["ids"]) if isinstance(value, dict) else None


def check_records_agree_with_the_counts(metrics):
    records = {record["id"]: record for record in metrics["per_row"]}
    for kind in KINDS:
        ids = listed(metrics, COUNTS[kind])  # generated text lists no record of a row it leaves out
        if ids is not None and kind != MALFORMED:
            assert ids & set(records) == {i for i, r in records.items() if any(p["kind"] == kind for p in r["problems"])}
    malformed, missing = listed(metrics, "malformed"), listed(metrics, "missing")
    assert malformed & set(records) == {i for i, record in records.items() if record["malformed"]}
    if missing is not None:
        assert missing == {i for i, record in records.items() if record["missing"]}
    for record in records.values():
        assert record["malformed"] == any(problem["kind"] == MALFORMED for problem in record["problems"])
        assert all(set(problem) == {"kind", "text", "name"} and problem["text"] for problem in record["problems"])
    return records


def gold(build, config):
    rows = build("sgd", config)["validation"]
    if config == "d3st":
        return {row["id"]: row["target"] for row in rows}
    if config == "agent-call-chat":
        return {row["id"]: gold_text(row) for row in rows}
    return {row["id"]: row["completion"][0]["content"] for row in rows}


# (config, how a text is spoilt, the kind it gives, what was unknown, words of what the reader says)
SPOILT = [
    ("dst-chat", lambda t: t + "\nMadeUp_9: intent=Nothing", "unknown_service", "MadeUp_9", "unknown service"),
    ("dst-chat", lambda t: t.replace("intent=", "no_such_slot=x; intent="), "unknown_slot", "no_such_slot",
     "unknown slot 'no_such_slot'"),
    ("dst-chat", lambda t: t + "; words without an equals sign", "malformed", None, "is not name=value"),
    ("nlu-chat", lambda t: "intents: NoSuchIntent\nspans: none", "unknown_intent", "NoSuchIntent", "unknown intent"),
    ("agent-call-chat", lambda t: '<tool_call>{"name": "Nope_1__Nothing", "arguments": {}}</tool_call>',
     "unknown_tool", "Nope_1__Nothing", "Nope_1__Nothing"),
    ("agent-call-chat", lambda t: "I will not call anything.", "malformed", None, ""),
    ("d3st", lambda t: t.replace("[states]", "[states] 99=x"), "unknown_slot", "99", "99"),
]


@pytest.mark.parametrize("config, spoil, kind, name, words", SPOILT)
def test_a_records_problems_say_what_was_wrong_and_agree_with_the_counts(build, cache, config, spoil, kind, name,
                                                                         words):
    texts = gold(build, config)
    spoilt = next(iter(texts))
    texts[spoilt] = spoil(texts[spoilt])
    metrics = score(cache, config, texts)
    records = check_records_agree_with_the_counts(metrics)
    found = [problem for problem in records[spoilt]["problems"] if problem["kind"] == kind]
    assert found and found[0]["name"] == name and words in found[0]["text"], records[spoilt]["problems"]
    assert records[spoilt]["malformed"] == (kind == "malformed")
    clean = [record for identifier, record in records.items() if identifier != spoilt]
    assert all(record["problems"] == [] and record["malformed"] is False for record in clean)


@pytest.mark.parametrize("config", ["dst-chat", "d3st", "agent-call-chat", "nlu-chat", "nlg-chat", "user-chat"])
def test_a_row_without_a_prediction_or_with_no_text_says_so(build, cache, config):
    texts = gold(build, config)
    absent, not_text = list(texts)[:2]
    del texts[absent]
    texts[not_text] = 7
    metrics = score(cache, config, texts, allow_missing=True)
    records = check_records_agree_with_the_counts(metrics)
    if config in ("nlg-chat", "user-chat"):  # generated text leaves both out of the metrics, and of the records
        assert absent not in records and not_text not in records
        assert all(record["problems"] == [] for record in records.values())
        return
    assert records[absent]["missing"] and records[absent]["problems"] == [] and not records[absent]["malformed"]
    assert [problem["kind"] for problem in records[not_text]["problems"]] == ["malformed"]
    assert records[not_text]["malformed"] and not records[not_text]["missing"]


def test_the_command_writes_the_problems_into_the_per_row_file(build, cache, tmp_path):
    texts = gold(build, "dst-chat")
    spoilt = next(iter(texts))
    texts[spoilt] += "\nMadeUp_9: intent=Nothing"
    per_row = tmp_path / "rows.jsonl"
    subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", "dst-chat",
                    "--split", "validation", "--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                    "--cache-dir", cache, "--predictions", str(write_predictions(tmp_path / "p.jsonl", texts)),
                    "--per-row", str(per_row), "--output", str(tmp_path / "m.json")], check=True)
    first = json.loads(per_row.read_text().splitlines()[0])
    assert first["id"] == spoilt and [(p["kind"], p["name"]) for p in first["problems"]] == [("unknown_service",
                                                                                              "MadeUp_9")]
    assert first["malformed"] is False and first["missing"] is False
