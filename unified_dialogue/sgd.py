"""Schema-Guided Dialogue (SGD / DSTC8): validation, the three config mappings, and the
reverse mappings back to the source format. No I/O. The ``original`` and ``schema``
mappings return records; the ``unified`` one writes Arrow columns (columns.py), since
its records would have twice the Python objects of the source."""

from typing import Dict, List, TypedDict

import msgspec
import pyarrow as pa
from datasets import Features

from . import columns
from .builder import BATCH_SIZE, batched_tables, decode_json_list, lazy_batches
from .errors import SourceFormatError
from .features import SERVICE_SCHEMA, STRING, INT, UNIFIED_FEATURES, dialogue_id

USER_ACTS = frozenset({
    "INFORM_INTENT", "NEGATE_INTENT", "AFFIRM_INTENT", "INFORM", "REQUEST", "AFFIRM",
    "NEGATE", "SELECT", "REQUEST_ALTS", "THANK_YOU", "GOODBYE",
})
SYSTEM_ACTS = frozenset({
    "INFORM", "REQUEST", "CONFIRM", "OFFER", "NOTIFY_SUCCESS", "NOTIFY_FAILURE",
    "INFORM_COUNT", "OFFER_INTENT", "REQ_MORE", "GOODBYE",
})
ACTS = {"USER": USER_ACTS, "SYSTEM": SYSTEM_ACTS}
NO_INTENT = "NONE"  # the source's active_intent when no intent is active
SPLIT_DIRS = {"train": "train", "validation": "dev", "test": "test"}

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
FEATURES = {"unified": UNIFIED_FEATURES, "original": ORIGINAL_FEATURES, "schema": SCHEMA_FEATURES}


# ---------------------------------------------------------------- the source format, as types

class Span(TypedDict):
    slot: str
    start: int
    exclusive_end: int


class Action(TypedDict):
    act: str
    slot: str
    values: List[str]
    canonical_values: List[str]


class State(TypedDict):
    active_intent: str
    requested_slots: List[str]
    slot_values: Dict[str, List[str]]


class ServiceCall(TypedDict):
    method: str
    parameters: Dict[str, str]


class _FrameKeys(TypedDict):
    service: str
    slots: List[Span]
    actions: List[Action]


class Frame(_FrameKeys, total=False):
    state: State
    service_call: ServiceCall
    service_results: List[Dict[str, str]]


class Turn(TypedDict):
    speaker: str
    utterance: str
    frames: List[Frame]


class Dialogue(TypedDict):
    dialogue_id: str
    services: List[str]
    turns: List[Turn]


# Decodes one dialogue into the dicts json.loads gives, checking every type as it goes.
DIALOGUE = msgspec.json.Decoder(Dialogue)


def decode_dialogues(data, file, check_values=True):
    """The dialogues of a file's bytes, one at a time, validated: the types while decoding,
    the rest by values_valid (unless ``check_values`` is false: the unified mapping makes
    the same checks as it goes); validate_dialogue names the first error."""
    for index, dialogue in enumerate(decode_json_list(data, file, DIALOGUE, validate_dialogue)):
        if check_values and not values_valid(dialogue):
            validate_dialogue(dialogue, file, index)
        yield dialogue


def values_valid(dialogue):
    """Whether a dialogue of the right types passes the checks of validate_dialogue that
    types cannot express: speakers, acts, span bounds and canonical value counts."""
    for turn in dialogue["turns"]:
        acts = ACTS.get(turn["speaker"])
        if acts is None:
            return False
        length = len(turn["utterance"])
        for frame in turn["frames"]:
            for span in frame["slots"]:
                if not 0 <= span["start"] <= span["exclusive_end"] <= length:
                    return False
            for action in frame["actions"]:
                if action["act"] not in acts or len(action["values"]) != len(action["canonical_values"]):
                    return False
    return True


def file_tables(data, file, config, split, schemas, train_services):
    """The pa.Tables of one dialogues file (its bytes) in ``config``, ``unified`` or
    ``original``, BATCH_SIZE dialogues each; see dialogues_to_table for ``schemas`` and
    ``train_services``. Each dialogue is mapped as soon as it is decoded, so of a file with
    several problems, the first dialogue that has one is reported."""
    dialogues = decode_dialogues(data, file, check_values=config != "unified")
    if config == "original":
        return batched_tables(map(dialogue_to_original, dialogues), ORIGINAL_FEATURES.arrow_schema, file)
    return (dialogues_to_table(batch, split, schemas, train_services, file)
            for batch in lazy_batches(dialogues, BATCH_SIZE))


# ---------------------------------------------------------------- validation

