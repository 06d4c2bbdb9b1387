"""The DST scorer: each metric on hand-computed cases, the groups, the errors, and gold
references scored against themselves; its command line: tests/test_scoring_dst_command.py.

Expected values are worked out by hand in the comments next to them. The small dialogues
are made up here; the gold tests read the SGD fixtures (tests/fixtures/sgd, CC BY-SA 4.0, see
its NOTICE.md).
"""

import copy
import json

import pytest

from conftest import FIXTURES
from dst_cases import (ALL, HOTELS, PREDICTION, REFERENCE, RESTAURANTS, SCHEMAS, TRAIN_SCHEMAS, approx, dialogue,
                       dst_rows, expected_groups, frame, score_dialogues, service, slot, write_json)
from unified_dialogue.scoring import dst
from unified_dialogue.scoring.dst import files as dst_files
from unified_dialogue.scoring.dst import ScoringError, score_dst, token_sort_ratio

SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}


# ---------------------------------------------------------------- metrics one by one

@pytest.mark.parametrize("reference, prediction, expected", [
    ([], [], (1.0, 1.0, 1.0)),                      # both empty: 1
    (["a"], [], (0.0, 1.0, 0.0)),                   # nothing predicted: precision 1, recall 0
    ([], ["a"], (0.0, 0.0, 1.0)),
    (["a"], ["b"], (0.0, 0.0, 0.0)),
    (["a"], ["a", "a"], (2 / 3, 0.5, 1.0)),         # multisets: one of the two "a" is right
    (["a", "a", "b"], ["a", "b", "b"], (2 / 3, 2 / 3, 2 / 3)),
    (["a", "a"], ["a", "a"], (1.0, 1.0, 1.0)),
    (["a", "a", "b"], ["a", "a"], (0.8, 1.0, 2 / 3)),  # 2 of 2 predicted, 2 of 3 in the reference
])
def test_f1_scores_over_multisets(reference, prediction, expected):
    assert dst.f1_scores(reference, prediction) == pytest.approx(expected)


@pytest.mark.parametrize("a, b, expected", [
    ("Italian food", "food ITALIAN!", 100),   # case, punctuation and token order do not count
    ("", "", 100),
    ("!!!", "", 100),                         # both are empty once processed
    ("abc", "", 0),
    ("café", "caf", 100),                     # U+0080..U+00FF are deleted, so "é" goes
    ("naïve", "naive", 89),                   # "nave"/"naive": 4 matching of 9 characters, 2*4/9
    ("Łódź", "lodz", 29),                     # "ó" goes, "Ł" and "ź" stay: "łdź"/"lodz", 2*1/7
    ("abcdefgh", "aijklmno", 12),             # 2*1/16 = 12.5, rounded half to even
    ("abcdefgh", "abcijklm", 38),             # 2*3/16 = 37.5, rounded half to even
    ("ab1cd2xxx", "xxxab3cd4", 33),           # longest block first ("xxx"): 2*3/18; not 2*4/18
    ("ab" * 100, "ba" * 100 + "c", 0),        # difflib's junk heuristic: in a string of 200+ characters,
                                              # "a" and "b" (100 times each) are too frequent to match
    ("a" * 300, "A" * 300, 100),              # equal once processed: 100 whatever the heuristic
])
def test_token_sort_ratio(a, b, expected):
    assert token_sort_ratio(a, b) == expected


def read(sgd_frame):
    return dst.read_frame(sgd_frame, "test")


RESTAURANT_SLOTS = dst.service_slots(SCHEMAS)["Restaurants_1"]


def goal(reference_values, predicted_values, use_fuzzy_match=True, slots=RESTAURANT_SLOTS):
    scores = dst.slot_scores(read(frame("Restaurants_1", values=reference_values)),
                             read(frame("Restaurants_1", values=predicted_values)), slots, use_fuzzy_match, "test")
    return dst.goal_accuracies(scores)


