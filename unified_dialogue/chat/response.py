"""The response rows as chat: the grounding and the turns before, then the response.

``response-chat``, for response generation: one row per turn of the responding side, the ``assistant``
(SGD: system, CCPE-M: assistant, FaithDial: Wizard):
- ``system``: the instruction, then the grounding the row has: SGD, the schemas of the
  services used up to and including the turn, and the turn's service call with its results
  (``Service call: Service.Method(slot=value, …)``, then ``Results:`` one line each, or
  ``none``); FaithDial, the knowledge sentence of the response (``Knowledge: …``); CCPE-M,
  the instruction alone;
- then the turns before the response: the responding role's as ``assistant``, the others
  as ``user`` (consecutive turns of one side are one message, joined by a line break);
- ``completion``: the response.
"""

import sys

from . import build
from .text import ASSISTANT, USER, compose, conversation, services_text, system_text, value

NAME = "response"
FEATURES = build.FEATURES
# The columns of a response row its messages are made of.
COLUMNS = ("context", "role", "response", "query", "querying_result", "knowledge")


def pairs(entries):
    return ", ".join(f"{entry['slot']}={value(entry['value'])}" for entry in entries)


def call_text(query, result):
    """A service call and its results, or "" without a call."""
    if not query:
        return ""
    lines = [f"Service call: {query['domain']}.{query['method']}({pairs(query['parameters'] or [])})"]
    results = (result or {}).get("results") or []
    lines.append("Results:" + ("" if results else " none"))
    lines += [f"{number}. {pairs(entries)}" for number, entries in enumerate(results, start=1)]
    return "\n".join(lines)


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    knowledge = f"Knowledge: {row['knowledge']}" if row.get("knowledge") is not None else ""
    return system_text(instruction, services, call_text(row.get("query"), row.get("querying_result")),
                       knowledge)


def turns(row):
    return conversation([(ASSISTANT if t["role"] == row["role"] else USER, t["utterance"]) for t in row["context"]])


def target(row):
    return row["response"]


def messages(row, instruction=None, services=()):
    """The chat of one ``response`` row: ``{"prompt": [...], "completion": [...]}``.
    ``services``: the schemas (``schema`` rows) of the services used up to the row's turn."""
    system_message = system(row, build.instruction(NAME, instruction), services_text(services))
    return compose(system_message, turns(row), target(row))


def table(unified, role, full_names=None, instruction=None):
    """The response-chat rows of a pa.Table of unified records: the response view's rows
    (with its options: the responding ``role``, ``full_names`` of abbreviated acts) as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    view_table = build.view_table(NAME, role=role, full_names=full_names)
    return build.chat_table(unified, sys.modules[__name__], view_table, build.instruction(NAME, instruction),
                            build.response_sides)
