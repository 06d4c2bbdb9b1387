"""The SGD mapping functions one by one, on small records in the source format."""

import copy
import json

import pytest

from unified_dialogue import sgd
from unified_dialogue.columns import columns_of
from unified_dialogue.errors import SourceFormatError
from unified_dialogue.features import TURN, UNIFIED_FEATURES

TURN_TYPE = UNIFIED_FEATURES.arrow_schema.field("dialog").type.value_type


def action(act, slot="", values=(), canonical=None):
    values = list(values)
    return {"act": act, "canonical_values": list(canonical or values), "slot": slot, "values": values}


def frame_of(actions, service="Restaurants_1", slots=()):
    return {"actions": actions, "service": service, "slots": list(slots)}


def rows(add, arrow_type, *args):
    """What ``add(columns, *args)`` writes into columns of ``arrow_type``, as Python rows."""
    columns = columns_of(arrow_type)
    add(columns, *args)
    return columns.to_array(len(columns)).to_pylist()


def dialog_acts(frame, utterance=""):
    return rows(sgd.add_dialog_acts, TURN_TYPE.field("dialog_acts").type.value_type, frame, utterance,
                sgd.SYSTEM_ACTS, sgd.CanonicalValues())


def unified_turn(turn, train_services=frozenset()):
    (row,) = rows(sgd.add_turn, TURN_TYPE, turn, sgd.CanonicalValues(), train_services)
    return row


def unified_record(turns, services=("Restaurants_1",)):
    source = {"dialogue_id": "1_00000", "services": list(services), "turns": turns}
    (record,) = sgd.dialogues_to_table([source], "train", {s: {"service_name": s} for s in services},
                                       None, "f").to_pylist()
    assert sgd.unified_to_source(record) == source
    return record


def turn_of(speaker, *frames):
    return {"frames": list(frames), "speaker": speaker, "utterance": ""}


def test_act_without_slot_has_an_empty_table():
    assert dialog_acts(frame_of([action("GOODBYE")], "Hotels_1")) == [{
        "act": "GOODBYE", "domain": "Hotels_1", "slot_value_table": []}]


def test_act_value_gets_canonical_value_and_span():
    utterance = "Book it at 6 pm, 6 pm."
    spans = [{"slot": "time", "start": 11, "exclusive_end": 15}, {"slot": "time", "start": 17, "exclusive_end": 21}]
    (act,) = dialog_acts(frame_of([action("INFORM", "time", ["6 pm"], ["18:00"])], slots=spans), utterance)
    assert act["slot_value_table"] == [{"slot": "time", "relation": None, "values": [
        {"value": "6 pm", "cononical_value": "18:00", "start": 11, "end": 15}]}]


def test_act_values_keep_their_order_and_spans_match_slot_and_text():
    utterance = "Moana or Frozen?"
    spans = [{"slot": "title", "start": 9, "exclusive_end": 15}, {"slot": "genre", "start": 0, "exclusive_end": 5}]
    acts = dialog_acts(frame_of([action("OFFER", "title", ["Moana", "Frozen"]), action("GOODBYE")], slots=spans),
                       utterance)
    assert [a["act"] for a in acts] == ["OFFER", "GOODBYE"]
    assert [(v["value"], v["start"], v["end"]) for v in acts[0]["slot_value_table"][0]["values"]] == [
        ("Moana", None, None), ("Frozen", 9, 15)]


@pytest.mark.parametrize("source", [
    action("INFORM", "price_range", ["dontcare"]),
    action("INFORM_COUNT", "count", ["3"]),
    action("OFFER_INTENT", "intent", ["ReserveRestaurant"]),
    action("REQUEST", "city"),
])
def test_special_acts_are_kept_with_their_values(source):
    (act,) = dialog_acts(frame_of([source]))
    (entry,) = act["slot_value_table"]
    assert entry["slot"] == source["slot"]
    assert [v["value"] for v in entry["values"]] == source["values"]
    assert all(v["start"] is None and v["end"] is None for v in entry["values"])
    assert sgd._act_to_action(act) == source


def test_belief_state_keeps_every_variant_and_maps_none_intent():
    state = {"active_intent": "NONE", "requested_slots": ["phone"],
             "slot_values": {"city": ["NYC", "New York"], "time": ["6 pm"]}}
    record = unified_record([
        turn_of("USER", {**frame_of([]), "state": state}),
        turn_of("SYSTEM", frame_of([action("CONFIRM", "time", ["6 pm"], ["18:00"])])),
    ])
    (belief,) = record["dialog"][0]["belief_state"]
    assert belief == {
        "intent": None,
        "informed_slot_value_table": [
            {"slot": "city", "values": [{"value": "NYC", "cononical_value": None},
                                        {"value": "New York", "cononical_value": None}], "relation": None},
            {"slot": "time", "values": [{"value": "6 pm", "cononical_value": "18:00"}], "relation": None},
        ],
        "requested_slots": ["phone"],
        "domain": "Restaurants_1",
    }
    assert sgd._belief_to_state(belief) == state


