"""Goals: what the user of a dialogue wants, and what the dialogue ended with, from its
annotations only (pure functions of one unified SGD record's turns and schemas).

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
``dialog_acts``, ``belief_state``, ``query``, ``querying_result``); ``schemas``: its
services' schema records by name.
"""

from ..core.features import NO_INTENT

USER, SYSTEM = "USER", "SYSTEM"
INFORM, REQUEST, INFORM_INTENT = "INFORM", "REQUEST", "INFORM_INTENT"


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
