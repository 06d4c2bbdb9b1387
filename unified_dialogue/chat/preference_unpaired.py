"""The preference pairs unpaired: each response of a pair a row of its own, labelled desirable or not.

``preference-unpaired``, TRL's unpaired preference format (``KTOTrainer``,
``BCOTrainer``): the rows TRL's ``unpair_preference_dataset`` makes of the ``preference``
rows (with the same options), two a pair, in the pairs' order:
- ``<id>/chosen``: ``completion``, the faithful response; ``label`` true;
- ``<id>/rejected``: ``completion``, the unfaithful original; ``label`` false;
- ``prompt``, ``dialogue_id``, ``turn_index`` and ``begin``: the pair's.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features, Value

from ..views import faithfulness
from . import preference

SIDES = ("chosen", "rejected")  # each pair's rows in this order, labelled true, then false
FEATURES = Features({
    **{name: preference.FEATURES[name] for name in ("id", "dialogue_id", "turn_index", "prompt")},
    "completion": preference.FEATURES["chosen"],
    "label": Value("bool"),
    "begin": preference.FEATURES["begin"],
})
SCHEMA = FEATURES.arrow_schema


def table(unified, role, instruction=None, unfaithful=faithfulness.UNFAITHFUL.default):
    """The unpaired rows of a pa.Table of unified records, with ``preference.table``'s arguments."""
    pairs = preference.table(unified, role, instruction=instruction, unfaithful=unfaithful)
    n = pairs.num_rows
    twice = pa.array(np.repeat(np.arange(n), 2), pa.int64())  # each pair's row, once for each side
    side = pa.array(np.tile(SIDES, n) if n else [], pa.string())
    # the chosen and rejected lists side by side: pair k's are at k and n + k
    both = pa.concat_arrays([pairs.column(name).combine_chunks() for name in SIDES])
    interleaved = pa.array(np.stack([np.arange(n), n + np.arange(n)], axis=1).reshape(-1), pa.int64())
    columns = {
        "id": pc.binary_join_element_wise(pairs.column("id").combine_chunks().take(twice), side, "/"),
        "completion": both.take(interleaved),
        "label": pa.array(np.tile([True, False], n), pa.bool_()),
        **{name: pairs.column(name).combine_chunks().take(twice) for name in ("dialogue_id", "turn_index", "prompt",
                                                                               "begin")},
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