def test_canonical_values_come_from_the_first_action_or_service_call_of_any_turn():
    spoken = {"time": ["6 pm", "18:00", "7 pm"], "city": ["SJ", "San Jose", "NYC"]}
    state = {"active_intent": "FindRestaurants", "requested_slots": [], "slot_values": spoken}
    other = {"active_intent": "GetRide", "requested_slots": [], "slot_values": {"time": ["7 pm"]}}
    record = unified_record([
        turn_of("USER", {**frame_of([]), "state": state}, {**frame_of([], "RideSharing_1"), "state": other}),
        turn_of("SYSTEM", {**frame_of([action("INFORM", "city", ["SJ"], ["San Jose"])]),
                           "service_call": {"method": "M", "parameters": {"city": "SJ", "time": "18:00"}}}),
        turn_of("SYSTEM", frame_of([action("CONFIRM", "time", ["6 pm"], ["18:00"]),
                                    action("CONFIRM", "city", ["SJ"], ["San Jose, CA"]),
                                    action("OFFER", "time", ["7 pm"], ["19:00"])], "RideSharing_1")),
        turn_of("SYSTEM", frame_of([action("CONFIRM", "time", ["6 pm"], ["18:01"])])),
    ], services=("Restaurants_1", "RideSharing_1"))
    restaurants, ride = record["dialog"][0]["belief_state"]
    assert {e["slot"]: [(v["value"], v["cononical_value"]) for v in e["values"]]
            for e in restaurants["informed_slot_value_table"]} == {
        "time": [("6 pm", "18:01"), ("18:00", "18:00"), ("7 pm", None)],
        "city": [("SJ", "San Jose"), ("San Jose", None), ("NYC", None)],
    }
    assert ride["informed_slot_value_table"][0]["values"] == [{"value": "7 pm", "cononical_value": "19:00"}]


def two_frame_turn():
    utterance = "Book it at 6 pm, and find me a cab."
    return {
        "speaker": "USER",
        "utterance": utterance,
        "frames": [
            {"actions": [action("INFORM", "time", ["6 pm"], ["18:00"])], "service": "Restaurants_1",
             "slots": [{"exclusive_end": 15, "slot": "time", "start": 11}],
             "state": {"active_intent": "ReserveRestaurant", "requested_slots": [], "slot_values": {"time": ["6 pm"]}}},
            {"actions": [action("INFORM_INTENT", "intent", ["GetRide"])], "service": "RideSharing_1", "slots": [],
             "state": {"active_intent": "NONE", "requested_slots": [], "slot_values": {}}},
        ],
    }


def test_two_frame_turn_keeps_frame_order_and_unseen_flags():
    unified = unified_turn(two_frame_turn(), {"Restaurants_1"})
    assert [a["domain"] for a in unified["dialog_acts"]] == ["Restaurants_1", "RideSharing_1"]
    assert unified["frames"] == [
        {"service": "Restaurants_1", "unseen": False, "slots": [{"slot": "time", "start": 11, "end": 15}]},
        {"service": "RideSharing_1", "unseen": True, "slots": []},
    ]
    assert unified["active_intents"] == ["ReserveRestaurant"]
    assert [b["domain"] for b in unified["belief_state"]] == ["Restaurants_1", "RideSharing_1"]
    assert unified["query"] is None and unified["querying_result"] is None
    assert sgd.unified_turn_to_source(unified) == two_frame_turn()


def test_turn_fields_sgd_has_no_annotation_for_are_null():
    unified = unified_turn(two_frame_turn())
    assert set(unified) == set(TURN)
    filled = {"roles", "utterance", "dialog_acts", "belief_state", "active_intents", "frames"}
    assert {key for key, value in unified.items() if value is not None} == filled
    assert unified["roles"] == ["USER"] and unified["utterance"] == two_frame_turn()["utterance"]


def test_unseen_is_unknown_without_train_schema():
    unified = unified_turn(two_frame_turn(), None)
    assert [f["unseen"] for f in unified["frames"]] == [None, None]


