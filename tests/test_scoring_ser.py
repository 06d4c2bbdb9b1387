"""Slot error rate: the upstream script's own output on the fixture predictions
(tests/fixtures/ser_official, see its NOTICE.md) with ``upstream_compat``, the seen and
unseen services by the train schema otherwise, and the per-turn check on hand-made acts."""

import ast
import json

import pytest

from conftest import FIXTURES
from unified_dialogue.scoring import ser
from unified_dialogue.scoring.rows import ScoringError
from unified_dialogue.scoring.generation import score_generation

SER = FIXTURES / "ser_official"
CASES = [(name.name, variant.name) for name in sorted(SER.iterdir()) if name.is_dir()
         for variant in sorted(name.iterdir()) if variant.is_dir()]
SGD = FIXTURES / "sgd"


def schemas(*splits):
    return [service for split in splits for service in json.loads((SGD / split / "schema.json").read_text())]


def rows_of(name):
    return json.loads((FIXTURES / "gem_official" / name / "rows.json").read_text(encoding="utf-8"))


def predictions_of(name, variant, rows):
    # one prediction per line, in row order, as the script reads them
    lines = (SER / name / variant / "predictions.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == len(rows)
    return {row["id"]: line for row, line in zip(rows, lines)}


def ser_groups(result):
    return {"overall" if group == "all" else group: metrics["ser"] for group, metrics in result.items()
            if group in ("all", "seen", "unseen")}


@pytest.mark.parametrize("name,variant", CASES)
def test_upstream_compat_equals_the_upstream_script(name, variant):
    rows = rows_of(name)
    # the script printed a Python dict of floats
    expected = ast.literal_eval((SER / name / variant / "ser.txt").read_text())
    result = score_generation(predictions_of(name, variant, rows), rows, metrics=["ser"],
                              schemas=schemas("train", "dev", "test"), upstream_compat=True)
    assert ser_groups(result) == expected


def test_default_tags_unseen_services_by_the_train_schema():
    rows = rows_of("sgd_dev")  # services Alarm_1, Media_2, Movies_2, Music_1; train has Media_1, Music_1, Music_2
    predictions = predictions_of("sgd_dev", "perturbed", rows)
    every_schema = schemas("train", "dev", "test")
    right = score_generation(predictions, rows, metrics=["ser"], schemas=every_schema, train_schemas=schemas("train"))
    compat = score_generation(predictions, rows, metrics=["ser"], schemas=every_schema, upstream_compat=True)
    assert right["all"] == compat["all"]
    unseen = [row for row in rows if row["service"] != "Music_1"]
    assert right["unseen"]["N"] == len(unseen) and compat["unseen"]["N"] == sum(r["service"] == "Alarm_1" for r in rows)
    alone = score_generation({row["id"]: predictions[row["id"]] for row in unseen}, unseen, metrics=["ser"],
                             schemas=every_schema, train_schemas=schemas("train"))
    assert right["unseen"]["ser"] == alone["all"]["ser"]


def test_seen_tag():
    train = ser.train_service_names(["Trains_1", "Buses_1"])
    assert ser.seen_tag("Trains_1", train) == "seen"
    assert ser.seen_tag("Buses_3", train) == "unseen"
    # the script's fixed list: "Train" never matches SGD's Trains_1, Buses_3 counts as seen
    assert ser.seen_tag("Trains_1", None, upstream_compat=True) == "seen"
    assert ser.seen_tag("Buses_3", None, upstream_compat=True) == "seen"
    assert ser.seen_tag("Alarm_1", None, upstream_compat=True) == "unseen"
    with pytest.raises(ScoringError, match="train split's schema"):
        ser.seen_tag("Alarm_1", None)


NONCATEGORICAL = {"Restaurants_1": {"city", "restaurant_name"}}
ACTS = [("Restaurants_1", "restaurant_name", ["Chez Panisse"]), ("Restaurants_1", "city", ["Berkeley"]),
        ("Restaurants_1", "price_range", ["moderate"]), ("Restaurants_1", "count", ["3"])]


def test_slot_error_checks_noncategorical_values_as_substrings():
    assert not ser.slot_error(ACTS, "CHEZ PANISSE in berkeley.", NONCATEGORICAL)
    assert ser.slot_error(ACTS, "Chez Panisse is moderate.", NONCATEGORICAL)  # city missing
    assert not ser.slot_error(ACTS, "Chez Panissea, Berkeleyan", NONCATEGORICAL)  # substrings count
    # categorical slots, slots outside the schema and unknown services are not checked
    assert not ser.slot_error([("Hotels_1", "city", ["Paris"])], "", NONCATEGORICAL)
    assert not ser.slot_error(ACTS[2:], "", NONCATEGORICAL)


def test_slot_values_of_nlg_and_response_rows():
    nlg = {"service": "Alarm_1", "dialog_acts": [{"act": 11, "slot": "alarm_time", "values": ["6:30 am"]}]}
    response = {"dialog_acts": [{"act": "OFFER", "domain": "Alarm_1", "slot_value_table": [
        {"slot": "alarm_time", "relation": None, "values": [{"value": "6:30 am", "cononical_value": "06:30"}]}]}]}
    assert ser.row_slot_values(nlg) == ser.row_slot_values(response) == [("Alarm_1", "alarm_time", ["6:30 am"])]
    assert ser.row_service(response) == "Alarm_1"


def test_ser_is_a_percentage_and_needs_schemas():
    assert ser.ser([True, False, False, False]) == 25.0
    assert ser.ser([]) is None
    rows = rows_of("sgd_dev")
    with pytest.raises(ScoringError, match="needs SGD's schemas"):
        score_generation({row["id"]: "" for row in rows}, rows, metrics=["ser"])


def test_ser_on_rows_without_acts_names_the_row():
    rows = [{"id": "sgd/test/1_00000/1", "completion": [{"role": "assistant", "content": "Which city?"}]}]
    with pytest.raises(ScoringError, match="'sgd/test/1_00000/1' has no service"):
        score_generation({"sgd/test/1_00000/1": "x"}, rows, metrics=["ser"], schemas=schemas("train"),
                         upstream_compat=True)
    with pytest.raises(ScoringError, match="'sgd/test/1_00000/1' has no dialog_acts"):
        score_generation({"sgd/test/1_00000/1": "x"}, rows, metrics=["ser"], schemas=schemas("train"),
                         group_by="id")
