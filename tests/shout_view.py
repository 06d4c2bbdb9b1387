"""One row per turn of a speaker, the utterance shouted: a view with options a user sets.

A view defined only in the tests, offered by a copy of the tiny corpus (``ShoutTiny``),
to show how a view declares the options a user gives at load time and how they reach
its rows. Columns: ``dialogue_id``, ``turn_index``, ``utterance``.
"""

import dataclasses
import sys

from datasets import Features

from tiny_corpora.tiny.tiny import Tiny
from unified_dialogue import views
from unified_dialogue.core.features import INT, STRING
from unified_dialogue.core.options import Option
from unified_dialogue.views.turns import Turns

FEATURES = Features({"dialogue_id": STRING, "turn_index": INT, "utterance": STRING})
OPTIONS = (
    Option("upper", bool, False, "Upper-case the utterance."),
    Option("mark", str, "!", "Appended to the utterance.", choices=("!", "?", "")),
    Option("repeat", int, 1, "How many times the mark is appended."),
)


def table(unified, speaker, upper=False, mark="!", repeat=1):
    import pyarrow as pa

    turns = Turns(unified)
    dialogue_ids = unified.column("dialogue_id").to_pylist()
    rows = [{"dialogue_id": dialogue_ids[d], "turn_index": int(position),
             "utterance": (text.upper() if upper else text) + mark * repeat}
            for d, position, role, text in zip(turns.dialogue, turns.position, turns.role.to_pylist(),
                                               turns.field("utterance").to_pylist())
            if role == speaker]
    return pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)


SHOUT = views.View.of(sys.modules[__name__], key=("dialogue_id", "turn_index"), options=OPTIONS, name="shout")


class ShoutTiny(Tiny):
    CORPUS = dataclasses.replace(Tiny.CORPUS, configs=(*Tiny.CORPUS.configs, views.config(SHOUT, speaker="B")))
