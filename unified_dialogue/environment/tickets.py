"""The texts of an episode, from the templates of ``templates.json`` (the one place they
are written): the system message of each mode (``instruction``), the user's goal written
as instructions (``ticket``, the first user message of ``ticket`` mode, for any goal of
``goals.goal``), and what the simulated user says once it has left (``user_text``).

A ticket lists the goal's intents in order, each with its description and service, then
one line per constraint (the slot's description, else its name, and its last value; the
earlier values where the user changed it), then the slots to be told about.
"""

import functools
import json
from importlib import resources

MODES = ("ticket", "replay")


@functools.lru_cache(maxsize=None)
def templates():
    """``{"instruction": {mode: text}, "ticket": {part: template}, "user": {...}}``."""
    return json.loads(resources.files(__package__).joinpath("templates.json").read_text(encoding="utf-8"))


def instruction(mode, given=None):
    """The system message of an episode in ``mode``: ``given``, else the mode's template."""
    if given is not None:
        return given
    return templates()["instruction"][mode]


def user_text(name):
    return templates()["user"][name]


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
        goal: a goal of ``goals.goal``.
        schemas: ``{service name: schema record}`` of the dialogue's services.

    Returns:
        The text, one line per intent, constraint and request.

    Example:
        >>> ticket({"intents": [{"service": "Media_1", "intent": "PlayMovie", "transactional": True,
        ...          "constraints": [{"slot": "title", "values": ["Suburban Birds"]}], "requested": []}]},
        ...        {"Media_1": schema})
    """
    parts = templates()["ticket"]
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
