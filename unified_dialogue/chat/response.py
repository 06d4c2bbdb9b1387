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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import build
from ..views.turns import lengths, relist, starts
from .text import ASSISTANT, USER, conversation, system_text, system_texts, value, written_values

NAME = "response"
FEATURES = build.FEATURES
KNOWLEDGE = "Knowledge: "


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


def knowledge_text(row):
    """The ``Knowledge:`` part of a system message (FaithDial's), or "" without knowledge."""
    return f"{KNOWLEDGE}{row['knowledge']}" if row.get("knowledge") is not None else ""


def knowledge_texts(rows):
    """``knowledge_text`` of every row of a pa.Table with a ``knowledge`` column (null
    where a row has none), by Arrow."""
    return pc.binary_join_element_wise(KNOWLEDGE, rows.column("knowledge").combine_chunks(), "")


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services, call_text(row.get("query"), row.get("querying_result")),
                       knowledge_text(row))


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of response rows (``services``: each row's
    services text, a pa.DictionaryArray), by Arrow."""
    return system_texts(instruction, services, call_texts(rows), knowledge_texts(rows))


def call_texts(rows):
    """``call_text`` of every row of a pa.Table of response rows, joined by Arrow."""
    # pc.struct_field, not .field(): a null call's fields are null too
    query = rows.column("query").combine_chunks()
    domain, method, parameters = (pc.struct_field(query, name) for name in ("domain", "method", "parameters"))
    results = pc.struct_field(rows.column("querying_result").combine_chunks(), "results")
    found = results.flatten()  # one list of pairs per result
    called = pc.binary_join(relist(lengths(parameters), pairs_of(parameters.flatten())), ", ")
    listed = pc.binary_join(relist(lengths(found), pairs_of(found.flatten())), ", ")
    size = lengths(results)
    numbers = np.arange(int(size.sum())) - np.repeat(starts(results), size) + 1
    numbered = pc.binary_join_element_wise(pc.cast(pa.array(numbers), pa.string()), listed, ". ")
    header = pc.binary_join_element_wise("Service call: ", domain, ".", method, "(", pc.fill_null(called, ""),
                                         ")\nResults:", "")
    lines = pc.binary_join(relist(size + 1, pa.concat_arrays([header, numbered]).take(pa.array(
        order(size)))), "\n")
    texts = pc.if_else(pc.equal(pa.array(size), 0), pc.binary_join_element_wise(lines, " none", ""), lines)
    return pc.fill_null(texts, "")


def order(size):
    """The positions in ``[headers, numbered lines]`` of each row's header and then its lines."""
    n = len(size)
    offsets = np.concatenate([[0], np.cumsum(size + 1)[:-1]])
    index = np.empty(int((size + 1).sum()), dtype=np.int64)
    index[offsets] = np.arange(n)
    within = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    index[np.repeat(offsets, size) + 1 + within] = n + np.arange(int(size.sum()))
    return index


def pairs_of(entries):
    """``slot=value`` of each entry of a StructArray of ``{slot, value}`` (values written)."""
    return pc.binary_join_element_wise(entries.field("slot"), written_values(entries.field("value")), "=")


def turns(row):
    return conversation([(ASSISTANT if t["role"] == row["role"] else USER, t["utterance"]) for t in row["context"]])


def target(row):
    return row["response"]


def targets(rows):
    return rows.column("response").combine_chunks()


def messages(row, instruction=None, services=()):
    """The chat of one ``response`` row (``build.row_messages``)."""
    return build.row_messages(sys.modules[__name__], row, instruction, services)


def table(unified, role, full_names=None, instruction=None):
    """The response-chat rows of a pa.Table of unified records: the response view's rows
    (with its options: the responding ``role``, ``full_names`` of abbreviated acts) as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    view_table = build.view_table(NAME, role=role, full_names=full_names)
    return build.chat_table(unified, sys.modules[__name__], view_table, instruction,
                            build.response_sides)
