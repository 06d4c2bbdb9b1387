"""SGD's three configs and the reverse mappings back to the source. No I/O.

``original`` and ``schema`` map to records; ``unified`` writes Arrow columns
(``unified_dialogue.core.columns``): its records would have twice the Python objects of the
source, and making, converting and freeing them took two thirds of a build.
"""

import msgspec
import pyarrow as pa
from datasets import Features
from msgspec import UNSET

from unified_dialogue.core import columns
from unified_dialogue.core.errors import SourceFormatError
from unified_dialogue.core.features import INT, NO_INTENT, SERVICE_SCHEMA, STRING, UNIFIED_FEATURES, dialogue_id


CORPUS = "sgd"
SLOT_VALUES = [{"slot": STRING, "values": [STRING]}]
PARAMETERS = [{"slot": STRING, "value": STRING}]
ORIGINAL_FEATURES = Features({
    "dialogue_id": STRING,
    "services": [STRING],
    "turns": [{
        "speaker": STRING,
        "utterance": STRING,
        "frames": [{
            "service": STRING,
            "slots": [{"slot": STRING, "start": INT, "exclusive_end": INT}],
            "actions": [{"act": STRING, "slot": STRING, "values": [STRING], "canonical_values": [STRING]}],
            "state": {"active_intent": STRING, "requested_slots": [STRING], "slot_values": SLOT_VALUES},
            "service_call": {"method": STRING, "parameters": PARAMETERS},
            "service_results": [PARAMETERS],
        }],
    }],
})
SCHEMA_FEATURES = Features(SERVICE_SCHEMA)
UNIFIED_SCHEMA = UNIFIED_FEATURES.arrow_schema
DIALOG_FIELD = UNIFIED_SCHEMA.field("dialog")
KNOWLEDGE_FIELD = UNIFIED_SCHEMA.field("knowledge")


def _pairs(mapping):
    return [{"slot": slot, "value": value} for slot, value in mapping.items()]


def _mapping(pairs):
    return {pair["slot"]: pair["value"] for pair in pairs}


# ---------------------------------------------------------------- schema config

def service_to_row(service):
    """A schema.json service (format.Service) as a ``schema`` row: optional_slots become
    slot/value pairs."""
    row = msgspec.to_builtins(service)
    for intent in row["intents"]:
        intent["optional_slots"] = _pairs(intent["optional_slots"])
    return row


def row_to_service(row):
    """Inverse of service_to_row, as the source's JSON object."""
    return {
        **row,
        "intents": [{**intent, "optional_slots": _mapping(intent["optional_slots"])} for intent in row["intents"]],
    }


# ---------------------------------------------------------------- original config

def dialogue_to_original(dialogue):
    """The source dialogue with variable-key dicts as lists of key/value records; frame
    parts the source leaves out are left out (None once stored)."""
    row = msgspec.to_builtins(dialogue)
    for turn in row["turns"]:
        for frame in turn["frames"]:
            if "state" in frame:
                state = frame["state"]
                state["slot_values"] = [{"slot": k, "values": v} for k, v in state["slot_values"].items()]
            if "service_call" in frame:
                frame["service_call"]["parameters"] = _pairs(frame["service_call"]["parameters"])
            if "service_results" in frame:
                frame["service_results"] = [_pairs(result) for result in frame["service_results"]]
    return row


def original_to_source(row):
    """Inverse of dialogue_to_original (absent parts are None in a loaded row)."""
    turns = []
    for turn in row["turns"]:
        frames = []
        for f in turn["frames"]:
            frame = {"actions": f["actions"], "service": f["service"], "slots": f["slots"]}
            if f["state"] is not None:
                s = f["state"]
                frame["state"] = {
                    "active_intent": s["active_intent"],
                    "requested_slots": s["requested_slots"],
                    "slot_values": {p["slot"]: p["values"] for p in s["slot_values"]},
                }
            if f["service_call"] is not None:
                frame["service_call"] = {"method": f["service_call"]["method"],
                                         "parameters": _mapping(f["service_call"]["parameters"])}
            if f["service_results"] is not None:
                frame["service_results"] = [_mapping(r) for r in f["service_results"]]
            frames.append(frame)
        turns.append({"frames": frames, "speaker": turn["speaker"], "utterance": turn["utterance"]})
    return {"dialogue_id": row["dialogue_id"], "services": row["services"], "turns": turns}


