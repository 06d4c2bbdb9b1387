"""The FaithDial mapping functions one by one, on small dialogues in the source format."""

import copy
import logging

import pyarrow as pa
import pytest

from unified_dialogue import UNIFIED_FEATURES, faithdial
from unified_dialogue.errors import SourceFormatError

FILE = "data/train.json"


def utterance(history, response, knowledge="K1.", original="orig", begin=("Hallucination",), vrm=("Edification",)):
    return {"history": list(history), "speaker": "Wizard", "knowledge": knowledge, "original_response": original,
            "response": response, "BEGIN": list(begin), "VRM": list(vrm)}


def seeker_first():
    """S0 W1 S2 W3: two responses, the Seeker speaks first."""
    return {"utterances": [
        utterance(["S0"], "W1", knowledge="K1.", original=None, begin=["Entailment"]),
        utterance(["S0", "W1", "S2"], "W3", knowledge="K2.", original="", vrm=["Ack.", "Question"]),
    ], "dialog_idx": 7}


def wizard_first():
    """W0 S1 W2: the Wizard speaks first (the first history is empty)."""
    return {"utterances": [
        utterance([], "W0", knowledge="K1."),
        utterance(["W0", "S1"], "W2", knowledge="K1.", original=None, begin=["Entailment"]),
    ], "dialog_idx": 3}


def loaded(record):
    """A unified record as datasets gives it back: every feature present, absent ones None."""
    return pa.Table.from_pylist([record], schema=UNIFIED_FEATURES.arrow_schema).to_pylist()[0]


def error_of(dialogue, position=0):
    with pytest.raises(SourceFormatError) as error:
        faithdial.validate_dialogue(dialogue, FILE, position)
        faithdial.dialogue_to_unified(dialogue, "train", FILE, position)
    return error.value


# ---------------------------------------------------------------- validation

def test_valid_dialogues_pass():
    for dialogue in (seeker_first(), wizard_first()):
        faithdial.validate_dialogue(dialogue, FILE, 0)


@pytest.mark.parametrize("edit, field, problem", [
    (lambda d: d["utterances"][1].pop("response"), "utterances[1].response", "missing"),
    (lambda d: d["utterances"][1].__setitem__("BEGIN", "Entailment"), "utterances[1].BEGIN",
     "expected a list of strings"),
    (lambda d: d["utterances"][0].__setitem__("VRM", ["Edification", 3]), "utterances[0].VRM[1]", "expected str"),
    (lambda d: d["utterances"][0].__setitem__("history", "S0"), "utterances[0].history", "expected a list of strings"),
    (lambda d: d["utterances"][0].__setitem__("original_response", 5), "utterances[0].original_response",
     "expected str or null"),
    (lambda d: d["utterances"][0].__setitem__("knowledge", None), "utterances[0].knowledge", "expected str"),
    (lambda d: d["utterances"][0].__setitem__("speaker", "Seeker"), "utterances[0].speaker", "expected 'Wizard'"),
    (lambda d: d["utterances"][0].__setitem__("checked_sentence", "x"), "utterances[0].checked_sentence",
     "unexpected key"),
    (lambda d: d.__setitem__("topic", "Bees"), "topic", "unexpected key"),
    (lambda d: d.__setitem__("dialog_idx", "7"), "dialog_idx", "expected int"),
    (lambda d: d.__setitem__("dialog_idx", True), "dialog_idx", "expected int"),
    (lambda d: d.__setitem__("utterances", []), "utterances", "empty"),
    (lambda d: d["utterances"].__setitem__(0, "W1"), "utterances[0]", "expected an object"),
])
def test_each_defect_is_named_by_file_dialogue_and_field(edit, field, problem):
    dialogue = seeker_first()
    edit(dialogue)
    error = error_of(dialogue, position=4)
    assert (error.file, error.field) == (FILE, field)
    assert error.record.startswith("dialogue #4 (")
    assert problem in error.problem


def test_dialogue_is_named_by_position_and_dialog_idx():
    assert faithdial.record_name({"dialog_idx": 7}, 2) == "dialogue #2 (dialog_idx 7)"
    assert faithdial.record_name({"utterances": []}, 2) == "dialogue #2 (no dialog_idx)"
    error = error_of([seeker_first()], position=1)
    assert (error.record, error.field) == ("dialogue #1 (no dialog_idx)", "(dialogue)")


