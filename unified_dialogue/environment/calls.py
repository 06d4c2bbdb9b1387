"""One row per service call: the environment's database, as the corpus recorded it.

Columns: ``id`` (``<dialogue_id>/<turn_index>``), ``dialogue_id``, ``turn_index`` (the
system turn holding the call), ``service``, ``intent``, ``tool`` (the call's tool name, as
``agent-call-chat`` names it), ``transactional`` (the intent's ``is_transactional``),
``arguments`` (the call's parameters as ``[{slot, value}]``, in the source's order) and
``results`` (the rows the service returned, each ``[{slot, value}]``; none where a
transaction was refused). ``unified_dialogue.environment.database`` builds a SQLite file
from these rows; SGD has no database of its own, only the rows its simulator returned.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..chat.agent import tool_name
from ..core.errors import SourceFormatError
from ..core.features import BOOL, INT, SLOT_VALUE_PAIR, STRING
from ..views.turns import Turns, row_ids

FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "turn_index": INT,
    "service": STRING,
    "intent": STRING,
    "tool": STRING,
    "transactional": BOOL,
    "arguments": [SLOT_VALUE_PAIR],
    "results": [[SLOT_VALUE_PAIR]],
})


def transactional_intents(unified):
    """``{(service, intent): is_transactional}`` of the schemas in a batch's knowledge."""
    schemas = pc.struct_field(pc.struct_field(unified.column("knowledge").combine_chunks(), "value"), "schema")
    flat = pc.list_flatten(schemas)
    intent_lists = pc.struct_field(flat, "intents")
    intents = pc.list_flatten(intent_lists)
    services = pc.struct_field(flat, "service_name").take(pc.list_parent_indices(intent_lists))
    return dict(zip(zip(services.to_pylist(), pc.struct_field(intents, "name").to_pylist()),
                    pc.struct_field(intents, "is_transactional").to_pylist()))


def table(unified):
    """The ``database`` rows of a pa.Table of unified SGD records."""
    turns = Turns(unified)
    query = turns.field("query")
    rows = np.flatnonzero(query.is_valid().to_numpy(zero_copy_only=False))
    taken = pa.array(rows, pa.int64())
    calls = query.take(taken)
    results = turns.field("querying_result").take(taken)
    services = pc.struct_field(calls, "domain").to_pylist()
    intents = pc.struct_field(calls, "method").to_pylist()
    kinds = transactional_intents(unified)
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    for index, (row, pair) in enumerate(zip(rows.tolist(), zip(services, intents))):
        if pair not in kinds:
            dialogue = dialogue_ids[index].as_py()
            raise SourceFormatError("(unified records)", f"dialogue {dialogue}",
                                    f"dialog[{turns.position[row]}].query",
                                    f"{pair[0]}.{pair[1]} is not an intent of the dialogue's service schemas")
    schema = FEATURES.arrow_schema
    found = pc.struct_field(results, "results")
    if found.null_count:  # a call without results: none
        found = pa.array([value or [] for value in found.to_pylist()], schema.field("results").type)
    arrays = {
        "id": row_ids(dialogue_ids, turns.position[rows]),
        "dialogue_id": dialogue_ids,
        "turn_index": pa.array(turns.position[rows], pa.int32()),
        "service": pa.array(services, pa.string()),
        "intent": pa.array(intents, pa.string()),
        "tool": pa.array([tool_name(*pair) for pair in zip(services, intents)], pa.string()),
        "transactional": pa.array([kinds[pair] for pair in zip(services, intents)], pa.bool_()),
        "arguments": pc.struct_field(calls, "parameters").cast(schema.field("arguments").type),
        "results": found.cast(schema.field("results").type),
    }
    return pa.Table.from_arrays([arrays[name] for name in schema.names], schema=schema)
