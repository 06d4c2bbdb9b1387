"""One row per service call: the conversation before it and the tools as prompt, the call as completion.

Columns: ``id`` (``<dialogue_id>/<turn_index>``), ``dialogue_id``, ``turn_index`` (the
system turn holding the call), ``prompt`` (the ``agent-chat`` messages before the call),
``completion`` (the assistant message with the call in ``tool_calls``) and ``tools`` (those
of the dialogue's services that a frame of the turns up to the call's has named, in the
dialogue's order; in SGD every call's service is named by an earlier turn already). A
prompt-completion dataset as TRL's ``SFTTrainer`` takes it; scored by
``unified_dialogue.scoring.tool_calls.score_tool_calls``. User option: ``instruction``, the
system message's text.

Nothing after the call's turn is used.
"""

import numpy as np
import pyarrow as pa

from ..views.turns import ranges, relist
from .agent import CALL_FEATURES as FEATURES
from .agent import Conversations, services_named


def table(unified, instruction=None):
    """The ``agent-call-chat`` rows of a pa.Table of unified SGD records."""
    chats = Conversations(unified, instruction)
    turns, calls = chats.turns, chats.call_turns
    dialogues = turns.dialogue[calls]
    positions = turns.position[calls]
    begins = chats.dialogue_first[dialogues]
    prompt_sizes = chats.turn_first[calls] - begins
    ids = [f"{chats.dialogue_ids[d]}/{t}" for d, t in zip(dialogues.tolist(), positions.tolist())]
    columns = {
        "id": pa.array(ids, pa.string()),
        "dialogue_id": pa.array([chats.dialogue_ids[d] for d in dialogues.tolist()], pa.string()),
        "turn_index": pa.array(positions, pa.int32()),
        "prompt": relist(prompt_sizes, chats.messages.take(pa.array(ranges(begins, prompt_sizes)))),
        "completion": relist(np.ones(len(calls), dtype=np.int64),
                             chats.messages.take(pa.array(chats.call_messages, pa.int64()))),
        "tools": chats.tools_of(services_named(chats, calls)),
    }
    schema = FEATURES.arrow_schema
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)
