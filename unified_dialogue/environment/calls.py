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
    services = pc.struct_field(flat, "service_name").to_pylist()
    intents = pc.struct_field(flat, "intents").to_pylist()
    return {(service, intent["name"]): intent["is_transactional"]
            for service, its in zip(services, intents) for intent in its}


def table(unified):
    """The ``database`` rows of a pa.Table of unified SGD records."""
    turns = Turns(unified)
    query = turns.field("query")
    rows = np.flatnonzero(query.is_valid().to_numpy(zero_copy_only=False))
    taken = pa.array(rows, pa.int64())
    calls = query.take(taken).to_pylist()
    results = turns.field("querying_result").take(taken).to_pylist()
    kinds = transactional_intents(unified)
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    columns = {name: [] for name in ("service", "intent", "tool", "transactional", "arguments", "results")}
    for row, call, result, dialogue in zip(rows.tolist(), calls, results, dialogue_ids.to_pylist()):
        pair = (call["domain"], call["method"])
        if pair not in kinds:
            raise SourceFormatError("(unified records)", f"dialogue {dialogue}",
                                    f"dialog[{turns.position[row]}].query",
                                    f"{pair[0]}.{pair[1]} is not an intent of the dialogue's service schemas")
        columns["service"].append(pair[0])
        columns["intent"].append(pair[1])
        columns["tool"].append(tool_name(*pair))
        columns["transactional"].append(kinds[pair])
        columns["arguments"].append(call["parameters"])
        columns["results"].append(result["results"] if result is not None else [])
    schema = FEATURES.arrow_schema
    arrays = {
        "id": row_ids(dialogue_ids, turns.position[rows]),
        "dialogue_id": dialogue_ids,
        "turn_index": pa.array(turns.position[rows], pa.int32()),
        **{name: pa.array(values, schema.field(name).type) for name, values in columns.items()},
    }
    return pa.Table.from_arrays([arrays[name] for name in schema.names], schema=schema)