# ---------------------------------------------------------------- unified config

def dialogues_to_table(dialogues, split, schemas, train_services, file):
    """The unified records of ``dialogues`` (format.Dialogue) as one pa.Table.

    ``schemas``: the split's service schemas by name (``schema`` rows); ``train_services``:
    service names of the train schema (a frame whose service is not there is unseen), or
    None if unknown. The turns, which hold nearly all of the data, are written column by
    column; the few dialogue-level fields as one record per dialogue.
    """
    dialog = columns.ListColumn(DIALOG_FIELD.type)
    records = []
    for dialogue in dialogues:  # read once: it may be an iterator
        records.append(dialogue_record(dialogue, split, schemas, train_services, file))
        add_turns(dialog.items, dialogue, train_services, file)
        dialog.end_row()
    table = pa.Table.from_pylist(records, schema=UNIFIED_SCHEMA)
    table = table.set_column(UNIFIED_SCHEMA.get_field_index("dialog"), DIALOG_FIELD, dialog.to_array(len(records)))
    knowledge = schema_knowledge([record["domain"] for record in records], schemas)
    return table.set_column(UNIFIED_SCHEMA.get_field_index("knowledge"), KNOWLEDGE_FIELD, knowledge)


def dialogue_record(dialogue, split, schemas, train_services, file):
    """The dialogue-level fields of a unified record but ``dialog`` and ``knowledge``."""
    services = dialogue.services
    missing = [s for s in services if s not in schemas]
    if missing:
        raise SourceFormatError(file, f"dialogue {dialogue.dialogue_id}", "services",
                                f"services {missing} are not in the split's schema.json")
    return {
        "turn": "multi",
        "domain": services,
        "locale": "en",
        "dialogue_id": dialogue_id(CORPUS, split, dialogue.dialogue_id),
        "original_id": dialogue.dialogue_id,
        "corpus": CORPUS,
        "split": split,
        "unseen_domains": None if train_services is None else [s for s in services if s not in train_services],
    }


def schema_knowledge(services_of_dialogues, schemas):
    """The ``knowledge`` column: the schemas of each dialogue's services (a list of
    service names per dialogue). Each schema is converted to Arrow once, and picked by
    position for every dialogue that uses it."""
    knowledge_type = KNOWLEDGE_FIELD.type
    value_type = knowledge_type.field("value").type
    schemas_type = value_type.field("schema").type
    names = list(schemas)
    position = {name: index for index, name in enumerate(names)}
    picks, offsets = [], [0]
    for services in services_of_dialogues:
        picks.extend(position[service] for service in services)
        offsets.append(len(picks))
    all_schemas = pa.array([schemas[name] for name in names], schemas_type.value_type)
    picked = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), all_schemas.take(pa.array(picks, pa.int32())),
                                      type=schemas_type)
    count = len(services_of_dialogues)
    value = {"text": pa.nulls(count, pa.string()), "schema": picked}
    value = pa.StructArray.from_arrays([value[f.name] for f in value_type], fields=list(value_type))
    knowledge = {"type": pa.array(["schema"] * count, pa.string()), "value": value}
    return pa.StructArray.from_arrays([knowledge[f.name] for f in knowledge_type], fields=list(knowledge_type))


class CanonicalValues:
    """The canonical value of each (service, slot, spoken value) of a dialogue: the first
    that its actions and service calls (whose parameters are canonical already) give, in
    source order, collected as the turns are mapped. A belief state may hold a value whose
    canonical value only a later turn gives: ``wanted`` keeps the key of every belief
    value, looked up once the whole dialogue is mapped."""

    def __init__(self):
        self.known = {}
        self.wanted = []


