"""One row per dialogue: an episode of the environment, as TRL's GRPOTrainer takes it.

Columns: ``id`` (the dialogue id), ``dialogue_id``, ``original_id``, ``prompt`` (the
system message of the mode, then the first user message: in ``ticket`` mode the user's
goal written as instructions, in ``replay`` mode the dialogue's first user turn),
``environment`` (the name of the dialogue's set of services: the entry of the
``environment_factory`` dict that serves it), ``services`` (the dialogue's services, in
its order), ``mode``, ``user_turns`` (the user's turns, in order), ``goal`` (what the
user wants) and ``outcome`` (what the dialogue ended with), as
``unified_dialogue.environment.goals`` describes them. User options: ``mode`` (``ticket``,
the default, or ``replay``) and ``instruction`` (the system message's text).

The row is the whole dialogue: the goal and the outcome are what the user wanted and got
by its end, as a task given to an agent is.
"""

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..core.errors import ConfigError
from ..core.features import BOOL, SLOT_VALUE_PAIR, STRING
from ..core.options import Option
from ..views.turns import Turns
from .goals import USER, goal, outcome, speaker
from .tickets import MODES, ticket
from .tickets import instruction as instruction_text

MESSAGE = {"role": STRING, "content": STRING}
CALL = {"service": STRING, "intent": STRING, "arguments": [SLOT_VALUE_PAIR]}
FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "original_id": STRING,
    "prompt": [MESSAGE],
    "environment": STRING,
    "services": [STRING],
    "mode": STRING,
    "user_turns": [STRING],
    "goal": {"intents": [{"service": STRING, "intent": STRING, "transactional": BOOL,
                          "constraints": [{"slot": STRING, "values": [STRING]}], "requested": [STRING]}]},
    "outcome": {"transactions": [CALL], "queries": [CALL],
                "told": [{"service": STRING, "slot": STRING, "values": [STRING]}]},
})
OPTIONS = (
    Option("mode", str, "ticket", f"How the user speaks: {' or '.join(MODES)} (unified_dialogue.environment).",
           choices=MODES),
    Option("instruction", str, None, "The system message's text (default: the mode's text of "
                                     "unified_dialogue/environment/templates.json)."),
)
# What goals read of a turn: nested fields by name (a list of records keeps only those fields).
VALUE = ("value", "cononical_value")
TURN_FIELDS = {
    "roles": None, "utterance": None,
    "dialog_acts": {"act": None, "domain": None, "slot_value_table": {"slot": None, "values": VALUE}},
    "belief_state": {"intent": None, "domain": None, "informed_slot_value_table": {"slot": None, "values": VALUE}},
    "query": None, "querying_result": None,
}


def environment_name(services):
    """The name of a set of services: sorted, joined by ``+``; as JSON where a name holds
    ``+`` (so that two sets never share a name)."""
    names = sorted(set(services))
    return json.dumps(names, ensure_ascii=False) if any("+" in name for name in names) else "+".join(names)


def checked_mode(mode):
    if mode not in MODES:
        raise ConfigError(f"mode {mode!r}: the environment's modes are {', '.join(MODES)}")
    return mode


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


def row(dialogue_id, original_id, turns, schemas, mode, system):
    """The episode row of one dialogue."""
    by_name = {schema["service_name"]: schema for schema in schemas}
    services = list(by_name)
    wanted = goal(turns, by_name)
    user_turns = [turn["utterance"] for turn in turns if speaker(turn) == USER]
    first = ticket(wanted, by_name) if mode == "ticket" else (user_turns[0] if user_turns else "")
    return {"id": dialogue_id, "dialogue_id": dialogue_id, "original_id": original_id,
            "prompt": [{"role": "system", "content": system}, {"role": "user", "content": first}],
            "environment": environment_name(services), "services": services, "mode": mode,
            "user_turns": user_turns, "goal": wanted, "outcome": outcome(turns, by_name)}


def table(unified, mode="ticket", instruction=None):
    """The ``episodes`` rows of a pa.Table of unified SGD records."""
    mode = checked_mode(mode)
    system = instruction_text(mode, instruction)
    rows = [row(*dialogue, mode, system) for dialogue in dialogues(unified)]
    return pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)