@pytest.mark.parametrize("n_results", [0, 1, 10])
def test_service_call_and_every_result(n_results):
    results = [{"city": f"C{i}", "name": f"N{i}"} for i in range(n_results)]
    frame = {"actions": [action("OFFER", "name", ["N0"])] if results else [action("NOTIFY_FAILURE")],
             "service": "S", "slots": [],
             "service_call": {"method": "Find", "parameters": {"city": "C0"}}, "service_results": results}
    turn = {"frames": [frame], "speaker": "SYSTEM", "utterance": "N0 it is."}
    unified = unified_turn(turn)
    assert unified["query"] == {"domain": "S", "method": "Find", "parameters": [{"slot": "city", "value": "C0"}]}
    assert len(unified["querying_result"]["results"]) == n_results
    assert unified["querying_result"]["results"][-1:] == [
        [{"slot": "city", "value": f"C{n_results - 1}"}, {"slot": "name", "value": f"N{n_results - 1}"}]
    ][: 1 if n_results else 0]
    assert unified["belief_state"] is None and unified["active_intents"] is None
    assert sgd.unified_turn_to_source(unified) == turn


def dialogue():
    return {"dialogue_id": "1_00000", "services": ["Restaurants_1", "RideSharing_1"], "turns": [
        two_frame_turn(),
        {"frames": [{"actions": [action("GOODBYE")], "service": "RideSharing_1", "slots": []}],
         "speaker": "SYSTEM", "utterance": ""},
    ]}


BAD_INPUTS = [
    (lambda d: d["turns"][0].pop("speaker"), "turns[0].speaker", "missing"),
    (lambda d: d["turns"][0].update(utterance=3), "turns[0].utterance", "expected str"),
    (lambda d: d["turns"][0]["frames"][0]["slots"][0].update(exclusive_end=99), "turns[0].frames[0].slots[0]", "outside"),
    (lambda d: d["turns"][1]["frames"][0]["actions"][0].update(act="WAVE"), "turns[1].frames[0].actions[0].act", "unknown SYSTEM act"),
    (lambda d: d["turns"][0]["frames"][0]["actions"][0].update(canonical_values=[]),
     "turns[0].frames[0].actions[0].canonical_values", "0 canonical values for 1"),
    (lambda d: d["turns"][0]["frames"][0]["state"]["slot_values"].update(time="6 pm"),
     "turns[0].frames[0].state.slot_values.time", "expected list"),
    (lambda d: d["turns"][0]["frames"][1]["slots"].append({"slot": "x", "start": "1", "exclusive_end": 2}),
     "turns[0].frames[1].slots[0].start", "expected int"),
]


@pytest.mark.parametrize("edit, field, problem", BAD_INPUTS)
def test_bad_input_names_file_dialogue_and_field(edit, field, problem):
    bad = copy.deepcopy(dialogue())
    edit(bad)
    with pytest.raises(SourceFormatError) as error:
        sgd.validate_dialogue(bad, "train/dialogues_001.json")
    assert error.value.file == "train/dialogues_001.json"
    assert error.value.record == "dialogue 1_00000"
    assert error.value.field == field
    assert problem in error.value.problem
    assert str(error.value).startswith("train/dialogues_001.json: dialogue 1_00000: field '")


@pytest.mark.parametrize("edit, field, problem", BAD_INPUTS + [
    (lambda d: d["turns"][1].update(speaker="WIZARD"), "turns[1].speaker", "unknown speaker"),
    (lambda d: d["turns"][0]["frames"][0]["slots"][0].update(start=True), "turns[0].frames[0].slots[0].start",
     "expected int, got bool"),
    (lambda d: d["turns"][0]["frames"][0].update(service_call=None), "turns[0].frames[0].service_call",
     "expected dict, got NoneType"),
])
@pytest.mark.parametrize("config", ["original", "unified"])
def test_converting_a_file_reports_what_validation_reports(edit, field, problem, config):
    bad = copy.deepcopy(dialogue())
    edit(bad)
    bad["dialogue_id"] = "1_00001"
    # The bad dialogue comes after the first batch of good ones.
    data = json.dumps([dialogue()] * (sgd.BATCH_SIZE + 1) + [bad]).encode()
    schemas = {s: {"service_name": s} for s in bad["services"]}
    with pytest.raises(SourceFormatError) as error:
        list(sgd.file_tables(data, "train/dialogues_001.json", config, "train", schemas, None))
    assert (error.value.record, error.value.field) == ("dialogue 1_00001", field)
    assert problem in error.value.problem
    assert str(error.value) == str(pytest.raises(SourceFormatError, sgd.validate_dialogue, bad,
                                                 "train/dialogues_001.json", 1).value)


