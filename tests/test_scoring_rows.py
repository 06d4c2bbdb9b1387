"""What every scorer shares: reading a predictions file, pairing predictions with rows by
id, the checks of records and writing metrics, each failure naming its place."""

import json
import re

import pytest

from unified_dialogue.scoring.rows import ScoringError, get, load_json, looks_like, pair, read_predictions, write_metrics

ROWS = [{"id": "sgd/test/1_00000/0", "x": 1}, {"id": "sgd/test/1_00000/2", "x": 2}, {"id": "sgd/test/1_00001/0"}]


def write_lines(tmp_path, *lines):
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_predictions_are_read_in_file_order_blank_lines_skipped(tmp_path):
    path = write_lines(tmp_path, '{"id": "b", "text": "2"}', "", '{"id": "a", "text": "", "score": 3}', "  ")
    predictions = read_predictions(path)
    assert predictions == {"b": "2", "a": ""} and list(predictions) == ["b", "a"]


@pytest.mark.parametrize("line, problem", [
    ('{"id": "a", "text": ', "line 2: not JSON"),
    ('["a", "b"]', "line 2: a JSON list, not an object"),
    ('{"id": "a"}', "line 2: no 'text'"),
    ('{"id": 7, "text": "x"}', "line 2: 'id' is an int, not a str"),
    ('{"id": "z", "text": "again"}', "line 2: id 'z' is given twice"),
])
def test_a_bad_line_is_an_error_naming_file_and_line(tmp_path, line, problem):
    path = write_lines(tmp_path, '{"id": "z", "text": "first"}', line)
    with pytest.raises(ScoringError, match=f"{path}, {problem}"):
        read_predictions(path)


def test_a_text_that_is_not_a_string_is_read_for_pair_to_refuse_or_count(tmp_path):
    predictions = read_predictions(write_lines(tmp_path, '{"id": "sgd/test/1_00000/0", "text": null}',
                                               '{"id": "sgd/test/1_00000/2", "text": "b"}'))
    with pytest.raises(ScoringError, match="prediction 'sgd/test/1_00000/0': the text is null, not a string"):
        pair(predictions, ROWS)
    pairs = pair(predictions, ROWS, allow_missing=True)
    assert (pairs.malformed, pairs.absent) == (["sgd/test/1_00000/0"], ["sgd/test/1_00001/0"])
    assert pairs.missing == ["sgd/test/1_00000/0", "sgd/test/1_00001/0"]


def test_an_unreadable_file_is_named(tmp_path):
    with pytest.raises(ScoringError, match="missing.jsonl: cannot be read"):
        read_predictions(tmp_path / "missing.jsonl")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ScoringError, match="bad.json: cannot be read as JSON"):
        load_json(tmp_path / "bad.json")


def test_pair_gives_each_row_its_text_in_row_order():
    pairs = pair({"sgd/test/1_00001/0": "c", "sgd/test/1_00000/0": "a", "sgd/test/1_00000/2": "b"}, ROWS)
    assert [(row["id"], text) for row, text in pairs] == [
        ("sgd/test/1_00000/0", "a"), ("sgd/test/1_00000/2", "b"), ("sgd/test/1_00001/0", "c")]
    assert pairs.missing == []


def test_a_missing_prediction_is_an_error_or_a_counted_miss():
    with pytest.raises(ScoringError, match=r"2 row\(s\) have no prediction: 'sgd/test/1_00000/2', "
                                           r"'sgd/test/1_00001/0'"):
        pair({"sgd/test/1_00000/0": "a"}, ROWS)
    pairs = pair({"sgd/test/1_00000/0": "a"}, ROWS, allow_missing=True)
    assert [text for _, text in pairs] == ["a", None, None]
    assert pairs.missing == ["sgd/test/1_00000/2", "sgd/test/1_00001/0"]


def test_an_unknown_id_a_non_string_or_a_repeated_row_is_named():
    with pytest.raises(ScoringError, match=r"1 predicted id\(s\) name no row: 'sgd/test/9_00000/0'"):
        pair({"sgd/test/9_00000/0": "x"}, ROWS, allow_missing=True)
    with pytest.raises(ScoringError, match=r"prediction 'sgd/test/1_00000/0': the text is a number, not a string"):
        pair({"sgd/test/1_00000/0": 3, "sgd/test/1_00000/2": "b", "sgd/test/1_00001/0": "c"}, ROWS)
    with pytest.raises(ScoringError, match=r"predictions: a list, not a dict"):
        pair(["a"], ROWS)
    with pytest.raises(ScoringError, match=r"row #1: id 'a' is the id of an earlier row too"):
        pair({}, [{"id": "a"}, {"id": "a"}], allow_missing=True)
    with pytest.raises(ScoringError, match=r"row #0: no 'key'"):
        pair({}, [{"id": "a"}], key="key", allow_missing=True)


def test_a_non_string_prediction_is_a_counted_miss_with_allow_missing():
    pairs = pair({"sgd/test/1_00000/0": 3, "sgd/test/1_00000/2": "b"}, ROWS, allow_missing=True)
    assert [text for _, text in pairs] == [None, "b", None]
    assert pairs.missing == ["sgd/test/1_00000/0", "sgd/test/1_00001/0"]
    assert pairs.malformed == ["sgd/test/1_00000/0"]


def test_pair_takes_a_dataset_and_another_key():
    import datasets

    rows = datasets.Dataset.from_list([{"gem_id": "g1", "target": "x"}, {"gem_id": "g2", "target": "y"}])
    pairs = pair({"g2": "Y", "g1": "X"}, rows, key="gem_id")
    assert [(row["target"], text) for row, text in pairs] == [("x", "X"), ("y", "Y")]


def test_checks_name_the_field_and_an_int_is_not_a_bool():
    assert get({"n": 3}, "n", int, "here") == 3
    with pytest.raises(ScoringError, match="here: 'n' is a bool, not an int"):
        get({"n": True}, "n", int, "here")


def test_metrics_are_written_as_the_evaluator_writes_them(tmp_path):
    path = tmp_path / "metrics.json"
    write_metrics({"b": {"y": 0.5, "x": 1.0}, "a": {}}, path)
    text = path.read_text()
    assert text == '{\n  "a": {},\n  "b": {\n    "x": 1.0,\n    "y": 0.5\n  }\n}' and json.loads(text)


@pytest.mark.parametrize("unknown, hint", [
    (["ccpe/train/CCPE-1/0"], "they look like ids of the corpus ccpe, not sgd"),
    (["sgd/test/1_00000/0"], "they look like ids of the split test, not validation"),
    (["sgd/validation/1_00000/0/1"], "another shape than this config's ids"),
    (["sgd/validation/1_00000/1"], "this config has no row for their turns"),
    (["sgd/validation/9_99999/0"], "no dialogue of this split has their dialogue ids"),
])
def test_unknown_ids_say_what_they_look_like(unknown, hint):
    known = ["sgd/validation/1_00000/0", "sgd/validation/1_00000/2"]
    assert hint in looks_like(unknown, known)
    with pytest.raises(ScoringError, match=re.escape(hint)):
        pair({unknown[0]: "x"}, [{"id": i} for i in known], allow_missing=True)