def test_goal_accuracies_fuzzy_and_exact():
    reference = {"city": ["San Jose", "SJ"], "restaurant_name": ["abcdefgh"], "cuisine": ["Italian"]}
    predicted = {"city": ["san jose!"], "restaurant_name": ["abcijklm"], "cuisine": ["Italian", "Mexican"]}
    # fuzzy: city 1.0 (equal once processed), cuisine 1 (first values equal), restaurant_name 0.38
    assert goal(reference, predicted) == pytest.approx({
        "average_goal_accuracy": (1.0 + 1.0 + 0.38) / 3, "average_cat_accuracy": 1.0,
        "average_noncat_accuracy": (1.0 + 0.38) / 2,
        "joint_goal_accuracy": 0.38, "joint_cat_accuracy": 1.0, "joint_noncat_accuracy": 0.38})
    # exact: city 0, restaurant_name 0, cuisine 1
    assert goal(reference, predicted, use_fuzzy_match=False) == pytest.approx({
        "average_goal_accuracy": 1 / 3, "average_cat_accuracy": 1.0, "average_noncat_accuracy": 0.0,
        "joint_goal_accuracy": 0.0, "joint_cat_accuracy": 1.0, "joint_noncat_accuracy": 0.0})


def test_noncategorical_value_matches_any_reference_variant():
    # "SJ" is the reference's second variant; only the first predicted value counts
    assert goal({"city": ["San Jose", "SJ"]}, {"city": ["sj", "San Jose"]})["average_goal_accuracy"] == 1.0
    assert goal({"city": ["San Jose", "SJ"]}, {"city": ["sj", "San Jose"]}, False)["average_goal_accuracy"] == 0.0
    assert goal({"city": ["San Jose", "SJ"]}, {"city": ["SJ"]}, False)["average_goal_accuracy"] == 1.0


def test_categorical_value_is_compared_with_the_first_reference_value_only():
    assert goal({"cuisine": ["Italian", "Mexican"]}, {"cuisine": ["Mexican"]})["average_cat_accuracy"] == 0.0
    assert goal({"cuisine": ["Italian"]}, {"cuisine": ["italian"]})["average_cat_accuracy"] == 0.0  # never fuzzy


def test_slots_the_reference_leaves_empty_count_in_joint_accuracy_only():
    # city filled and right; cuisine predicted but empty in the reference: 0; restaurant_name empty in both: 1
    accuracies = goal({"city": ["Paris"]}, {"city": ["Paris"], "cuisine": ["Italian"]})
    assert accuracies == pytest.approx({
        "average_goal_accuracy": 1.0, "average_cat_accuracy": None, "average_noncat_accuracy": 1.0,
        "joint_goal_accuracy": 0.0, "joint_cat_accuracy": 0.0, "joint_noncat_accuracy": 1.0})


def test_nothing_filled_and_no_slots_give_no_value():
    assert goal({}, {}) == {"average_goal_accuracy": None, "average_cat_accuracy": None,
                            "average_noncat_accuracy": None, "joint_goal_accuracy": 1.0,
                            "joint_cat_accuracy": 1.0, "joint_noncat_accuracy": 1.0}
    assert set(goal({}, {}, slots=()).values()) == {None}  # a service without slots


def test_predicted_slots_outside_the_schema_are_ignored():
    assert goal({"city": ["Paris"]}, {"city": ["Paris"], "not_a_slot": ["x"]})["joint_goal_accuracy"] == 1.0


UTTERANCE = "Italian food in San Jose please"  # "San Jose" is [16, 24), "Italian" [0, 7)
REFERENCE_SPANS = [("city", 16, 24), ("cuisine", 0, 7)]  # cuisine is categorical: never tagged


@pytest.mark.parametrize("spans, expected", [
    ([("city", 16, 24)], (1.0, 1.0, 1.0)),
    ([("city", 16, 24), ("cuisine", 1, 3)], (1.0, 1.0, 1.0)),       # categorical spans do not count
    ([], (0.0, 1.0, 0.0)),
    ([("city", 15, 24)], (0.0, 0.0, 0.0)),                          # " San Jose" is another text
    ([("city", 16, 24), ("restaurant_name", 0, 4)], (2 / 3, 0.5, 1.0)),
    ([("restaurant_name", 16, 24)], (0.0, 0.0, 0.0)),               # the right text under another slot
])
def test_slot_tagging_compares_slot_and_text(spans, expected):
    reference = read(frame("Restaurants_1", spans=REFERENCE_SPANS))
    prediction = read(frame("Restaurants_1", spans=spans))
    noncategorical = {"city", "restaurant_name"}
    assert dst.slot_tagging_scores(reference, prediction, UTTERANCE, noncategorical, "test") == pytest.approx(expected)


def test_slot_tagging_is_not_scored_without_predicted_spans():
    reference = read(frame("Restaurants_1", spans=REFERENCE_SPANS))
    for prediction in (frame("Restaurants_1"), {**frame("Restaurants_1"), "slots": None}):
        assert dst.slot_tagging_scores(reference, read(prediction), UTTERANCE, {"city"}, "test") is None


