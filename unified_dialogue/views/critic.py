"""One row per response to judge: the context and knowledge of a turn, a response, and its faithfulness label.

The ``critic`` view, for training and evaluating faithfulness critics as FaithCritic
frames them (the FaithDial authors' critic, ``models/critic_data.py`` of their
repository): a response and the knowledge it should be faithful to, labelled
``Hallucination`` (the positive class: what a critic detects) or ``Entailment``
(faithful). Each turn of the responding role whose original response has BEGIN labels
(FaithDial's Wizard turns) gives:

- a row of its original response (``source`` = ``original``), labelled from the original's
  BEGIN labels as FaithCritic labels it: ``Hallucination`` where they hold one of the
  option ``unfaithful``'s labels (by default ``Hallucination``; alone or with
  ``Entailment``), else ``Entailment`` where they hold ``Entailment``; a turn with neither
  (only Partial Hallucination, Generic or Uncooperative, by default) has no row. Where the
  turn kept its original (``original_response.utterance`` null, ``""``, or the response
  but for spacing), the response stands for it, as in FaithCritic;
- where the response rewrote the original, a row of the response (``source`` =
  ``rewritten``), labelled ``Entailment``: FaithDial's rewrites are faithful. FaithCritic
  adds these in its train split only; the option ``rewritten=False`` leaves them out, which
  gives FaithCritic's evaluation examples.

Columns:

- ``id``: ``<dialogue_id>/<turn_index>/<source>``; ``dialogue_id``, ``corpus``,
  ``turn_index`` (the turn's position in its dialogue);
- ``context``: the turns before it, ``{role, utterance}`` (FaithCritic reads the knowledge
  and the response only; the history is here for critics that read it);
- ``role``: the responding role; ``knowledge``: the knowledge sentence of the turn;
- ``response``: the response to judge; ``source``: ``original`` or ``rewritten``;
- ``label``: ``Hallucination`` or ``Entailment``; ``begin``: the BEGIN labels of the
  turn's original response, as written.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..core.features import STRING
from ..core.options import Option
from . import faithfulness, response
from .turns import Turns, row_ids

ORIGINAL, REWRITTEN = "original", "rewritten"
OPTIONS = (
    faithfulness.UNFAITHFUL,
    Option("rewritten", bool, True, "Add a row for the response of each turn that rewrote its original, labelled "
                                    "Entailment (FaithCritic does in its train split only)."),
)
# The columns a critic row shares with the turn's response row, then its own.
FEATURES = Features({
    **{name: response.FEATURES[name] for name in ("id", "dialogue_id", "corpus", "turn_index", "context", "role",
                                                  "knowledge", "response")},
    "source": STRING,
    "label": STRING,
    "begin": [STRING],
})
SCHEMA = FEATURES.arrow_schema


def examples(original, said, begin, unfaithful, with_rewritten):
    """The ``(source, text, label)`` rows of one turn, whose original response is
    ``original`` and response ``said`` (see the module's documentation)."""
    label = faithfulness.critic_label(begin, unfaithful)
    if label is None:
        return []
    if not faithfulness.rewritten(original, said):
        return [(ORIGINAL, said, label)]
    return [(ORIGINAL, original, label)] + ([(REWRITTEN, said, faithfulness.ENTAILMENT)] if with_rewritten else [])


def table(unified, role, unfaithful=faithfulness.UNFAITHFUL.default, rewritten=True):
    """The critic rows of a pa.Table of unified records. ``role``: the responding role;
    ``unfaithful``, ``rewritten``: the user's options (``OPTIONS``)."""
    turns = Turns(unified)
    original = turns.field("original_response")
    candidates = np.flatnonzero(pc.fill_null(pc.and_(pc.equal(turns.role, role), original.is_valid()),
                                             False).to_numpy(zero_copy_only=False))
    pick = pa.array(candidates, pa.int64())
    labels = faithfulness.unfaithful_labels(unfaithful)
    rows, sources, texts, gold = [], [], [], []
    for turn, text, said, begin in zip(candidates.tolist(), original.field("utterance").take(pick).to_pylist(),
                                       turns.field("utterance").take(pick).to_pylist(),
                                       original.field("begin").take(pick).to_pylist()):
        for source, judged, label in examples(text, said, begin, labels, rewritten):
            rows.append(turn)
            sources.append(source)
            texts.append(judged)
            gold.append(label)
    rows = np.asarray(rows, dtype=np.int64)
    take = pa.array(rows, pa.int64())
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    source = pa.array(sources, pa.string())
    columns = {
        "id": pc.binary_join_element_wise(row_ids(dialogue_ids, turns.position[rows]), source, "/"),
        "dialogue_id": dialogue_ids,
        "corpus": turns.of_dialogue("corpus", rows),
        "turn_index": pa.array(turns.position[rows], pa.int32()),
        "context": turns.context(rows, inclusive=False),
        "role": turns.role.take(take),
        "knowledge": turns.field("knowledge_to_select").take(take),
        "response": pa.array(texts, pa.string()),
        "source": source,
        "label": pa.array(gold, pa.string()),
        "begin": original.field("begin").take(take),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
