"""Goals: what the user of a dialogue wants, and what the dialogue ended with, from its
annotations only (pure functions of one unified SGD record's turns and schemas). The
``user-chat`` rows (``chat.user``) and the environment's episodes
(``unified_dialogue.environment``) hold the same goals.

``goal(turns, schemas)`` gives ``{"intents": [...]}``, one entry per intent the user
pursued, in the order the user first made it active: ``service``, ``intent``,
``transactional``, ``constraints`` (``[{slot, values, accepted}]``: every value the user
gave the slot for that intent, in order, canonical where the corpus has the canonical value;
the last is what the slot ended as, so a value the user changed keeps both, first the one
asked first; ``accepted`` where the last is a value the user never said but took when it
was offered; the identifying values of an item the user settled on without booking it,
where the user gave none, are such values), ``requested`` (the slots the user asked about), ``on_refusal`` (``accept`` or
``decline`` where the service refused the intent's booking: whether the user then took the
alternative; else empty) and ``questions`` (each value told in answer to a request, its
item, ``named`` where that is not the item the service ends at or where the slot was told
of more than one item). A constraint comes from the user's ``INFORM`` acts while the intent
is active, then from the intent's last dialogue state (values the user accepted from an
offer are there).

``outcome(turns, schemas)`` gives the gold outcome: ``transactions`` (every transactional
call the service carried out, with its ``item``), ``refused`` (every transactional call
of a turn with ``NOTIFY_FAILURE`` for its service: the corpus's refusals, which are no
transaction), ``queries`` (the last call of each intent that is not transactional, in the
order of those calls), ``found`` (for each of those whose service made no transaction, the
item the dialogue ended at), ``told`` (each value the system informed in the turn after
the user requested its slot: ``{service, slot, values, item}``, the value as said and as
canonical) and ``aliases`` (each value said in more than one form, the service's first).
An item is ``[{slot, values}]``: the values of the slots ``views.items`` declares for the
intent, each with every form the dialogue used.

``turns``: the dialogue's turns as unified turn dicts (``roles``, ``utterance``,
``dialog_acts``, ``belief_state``, ``query``, ``querying_result``; ``dialogues`` gives
them for a batch of records); ``schemas``: its services' schema records by name.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.features import CONFIRM, DONTCARE, INFORM, INFORM_INTENT, NO_INTENT, NOTIFY_FAILURE, OFFER, REQUEST, SELECT
from .items import identifying, service_identifying
from .turns import Turns

USER, SYSTEM = "USER", "SYSTEM"
# The acts that name an item: the system's offers, confirmations and informs, the user's
# own values and choices.
NAMING = (OFFER, CONFIRM, INFORM, SELECT)


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


def is_transactional(schemas, service, intent):
    return any(i["name"] == intent and i["is_transactional"] for i in schemas.get(service, {}).get("intents", ()))


def intent_entry(intents, schemas, service, intent):
    key = (service, intent)
    if key not in intents:
        intents[key] = {"service": service, "intent": intent,
                        "transactional": is_transactional(schemas, service, intent),
                        "constraints": {}, "accepted": set(), "requested": [], "on_refusal": ""}
    return intents[key]


def add_value(constraints, slot, value):
    """Add ``value`` to the slot's values; whether it is new (not the slot's last value)."""
    values = constraints.setdefault(slot, [])
    if not values or not same(values[-1], value):
        values.append(value)
        return True
    return False


def refused_services(turn):
    """The services whose call of a system turn the system reported as failed."""
    return {act["domain"] for act in turn["dialog_acts"] or () if act["act"] == NOTIFY_FAILURE}


def forms(pair):
    """Every form of an act's or a state's values: as said, and canonical."""
    return list(dict.fromkeys(v for value in pair["values"] for v in (value["value"], canonical(value)) if v))


def goal(turns, schemas):
    """The user's goal of one dialogue (see the module's docstring).

    Args:
        turns: the dialogue's unified turns.
        schemas: ``{service name: schema record}`` of its services.

    Returns:
        ``{"intents": [{service, intent, transactional, constraints: [{slot, values,
        accepted}], requested, on_refusal}]}``.

    Example:
        >>> goal(record["dialog"], {s["service_name"]: s for s in record["knowledge"]["value"]["schema"]})
    """
    intents, active, final = {}, {}, {}
    refused, informed = set(), set()  # the intents refused; every value the user said (case folded)
    for turn in turns:
        if speaker(turn) != USER:
            refused |= {(service, call["method"]) for call in [turn["query"]] if call
                        for service in refused_services(turn) if service == call["domain"]}
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
                    entry["accepted"].discard(pair["slot"])
                    informed.update(form.casefold() for form in forms(pair))
    for key, state in final.items():
        for pair in state["informed_slot_value_table"] or ():
            if not pair["values"]:
                continue
            known = intents[key]["constraints"].get(pair["slot"], [])
            if known and any(same(known[-1], form) for form in forms(pair)):
                continue  # the same value, in another of its forms
            value = canonical(pair["values"][0])
            if add_value(intents[key]["constraints"], pair["slot"], value) and \
                    not any(form.casefold() in informed for form in forms(pair)):
                intents[key]["accepted"].add(pair["slot"])
    done = booked(turns, schemas)
    for key in refused & set(intents):
        intents[key]["on_refusal"] = "accept" if key in done else "decline"
    gold = outcome(turns, schemas)
    settled_on(intents, gold)
    for entry in intents.values():
        entry["questions"] = questions(entry, gold)
    return {"intents": [{**{k: v for k, v in entry.items() if k != "accepted"},
                         "constraints": [{"slot": slot, "values": values, "accepted": slot in entry["accepted"]}
                                         for slot, values in entry["constraints"].items()]}
                        for entry in intents.values()]}


def settled_on(intents, gold):
    """Add to each search intent the identifying values of the item the user settled on
    without booking it (``found``) that the user never gave, as values they accepted when
    offered: the item is the answer, and only the goal can say which it is."""
    for found in gold["found"]:
        entry = intents.get((found["service"], found["intent"]))
        for slot in found["item"] if entry is not None else ():
            if slot["slot"] not in entry["constraints"] and slot["values"]:
                entry["constraints"][slot["slot"]] = [slot["values"][0]]
                entry["accepted"].add(slot["slot"])


def last_item(gold, service):
    """The values naming the item a service ends at: its last booking's or found item's."""
    items = [call["item"] for call in gold["transactions"] if call["service"] == service] + \
        [entry["item"] for entry in gold["found"] if entry["service"] == service]
    return items[-1] if items else []


def shared_slots(gold, service):
    """The slots of ``service`` the system told for more than one item: each answer is
    judged for its own item (``environment.told``), so a ticket names the item of each."""
    items = {}
    for told in gold["told"]:
        if told["service"] == service and told["item"] and told["item"] not in items.setdefault(told["slot"], []):
            items[told["slot"]].append(told["item"])
    return {slot for slot, found in items.items() if len(found) > 1}


def questions(entry, gold):
    """What the user asked about, of the values the system told: ``[{slot, item, named}]``,
    ``named`` where the item is not the one the service ends at (or the service ends at
    none) or where the slot was told of more than one item (a ticket names it)."""
    last = {slot["slot"]: {v.casefold() for v in slot["values"]} for slot in last_item(gold, entry["service"])}
    shared = shared_slots(gold, entry["service"])
    asked = []
    for told in gold["told"]:
        if told["service"] != entry["service"] or told["slot"] not in entry["requested"]:
            continue
        same_item = bool(last) and told["slot"] not in shared and \
            all(slot["slot"] not in last or last[slot["slot"]] & {v.casefold() for v in slot["values"]}
                for slot in told["item"])
        question = {"slot": told["slot"], "item": told["item"], "named": bool(told["item"]) and not same_item}
        if question not in asked:
            asked.append(question)
    return asked


def booked(turns, schemas):
    """``{(service, intent)}`` of the transactions the dialogue made (a call that returned
    a row, in a turn not reporting its failure)."""
    return {(t["query"]["domain"], t["query"]["method"]) for t in turns
            if speaker(t) != USER and t["query"] is not None
            and is_transactional(schemas, t["query"]["domain"], t["query"]["method"])
            and t["querying_result"] is not None and t["querying_result"]["results"]
            and t["query"]["domain"] not in refused_services(t)}


def item_values(item):
    return [{"slot": slot, "values": values} for slot, values in item.items()]


def outcome(turns, schemas):
    """The gold outcome of one dialogue (see the module's docstring).

    Args:
        turns: the dialogue's unified turns.
        schemas: ``{service name: schema record}`` of its services.

    Returns:
        ``{"transactions": [{service, intent, arguments, item}], "refused": [{service,
        intent, arguments, item}], "queries": [...], "found": [{service, intent, item}],
        "told": [{service, slot, values, item}]}``, arguments as ``[{slot, value}]``, an
        item as ``[{slot, values}]`` (its identifying values, every form the dialogue used).

    Example:
        >>> outcome(record["dialog"], {s["service_name"]: s for s in record["knowledge"]["value"]["schema"]})
    """
    transactions, refused, last_query, told, requested = [], [], {}, [], set()
    current, said = {}, {}  # the item each service is at; the forms of each (service, slot, canonical value)
    searches, last_search = [], {}  # each told entry's search, where it has no item; each service's last search
    stated = {}  # the forms of each (service, slot) of the user's last dialogue state
    for turn in turns:
        for act in turn["dialog_acts"] or ():
            naming = set(service_identifying(schemas.get(act["domain"], {})))
            for pair in act["slot_value_table"] if act["act"] in NAMING else ():
                for value in pair["values"]:  # an offer of two items names both, the first current
                    canon = canonical(value)
                    key = (act["domain"], pair["slot"], canon.casefold())
                    said[key] = list(dict.fromkeys([canon] + said.get(key, []) + [value["value"]]))
                if pair["values"] and pair["slot"] in naming:
                    first = (act["domain"], pair["slot"], canonical(pair["values"][0]).casefold())
                    current.setdefault(act["domain"], {})[pair["slot"]] = said[first]
        if speaker(turn) == USER:
            requested = {(act["domain"], pair["slot"]) for act in turn["dialog_acts"] or ()
                         if act["act"] == REQUEST for pair in act["slot_value_table"]}
            stated = {(state["domain"], pair["slot"]): forms(pair) for state in turn["belief_state"] or ()
                      for pair in state["informed_slot_value_table"] or () if pair["values"]}
            continue
        call = turn["query"]
        for pair in call["parameters"] if call is not None else ():
            said_as(said, call["domain"], pair, stated.get((call["domain"], pair["slot"]), ()))
        if call is not None and not is_transactional(schemas, call["domain"], call["method"]):
            last_search[call["domain"]] = call
        for act in turn["dialog_acts"] or ():
            for pair in act["slot_value_table"] if act["act"] == INFORM else ():
                if (act["domain"], pair["slot"]) in requested and pair["values"]:
                    entry = {"service": act["domain"], "slot": pair["slot"], "values": forms(pair),
                             "item": told_item(schemas, act["domain"], current)}
                    search = None if entry["item"] else last_search.get(act["domain"])
                    if (entry, search) not in zip(told, searches):
                        told.append(entry)
                        searches.append(search)
        requested = set()
        if call is None:
            continue
        entry = {"service": call["domain"], "intent": call["method"], "arguments": list(call["parameters"])}
        if is_transactional(schemas, call["domain"], call["method"]):
            entry["item"] = call_item(schemas, entry, said)
            if call["domain"] in refused_services(turn):
                refused.append(entry)
            elif turn["querying_result"] is not None and turn["querying_result"]["results"]:
                transactions.append(entry)
        else:
            last_query.pop((call["domain"], call["method"]), None)
            last_query[(call["domain"], call["method"])] = entry
    for entry, search in zip(told, searches):
        if search is not None and last_query[(search["domain"], search["method"])]["arguments"] != \
                list(search["parameters"]):
            entry["item"] = search_item(search, said)  # told of a search the user moved on from: its arguments name it
    return {"transactions": transactions, "refused": refused, "queries": list(last_query.values()),
            "found": found_items(schemas, last_query.values(), transactions, current), "told": told,
            "aliases": aliases(said)}


def said_as(said, service, argument, state_forms):
    """Record the user's forms of a call's argument: the values of its slot in the user's
    dialogue state when the call was made (SGD's state keeps the user's words, the call the
    service's form: ``SF`` for ``San Francisco``, ``the 12th`` for ``2019-03-12``)."""
    value = argument["value"]
    words = [form for form in state_forms if form.casefold() != DONTCARE]
    if words and value.casefold() != DONTCARE:
        key = (service, argument["slot"], value.casefold())
        said[key] = list(dict.fromkeys([value] + said.get(key, []) + words))


def aliases(said):
    """Each value the dialogue gave in more than one form: ``{service, slot, values}``, the
    canonical (the service's) form first, then the others (the user's words, a relative
    date as said)."""
    found = []
    for (service, slot, _), values in said.items():
        if len(values) > 1:
            found.append({"service": service, "slot": slot, "values": values})
    return found


def told_item(schemas, service, current):
    """The item a value the system informed is about: the values identifying the item of
    the service's searches that the dialogue was at (none for a service without items)."""
    schema = schemas.get(service, {})
    slots = {slot for i in schema.get("intents", ()) if not i["is_transactional"] for slot in identifying(schema, i["name"])}
    return item_values({slot: values for slot, values in current.get(service, {}).items() if slot in slots})


def search_item(call, said):
    """The item of a search whose intent has none (a forecast): its arguments, each with
    the forms the dialogue used for the value."""
    return item_values({pair["slot"]: list(dict.fromkeys([pair["value"]] + said.get(
        (call["domain"], pair["slot"], pair["value"].casefold()), []))) for pair in call["parameters"]})


def call_item(schemas, call, said):
    """A transaction's item: its identifying arguments, each with the forms the dialogue
    used for the value."""
    slots = identifying(schemas.get(call["service"], {}), call["intent"])
    arguments = {pair["slot"]: pair["value"] for pair in call["arguments"]}
    return item_values({slot: list(dict.fromkeys([arguments[slot]] + said.get(
        (call["service"], slot, arguments[slot].casefold()), []))) for slot in slots if slot in arguments})


def found_items(schemas, queries, transactions, current):
    """The items the user settled on: of each service's last search, where the service
    made no transaction, the item the dialogue was at (when the search has items)."""
    booked_services = {t["service"] for t in transactions}
    found = []
    for query in queries:
        if query["service"] in booked_services:
            continue
        slots = identifying(schemas.get(query["service"], {}), query["intent"])
        item = {slot: values for slot, values in current.get(query["service"], {}).items() if slot in slots}
        if slots and item:
            found.append({"service": query["service"], "intent": query["intent"], "item": item_values(item)})
    return found
