"""Goals: what the user of a dialogue wants, and what the dialogue ended with, from its
annotations only (pure functions of one unified SGD record's turns and schemas). The
``user-chat`` rows (``chat.user``) and the environment's episodes
(``unified_dialogue.environment``) hold the same goals.

``goal(turns, schemas)`` gives ``{"intents": [...]}``, one entry per intent the user
pursued, in the order the user first made it active: ``service``, ``intent``,
``transactional``, ``constraints`` (``[{slot, values}]``: every value the user gave the
slot for that intent, in order, canonical where the corpus has the canonical value; the
last is what the slot ended as, so a value the user changed keeps both, first the one
asked first), ``requested`` (the slots the user asked about). A constraint comes from the
user's ``INFORM`` acts while the intent is active, then from the intent's last dialogue
state (values the user accepted from an offer are there).

``outcome(turns, schemas)`` gives the gold outcome: ``transactions`` (every transactional
call that returned a row, ``{service, intent, arguments}``), ``queries`` (the last call of
each intent that is not transactional, in the order of those calls) and ``told`` (each
value the system informed in the turn after the user requested its slot:
``{service, slot, values}``, the value as said and as canonical).

``turns``: the dialogue's turns as unified turn dicts (``roles``, ``utterance``,
``dialog_acts``, ``belief_state``, ``query``, ``querying_result``; ``dialogues`` gives
them for a batch of records); ``schemas``: its services' schema records by name.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.features import NO_INTENT
from .turns import Turns

USER, SYSTEM = "USER", "SYSTEM"
INFORM, REQUEST, INFORM_INTENT = "INFORM", "REQUEST", "INFORM_INTENT"


# What goals read of a turn: nested fields by name (a list of records keeps only those fields).
VALUE = ("value", "cononical_value")
TURN_FIELDS = {
    "roles": None, "utterance": None,
    "dialog_acts": {"act": None, "domain": None, "slot_value_table": {"slot": None, "values": VALUE}},
    "belief_state": {"intent": None, "domain": None, "informed_slot_value_table": {"slot": None, "values": VALUE}},
    "query": None, "querying_result": None,
}


def slim(array, fields):
    """``array`` (records, or lists of records) with only ``fields`` (``{name: its fields,
    or None for the whole value}``; a tuple of names for records of plain values): Python
    objects of the rest would cost most of the time."""
    if fields is None:
        return array
    if isinstance(fields, tuple):
        fields = dict.fromkeys(fields)
    if pa.types.is_list(array.type):
        values = slim(array.values, fields)
        return pa.ListArray.from_arrays(array.offsets, values, mask=array.is_null())
    return pa.StructArray.from_arrays([slim(array.field(name), sub) for name, sub in fields.items()],
                                      names=list(fields), mask=array.is_null())


def distinct_schemas(unified):
    """Each record's service schemas (records), each distinct service's made Python once."""
    lists = pc.struct_field(pc.struct_field(unified.column("knowledge").combine_chunks(), "value"), "schema")
    flat = pc.list_flatten(lists)
    names = pc.struct_field(flat, "service_name").to_pylist()
    first = {}
    for index, name in enumerate(names):
        first.setdefault(name, index)
    made = dict(zip(first, flat.take(pa.array(list(first.values()), pa.int64())).to_pylist())) if first else {}
    bounds = np.concatenate([[0], np.cumsum(pc.fill_null(pc.list_value_length(lists), 0).to_numpy())]).tolist()
    return [[made[name] for name in names[bounds[k]:bounds[k + 1]]] for k in range(len(lists))]


def dialogues(unified):
    """``(dialogue_id, original_id, turns, schemas)`` of each record of a batch, the turns
    holding only the fields goals read."""
    turns = Turns(unified)
    every = slim(turns.turns, TURN_FIELDS).to_pylist()
    schemas = distinct_schemas(unified)
    counts = np.bincount(turns.dialogue, minlength=unified.num_rows).tolist()
    first = 0
    for index, (dialogue_id, original_id) in enumerate(zip(unified.column("dialogue_id").to_pylist(),
                                                           unified.column("original_id").to_pylist())):
        yield dialogue_id, original_id, every[first:first + counts[index]], schemas[index] or []
        first += counts[index]


def same(a, b):
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def canonical(value):
    """The canonical value of an act's or a state's value entry, else the value."""
    return value.get("cononical_value") or value["value"]


def speaker(turn):
    return "/".join(turn["roles"])


def intent_entry(intents, schemas, service, intent):
    key = (service, intent)
    if key not in intents:
        transactional = any(i["name"] == intent and i["is_transactional"]
                            for i in schemas.get(service, {}).get("intents", ()))
        intents[key] = {"service": service, "intent": intent, "transactional": transactional,
                        "constraints": {}, "requested": []}
    return intents[key]


def add_value(constraints, slot, value):
    values = constraints.setdefault(slot, [])
    if not values or not same(values[-1], value):
        values.append(value)


def goal(turns, schemas):
    """The user's goal of one dialogue (see the module's docstring).

    Args:
        turns: the dialogue's unified turns.
        schemas: ``{service name: schema record}`` of its services.

    Returns:
        ``{"intents": [{service, intent, transactional, constraints: [{slot, values}],
        requested}]}``.

    Example:
        >>> goal(record["dialog"], {s["service_name"]: s for s in record["knowledge"]["value"]["schema"]})
    """
    intents, active, final = {}, {}, {}
    for turn in turns:
        if speaker(turn) != USER:
            continue
        for state in turn["belief_state"] or ():
            if state["intent"] and state["intent"] != NO_INTENT:
                active[state["domain"]] = state["intent"]
                intent_entry(intents, schemas, state["domain"], state["intent"])
                final[(state["domain"], state["intent"])] = state
        for act in turn["dialog_acts"] or ():
            service = act["domain"]
            if act["act"] == INFORM_INTENT:
                for entry in act["slot_value_table"]:
                    for value in entry["values"]:
                        intent_entry(intents, schemas, service, value["value"])
                continue
            intent = active.get(service)
            if intent is None or act["act"] not in (INFORM, REQUEST):
                continue
            entry = intent_entry(intents, schemas, service, intent)
            for pair in act["slot_value_table"]:
                if act["act"] == REQUEST:
                    if pair["slot"] not in entry["requested"]:
                        entry["requested"].append(pair["slot"])
                elif pair["values"]:
                    add_value(entry["constraints"], pair["slot"], canonical(pair["values"][0]))
    for key, state in final.items():
        for pair in state["informed_slot_value_table"] or ():
            if pair["values"]:
                add_value(intents[key]["constraints"], pair["slot"], canonical(pair["values"][0]))
    return {"intents": [{**entry, "constraints": [{"slot": slot, "values": values}
                                                  for slot, values in entry["constraints"].items()]}
                        for entry in intents.values()]}


def outcome(turns, schemas):
    """The gold outcome of one dialogue (see the module's docstring).

    Args:
        turns: the dialogue's unified turns.
        schemas: ``{service name: schema record}`` of its services.

    Returns:
        ``{"transactions": [{service, intent, arguments}], "queries": [...], "told":
        [{service, slot, values}]}``, arguments as ``[{slot, value}]``.

    Example:
        >>> outcome(record["dialog"], {s["service_name"]: s for s in record["knowledge"]["value"]["schema"]})
    """
    transactions, last_query, told, requested = [], {}, [], set()
    for turn in turns:
        if speaker(turn) == USER:
            requested = {(act["domain"], pair["slot"]) for act in turn["dialog_acts"] or ()
                         if act["act"] == REQUEST for pair in act["slot_value_table"]}
            continue
        for act in turn["dialog_acts"] or ():
            for pair in act["slot_value_table"] if act["act"] == INFORM else ():
                if (act["domain"], pair["slot"]) in requested and pair["values"]:
                    values = list(dict.fromkeys(v for value in pair["values"]
                                                for v in (value["value"], canonical(value))))
                    entry = {"service": act["domain"], "slot": pair["slot"], "values": values}
                    if entry not in told:
                        told.append(entry)
        requested = set()
        call = turn["query"]
        if call is None:
            continue
        intent = next((i for i in schemas.get(call["domain"], {}).get("intents", ()) if i["name"] == call["method"]),
                      None)
        entry = {"service": call["domain"], "intent": call["method"], "arguments": list(call["parameters"])}
        if intent is not None and intent["is_transactional"]:
            if turn["querying_result"] is not None and turn["querying_result"]["results"]:
                transactions.append(entry)
        else:
            last_query.pop((call["domain"], call["method"]), None)
            last_query[(call["domain"], call["method"])] = entry
    return {"transactions": transactions, "queries": list(last_query.values()), "told": told}
