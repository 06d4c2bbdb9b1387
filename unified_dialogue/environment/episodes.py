"""One row per dialogue: an episode of the environment, as TRL's GRPOTrainer takes it.

Columns: ``id`` (the dialogue id), ``dialogue_id``, ``original_id``, ``prompt`` (the
system message of the mode, then the first user message: in ``ticket`` mode the user's
goal written as instructions, in ``replay`` mode the dialogue's first user turn, in
``simulated`` mode empty, the simulated user's first turn being written when the episode
begins),
``environment`` (the name of the dialogue's set of services: the entry of the
``environment_factory`` dict that serves it), ``services`` (the dialogue's services, in
its order), ``mode``, ``user_turns`` (the user's turns, in order), ``goal`` (what the
user wants) and ``outcome`` (what the dialogue ended with), as
``unified_dialogue.views.goals`` describes them, and ``left_out`` (why the dialogue is left
out of the judged set, ``environment.leftout``; empty for a judged episode). User options: ``mode`` (``ticket``,
the default, ``replay`` or ``simulated``) and ``instruction`` (the system message's text).

The row is the whole dialogue: the goal and the outcome are what the user wanted and got
by its end, as a task given to an agent is.
"""

import json

import pyarrow as pa
from datasets import Features

from ..chat.agent import results_of, tool_name
from ..chat.ticket import ticket
from ..core.errors import ConfigError
from ..core.features import BOOL, SLOT_VALUE_PAIR, STRING
from ..core.options import Option
from ..views.goals import USER, dialogues, goal, outcome, speaker
from .leftout import heard, left_out
from .services import Services
from .tickets import MODES
from .tickets import instruction as instruction_text

MESSAGE = {"role": STRING, "content": STRING}
CALL = {"service": STRING, "intent": STRING, "arguments": [SLOT_VALUE_PAIR]}
# An item: its identifying values, each with every form the dialogue used for it.
ITEM = [{"slot": STRING, "values": [STRING]}]
ITEM_CALL = {**CALL, "item": ITEM}
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
                          "constraints": [{"slot": STRING, "values": [STRING], "accepted": BOOL}],
                          "requested": [STRING], "on_refusal": STRING,
                          "questions": [{"slot": STRING, "item": ITEM, "named": BOOL}]}]},
    "outcome": {"transactions": [ITEM_CALL], "refused": [ITEM_CALL], "queries": [CALL],
                "found": [{"service": STRING, "intent": STRING, "item": ITEM}],
                "told": [{"service": STRING, "slot": STRING, "values": [STRING], "item": ITEM}],
                "aliases": [{"service": STRING, "slot": STRING, "values": [STRING]}]},
    "left_out": STRING,
})
OPTIONS = (
    Option("mode", str, "ticket", f"How the user speaks: {' or '.join(MODES)} (unified_dialogue.environment).",
           choices=MODES),
    Option("instruction", str, None, "The system message's text (default: the mode's text of "
                                     "unified_dialogue/environment/templates.json)."),
)


def environment_name(services):
    """The name of a set of services: sorted, joined by ``+``; as JSON where a name holds
    ``+`` (so that two sets never share a name)."""
    names = sorted(set(services))
    return json.dumps(names, ensure_ascii=False) if any("+" in name for name in names) else "+".join(names)


def checked_mode(mode):
    if mode not in MODES:
        raise ConfigError(f"mode {mode!r}: the environment's modes are {', '.join(MODES)}")
    return mode


def returned(turns):
    """``(tool name, row)`` of every result the dialogue's service calls returned."""
    return [(tool_name(turn["query"]["domain"], turn["query"]["method"]), found) for turn in turns
            if turn["query"] is not None and turn["querying_result"] is not None
            for found in results_of(turn["querying_result"])]


def row(dialogue_id, original_id, turns, schemas, mode, system):
    """The episode row of one dialogue."""
    by_name = {schema["service_name"]: schema for schema in schemas}
    services = list(by_name)
    wanted = goal(turns, by_name)
    gold = outcome(turns, by_name)
    user_turns = [turn["utterance"] for turn in turns if speaker(turn) == USER]
    if mode == "ticket":
        first = ticket(wanted, by_name)
    elif mode == "replay":
        first = user_turns[0] if user_turns else ""
    else:  # simulated: the simulated user writes the first user message when the episode begins
        first = ""
    return {"id": dialogue_id, "dialogue_id": dialogue_id, "original_id": original_id,
            "prompt": [{"role": "system", "content": system}, {"role": "user", "content": first}],
            "environment": environment_name(services), "services": services, "mode": mode,
            "user_turns": user_turns, "goal": wanted, "outcome": gold,
            "left_out": left_out(heard(gold, wanted, "\n".join(t["utterance"] for t in turns if speaker(t) != USER),
                                       returned(turns), Services(schemas)))}


def table(unified, mode="ticket", instruction=None):
    """The ``episodes`` rows of a pa.Table of unified SGD records."""
    mode = checked_mode(mode)
    system = instruction_text(mode, instruction)
    rows = [row(*dialogue, mode, system) for dialogue in dialogues(unified)]
    return pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)
