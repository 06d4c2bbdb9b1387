"""Scoring preference models (scoring.preference): TRL's own reward accuracy and margin for
the same scores (tests/fixtures/preference_trl), the scores files and their errors."""

import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, checksums, fixture_dir, write_predictions
from unified_dialogue.scoring import ScoringError
from unified_dialogue.scoring.preference import read_scores, row_scores, score_preference

REFERENCE = json.loads((FIXTURES / "preference_trl" / "metrics.json").read_text(encoding="utf-8"))


def write_scores(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: f"{len(c['scores'])} rows")
def test_accuracy_and_margin_are_trls(tmp_path, case):
    rows = [{"id": f"r{k}"} for k in range(len(case["scores"]))]
    path = write_scores(tmp_path / "scores.jsonl", [{"id": f"r{k}", **s} for k, s in enumerate(case["scores"])])
    metrics = score_preference(read_scores(path), rows)
    assert metrics["accuracy"] == pytest.approx(case["trl"]["accuracy"], abs=1e-6)
    assert metrics["margin"] == pytest.approx(case["trl"]["margin"], rel=1e-6)
    assert (metrics["rows"], metrics["missing"]) == (len(rows), 0)


def test_the_gold_order_scores_1_and_its_reverse_0(build):
    for split, rows in build("faithdial", "preference").items():
        assert score_preference({i: (0.0, -1.0) for i in rows["id"]}, rows)["accuracy"] == 1.0, split
        assert score_preference({i: {"chosen": -2, "rejected": 0.5} for i in rows["id"]}, rows) == {
            "accuracy": 0.0, "margin": -2.5, "rows": rows.num_rows, "missing": 0, "missing_ids": []}


def test_a_tie_is_wrong_and_a_missing_row_too():
    rows = [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    with pytest.raises(ScoringError, match="1 row\\(s\\) have no prediction: 'c'"):
        score_preference({"a": (1.0, 1.0), "b": (2.0, 1.0)}, rows)
    metrics = score_preference({"a": (1.0, 1.0), "b": (2.0, 1.0)}, rows, allow_missing=True, per_row=True)
    assert metrics["accuracy"] == pytest.approx(1 / 3) and metrics["margin"] == 0.5
    clean = {"malformed": False, "problems": []}
    assert metrics["per_row"] == [{"id": "a", "accuracy": 0.0, "margin": 0.0, "missing": False, **clean},
                                  {"id": "b", "accuracy": 1.0, "margin": 1.0, "missing": False, **clean},
                                  {"id": "c", "accuracy": 0.0, "margin": None, "missing": True, **clean}]
    assert (metrics["rows"], metrics["missing_ids"]) == (2, ["c"])
    assert row_scores(float("-inf"), -3.0) == {"accuracy": 0.0, "margin": float("-inf")}


@pytest.mark.parametrize("line, problem", [
    ('{"id": "a", "chosen": 1.0}', "line 1: no 'rejected'"),
    ('{"id": "a", "text": "x"}', "line 1: no 'chosen'"),
    ('{"id": "a", "chosen": "1.5", "rejected": 0}', "line 1: 'chosen' is '1.5', not a number"),
    ('{"id": "a", "chosen": true, "rejected": 0}', "line 1: 'chosen' is True, not a number"),
    ('{"id": "a", "chosen": NaN, "rejected": 0}', "line 1: 'chosen' is NaN, not a score"),
    ('{"id": 3, "chosen": 1, "rejected": 0}', "line 1: 'id' is an int, not a str"),
    ('[1, 0]', "line 1: a JSON list, not an object"),
    ('{"id": "a", "chosen": 1', "line 1: not JSON"),
])
def test_a_bad_line_is_an_error_naming_the_file_and_line(tmp_path, line, problem):
    path = tmp_path / "scores.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ScoringError, match=f"^{path}, {problem}"):
        read_scores(path)


def test_an_id_twice_and_an_unknown_id_are_errors(tmp_path):
    path = write_scores(tmp_path / "scores.jsonl", [{"id": "a", "chosen": 1, "rejected": 0}] * 2)
    with pytest.raises(ScoringError, match="line 2: id 'a' is given twice"):
        read_scores(path)
    with pytest.raises(ScoringError, match="name no row: 'z'"):
        score_preference({"a": (1.0, 0.0), "z": (1.0, 0.0)}, [{"id": "a"}])
    with pytest.raises(ScoringError, match="prediction 'a': no 'rejected'"):
        score_preference({"a": {"chosen": 1.0}}, [{"id": "a"}])


def preference_command(tmp_path, predictions, *flags):
    return subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "faithdial", "--config",
                           "preference", "--split", "validation", "--data-dir", str(fixture_dir("faithdial")),
                           "--checksums", checksums("faithdial"), "--cache-dir", str(tmp_path / "cache"),
                           "--predictions", str(predictions), *flags], capture_output=True, text=True, timeout=600)


def test_the_command_reads_a_preference_file_as_scores(build, tmp_path):
    rows = build("faithdial", "preference")["validation"]
    scores = [{"id": i, "chosen": -float(k), "rejected": -1.5} for k, i in enumerate(rows["id"])]
    done = preference_command(tmp_path, write_scores(tmp_path / "scores.jsonl", scores), "--per-row",
                              str(tmp_path / "rows.jsonl"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    right = sum(s["chosen"] > s["rejected"] for s in scores)
    assert json.loads(done.stdout) == {"accuracy": right / len(scores), "margin": pytest.approx(
        sum(s["chosen"] - s["rejected"] for s in scores) / len(scores)), "rows": len(scores), "missing": 0,
        "missing_ids": []}
    records = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["accuracy"] for r in records] == [float(s["chosen"] > s["rejected"]) for s in scores]
    texts = write_predictions(tmp_path / "texts.jsonl", {i: "a text" for i in rows["id"]})
    done = preference_command(tmp_path, texts)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{texts}, line 1: no 'chosen'" in done.stderr
