"""The nlu rows as chat: the utterance, then its intents and spans as text.

``nlu-chat``, for understanding one utterance (one row per turn):
- ``system``: the instruction, the schemas of the services used up to and including the
  turn (SGD), and who speaks (``Speaker: USER``);
- ``user``: the utterance alone (nothing else of the dialogue);
- ``completion``: what the utterance holds, as text: ``intents: FindRestaurants`` (the
  turn's active intents, ``none`` for none; the line only where the corpus annotates
  them), then ``spans: Restaurants_1.city=San Jose; ENTITY_NAME/MOVIE_OR_SERIES=Dune``
  (each span as ``[service.]label[/entity type]=text``, in the view's order; ``none``
  without spans).
"""

import sys

import pyarrow as pa
import pyarrow.compute as pc

from . import build
from ..views.turns import lengths, relist
from .text import USER, compose, message, services_text, system_text, value, written_values

NAME = "nlu"
FEATURES = build.FEATURES
# The columns of a nlu row its messages are made of.
COLUMNS = ("role", "utterance", "spans", "intents")
# The table path reads the rows' columns itself (``systems``, ``targets``).
TABLE_COLUMNS = ()


def span_text(span):
    name = f"{span['domain']}.{span['label']}" if span.get("domain") else span["label"]
    if span.get("type"):
        name += f"/{span['type']}"
    return f"{name}={value(span['text'])}"


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services, f"Speaker: {row['role']}")


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of nlu rows (``services``: each row's services
    text), made once for each pair of services and speaker."""
    made, out = {}, []
    for role, part in zip(rows.column("role").to_pylist(), services):
        if (part, role) not in made:
            made[part, role] = system({"role": role}, instruction, part)
        out.append(made[part, role])
    return out


def turns(row):
    return [message(USER, row["utterance"])]


def target(row):
    lines = []
    if row.get("intents") is not None:
        lines.append("intents: " + (", ".join(row["intents"]) or "none"))
    lines.append("spans: " + ("; ".join(span_text(span) for span in row["spans"] or []) or "none"))
    return "\n".join(lines)


def targets(rows):
    """``target`` of every row of a pa.Table of nlu rows, joined by Arrow."""
    spans, intents = rows.column("spans").combine_chunks(), rows.column("intents").combine_chunks()
    flat = spans.flatten()
    name = pc.coalesce(pc.binary_join_element_wise(flat.field("domain"), flat.field("label"), "."), flat.field("label"))
    name = pc.coalesce(pc.binary_join_element_wise(name, flat.field("type"), "/"), name)
    items = pc.binary_join_element_wise(name, written_values(flat.field("text")), "=")
    spans_line = pc.binary_join_element_wise(
        "spans: ", listed(relist(lengths(spans), items), lengths(spans), "; "), "")
    intents_line = pc.binary_join_element_wise("intents: ", listed(intents, lengths(intents), ", "), "\n", "")
    with_intents = pc.binary_join_element_wise(intents_line, spans_line, "")
    return pc.if_else(intents.is_valid(), with_intents, spans_line).to_pylist()


def listed(lists, sizes, separator):
    """Each list's items joined by ``separator``, ``none`` for an empty or null list."""
    return pc.if_else(pc.equal(pa.array(sizes), 0), "none", pc.binary_join(lists, separator))


def messages(row, instruction=None, services=()):
    """The chat of one ``nlu`` row: ``{"prompt": [...], "completion": [...]}``.
    ``services``: the schemas (``schema`` rows) of the services used up to the row's turn."""
    system_message = system(row, build.instruction(NAME, instruction), services_text(services))
    return compose(system_message, turns(row), target(row))


def table(unified, instruction=None):
    """The nlu-chat rows of a pa.Table of unified records: the nlu view's rows as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    return build.chat_table(unified, sys.modules[__name__], build.view_table(NAME),
                            build.instruction(NAME, instruction), build.nlu_sides)