class _Checker:
    """Type checks that raise SourceFormatError naming file, record and field."""

    def __init__(self, file, record):
        self.file, self.record = file, record

    def fail(self, field, problem):
        raise SourceFormatError(self.file, self.record, field, problem)

    def get(self, obj, key, kind, field):
        if not isinstance(obj, dict):
            self.fail(field.rsplit(".", 1)[0], f"expected an object, got {type(obj).__name__}")
        if key not in obj:
            self.fail(field, "missing")
        return self.check(obj[key], kind, field)

    def check(self, value, kind, field):
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            self.fail(field, f"expected {kind.__name__}, got {type(value).__name__} {value!r:.60}")
        return value

    def strings(self, value, field):
        for i, item in enumerate(self.check(value, list, field)):
            self.check(item, str, f"{field}[{i}]")
        return value

    def string_map(self, value, field, item_check):
        for key, item in self.check(value, dict, field).items():
            item_check(item, f"{field}.{key}")
        return value


def _record_name(kind, obj, key, index):
    name = obj.get(key) if isinstance(obj, dict) else None
    return f"{kind} {name}" if isinstance(name, str) else f"{kind} #{index} (no {key})"


def validate_dialogue(dialogue, file, index=None):
    """Raise SourceFormatError at the first field that breaks the documented format."""
    c = _Checker(file, _record_name("dialogue", dialogue, "dialogue_id", index))
    c.get(dialogue, "dialogue_id", str, "dialogue_id")
    c.strings(c.get(dialogue, "services", list, "services"), "services")
    for t, turn in enumerate(c.get(dialogue, "turns", list, "turns")):
        where = f"turns[{t}]"
        speaker = c.get(turn, "speaker", str, f"{where}.speaker")
        if speaker not in ACTS:
            c.fail(f"{where}.speaker", f"unknown speaker {speaker!r}")
        utterance = c.get(turn, "utterance", str, f"{where}.utterance")
        for f, frame in enumerate(c.get(turn, "frames", list, f"{where}.frames")):
            _validate_frame(c, frame, speaker, utterance, f"{where}.frames[{f}]")


def _validate_frame(c, frame, speaker, utterance, where):
    c.get(frame, "service", str, f"{where}.service")
    for s, span in enumerate(c.get(frame, "slots", list, f"{where}.slots")):
        field = f"{where}.slots[{s}]"
        c.get(span, "slot", str, f"{field}.slot")
        start = c.get(span, "start", int, f"{field}.start")
        end = c.get(span, "exclusive_end", int, f"{field}.exclusive_end")
        if not 0 <= start <= end <= len(utterance):
            c.fail(field, f"span {start}:{end} lies outside the utterance ({len(utterance)} characters)")
    for a, action in enumerate(c.get(frame, "actions", list, f"{where}.actions")):
        field = f"{where}.actions[{a}]"
        act = c.get(action, "act", str, f"{field}.act")
        if act not in ACTS[speaker]:
            c.fail(f"{field}.act", f"unknown {speaker} act {act!r}")
        c.get(action, "slot", str, f"{field}.slot")
        values = c.strings(c.get(action, "values", list, f"{field}.values"), f"{field}.values")
        canonical = c.strings(c.get(action, "canonical_values", list, f"{field}.canonical_values"),
                              f"{field}.canonical_values")
        if len(values) != len(canonical):
            c.fail(f"{field}.canonical_values", f"{len(canonical)} canonical values for {len(values)} values")
    if "state" in frame:
        state = c.get(frame, "state", dict, f"{where}.state")
        c.get(state, "active_intent", str, f"{where}.state.active_intent")
        c.strings(c.get(state, "requested_slots", list, f"{where}.state.requested_slots"),
                  f"{where}.state.requested_slots")
        c.string_map(c.get(state, "slot_values", dict, f"{where}.state.slot_values"),
                     f"{where}.state.slot_values", c.strings)
    if "service_call" in frame:
        call = c.get(frame, "service_call", dict, f"{where}.service_call")
        c.get(call, "method", str, f"{where}.service_call.method")
        c.string_map(c.get(call, "parameters", dict, f"{where}.service_call.parameters"),
                     f"{where}.service_call.parameters", lambda v, f: c.check(v, str, f))
    if "service_results" in frame:
        for r, result in enumerate(c.get(frame, "service_results", list, f"{where}.service_results")):
            c.string_map(result, f"{where}.service_results[{r}]", lambda v, f: c.check(v, str, f))


