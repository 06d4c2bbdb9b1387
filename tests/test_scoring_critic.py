"""Scoring faithfulness critics (scoring.critic): torchmetrics' own numbers for the same
labels (tests/fixtures/critic_torchmetrics), gold labels and constant predictors on the
FaithDial fixtures, and how a model's text is read."""

import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, checksums, fixture_dir, write_predictions
from unified_dialogue.scoring import ScoringError
from unified_dialogue.scoring.critic import read_label, row_scores, score_critic
from unified_dialogue.views.faithfulness import CRITIC_LABELS, ENTAILMENT, HALLUCINATION

REFERENCE = json.loads((FIXTURES / "critic_torchmetrics" / "metrics.json").read_text(encoding="utf-8"))
SPLITS = ("train", "validation", "test", "validation_random", "validation_topic", "test_random", "test_topic")


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: f"{len(c['gold'])} rows")
def test_the_metrics_are_torchmetrics_as_faithcritic_computes_them(case):
    rows = [{"id": str(k), "label": label} for k, label in enumerate(case["gold"])]
    metrics = score_critic({str(k): label for k, label in enumerate(case["predicted"])}, rows)
    expected = case["torchmetrics"]
    assert metrics["accuracy"] == pytest.approx(expected["accuracy"], abs=1e-6)
    assert metrics["macro"] == pytest.approx(expected["macro"], abs=1e-6)
    for label in CRITIC_LABELS:
        values = metrics["labels"][label]
        if label in case["gold"] or label in case["predicted"]:
            assert {k: values[k] for k in expected["per_class"][label]} == pytest.approx(
                expected["per_class"][label], abs=1e-6), label
            assert values["support"] == case["gold"].count(label)
        else:  # neither gold nor predicted: no value (torchmetrics says 0.0, and leaves it out of macro)
            assert values == {"precision": None, "recall": None, "f1": None, "support": 0}


@pytest.mark.parametrize("config", ["critic", "critic-chat"])
def test_gold_labels_score_1(build, config):
    for split in SPLITS:
        rows = build("faithdial", config)[split]
        golds = build("faithdial", "critic")[split]["label"]
        texts = {row["id"]: label for row, label in zip(rows, golds)}
        metrics = score_critic(texts, rows)
        assert metrics["accuracy"] == 1.0 and metrics["macro"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
        assert all(v["f1"] in (1.0, None) for v in metrics["labels"].values()), split
        assert (metrics["malformed"], metrics["missing"]) == (0, 0)


@pytest.mark.parametrize("constant", CRITIC_LABELS)
def test_a_constant_predictor_scores_its_class_share(build, constant):
    other = next(label for label in CRITIC_LABELS if label != constant)
    for split in SPLITS:
        rows = build("faithdial", "critic")[split]
        share = rows["label"].count(constant) / rows.num_rows
        metrics = score_critic({row_id: constant for row_id in rows["id"]}, rows)
        assert metrics["accuracy"] == pytest.approx(share)
        assert metrics["labels"][constant] == pytest.approx({"precision": share, "recall": 1.0, "f1": 2 * share / (1 + share),
                                                             "support": rows["label"].count(constant)})
        assert metrics["labels"][other] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                            "support": rows.num_rows - rows["label"].count(constant)}
        assert metrics["macro"] == pytest.approx({"precision": share / 2, "recall": 0.5, "f1": share / (1 + share)})


@pytest.mark.parametrize("text, label", [
    ("Hallucination", HALLUCINATION),
    ("entailment", ENTAILMENT),
    ("  HALLUCINATION.\n", HALLUCINATION),
    ("**Entailment**", ENTAILMENT),
    ('"Hallucination"', HALLUCINATION),
    ("`Entailment`.", ENTAILMENT),
    ("<think>The knowledge gives no date.</think>\nHallucination", HALLUCINATION),
    ("```\nEntailment\n```", ENTAILMENT),
    ("Hallucination because it adds a date", None),
    ("Entailment, Hallucination", None),
    ("Partial Hallucination", None),
    ("", None),
    ("Hallucination..", None),
    ("<|channel|>analysis<|message|>Unsupported date.<|end|><|start|>assistant<|channel|>final<|message|>"
     "Hallucination<|return|>", HALLUCINATION),
])
def test_a_text_is_read_as_one_label_leniently(text, label):
    assert read_label(text) == (label, [])


