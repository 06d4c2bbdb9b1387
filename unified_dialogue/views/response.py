"""One row per turn of the responding role: the context before it, the response and its grounding.

The ``response`` view, for response generation: one row per turn of the responding role
(SGD: system, CCPE-M: assistant, FaithDial: Wizard), with the same features for every
corpus, so that the corpora concatenate.

- ``id``: the row's id, ``<dialogue_id>/<turn_index>`` (unique within a split);
- ``dialogue_id``, ``corpus``, ``turn_index`` (the turn's position in its dialogue);
- ``context``: the turns before it, ``{role, utterance}``; ``role`` and ``response``: the turn;
- the grounding the corpus has, None where it has none: ``dialog_acts`` (the turn's acts in
  the unified schema: SGD's acts, FaithDial's VRM labels as written) and ``act_names``
  (their full names: FaithDial's abbreviated labels such as ``Ack.`` spelt out);
  ``query`` and ``querying_result`` (SGD's service call and results); ``knowledge`` (the
  knowledge sentence the response is grounded in: FaithDial); ``original_response``
  (FaithDial's response before editing, with its BEGIN labels).

For FaithDial the rows are exactly the source's (history, knowledge, response) triples.
"""

import numpy as np
import pyarrow as pa
from datasets import Features

from ..core.features import DIALOG_ACT, INT, SLOT_VALUE_PAIR, STRING
from .turns import Turns, lengths, relist, row_ids, rows_where

FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "corpus": STRING,
    "turn_index": INT,
    "context": [{"role": STRING, "utterance": STRING}],
    "role": STRING,
    "response": STRING,
    "dialog_acts": [DIALOG_ACT],
    "act_names": [STRING],
    "query": {"domain": STRING, "method": STRING, "parameters": [SLOT_VALUE_PAIR]},
    "querying_result": {"domain": STRING, "results": [[SLOT_VALUE_PAIR]]},
    "knowledge": STRING,
    "original_response": {"utterance": STRING, "begin": [STRING]},
})
SCHEMA = FEATURES.arrow_schema


def table(unified, role, full_names=None):
    """The response rows of a pa.Table of unified records. ``role``: the responding role;
    ``full_names``: full names of abbreviated act labels (others stay as written)."""
    turns = Turns(unified)
    rows = rows_where(np.array(turns.roles()) == role)
    pick = pa.array(rows)
    acts = turns.field("dialog_acts").take(pick)
    names = [(full_names or {}).get(name, name) for name in acts.flatten().field("act").to_pylist()]
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    columns = {
        "id": row_ids(dialogue_ids, turns.position[rows]),
        "dialogue_id": dialogue_ids,
        "corpus": turns.of_dialogue("corpus", rows),
        "turn_index": pa.array(turns.position[rows], pa.int32()),
        "context": turns.context(rows, inclusive=False),
        "role": turns.role.take(pick),
        "response": turns.field("utterance").take(pick),
        "dialog_acts": acts,
        "act_names": relist(lengths(acts), pa.array(names, pa.string()), acts.is_valid()),
        "query": turns.field("query").take(pick),
        "querying_result": turns.field("querying_result").take(pick),
        "knowledge": turns.field("knowledge_to_select").take(pick),
        "original_response": turns.field("original_response").take(pick),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
