"""One row per rewritten unfaithful response: the turn's prompt, its faithful response chosen over the original.

``preference``, TRL's conversational preference format (``DPOTrainer``, ``RewardTrainer``):
one row per turn of the responding role whose response rewrote an original response that
its BEGIN labels find unfaithful (``views.faithfulness.rejected``): by default as
FaithCritic reads them, an original labelled ``Hallucination`` (alone or with
``Entailment``); the option ``unfaithful`` names the labels (``Hallucination,Partial
Hallucination`` widens the pairs to partial hallucinations, ``Hallucination,Partial
Hallucination,Generic,Uncooperative`` to every label FaithDial rewrote for). An original
labelled ``Entailment`` only was faithful (FaithDial edited it for typos), and one kept
(``null``, ``""``, or the response but for spacing) was not rewritten: neither makes a
pair.

- ``prompt``: the turn's ``response-chat`` prompt, as that config builds it (the system
  message with the instruction, the option ``instruction``, and the knowledge; then the
  turns before the response);
- ``chosen``: the response, one ``assistant`` message; ``rejected``: the original
  response, one ``assistant`` message;
- ``id``, ``dialogue_id``, ``turn_index``: the ``response`` row's of the turn;
  ``begin``: the original's BEGIN labels, as written.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..core.features import INT, STRING
from ..views import faithfulness
from ..views import response as response_view
from ..views.turns import relist
from . import build, response
from .text import ASSISTANT

FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "turn_index": INT,
    "prompt": [build.MESSAGE],
    "chosen": [build.MESSAGE],
    "rejected": [build.MESSAGE],
    "begin": [STRING],
})
SCHEMA = FEATURES.arrow_schema
OPTIONS = (faithfulness.UNFAITHFUL,)


def pairs(rows, unfaithful):
    """The ``response`` rows (a pa.Table) whose turn is a preference pair; ``unfaithful``:
    the labels of an unfaithful original (a tuple)."""
    original = rows.column("original_response").combine_chunks()
    texts, labels = pc.struct_field(original, "utterance").to_pylist(), pc.struct_field(original, "begin").to_pylist()
    keep = [valid and faithfulness.rejected(text, said, begin, unfaithful) for valid, text, said, begin in
            zip(original.is_valid().to_pylist(), texts, rows.column("response").to_pylist(), labels)]
    return rows.filter(pa.array(keep, pa.bool_()))


def assistant_messages(texts):
    """Each text as a list of one ``assistant`` message (a list array)."""
    n = len(texts)
    return relist(np.ones(n, dtype=np.int64), build.messages_array(pa.repeat(pa.scalar(ASSISTANT), n), texts))


def table(unified, role, instruction=None, unfaithful=faithfulness.UNFAITHFUL.default):
    """The preference rows of a pa.Table of unified records. ``role``: the responding role;
    ``instruction``: the system message's (default: ``response``'s in ``templates.json``);
    ``unfaithful``: the option (``faithfulness.UNFAITHFUL``)."""
    chosen = pairs(response_view.table(unified, role=role), faithfulness.unfaithful_labels(unfaithful))
    if chosen.num_rows == 0:
        return SCHEMA.empty_table()
    chats = build.chat_table(unified, response, lambda _: chosen, instruction, build.response_sides)
    original = chosen.column("original_response").combine_chunks()
    columns = {
        "id": chats.column("id"),
        "dialogue_id": chats.column("dialogue_id"),
        "turn_index": chats.column("turn_index"),
        "prompt": chats.column("prompt"),
        "chosen": chats.column("completion"),
        "rejected": assistant_messages(pc.struct_field(original, "utterance")),
        "begin": pc.struct_field(original, "begin"),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
