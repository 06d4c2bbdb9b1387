"""The dst rows as chat: the schemas, the turns so far, and the turn's state as text to complete.

``dst-chat``, for dialogue state tracking (SGD: one row per user turn):
- ``system``: the instruction, then the schemas of the services the dialogue has used up to
  and including the turn (as the DSTC8 setup gives a tracker the dialogue's services;
  under an SGD-X variant, the variant's names and descriptions);
- then the turns 0 … t: the user's (SGD ``USER``) as ``user``, the others as ``assistant``;
  the last is the user turn t;
- ``completion``: the state of each frame of turn t as text (``chat.state``: one line per
  frame, ``Service: intent=…; requested=[…]; slot=value | variant``), which
  ``chat.state.parse`` reads back into the view's ``frames``.
"""

import sys

import pyarrow as pa
import pyarrow.compute as pc

from ..core.features import NO_INTENT
from ..views.turns import lengths, parents, relist
from . import build
from .state import INTENT, NO_VALUES, REQUESTED, state_text
from .text import ASSISTANT, USER, VALUES_JOIN, conversation, system_text, written_names, written_values

NAME = "dst"
FEATURES = build.FEATURES


def user_role(row):
    """The role of the user: a dst row's last turn is a user turn."""
    return row["context"][-1]["role"]


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services)


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of dst rows (``services``: each row's services
    text, a pa.DictionaryArray), as a DictionaryArray: the same for every row with the
    same services."""
    texts = [system(None, instruction, part) for part in services.dictionary.to_pylist()]
    return pa.DictionaryArray.from_arrays(services.indices, pa.array(texts, pa.string()))


def turns(row):
    user = user_role(row)
    return conversation([(USER if t["role"] == user else ASSISTANT, t["utterance"]) for t in row["context"]])


def target(row):
    return state_text(row["frames"])


def targets(rows):
    """``target`` of every row of a pa.Table of dst rows, by Arrow: ``state.line`` of each
    frame (slots and requested slots sorted, names and values escaped by ``text``'s rule),
    a row's frames one a line."""
    frames = rows.column("frames").combine_chunks()
    flat = frames.flatten()
    state = flat.field("state")
    requested, slot_values = state.field("requested_slots"), state.field("slot_values")
    entries = slot_values.flatten()
    slots, spoken = entries.field("slot"), entries.field("values")
    written = pc.binary_join(relist(lengths(spoken), written_values(spoken.flatten())), VALUES_JOIN)
    written = pc.if_else(pc.equal(pa.array(lengths(spoken)), 0), NO_VALUES, written)
    items = pc.binary_join_element_wise(written_names(slots), written, "=")
    items = sorted_within(slot_values, [slots, written], items)
    names = sorted_within(requested, [requested.flatten()], written_names(requested.flatten()))
    listed = pc.binary_join_element_wise(f"; {REQUESTED}=[", pc.binary_join(names, ", "), "]", "")
    intent = state.field("active_intent")
    none = pc.fill_null(pc.is_in(intent, value_set=pa.array(["", NO_INTENT])), True)
    intent = pc.if_else(none, NO_INTENT, written_names(pc.fill_null(intent, "")))
    lines = pc.binary_join_element_wise(
        written_names(flat.field("service")), f": {INTENT}=", intent,
        pc.if_else(pc.greater(pa.array(lengths(requested)), 0), listed, ""),
        pc.if_else(pc.greater(pa.array(lengths(slot_values)), 0),
                   pc.binary_join_element_wise("; ", pc.binary_join(items, "; "), ""), ""), "")
    return pc.fill_null(pc.binary_join(relist(lengths(frames), lines), "\n"), "")


def sorted_within(lists, keys, values):
    """``values`` (one per item of the list array ``lists``) as lists again, each list's
    items in the order of their ``keys`` (string arrays, compared in turn: as Python sorts
    tuples of strings, by code point)."""
    columns = {"list": parents(lists), **{f"key{k}": key for k, key in enumerate(keys)}}
    order = pc.sort_indices(pa.table(columns), sort_keys=[(name, "ascending") for name in columns])
    return relist(lengths(lists), values.take(order))


def messages(row, instruction=None, services=()):
    """The chat of one ``dst`` row (``build.row_messages``)."""
    return build.row_messages(sys.modules[__name__], row, instruction, services)


def table(unified, instruction=None):
    """The dst-chat rows of a pa.Table of unified records: the dst view's rows as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    return build.chat_table(unified, sys.modules[__name__], build.view_table(NAME),
                            instruction, build.dst_sides)