def test_an_unreadable_text_is_malformed_and_wrong_a_missing_one_missing(build):
    rows = build("faithdial", "critic")["test"]
    texts = dict(zip(rows["id"], rows["label"]))
    first, second, third = rows["id"][:3]
    texts[first] = "I think it is faithful."
    del texts[second]
    with pytest.raises(ScoringError, match="1 row\\(s\\) have no prediction"):
        score_critic(texts, rows)
    texts[third] = 7  # not a text
    metrics = score_critic(texts, rows, allow_missing=True, per_row=True)
    assert (metrics["malformed"], metrics["malformed_ids"]) == (2, [third, first])
    assert (metrics["missing"], metrics["missing_ids"]) == (1, [second])
    assert metrics["accuracy"] == pytest.approx((rows.num_rows - 3) / rows.num_rows)
    records = {record["id"]: record for record in metrics["per_row"]}
    assert records[first] == {"id": first, "accuracy": 0.0, "label": rows["label"][0], "predicted": None,
                              "malformed": True, "missing": False, "problems": [
                                  {"kind": "malformed", "name": None,
                                   "text": "not one of Entailment, Hallucination: 'I think it is faithful.'"}]}
    assert records[second]["missing"] and records[second]["problems"] == [] and not records[second]["malformed"]
    assert [p["text"] for p in records[third]["problems"]] == ["the prediction is not a text"]
    assert all(not r["problems"] for i, r in records.items() if i not in (first, third))
    assert sum(r["accuracy"] for r in metrics["per_row"]) / rows.num_rows == metrics["accuracy"]
    values, problems = row_scores("Maybe", ENTAILMENT)
    assert values["accuracy"] == 0.0 and [p.kind for p in problems] == ["malformed"]
    values, problems = row_scores("<think>It says Entailment", ENTAILMENT)  # a reasoning that never ends
    assert values["predicted"] is None and [p.kind for p in problems] == ["malformed"]


def test_an_unknown_id_is_an_error_naming_it(build):
    rows = build("faithdial", "critic")["test"]
    with pytest.raises(ScoringError, match="1 predicted id\\(s\\) name no row: 'faithdial/test/0/1/edited'"):
        score_critic({**dict(zip(rows["id"], rows["label"])), "faithdial/test/0/1/edited": ENTAILMENT}, rows)


def critic_command(tmp_path, config, predictions, *flags):
    return subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "faithdial", "--config", config,
                           "--split", "test", "--data-dir", str(fixture_dir("faithdial")), "--checksums",
                           checksums("faithdial"), "--cache-dir", str(tmp_path / "cache"), "--predictions",
                           str(predictions), *flags], capture_output=True, text=True, timeout=600)


def test_the_command_scores_critic_chat_texts_with_per_row_records(build, tmp_path):
    rows = build("faithdial", "critic-chat")["test"]
    texts = {row["id"]: row["completion"][0]["content"] for row in rows}
    texts[rows["id"][0]] = "faithful?"
    done = critic_command(tmp_path, "critic-chat", write_predictions(tmp_path / "p.jsonl", texts), "--per-row",
                          str(tmp_path / "rows.jsonl"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    metrics = json.loads(done.stdout)
    assert metrics["accuracy"] == pytest.approx((rows.num_rows - 1) / rows.num_rows)
    assert (metrics["malformed_ids"], metrics["positive"]) == ([rows["id"][0]], HALLUCINATION)
    records = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == rows["id"] and records[0]["malformed"] and not records[1]["malformed"]
    assert [problem["kind"] for problem in records[0]["problems"]] == ["malformed"] and records[1]["problems"] == []


def test_the_command_scores_the_rows_of_the_options_given(build, tmp_path):
    rows = build("faithdial", "critic", rewritten=False)["test"]
    predictions = write_predictions(tmp_path / "p.jsonl", dict(zip(rows["id"], rows["label"])))
    done = critic_command(tmp_path, "critic", predictions, "--option", "rewritten=false")
    assert done.returncode == 0 and json.loads(done.stdout)["accuracy"] == 1.0
    every = build("faithdial", "critic")["test"]
    done = critic_command(tmp_path, "critic", write_predictions(tmp_path / "all.jsonl", dict(
        zip(every["id"], every["label"]))), "--option", "rewritten=false")
    assert done.returncode == 2 and "/rewritten" in done.stderr and done.stderr.count("\n") == 1