def add_turns(turns, dialogue, train_services, file):
    """Append the dialogue's turns to ``turns``, the StructColumns of unified turns. After
    an error, ``turns`` is half written and must be dropped."""
    canonical = CanonicalValues()
    for index, turn in enumerate(dialogue.turns):
        try:
            add_turn(turns, turn, canonical, train_services)
        except TurnError as error:
            raise SourceFormatError(file, f"dialogue {dialogue.dialogue_id}", f"turns[{index}].{error.args[0]}",
                                    error.args[1]) from None
    # Until now the belief values' canonical_value column lagged behind their value column
    # (the first field, which counts the rows); this brings it level.
    belief_values = turns.belief_state.items.informed_slot_value_table.items.values.items
    belief_values.cononical_value.extend(map(canonical.known.get, canonical.wanted))


class TurnError(Exception):
    """A turn the unified mapping cannot take: ``(field, problem)``, the error to report."""


def add_turn(turns, turn, canonical, train_services):
    """One SGD turn: its frames, and their actions, states, service call and results merged
    into the turn's dialog acts, belief state, query and querying result. ``canonical``:
    the dialogue's CanonicalValues."""
    utterance = turn.utterance
    turns.roles.items.append(turn.speaker)
    turns.roles.end_row()
    turns.utterance.append(utterance)
    states, call, results = [], None, None
    for frame in turn.frames:
        add_frame(turns.frames.items, frame, train_services)
        add_dialog_acts(turns.dialog_acts.items, frame, utterance, canonical)
        if frame.state is not UNSET:
            states.append(frame)
        if frame.service_call is not UNSET:
            if call is not None:
                raise TurnError("frames.service_call", "more than one service call in a turn")
            call = frame
            for slot, value in frame.service_call.parameters.items():
                canonical.known.setdefault((frame.service, slot, value), value)
        if frame.service_results is not UNSET:
            if results is not None:
                raise TurnError("frames.service_results", "more than one list of service results in a turn")
            results = frame
    turns.frames.end_row()
    turns.dialog_acts.end_row()
    if states:
        for frame in states:
            add_belief(turns.belief_state.items, frame.state, frame.service, canonical)
        turns.belief_state.end_row()
        intents = (frame.state.active_intent for frame in states)
        turns.active_intents.items.extend(intent for intent in intents if intent != NO_INTENT)
        turns.active_intents.end_row()
    else:
        turns.belief_state.add_null()
        turns.active_intents.add_null()
    if call is None:
        turns.query.add_null()
    else:
        add_query(turns.query, call.service_call, call.service)
    if results is None:
        turns.querying_result.add_null()
    else:
        add_querying_result(turns.querying_result, results.service_results, results.service)


def add_frame(frames, frame, train_services):
    """The frame as the ``frames`` extension: its service, whether the train schema lacks
    it, and its slot spans as the source has them (``end`` exclusive)."""
    service = frame.service
    frames.service.append(service)
    frames.unseen.append(None if train_services is None else service not in train_services)
    spans = frames.slots.items
    for span in frame.slots:
        spans.slot.append(span.slot)
        spans.start.append(span.start)
        spans.end.append(span.exclusive_end)
    frames.slots.end_row()


def value_spans(frame, utterance):
    """(slot, text) -> (start, end) of the frame's first span of that slot and text."""
    spans = {}
    for span in frame.slots:
        spans.setdefault((span.slot, utterance[span.start:span.exclusive_end]), (span.start, span.exclusive_end))
    return spans


def add_dialog_acts(acts, frame, utterance, canonical):
    """Each action of the frame as a dialog act of its service. An action with a slot or
    values has one slot-value entry: each value with its canonical value and, where the
    frame has a span of the slot with that text, its span; the others have none.
    ``canonical``: the dialogue's CanonicalValues, which learns the actions' canonical values."""
    service, spans = frame.service, value_spans(frame, utterance)
    remember = canonical.known.setdefault
    table = acts.slot_value_table
    entries = table.items
    values = entries.values.items
    for action in frame.actions:
        acts.act.append(action.act)
        acts.domain.append(service)
        slot = action.slot
        if slot or action.values:
            entries.slot.append(slot)
            for value, canonical_value in zip(action.values, action.canonical_values):
                start, end = spans.get((slot, value), (None, None))
                remember((service, slot, value), canonical_value)
                values.value.append(value)
                values.cononical_value.append(canonical_value)
                values.start.append(start)
                values.end.append(end)
            entries.values.end_row()
        table.end_row()