def test_null_and_empty_original_response_are_both_valid():
    dialogue = seeker_first()
    assert [u["original_response"] for u in dialogue["utterances"]] == [None, ""]
    faithdial.validate_dialogue(dialogue, FILE, 0)


# ---------------------------------------------------------------- conversations

def test_conversation_has_every_turn_once_in_order():
    assert faithdial.conversation(seeker_first(), FILE, 0) == (["S0", "W1", "S2", "W3"], [1, 3])
    assert faithdial.conversation(wizard_first(), FILE, 0) == (["W0", "S1", "W2"], [0, 2])


def test_wizard_turn_in_a_later_history_must_equal_its_response():
    dialogue = seeker_first()
    dialogue["utterances"][1]["history"][1] = "orig"  # the pre-edit response instead of the response
    error = error_of(dialogue)
    assert error.field == "utterances[1].history[1]"
    assert "turn 1 of the conversation differs from the response of utterances[0]" in error.problem
    assert "'orig' != 'W1'" in error.problem


def test_seeker_turn_in_a_later_history_must_equal_the_earlier_history():
    dialogue = seeker_first()
    dialogue["utterances"][1]["history"][0] = "S0 edited"
    error = error_of(dialogue)
    assert error.field == "utterances[1].history[0]"
    assert "differs from the same turn in the earlier histories" in error.problem


def test_history_shorter_than_the_conversation_so_far_is_an_error():
    dialogue = seeker_first()
    dialogue["utterances"][1]["history"] = ["S0"]
    assert error_of(dialogue).field == "utterances[1].history"


def test_history_ending_with_a_wizard_turn_is_an_error():
    dialogue = seeker_first()
    dialogue["utterances"][1]["history"] = ["S0", "W1"]  # no Seeker message answered
    error = error_of(dialogue)
    assert error.field == "utterances[1].history"
    assert "would be a Wizard turn" in error.problem


def test_wizard_turn_without_a_row_is_kept_as_a_plain_wizard_turn():
    dialogue = {"utterances": [utterance(["S0", "Wx", "S2"], "W3")], "dialog_idx": 0}
    record = faithdial.dialogue_to_unified(dialogue, "train", FILE, 0)
    assert [(t["roles"], t["utterance"]) for t in record["dialog"]] == [
        (["Seeker"], "S0"), (["Wizard"], "Wx"), (["Seeker"], "S2"), (["Wizard"], "W3")]
    assert "original_response" not in record["dialog"][1] and "knowledge_to_select" not in record["dialog"][1]
    assert faithdial.unified_to_source(loaded(record)) == dialogue


# ---------------------------------------------------------------- unified pieces

def test_vrm_label_is_one_act_kept_as_written():
    assert faithdial.vrm_to_act("Ack.") == {"act": "Ack.", "domain": None, "slot_value_table": None}
    assert faithdial.normalized_vrm("Ack.") == "Acknowledgment"
    assert faithdial.normalized_vrm("Question") == "Question"


def test_response_turn_keeps_begin_with_the_original_response():
    source = utterance(["S0"], "W1", knowledge="K.", original="pre-edit", begin=["Hallucination", "Entailment"],
                       vrm=["Edification", "Question"])
    assert faithdial.response_turn(source) == {
        "roles": ["Wizard"],
        "utterance": "W1",
        "dialog_acts": [faithdial.vrm_to_act("Edification"), faithdial.vrm_to_act("Question")],
        "knowledge_to_select": "K.",
        "original_response": {"utterance": "pre-edit", "begin": ["Hallucination", "Entailment"]},
    }


def test_history_turn_has_no_annotation():
    assert faithdial.history_turn("S0", "Seeker") == {"roles": ["Seeker"], "utterance": "S0"}


def test_knowledge_sentences_are_distinct_in_order_of_first_use():
    utterances = [utterance([], "", knowledge=k) for k in ("B.", "A.", "B.", "", "C.")]
    assert faithdial.knowledge_sentences(utterances, FILE, {}, 0) == ["B.", "A.", "", "C."]


def test_knowledge_sentence_with_a_line_break_is_an_error():
    dialogue = seeker_first()
    dialogue["utterances"][1]["knowledge"] = "Line one.\nLine two."
    error = error_of(dialogue)
    assert (error.field, error.record) == ("utterances[1].knowledge", "dialogue #0 (dialog_idx 7)")