# ---------------------------------------------------------------- frames grouped and averaged

def test_groups_and_averages():
    result = score_dialogues([PREDICTION], [REFERENCE])
    assert result == approx(expected_groups(ALL, RESTAURANTS, HOTELS))
    assert list(result) == sorted(result)


def test_without_fuzzy_matching():
    # t0 R: average 0.5, noncat 0, joint 0, joint noncat 0 (see PREDICTION); t2 R and t2 H as before
    restaurants = {**RESTAURANTS, "average_goal_accuracy": 0.75, "average_noncat_accuracy": 0.5,
                   "joint_goal_accuracy": 0.5, "joint_noncat_accuracy": 0.5}
    all_services = {**ALL, "average_goal_accuracy": 2.5 / 3, "average_noncat_accuracy": 2 / 3,
                    "joint_goal_accuracy": 1 / 3, "joint_noncat_accuracy": 2 / 3}
    assert score_dialogues([PREDICTION], [REFERENCE], use_fuzzy_match=False) == approx(
        expected_groups(all_services, restaurants, HOTELS))


def test_joint_accuracy_across_turn():
    # The joint accuracies of a turn's frames are multiplied per group: #ALL_SERVICES has t0 1 and
    # t2 1 * 0 = 0 for joint goal and cat, 1 and 1 * 1 for noncat; single-frame groups do not change.
    all_services = {**ALL, "joint_goal_accuracy": 0.5, "joint_cat_accuracy": 0.5, "joint_noncat_accuracy": 1.0}
    assert score_dialogues([PREDICTION], [REFERENCE], joint_acc_across_turn=True) == approx(
        expected_groups(all_services, RESTAURANTS, HOTELS))
    # Without fuzzy matching t0 has joint goal 0 and noncat 0: #ALL_SERVICES joint goal (0, 0), noncat (0, 1)
    result = score_dialogues([PREDICTION], [REFERENCE], use_fuzzy_match=False, joint_acc_across_turn=True)
    assert result["#ALL_SERVICES"]["joint_goal_accuracy"] == 0.0
    assert result["#ALL_SERVICES"]["joint_noncat_accuracy"] == 0.5


def test_a_domain_pools_its_services_and_seen_follows_the_train_schema():
    schemas = SCHEMAS + [service("Restaurants_2", [slot("city", False)])]
    reference = dialogue("2_00000", [
        ("USER", "a", [frame("Restaurants_1", values={"city": ["Paris"]})]),
        ("SYSTEM", "b", []),
        ("USER", "c", [frame("Restaurants_2", values={"city": ["Rome"]})]),
    ])
    prediction = copy.deepcopy(reference)
    prediction["turns"][2]["frames"][0]["state"]["slot_values"] = {}  # Restaurants_2 wrong
    result = score_dialogues([prediction], [reference], schemas=schemas)
    assert set(result) == {"#ALL_SERVICES", "#SEEN_SERVICES", "#UNSEEN_SERVICES", "Restaurants_1", "Restaurants_2",
                           "Restaurants"}
    assert result["Restaurants"]["joint_goal_accuracy"] == 0.5
    assert result["#SEEN_SERVICES"]["joint_goal_accuracy"] == 1.0
    assert result["#UNSEEN_SERVICES"]["joint_goal_accuracy"] == 0.0
    # the train schema can be given as names too; with both services seen, #UNSEEN_SERVICES goes
    result = score_dialogues([prediction], [reference], schemas=schemas, train=["Restaurants_1", "Restaurants_2"])
    assert "#UNSEEN_SERVICES" not in result and result["#SEEN_SERVICES"]["joint_goal_accuracy"] == 0.5


def test_the_domain_is_the_service_name_up_to_the_first_underscore():
    assert dst.groups_of("Ride_Sharing_2", False) == ("#ALL_SERVICES", "Ride_Sharing_2", "Ride", "#UNSEEN_SERVICES")
    assert dst.groups_of("Music_1", True) == ("#ALL_SERVICES", "Music_1", "Music", "#SEEN_SERVICES")