def validate_service(service, file, index=None):
    c = _Checker(file, _record_name("service", service, "service_name", index))
    for key, kind in (("service_name", str), ("description", str), ("slots", list), ("intents", list)):
        c.get(service, key, kind, key)
    for i, slot in enumerate(service["slots"]):
        for key, kind in (("name", str), ("description", str), ("is_categorical", bool)):
            c.get(slot, key, kind, f"slots[{i}].{key}")
        c.strings(c.get(slot, "possible_values", list, f"slots[{i}].possible_values"), f"slots[{i}].possible_values")
    for i, intent in enumerate(service["intents"]):
        for key, kind in (("name", str), ("description", str), ("is_transactional", bool)):
            c.get(intent, key, kind, f"intents[{i}].{key}")
        for key in ("required_slots", "result_slots"):
            c.strings(c.get(intent, key, list, f"intents[{i}].{key}"), f"intents[{i}].{key}")
        c.string_map(c.get(intent, "optional_slots", dict, f"intents[{i}].optional_slots"),
                     f"intents[{i}].optional_slots", lambda v, f: c.check(v, str, f))


# ---------------------------------------------------------------- schema config

def service_to_row(service):
    """A schema.json service as a ``schema`` row: optional_slots become slot/value pairs."""
    return {
        **service,
        "intents": [
            {**intent, "optional_slots": _pairs(intent["optional_slots"])} for intent in service["intents"]
        ],
    }


def row_to_service(row):
    return {
        **row,
        "intents": [{**intent, "optional_slots": _mapping(intent["optional_slots"])} for intent in row["intents"]],
    }


def _pairs(mapping):
    return [{"slot": slot, "value": value} for slot, value in mapping.items()]


def _mapping(pairs):
    return {pair["slot"]: pair["value"] for pair in pairs}


# ---------------------------------------------------------------- original config

def dialogue_to_original(dialogue):
    """The source dialogue with variable-key dicts as lists of key/value records."""
    return {
        "dialogue_id": dialogue["dialogue_id"],
        "services": dialogue["services"],
        "turns": [
            {"speaker": t["speaker"], "utterance": t["utterance"], "frames": [_frame_to_original(f) for f in t["frames"]]}
            for t in dialogue["turns"]
        ],
    }


def _frame_to_original(frame):
    row = {"service": frame["service"], "slots": frame["slots"], "actions": frame["actions"]}
    if "state" in frame:
        state = frame["state"]
        row["state"] = {
            "active_intent": state["active_intent"],
            "requested_slots": state["requested_slots"],
            "slot_values": [{"slot": k, "values": v} for k, v in state["slot_values"].items()],
        }
    if "service_call" in frame:
        call = frame["service_call"]
        row["service_call"] = {"method": call["method"], "parameters": _pairs(call["parameters"])}
    if "service_results" in frame:
        row["service_results"] = [_pairs(result) for result in frame["service_results"]]
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
    """The unified records of ``dialogues`` as one pa.Table.

    ``schemas``: the split's service schemas by name; ``train_services``: service names of
    the train schema (a frame whose service is not there is unseen), or None if unknown.
    The turns, which hold nearly all of the data, are written column by column
    (columns.py); the few dialogue-level fields as one record per dialogue.
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
    services = dialogue["services"]
    missing = [s for s in services if s not in schemas]
    if missing:
        raise SourceFormatError(file, f"dialogue {dialogue['dialogue_id']}", "services",
                                f"services {missing} are not in the split's schema.json")
    return {
        "turn": "multi",
        "domain": services,
        "locale": "en",
        "dialogue_id": dialogue_id("sgd", split, dialogue["dialogue_id"]),
        "original_id": dialogue["dialogue_id"],
        "corpus": "sgd",
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


class TurnError(Exception):
    """A turn the unified mapping cannot take: ``(field, problem)``, the error to report."""


class ValueCheckFailed(Exception):
    """A check of values_valid failed while mapping; validate_dialogue names the field."""


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
    """Append the dialogue's turns to ``turns``, the StructColumns of unified turns. The
    checks of values_valid are made on the way, which saves a pass over the dialogue; so
    of several problems in a dialogue, the first one the mapping meets is reported. After
    an error, ``turns`` is half written and must be dropped."""
    record = f"dialogue {dialogue['dialogue_id']}"
    canonical = CanonicalValues()
    for index, turn in enumerate(dialogue["turns"]):
        try:
            add_turn(turns, turn, canonical, train_services)
        except TurnError as error:
            raise SourceFormatError(file, f"{record}: turns[{index}]", *error.args) from None
        except ValueCheckFailed:
            validate_dialogue(dialogue, file)
            raise AssertionError(f"{file}: {record}: a check failed that validate_dialogue passes") from None
    # Until now the belief values' canonical_value column lagged behind their value column
    # (the first field, which counts the rows); this brings it level.
    belief_values = turns.belief_state.items.informed_slot_value_table.items.values.items
    belief_values.cononical_value.extend(map(canonical.known.get, canonical.wanted))


def add_turn(turns, turn, canonical, train_services):
    """One SGD turn: its frames, and their actions, states, service call and results merged
    into the turn's dialog acts, belief state, query and querying result. ``canonical``:
    the dialogue's CanonicalValues."""
    utterance, speaker = turn["utterance"], turn["speaker"]
    speaker_acts = ACTS.get(speaker)
    if speaker_acts is None:
        raise ValueCheckFailed
    turns.roles.items.append(speaker)
    turns.roles.end_row()
    turns.utterance.append(utterance)
    states, call, results = [], None, None
    for frame in turn["frames"]:
        add_frame(turns.frames.items, frame, train_services)
        add_dialog_acts(turns.dialog_acts.items, frame, utterance, speaker_acts, canonical)
        if "state" in frame:
            states.append(frame)
        if "service_call" in frame:
            if call is not None:
                raise TurnError("frames.service_call", "more than one service call in a turn")
            call = frame
            for slot, value in frame["service_call"]["parameters"].items():
                canonical.known.setdefault((frame["service"], slot, value), value)
        if "service_results" in frame:
            if results is not None:
                raise TurnError("frames.service_results", "more than one list of service results in a turn")
            results = frame
    turns.frames.end_row()
    turns.dialog_acts.end_row()
    if states:
        for frame in states:
            add_belief(turns.belief_state.items, frame["state"], frame["service"], canonical)
        turns.belief_state.end_row()
        intents = (frame["state"]["active_intent"] for frame in states)
        turns.active_intents.items.extend(intent for intent in intents if intent != NO_INTENT)
        turns.active_intents.end_row()
    else:
        turns.belief_state.add_null()
        turns.active_intents.add_null()
    if call is None:
        turns.query.add_null()
    else:
        add_query(turns.query, call["service_call"], call["service"])
    if results is None:
        turns.querying_result.add_null()
    else:
        add_querying_result(turns.querying_result, results["service_results"], results["service"])