def test_unified_record_of_a_seeker_first_dialogue():
    record = faithdial.dialogue_to_unified(seeker_first(), "validation_topic", FILE, 5)
    assert [(t["roles"], t["utterance"]) for t in record["dialog"]] == [
        (["Seeker"], "S0"), (["Wizard"], "W1"), (["Seeker"], "S2"), (["Wizard"], "W3")]
    assert record["dialog"][1]["original_response"] == {"utterance": None, "begin": ["Entailment"]}
    assert record["dialog"][3]["original_response"] == {"utterance": "", "begin": ["Hallucination"]}
    assert [a["act"] for a in record["dialog"][3]["dialog_acts"]] == ["Ack.", "Question"]
    assert record["knowledge"] == {"type": "text", "value": {"text": "K1.\nK2.", "schema": None}}
    assert [t.get("knowledge_to_select") for t in record["dialog"]] == [None, "K1.", None, "K2."]
    assert (record["turn"], record["locale"], record["domain"]) == ("multi", "en", None)
    assert (record["dialogue_id"], record["original_id"]) == ("faithdial/validation_topic/7", "7")
    assert (record["corpus"], record["split"]) == ("faithdial", "validation_topic")


def test_wizard_first_roles_are_anchored_at_the_end_of_the_history():
    record = faithdial.dialogue_to_unified(wizard_first(), "train", FILE, 0)
    assert [t["roles"] for t in record["dialog"]] == [["Wizard"], ["Seeker"], ["Wizard"]]
    assert record["knowledge"]["value"]["text"] == "K1."  # used twice, listed once


def test_absent_dialog_idx_gives_no_original_id_and_a_position_id():
    dialogue = seeker_first()
    del dialogue["dialog_idx"]
    record = faithdial.dialogue_to_unified(dialogue, "test", FILE, 3)
    assert (record["original_id"], record["dialogue_id"]) == (None, "faithdial/test/#3")
    assert "dialog_idx" not in faithdial.unified_to_source(loaded(record))


@pytest.mark.parametrize("make", [seeker_first, wizard_first])
def test_unified_to_source_is_the_inverse(make):
    dialogue = make()
    record = faithdial.dialogue_to_unified(copy.deepcopy(dialogue), "train", FILE, 0)
    for form in (record, loaded(record)):
        rebuilt = faithdial.unified_to_source(form)
        assert rebuilt == dialogue
        assert list(rebuilt) == ["utterances", "dialog_idx"]
        assert all(list(u) == list(faithdial.UTTERANCE_KEYS) for u in rebuilt["utterances"])


# ---------------------------------------------------------------- original config

def test_original_rows_are_the_utterances_with_dialog_idx_and_positions():
    rows = list(faithdial.dialogue_to_original(seeker_first(), 2))
    assert len(rows) == 2
    assert rows[1] == {**seeker_first()["utterances"][1], "dialog_idx": 7, "dialogue_position": 2,
                       "utterance_position": 1}
    assert rows[0]["original_response"] is None and rows[1]["original_response"] == ""


def test_original_to_source_regroups_dialogues_even_without_dialog_idx():
    one, two = seeker_first(), wizard_first()
    del one["dialog_idx"], two["dialog_idx"]
    rows = list(faithdial.dialogue_to_original(one, 0)) + list(faithdial.dialogue_to_original(two, 1))
    assert all(row["dialog_idx"] is None for row in rows)
    assert faithdial.original_to_source(rows) == [one, two]


# ---------------------------------------------------------------- a whole file

def test_dialog_idx_must_be_unique_in_a_file():
    with pytest.raises(SourceFormatError) as error:
        list(faithdial.file_to_records([seeker_first(), seeker_first()], FILE, "train", "unified"))
    assert (error.value.record, error.value.field) == ("dialogue #1 (dialog_idx 7)", "dialog_idx")
    assert "dialogue #0" in error.value.problem


def test_original_config_reports_a_contradicting_history_and_keeps_the_rows(caplog):
    dialogue = seeker_first()
    dialogue["utterances"][1]["history"][1] = "orig"
    with caplog.at_level(logging.WARNING, logger="unified_dialogue.faithdial"):
        rows = list(faithdial.file_to_records([dialogue], FILE, "train", "original"))
    assert faithdial.original_to_source(rows) == [dialogue]
    assert "data/train.json: dialogue #0 (dialog_idx 7): field 'utterances[1].history[1]'" in caplog.text
    with pytest.raises(SourceFormatError):
        list(faithdial.file_to_records([dialogue], FILE, "train", "unified"))
