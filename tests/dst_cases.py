"""What the DST scorer's tests share: small schemas, SGD frames and dialogues written out,
their ``dst`` rows, and one reference dialogue with a prediction of it whose scores are
worked out by hand (tests/test_scoring_dst.py, test_scoring_dst_command.py)."""

import copy
import json

import pytest

from unified_dialogue.scoring.dst import score_dst

def slot(name, categorical, values=()):
    return {"name": name, "description": "", "is_categorical": categorical, "possible_values": list(values)}


def service(name, slots):
    return {"service_name": name, "description": "", "slots": slots,
            "intents": [{"name": "Find", "description": "", "is_transactional": False, "required_slots": [],
                         "optional_slots": {}, "result_slots": []}]}


SCHEMAS = [
    service("Restaurants_1", [slot("city", False), slot("cuisine", True, ["Italian", "Mexican"]),
                              slot("restaurant_name", False)]),
    service("Hotels_2", [slot("where_to", False), slot("rating", True, ["3", "4"])]),
]
TRAIN_SCHEMAS = [SCHEMAS[0]]  # Restaurants_1 is seen, Hotels_2 unseen


def frame(service_name, intent="Find", requested=(), values=None, spans=None):
    """An SGD frame (``slot_values`` a dict); ``spans`` None leaves out ``slots``."""
    result = {"service": service_name,
              "state": {"active_intent": intent, "requested_slots": list(requested), "slot_values": dict(values or {})}}
    if spans is not None:
        result["slots"] = [{"slot": s, "start": a, "exclusive_end": b} for s, a, b in spans]
    return result


def dialogue(dialogue_id, turns, services=None):
    """An SGD dialogue from (speaker, utterance, frames) triples."""
    names = services or sorted({f["service"] for _, _, frames in turns for f in frames})
    return {"dialogue_id": dialogue_id, "services": list(names),
            "turns": [{"speaker": s, "utterance": u, "frames": f} for s, u, f in turns]}


def dst_rows(dialogues, split="validation"):
    """The ``dst`` rows of SGD dialogues: one per user turn, ``slot_values`` as records."""
    for d in dialogues:
        context = []
        for index, turn in enumerate(d["turns"]):
            context.append({"role": turn["speaker"], "utterance": turn["utterance"]})
            if turn["speaker"] != "USER":
                continue
            frames = []
            for f in turn["frames"]:
                records = [{"slot": k, "values": v} for k, v in f["state"]["slot_values"].items()]
                state = {**f["state"], "slot_values": records}
                frames.append({"service": f["service"], "slots": f.get("slots"), "state": state})
            yield {"dialogue_id": f"sgd/{split}/{d['dialogue_id']}", "original_id": d["dialogue_id"],
                   "turn_index": index, "context": copy.deepcopy(context), "frames": frames}


def score_dialogues(predicted, reference, schemas=SCHEMAS, train=TRAIN_SCHEMAS, **flags):
    return score_dst(list(dst_rows(predicted)), list(dst_rows(reference)), schemas, train, **flags)


# One reference dialogue and a prediction of it, whose scores the tests below work out.
REFERENCE = dialogue("1_00000", [
    ("USER", "Italian food in Paris", [
        frame("Restaurants_1", values={"city": ["Paris"], "cuisine": ["Italian"]})]),
    ("SYSTEM", "What else?", [frame("Restaurants_1")]),
    ("USER", "Which one? And a hotel there", [
        frame("Restaurants_1", requested=["restaurant_name"], values={"city": ["Paris"], "cuisine": ["Italian"]}),
        frame("Hotels_2", values={"where_to": ["Paris"]})]),
])
PREDICTION = dialogue("1_00000", [
    ("USER", "Italian food in Paris", [
        frame("Restaurants_1", values={"city": ["paris"], "cuisine": ["Italian"]})]),
    ("SYSTEM", "What else?", []),
    ("USER", "Which one? And a hotel there", [
        frame("Restaurants_1", values={"city": ["Paris"], "cuisine": ["Italian"]}),
        frame("Hotels_2", intent="NONE", values={"where_to": ["Paris"], "rating": ["4"]})]),
])
# Frame by frame, with fuzzy matching (t0 and t2 are the user turns; R Restaurants_1, H Hotels_2):
#   t0 R: intent 1; requested [] vs [] 1/1/1; city "paris"~"Paris" 1, cuisine 1, restaurant_name
#         empty in both 1 -> average 1 (cat 1, noncat 1), joint 1 (cat 1, noncat 1)
#   t2 R: intent 1; requested [restaurant_name] vs []: precision 1, recall 0, f1 0; slots as t0
#   t2 H: intent "NONE" 0; requested 1/1/1; where_to 1; rating not in the reference but predicted 0
#         -> average 1 (cat NA, noncat 1), joint 0 (cat 0, noncat 1)
# Without fuzzy matching t0 R's city is 0 ("paris" != "Paris"): average 0.5 (cat 1, noncat 0),
# joint 0 (cat 1, noncat 0).
RESTAURANTS = {
    "active_intent_accuracy": 1.0,
    "requested_slots_f1": 0.5, "requested_slots_precision": 1.0, "requested_slots_recall": 0.5,
    "average_goal_accuracy": 1.0, "average_cat_accuracy": 1.0, "average_noncat_accuracy": 1.0,
    "joint_goal_accuracy": 1.0, "joint_cat_accuracy": 1.0, "joint_noncat_accuracy": 1.0,
}
HOTELS = {  # no average_cat_accuracy: no frame of the group has a value for it
    "active_intent_accuracy": 0.0,
    "requested_slots_f1": 1.0, "requested_slots_precision": 1.0, "requested_slots_recall": 1.0,
    "average_goal_accuracy": 1.0, "average_noncat_accuracy": 1.0,
    "joint_goal_accuracy": 0.0, "joint_cat_accuracy": 0.0, "joint_noncat_accuracy": 1.0,
}
ALL = {  # the three frames
    "active_intent_accuracy": 2 / 3,
    "requested_slots_f1": 2 / 3, "requested_slots_precision": 1.0, "requested_slots_recall": 2 / 3,
    "average_goal_accuracy": 1.0, "average_cat_accuracy": 1.0, "average_noncat_accuracy": 1.0,
    "joint_goal_accuracy": 2 / 3, "joint_cat_accuracy": 2 / 3, "joint_noncat_accuracy": 1.0,
}


def expected_groups(all_services, restaurants, hotels):
    return {"#ALL_SERVICES": all_services, "#SEEN_SERVICES": restaurants, "#UNSEEN_SERVICES": hotels,
            "Restaurants_1": restaurants, "Restaurants": restaurants, "Hotels_2": hotels, "Hotels": hotels}


def approx(groups):
    return {group: pytest.approx(metrics) for group, metrics in groups.items()}


def write_json(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