def add_belief(beliefs, state, service, canonical):
    """One frame's dialogue state as a belief state of its service; every spoken variant
    of a slot is a value of its own, with its canonical value where the dialogue has one
    (filled in by add_turns from ``canonical``, the dialogue's CanonicalValues)."""
    intent = state.active_intent
    beliefs.intent.append(None if intent == NO_INTENT else intent)
    beliefs.domain.append(service)
    table = beliefs.informed_slot_value_table
    entries = table.items
    values = entries.values.items
    for slot, variants in state.slot_values.items():
        entries.slot.append(slot)
        values.value.extend(variants)
        canonical.wanted.extend([(service, slot, value) for value in variants])
        entries.values.end_row()
    table.end_row()
    beliefs.requested_slots.items.extend(state.requested_slots)
    beliefs.requested_slots.end_row()


def add_query(query, call, service):
    query.domain.append(service)
    query.method.append(call.method)
    _add_pairs(query.parameters, call.parameters)


def add_querying_result(querying_result, results, service):
    """The service results, one list of slot/value pairs per result."""
    querying_result.domain.append(service)
    rows = querying_result.results
    for result in results:
        _add_pairs(rows.items, result)
    rows.end_row()


def _add_pairs(column, mapping):
    """A row of slot/value pairs (``column``: a ListColumn of them), in the mapping's order."""
    pairs = column.items
    pairs.slot.extend(mapping.keys())
    pairs.value.extend(mapping.values())
    column.end_row()


def unified_to_source(record):
    """Inverse of dialogues_to_table (one loaded record): the source dialogue, exactly."""
    return {
        "dialogue_id": record["original_id"],
        "services": record["domain"],
        "turns": [unified_turn_to_source(turn) for turn in record["dialog"]],
    }


def unified_turn_to_source(turn):
    acts_by_service = {}
    for act in turn["dialog_acts"]:
        acts_by_service.setdefault(act["domain"], []).append(_act_to_action(act))
    beliefs = {b["domain"]: b for b in turn["belief_state"] or []}
    query, result = turn["query"], turn["querying_result"]
    frames = []
    for f in turn["frames"]:
        service = f["service"]
        frame = {
            "actions": acts_by_service.get(service, []),
            "service": service,
            "slots": [{"exclusive_end": s["end"], "slot": s["slot"], "start": s["start"]} for s in f["slots"]],
        }
        if service in beliefs:
            frame["state"] = _belief_to_state(beliefs[service])
        if query is not None and query["domain"] == service:
            frame["service_call"] = {"method": query["method"], "parameters": _mapping(query["parameters"])}
        if result is not None and result["domain"] == service:
            frame["service_results"] = [_mapping(r) for r in result["results"]]
        frames.append(frame)
    return {"frames": frames, "speaker": turn["roles"][0], "utterance": turn["utterance"]}


def _act_to_action(act):
    if not act["slot_value_table"]:
        return {"act": act["act"], "canonical_values": [], "slot": "", "values": []}
    (entry,) = act["slot_value_table"]
    return {
        "act": act["act"],
        "canonical_values": [v["cononical_value"] for v in entry["values"]],
        "slot": entry["slot"],
        "values": [v["value"] for v in entry["values"]],
    }


def _belief_to_state(belief):
    return {
        "active_intent": NO_INTENT if belief["intent"] is None else belief["intent"],
        "requested_slots": belief["requested_slots"],
        "slot_values": {e["slot"]: [v["value"] for v in e["values"]] for e in belief["informed_slot_value_table"]},
    }
