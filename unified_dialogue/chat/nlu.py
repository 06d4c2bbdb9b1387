"""The nlu rows as chat: the utterance, then its intents and spans as text.

``nlu-chat``, for understanding one utterance (one row per turn):
- ``system``: the instruction, the schemas of the services used up to and including the
  turn (SGD), and who speaks (``Speaker: USER``);
- ``user``: the utterance alone (nothing else of the dialogue);
- ``completion``: what the utterance holds, as text (``chat.nlu_text``): ``intents:
  FindRestaurants`` (the turn's active intents, ``none`` for none; the line only where the
  corpus annotates them), then ``spans: Restaurants_1.city=San Jose;
  ENTITY_NAME/MOVIE_OR_SERIES=Dune`` (each span as ``[service.]label[/entity type]=text``,
  in the view's order; ``none`` without spans), names and texts escaped by ``chat.text``'s
  rule; ``chat.nlu_text.parse`` reads it back.
"""

import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import build
from ..views.turns import lengths, relist
from .nlu_text import INTENTS, INTENTS_JOIN, NONE_WORD, SPANS, SPANS_JOIN, nlu_text
from .text import USER, message, system_text, written_names, written_values

NAME = "nlu"
FEATURES = build.FEATURES


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services, f"Speaker: {row['role']}")


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of nlu rows (``services``: each row's services
    text, a pa.DictionaryArray), as a DictionaryArray: made once for each pair of services
    and speaker."""
    roles = pc.dictionary_encode(rows.column("role").combine_chunks(), null_encoding="encode")
    role_names, texts = roles.dictionary.to_pylist(), services.dictionary.to_pylist()
    pairs = services.indices.to_numpy().astype(np.int64) * len(role_names) + roles.indices.to_numpy()
    distinct, codes = np.unique(pairs, return_inverse=True)
    made = [system({"role": role_names[role]}, instruction, texts[part])
            for part, role in zip(*np.divmod(distinct, len(role_names)))]
    return pa.DictionaryArray.from_arrays(pa.array(codes.reshape(-1).astype(np.int32)), pa.array(made, pa.string()))


def turns(row):
    return [message(USER, row["utterance"])]


def target(row):
    return nlu_text(row.get("intents"), row["spans"])


def targets(rows):
    """``target`` of every row of a pa.Table of nlu rows, joined by Arrow."""
    spans, intents = rows.column("spans").combine_chunks(), rows.column("intents").combine_chunks()
    flat = spans.flatten()
    label = written_names(flat.field("label"))
    name = pc.coalesce(pc.binary_join_element_wise(written_names(flat.field("domain")), label, "."), label)
    name = pc.coalesce(pc.binary_join_element_wise(name, written_names(flat.field("type")), "/"), name)
    items = pc.binary_join_element_wise(name, written_values(flat.field("text")), "=")
    spans_line = pc.binary_join_element_wise(
        f"{SPANS}: ", listed(relist(lengths(spans), items), lengths(spans), SPANS_JOIN), "")
    names = relist(lengths(intents), written_names(intents.flatten()))
    intents_line = pc.binary_join_element_wise(f"{INTENTS}: ", listed(names, lengths(intents), INTENTS_JOIN), "\n", "")
    with_intents = pc.binary_join_element_wise(intents_line, spans_line, "")
    return pc.if_else(intents.is_valid(), with_intents, spans_line)


def listed(lists, sizes, separator):
    """Each list's items joined by ``separator``, ``none`` for an empty or null list."""
    return pc.if_else(pc.equal(pa.array(sizes), 0), NONE_WORD, pc.binary_join(lists, separator))


def messages(row, instruction=None, services=()):
    """The chat of one ``nlu`` row (``build.row_messages``)."""
    return build.row_messages(sys.modules[__name__], row, instruction, services)


def table(unified, instruction=None):
    """The nlu-chat rows of a pa.Table of unified records: the nlu view's rows as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    return build.chat_table(unified, sys.modules[__name__], build.view_table(NAME),
                            instruction, build.nlu_sides)
