"""A user's goal (``views.goals.goal``) written as the user's own instructions, from the
templates of ``ticket.json`` (the one place they are written): the first user message of
the environment's ``ticket`` mode, and the goal in the system message of ``user-chat`` rows
and of the environment's simulated user.

A ticket says what today is (``TODAY``), then lists the goal's intents in order, each with
its description and service, then one line per constraint (the slot's description, else
its name, and its last value; the earlier values where the user changed it; a value the
user did not ask for but accepted when the service offered it is said to be one), where
the service refused the request and the user declined its alternative a line saying so,
then the values to be told about (the goal's ``questions``), each naming its item where it
is not the one the service ends at or where the same value is asked of more than one item.
"""

import functools
import json
from importlib import resources

# What "today" is in every SGD dialogue that says it (2019-03-01: "tomorrow" is the 2nd),
# so that a relative date of the ticket resolves as the dialogue's did.
TODAY = "2019-03-01"
TODAY_TEXT = f"Friday, March 1, 2019 ({TODAY})"


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


def question_text(schema, question):
    slot = described(schema, question["slot"])
    if not question["named"]:
        return slot
    item = ", ".join(value["values"][0] for value in question["item"])
    return templates()["named"].format(slot=slot, item=item)


def constraint_line(schema, constraint):
    """A constraint's line: its last value, the earlier ones where the user changed it, and
    whether the last was only accepted when offered."""
    parts = templates()
    *earlier, value = constraint["values"]
    slot = described(schema, constraint["slot"])
    if constraint.get("accepted"):
        return parts["accepted_changed"].format(slot=slot, value=value, earlier=", then ".join(earlier)) \
            if earlier else parts["accepted"].format(slot=slot, value=value)
    return parts["changed"].format(slot=slot, value=value, earlier=", then ".join(earlier)) \
        if earlier else parts["constraint"].format(slot=slot, value=value)


def ticket(goal, schemas):
    """The goal as the user's instructions.

    Args:
        goal: a goal of ``views.goals.goal``.
        schemas: ``{service name: schema record}`` of the dialogue's services.

    Returns:
        The text, one line per intent, constraint and request.

    Example:
        >>> ticket({"intents": [{"service": "Media_1", "intent": "PlayMovie", "transactional": True,
        ...          "constraints": [{"slot": "title", "values": ["Suburban Birds"], "accepted": False}],
        ...          "requested": [], "questions": [], "on_refusal": ""}]}, {"Media_1": schema})
    """
    parts = templates()
    lines = [parts["opening"].format(today=TODAY_TEXT)]
    for number, entry in enumerate(goal["intents"], start=1):
        schema = schemas.get(entry["service"], {})
        lines.append(parts["intent"].format(number=number, service=entry["service"],
                                            description=intent_description(schema, entry["intent"])))
        lines += [constraint_line(schema, constraint) for constraint in entry["constraints"]]
        if entry.get("on_refusal") == "decline":
            lines.append(parts["declined"])
        asked = list(dict.fromkeys(question_text(schema, q) for q in entry.get("questions") or ()))
        if asked:
            lines.append(parts["requested"].format(slots="; ".join(asked)))
    lines.append(parts["closing"])
    return "\n".join(lines)
