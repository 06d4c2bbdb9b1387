"""The critic rows as chat: the knowledge, the response to judge and the turns before it, then its label.

``critic-chat``, for training and prompting chat models as faithfulness critics: one row
per ``critic`` row (its options ``unfaithful`` and ``rewritten`` too), with its id:
- ``system``: the instruction (which asks for one word, ``Hallucination`` or
  ``Entailment``), then the knowledge sentence (``Knowledge: …``), then the response to
  judge (``Response: …``);
- then the turns before the response, as in ``response-chat`` (the responding role's as
  ``assistant``, the others as ``user``): the conversation the response answers;
- ``completion``: the row's label, ``Hallucination`` or ``Entailment``.
"""

import functools
import sys

import pyarrow.compute as pc

from ..views import critic, faithfulness
from . import build, response
from .text import system_text, system_texts

NAME = "critic"
FEATURES = build.FEATURES
RESPONSE = "Response: "
turns = response.turns


def judged_text(row):
    """The ``Response:`` part of a system message: the response to judge."""
    return f"{RESPONSE}{row['response']}" if row.get("response") is not None else ""


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (none in FaithDial)."""
    return system_text(instruction, services, response.knowledge_text(row), judged_text(row))


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of critic rows, by Arrow."""
    judged = pc.binary_join_element_wise(RESPONSE, rows.column("response").combine_chunks(), "")
    return system_texts(instruction, services, response.knowledge_texts(rows), judged)


def target(row):
    return row["label"]


def targets(rows):
    return rows.column("label").combine_chunks()


def messages(row, instruction=None, services=()):
    """The chat of one ``critic`` row (``build.row_messages``)."""
    return build.row_messages(sys.modules[__name__], row, instruction, services)


def table(unified, role, instruction=None, unfaithful=faithfulness.UNFAITHFUL.default, rewritten=True):
    """The critic-chat rows of a pa.Table of unified records: the critic view's rows (the
    responding ``role``; the user's options ``unfaithful`` and ``rewritten``) as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    view_table = functools.partial(critic.table, role=role, unfaithful=unfaithful, rewritten=rewritten)
    return build.chat_table(unified, sys.modules[__name__], view_table, instruction, build.response_sides)
