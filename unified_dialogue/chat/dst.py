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

from ..views.turns import lengths, starts
from . import build
from .state import line, state_text
from .text import ASSISTANT, USER, VALUES_JOIN, compose, conversation, services_text, system_text, written_values

NAME = "dst"
FEATURES = build.FEATURES
# The columns of a dst row its messages are made of.
COLUMNS = ("context", "frames")
# The table path reads the frames as flat columns (``targets``), not as rows.
TABLE_COLUMNS = ()


def user_role(row):
    """The role of the user: a dst row's last turn is a user turn."""
    return row["context"][-1]["role"]


def system(row, instruction, services=""):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services)


def systems(rows, instruction, services):
    """``system`` of every row of a pa.Table of dst rows (``services``: each row's services
    text): the same for every row with the same services, so made once for each."""
    made = {}
    for part in services:
        if part not in made:
            made[part] = system(None, instruction, part)
    return [made[part] for part in services]


def turns(row):
    user = user_role(row)
    return conversation([(USER if t["role"] == user else ASSISTANT, t["utterance"]) for t in row["context"]])


def target(row):
    return state_text(row["frames"])


def targets(rows):
    """``target`` of every row of a pa.Table of dst rows, read from flat columns (several
    times faster than converting the rows' frames to Python)."""
    frames = rows.column("frames").combine_chunks()
    flat = frames.flatten()
    state = flat.field("state")
    requested, slot_values = state.field("requested_slots"), state.field("slot_values")
    entries = slot_values.flatten()
    spoken = entries.field("values")
    written = written_values(spoken.flatten()).to_pylist()
    pairs = [(slot, VALUES_JOIN.join(written[v:v + n])) for slot, v, n in
             zip(entries.field("slot").to_pylist(), starts(spoken).tolist(), lengths(spoken).tolist())]
    names = requested.flatten().to_pylist()
    lines = [line(service, intent, names[r:r + r_size], pairs[e:e + e_size])
             for service, intent, r, r_size, e, e_size in zip(
                 flat.field("service").to_pylist(), state.field("active_intent").to_pylist(),
                 starts(requested).tolist(), lengths(requested).tolist(), starts(slot_values).tolist(),
                 lengths(slot_values).tolist())]
    return ["\n".join(lines[f:f + n]) for f, n in zip(starts(frames).tolist(), lengths(frames).tolist())]


def messages(row, instruction=None, services=()):
    """The chat of one ``dst`` row: ``{"prompt": [...], "completion": [...]}``.
    ``services``: the schemas (``schema`` rows) of the services used up to the row's turn."""
    system_message = system(row, build.instruction(NAME, instruction), services_text(services))
    return compose(system_message, turns(row), target(row))


def table(unified, instruction=None):
    """The dst-chat rows of a pa.Table of unified records: the dst view's rows as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    return build.chat_table(unified, sys.modules[__name__], build.view_table(NAME),
                            build.instruction(NAME, instruction), build.dst_sides)