def add_frame(frames, frame, train_services):
    """The frame as the ``frames`` extension: its service, whether the train schema lacks
    it, and its slot spans as the source has them (``end`` exclusive)."""
    service = frame["service"]
    frames.service.append(service)
    frames.unseen.append(None if train_services is None else service not in train_services)
    spans = frames.slots.items
    for span in frame["slots"]:
        spans.slot.append(span["slot"])
        spans.start.append(span["start"])
        spans.end.append(span["exclusive_end"])
    frames.slots.end_row()


def value_spans(frame, utterance):
    """(slot, text) -> (start, end) of the frame's first span of that slot and text."""
    spans = {}
    for span in frame["slots"]:
        start, end = span["start"], span["exclusive_end"]
        if not 0 <= start <= end <= len(utterance):
            raise ValueCheckFailed
        spans.setdefault((span["slot"], utterance[start:end]), (start, end))
    return spans


def add_dialog_acts(acts, frame, utterance, speaker_acts, canonical):
    """Each action of the frame as a dialog act of its service. An action with a slot or
    values has one slot-value entry: each value with its canonical value and, where the
    frame has a span of the slot with that text, its span; the others have none.
    ``speaker_acts``: the acts the turn's speaker may use; ``canonical``: the dialogue's
    CanonicalValues, which learns the canonical values of the actions."""
    service, spans = frame["service"], value_spans(frame, utterance)
    remember = canonical.known.setdefault
    table = acts.slot_value_table
    entries = table.items
    values = entries.values.items
    for action in frame["actions"]:
        if action["act"] not in speaker_acts or len(action["values"]) != len(action["canonical_values"]):
            raise ValueCheckFailed
        acts.act.append(action["act"])
        acts.domain.append(service)
        slot = action["slot"]
        if slot or action["values"]:
            entries.slot.append(slot)
            for value, canonical_value in zip(action["values"], action["canonical_values"]):
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
    intent = state["active_intent"]
    beliefs.intent.append(None if intent == NO_INTENT else intent)
    beliefs.domain.append(service)
    table = beliefs.informed_slot_value_table
    entries = table.items
    values = entries.values.items
    for slot, variants in state["slot_values"].items():
        entries.slot.append(slot)
        values.value.extend(variants)
        canonical.wanted.extend([(service, slot, value) for value in variants])
        entries.values.end_row()
    table.end_row()
    beliefs.requested_slots.items.extend(state["requested_slots"])
    beliefs.requested_slots.end_row()


def add_query(query, call, service):
    query.domain.append(service)
    query.method.append(call["method"])
    _add_pairs(query.parameters, call["parameters"])


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