def test_a_service_name_without_underscore_counts_twice_in_its_group():
    # As in the evaluator, the service is its own domain: its frames enter that group twice,
    # which leaves averages alone but squares a turn's joint accuracy across the turn (0.5 -> 0.25).
    schemas = [service("Weather", [slot("city", False)])]
    reference = dialogue("3_00000", [("USER", "x", [frame("Weather", values={"city": ["abcd"]})])])
    prediction = dialogue("3_00000", [("USER", "x", [frame("Weather", values={"city": ["abef"]})])])  # 2*2/8
    result = score_dialogues([prediction], [reference], schemas=schemas, train=[])
    assert result["Weather"]["joint_goal_accuracy"] == result["#ALL_SERVICES"]["joint_goal_accuracy"] == 0.5
    result = score_dialogues([prediction], [reference], schemas=schemas, train=[], joint_acc_across_turn=True)
    assert result["#ALL_SERVICES"]["joint_goal_accuracy"] == 0.5
    assert result["Weather"]["joint_goal_accuracy"] == 0.25


def test_predicted_frames_of_other_services_are_ignored_and_the_last_of_a_service_counts():
    prediction = copy.deepcopy(PREDICTION)
    first = prediction["turns"][0]["frames"]
    first.insert(0, frame("Restaurants_1", intent="Wrong"))
    first.append(frame("Hotels_2", intent="Other"))
    assert score_dialogues([prediction], [REFERENCE]) == approx(expected_groups(ALL, RESTAURANTS, HOTELS))


def test_slot_tagging_appears_where_predictions_have_spans():
    reference = dialogue("4_00000", [("USER", UTTERANCE, [frame("Restaurants_1", spans=REFERENCE_SPANS)])])
    prediction = dialogue("4_00000", [("USER", UTTERANCE, [frame("Restaurants_1", spans=[("city", 16, 23)])])])
    result = score_dialogues([prediction], [reference])
    assert result["#ALL_SERVICES"]["slot_tagging_f1"] == 0.0  # "San Jos"
    assert result["#ALL_SERVICES"]["slot_tagging_precision"] == 0.0
    without = dialogue("4_00000", [("USER", UTTERANCE, [frame("Restaurants_1")])])
    assert "slot_tagging_f1" not in score_dialogues([without], [reference])["#ALL_SERVICES"]


def test_only_predicted_turns_are_scored():
    rows = [row for row in dst_rows([PREDICTION]) if row["turn_index"] == 0]
    result = score_dst(rows, list(dst_rows([REFERENCE])), SCHEMAS, TRAIN_SCHEMAS)
    assert set(result) == {"#ALL_SERVICES", "#SEEN_SERVICES", "Restaurants_1", "Restaurants"}
    assert result["#ALL_SERVICES"]["requested_slots_f1"] == 1.0


def test_turns_are_taken_by_dialogue_then_turn_index():
    other = dialogue("5_00000", [("USER", "x", [frame("Hotels_2")])])
    rows = list(dst_rows([PREDICTION, other]))
    rows = [rows[1], rows[2], rows[0]]  # 1_00000 t2, 5_00000 t0, 1_00000 t0
    turns = dst.row_turns(rows, list(dst_rows([REFERENCE, other])))
    assert [(t.dialogue_id, t.turn_index) for t in turns] == [
        ("sgd/validation/1_00000", 0), ("sgd/validation/1_00000", 2), ("sgd/validation/5_00000", 0)]


def test_predictions_by_original_id_and_without_context():
    rows = list(dst_rows([PREDICTION]))
    for row in rows:
        del row["dialogue_id"], row["context"]
    result = score_dst(rows, list(dst_rows([REFERENCE])), SCHEMAS, TRAIN_SCHEMAS)
    assert result == approx(expected_groups(ALL, RESTAURANTS, HOTELS))


def test_renamed_schema_scores_the_same(tmp_path):
    """An SGD-X-like variant: services, slots and intents renamed in the schema and the data."""
    names = {"Restaurants_1": "Restaurants_11", "Hotels_2": "Hotels_21", "city": "town", "cuisine": "food_type",
             "restaurant_name": "place_name", "where_to": "location", "rating": "stars", "Find": "Search"}

    def rename(value):
        text = json.dumps(value)
        for old, new in names.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        return json.loads(text)

    result = score_dialogues([rename(PREDICTION)], [rename(REFERENCE)], rename(SCHEMAS), rename(TRAIN_SCHEMAS))
    assert rename(SCHEMAS)[0]["slots"][0]["name"] == "town"
    assert result == approx({"#ALL_SERVICES": ALL, "#SEEN_SERVICES": RESTAURANTS, "#UNSEEN_SERVICES": HOTELS,
                             "Restaurants_11": RESTAURANTS, "Restaurants": RESTAURANTS,
                             "Hotels_21": HOTELS, "Hotels": HOTELS})


# ---------------------------------------------------------------- errors