def test_of_a_file_with_several_problems_the_first_dialogue_with_one_is_reported():
    # Dialogue 0 fails only in the unified mapping (a service its split does not define);
    # dialogue 1 fails decoding. Mapped as it is decoded, dialogue 0 is reported first.
    unknown_service, wrong_type = dialogue(), dialogue()
    unknown_service["services"] = unknown_service["services"] + ["Missing_1"]
    wrong_type["dialogue_id"] = "1_00001"
    wrong_type["turns"][0]["utterance"] = 5
    data = json.dumps([unknown_service, wrong_type]).encode()
    schemas = {s: {"service_name": s} for s in dialogue()["services"]}
    with pytest.raises(SourceFormatError) as error:
        list(sgd.file_tables(data, "train/dialogues_001.json", "unified", "train", schemas, None))
    assert (error.value.record, error.value.field) == ("dialogue 1_00000", "services")


def test_bytes_that_are_not_utf8_name_the_file():
    data = json.dumps([dialogue()]).encode().replace(b'"1_00000"', bytes([34, 49, 95, 0xFF, 34]))
    with pytest.raises(SourceFormatError) as error:
        list(sgd.file_tables(data, "train/dialogues_001.json", "unified", "train", {}, None))
    assert (error.value.file, error.value.record) == ("train/dialogues_001.json", "whole file")
    assert "utf-8" in error.value.problem


def test_decoding_gives_what_json_gives_where_only_the_fast_decoder_refuses():
    data = b"\xef\xbb\xbf" + json.dumps([dialogue()]).encode()  # a UTF-8 byte order mark
    assert list(sgd.decode_dialogues(data, "f")) == [dialogue()]
    (table,) = sgd.file_tables(data, "f", "unified", "train", {s: {} for s in dialogue()["services"]}, None)
    assert sgd.unified_to_source(table.to_pylist()[0]) == dialogue()


@pytest.mark.parametrize("config", ["original", "unified"])
def test_a_lone_surrogate_names_file_record_and_field(config):
    odd = dialogue()
    odd["turns"][1]["utterance"] = "\ud800"  # json reads it; Arrow cannot store it
    data = json.dumps([dialogue(), odd]).encode()
    with pytest.raises(SourceFormatError, match="lone surrogate") as error:
        list(sgd.file_tables(data, "train/dialogues_001.json", config, "train", {}, None))
    assert (error.value.file, error.value.record, error.value.field) == (
        "train/dialogues_001.json", "record #1", "turns[1].utterance")


def test_valid_dialogue_passes_and_round_trips():
    source = dialogue()
    sgd.validate_dialogue(source, "f")
    schemas = {s: {"service_name": s} for s in source["services"]}
    table = sgd.dialogues_to_table([source], "train", schemas, {"Restaurants_1", "RideSharing_1"}, "f")
    assert table.schema == UNIFIED_FEATURES.arrow_schema
    (record,) = table.to_pylist()
    assert record["unseen_domains"] == []
    assert record["dialogue_id"] == "sgd/train/1_00000" and record["original_id"] == "1_00000"
    knowledge = record["knowledge"]
    assert (knowledge["type"], knowledge["value"]["text"]) == ("schema", None)
    assert [s["service_name"] for s in knowledge["value"]["schema"]] == source["services"]
    assert record["dialog"][1]["utterance"] == ""
    assert sgd.unified_to_source(record) == source
    assert sgd.original_to_source(
        {**sgd.dialogue_to_original(source), "turns": [
            {**t, "frames": [{**dict.fromkeys(("state", "service_call", "service_results")), **f} for f in t["frames"]]}
            for t in sgd.dialogue_to_original(source)["turns"]]}) == source


def test_second_service_call_in_a_turn_is_an_error():
    turn = two_frame_turn()
    for frame in turn["frames"]:
        frame["service_call"] = {"method": "M", "parameters": {}}
    source = {**dialogue(), "turns": [turn]}
    with pytest.raises(SourceFormatError, match="more than one service call") as error:
        sgd.dialogues_to_table([source], "train", {s: {} for s in source["services"]}, set(), "f.json")
    assert (error.value.file, error.value.record, error.value.field) == (
        "f.json", "dialogue 1_00000: turns[0]", "frames.service_call")


def test_service_missing_from_schema_is_an_error():
    with pytest.raises(SourceFormatError, match="not in the split's schema.json") as error:
        sgd.dialogues_to_table([dialogue()], "train", {}, set(), "f.json")
    assert (error.value.file, error.value.record, error.value.field) == ("f.json", "dialogue 1_00000", "services")


def test_a_table_of_many_dialogues_keeps_each_dialogue_its_own_turns():
    first, second = dialogue(), {**dialogue(), "dialogue_id": "1_00001", "turns": dialogue()["turns"][1:]}
    schemas = {s: {"service_name": s} for s in first["services"]}
    records = sgd.dialogues_to_table([first, second, first], "test", schemas, None, "f").to_pylist()
    assert [len(r["dialog"]) for r in records] == [2, 1, 2]
    assert [sgd.unified_to_source(r) for r in records] == [first, second, first]
    assert records[0]["unseen_domains"] is None
