"""A user's goal (``views.goals.goal``) written as the user's own instructions, from the
templates of ``ticket.json`` (the one place they are written): the first user message of
the environment's ``ticket`` mode, and the goal in the system message of ``user-chat`` rows
and of the environment's simulated user.

A ticket lists the goal's intents in order, each with its description and service, then
one line per constraint (the slot's description, else its name, and its last value; the
earlier values where the user changed it), then the slots to be told about.
"""

import functools
import json
from importlib import resources


@functools.lru_cache(maxsize=None)
def templates():
    """``{part: template}`` of ``ticket.json``."""
    return json.loads(resources.files(__package__).joinpath("ticket.json").read_text(encoding="utf-8"))


def described(schema, slot):
    for entry in schema.get("slots", ()):
        if entry["name"] == slot and entry["description"].strip():
            return " ".join(entry["description"].split())
    return slot


def intent_description(schema, intent):
    for entry in schema.get("intents", ()):
        if entry["name"] == intent and entry["description"].strip():
            return " ".join(entry["description"].split())
    return intent


def ticket(goal, schemas):
    """The goal as the user's instructions.

    Args:
        goal: a goal of ``views.goals.goal``.
        schemas: ``{service name: schema record}`` of the dialogue's services.

    Returns:
        The text, one line per intent, constraint and request.

    Example:
        >>> ticket({"intents": [{"service": "Media_1", "intent": "PlayMovie", "transactional": True,
        ...          "constraints": [{"slot": "title", "values": ["Suburban Birds"]}], "requested": []}]},
        ...        {"Media_1": schema})
    """
    parts = templates()
    lines = [parts["opening"]]
    for number, entry in enumerate(goal["intents"], start=1):
        schema = schemas.get(entry["service"], {})
        lines.append(parts["intent"].format(number=number, service=entry["service"],
                                            description=intent_description(schema, entry["intent"])))
        for constraint in entry["constraints"]:
            *earlier, value = constraint["values"]
            slot = described(schema, constraint["slot"])
            lines.append(parts["changed"].format(slot=slot, value=value, earlier=", then ".join(earlier))
                         if earlier else parts["constraint"].format(slot=slot, value=value))
        if entry["requested"]:
            lines.append(parts["requested"].format(slots="; ".join(described(schema, s) for s in entry["requested"])))
    lines.append(parts["closing"])
    return "\n".join(lines)