def test_a_reference_frame_without_a_predicted_frame_is_an_error():
    prediction = copy.deepcopy(PREDICTION)
    del prediction["turns"][2]["frames"][1]
    with pytest.raises(ScoringError, match="sgd/validation/1_00000, turn 2: no predicted frame for service Hotels_2"):
        score_dialogues([prediction], [REFERENCE])


@pytest.mark.parametrize("change, message", [
    (lambda rows: rows[0]["context"][-1].update(utterance="Other"), "turn 0: context turn 0: the utterance differs"),
    (lambda rows: rows[1]["context"][1].update(role="USER"), "turn 2: context turn 1: role"),
    (lambda rows: rows[0].update(turn_index=1), "turn 1: not a user turn of the references"),
    (lambda rows: rows.append(dict(rows[0])), "turn 0: predicted twice"),
    (lambda rows: rows[0].update(dialogue_id="sgd/test/1_00000"), "sgd/test/1_00000, turn 0: not a user turn"),
    (lambda rows: rows[0]["frames"][0]["state"]["slot_values"][0].update(values=[]), "slot 'city' has no value"),
    (lambda rows: rows[0]["frames"][0]["state"].pop("active_intent"), "frame of Restaurants_1: no 'active_intent'"),
])
def test_predictions_that_cannot_be_scored(change, message):
    rows = list(dst_rows([PREDICTION]))
    change(rows)
    references = list(dst_rows([REFERENCE]))
    with pytest.raises(ScoringError, match=message):
        score_dst(rows, references, SCHEMAS, TRAIN_SCHEMAS)


def test_an_ambiguous_original_id_is_an_error():
    references = list(dst_rows([REFERENCE], "validation")) + list(dst_rows([REFERENCE], "test"))
    rows = [{k: v for k, v in row.items() if k != "dialogue_id"} for row in dst_rows([PREDICTION])]
    with pytest.raises(ScoringError, match="names dialogues of several splits"):
        score_dst(rows, references, SCHEMAS, TRAIN_SCHEMAS)


def test_nothing_to_score_is_an_error():
    with pytest.raises(ScoringError, match="nothing to score"):
        score_dst([], list(dst_rows([REFERENCE])), SCHEMAS, TRAIN_SCHEMAS)


# ---------------------------------------------------------------- gold references

def fixture_dialogues(split):
    return dst_files.read_dialogues(sorted((FIXTURES / "sgd" / split).glob("dialogues_*.json")))


@pytest.mark.parametrize("split", ["dev", "test"])
def test_gold_references_score_1_everywhere(tmp_path, split):
    data = FIXTURES / "sgd"
    schemas = json.loads((data / split / "schema.json").read_text())
    train = json.loads((data / "train" / "schema.json").read_text())
    dialogues = fixture_dialogues(split)
    write_json(tmp_path / "gold.json", list(dialogues.values()))
    services = {f["service"] for d in dialogues.values() for t in d["turns"] if t["speaker"] == "USER"
                for f in t["frames"]}
    seen = services & {s["service_name"] for s in train}
    groups = {"#ALL_SERVICES", *services, *(s.split("_")[0] for s in services)}
    groups |= {"#SEEN_SERVICES"} if seen else set()
    groups |= {"#UNSEEN_SERVICES"} if services - seen else set()
    rows = list(dst_rows(dialogues.values(), SPLIT_NAMES[split]))
    for across in (False, True):
        for fuzzy in (True, False):
            from_files = dst_files.score_dst_files(str(data), str(tmp_path), split, use_fuzzy_match=fuzzy,
                                             joint_acc_across_turn=across)
            from_rows = score_dst(rows, rows, schemas, train, use_fuzzy_match=fuzzy, joint_acc_across_turn=across)
            assert from_files == from_rows
            assert set(from_rows) == groups
            assert {value for metrics in from_rows.values() for value in metrics.values()} == {1.0}
            assert len(from_rows["#ALL_SERVICES"]) == 13  # every metric, slot tagging included


def test_datasets_as_they_are_loaded():
    """Predictions, references and schemas given as ``datasets.Dataset``s."""
    import datasets

    predictions = datasets.Dataset.from_list(list(dst_rows([PREDICTION])))
    references = datasets.Dataset.from_list(list(dst_rows([REFERENCE])))
    schemas = datasets.Dataset.from_list([{**s, "intents": []} for s in SCHEMAS])
    result = score_dst(predictions, references, schemas, schemas.select([0]))
    assert result == approx(expected_groups(ALL, RESTAURANTS, HOTELS))
