"""What the d3st tests share: the option combinations the D3ST authors' generator was run with,
the fixture rows of SGD and of each SGD-X variant (made once per module and set of options),
a small two-service dialogue written out here, a legend of its food service and the state a
target reads as, and the check that every score of gold targets is 1.0. Imported by
tests/test_d3st.py, test_d3st_text.py and test_scoring_d3st.py."""

import copy
import itertools

import msgspec
import pytest

from loaders.sgd import format, mapping
from unified_dialogue.views import d3st
from unified_dialogue.views.d3st_text import Intent, Legend, Slot, parse

COMBOS = [(level, data_format, choice, lowercase) for level, data_format, choice, lowercase in itertools.product(
    ("dst", "dst_intent"), ("full_desc", "item_name"), ("none", "a", "1a"), (True, False))]
SPLITS = {"train": "train", "validation": "dev", "test": "test"}
CORPORA = ("sgd", "v1", "v2", "v3", "v4", "v5")


def combo_name(level, data_format, choice, lowercase):
    return f"{level}.{data_format}.{choice}.{'lc' if lowercase else 'cs'}"


def options_of(level, data_format, choice, lowercase, **more):
    return {**d3st.DEFAULTS, "level": level, "data_format": data_format, "multiple_choice": choice,
            "lowercase": lowercase, **more}


@pytest.fixture(scope="module")
def unified(build):
    """corpus -> split -> the unified records of the fixtures as a pa.Table."""
    out = {}
    for corpus in CORPORA:
        dataset = build("sgd", "unified", **({} if corpus == "sgd" else {"variant": corpus}))
        out[corpus] = {split: dataset[split].data.table for split in SPLITS}
    return out


def rows_of(table, **options):
    return d3st.table(table, **options).to_pylist()


_ROWS = {}


def fixture_rows(unified, corpus, split, **options):
    """The rows of a fixture split, made once per module for each set of options."""
    key = (corpus, split, tuple(sorted(options.items())))
    if key not in _ROWS:
        _ROWS[key] = rows_of(unified[corpus][split], **options)
    return _ROWS[key]


# ---------------------------------------------------------------- a small dialogue

def act(name, slot="", values=()):
    return {"act": name, "slot": slot, "values": list(values), "canonical_values": list(values)}


def user(utterance, *frames):
    return {"speaker": "USER", "utterance": utterance,
            "frames": [{"service": s, "slots": [], "actions": [act("INFORM")],
                        "state": {"active_intent": i, "requested_slots": r, "slot_values": v}} for s, i, r, v in frames]}


def system(utterance, service):
    return {"speaker": "SYSTEM", "utterance": utterance,
            "frames": [{"service": service, "slots": [], "actions": [act("REQ_MORE")]}]}


SCHEMAS = {
    "Food_1": {"service_name": "Food_1", "description": "food", "slots": [
        {"name": "city", "description": "City", "is_categorical": False, "possible_values": []},
        {"name": "price", "description": "Price", "is_categorical": True,
         "possible_values": ["Cheap", "Moderate", "Pricey"]},
        {"name": "party", "description": "Party size", "is_categorical": True, "possible_values": ["1", "2"]}],
        "intents": [{"name": "Find", "description": "Find food", "is_transactional": False,
                     "required_slots": [], "optional_slots": {}, "result_slots": []}]},
    "Film_1": {"service_name": "Film_1", "description": "films", "slots": [
        {"name": "title", "description": "Title", "is_categorical": False, "possible_values": []}],
        "intents": [{"name": "Watch", "description": "Watch a film", "is_transactional": True,
                     "required_slots": [], "optional_slots": {}, "result_slots": []}]},
}
DIALOGUE = {"dialogue_id": "9_00001", "services": ["Food_1", "Film_1"], "turns": [
    user("Cheap food in Ginza | Tokyo", ("Food_1", "Find", [], {"city": ["Ginza | Tokyo"], "price": ["Cheap"]})),
    system("Any price?", "Food_1"),
    user("Any price, and a film", ("Food_1", "Find", ["city"], {"city": ["Ginza | Tokyo"], "price": ["dontcare"]}),
         ("Film_1", "Watch", [], {"title": ["Up"]})),
    system("Sure.", "Food_1"),
    user("Forget the city, in SF", ("Food_1", "NONE", [], {"price": ["dontcare"], "party": ["2"]})),
]}


def table_of(schemas, dialogue=DIALOGUE):
    dialogue = msgspec.convert(dialogue, format.Dialogue)
    services = {name: mapping.service_to_row(msgspec.convert(s, format.Service)) for name, s in schemas.items()}
    return mapping.dialogues_to_table([dialogue], "test", services, {"Food_1"}, "f.json")


def with_price(value):
    dialogue = copy.deepcopy(DIALOGUE)
    dialogue["turns"][0]["frames"][0]["state"]["slot_values"]["price"] = [value]
    return dialogue


def food(**slot):
    """SCHEMAS with the price slot changed."""
    schemas = copy.deepcopy(SCHEMAS)
    schemas["Food_1"]["slots"][1].update(slot)
    return schemas


def assert_all_one(metrics):
    scores = {group: values for group, values in metrics.items() if isinstance(values, dict)
              and group != "malformed_problems"}
    assert scores and all(v == 1.0 for values in scores.values() for v in values.values()), scores
    assert metrics["malformed"] == metrics["missing"] == metrics["frames_not_predicted"] == 0


# ---------------------------------------------------------------- reading targets

LEGEND = Legend("Food_1", (Slot("city", 0, False, (), False), Slot("price", 1, True, ("Cheap", "Moderate"), True),
                           Slot("party", 2, True, ("1", "2"), False)),
                (Intent("Find", 0), Intent("Book", 1)))


def state(text, legend=LEGEND):
    (frame,), problems = parse(text, legend)
    values = {sv["slot"]: sv["values"] for sv in frame["state"]["slot_values"]}
    return values, frame["state"]["active_intent"], frame["state"]["requested_slots"], problems
