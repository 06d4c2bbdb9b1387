"""One row per dialogue as a tool-calling conversation: service calls as tool calls, results as tool messages.

Columns: ``id`` (the dialogue id), ``dialogue_id``, ``original_id``, ``messages`` (the
system message, then every turn; a system turn with a service call is preceded by an
assistant message whose ``tool_calls`` hold the call and a ``tool`` message with its
results as a JSON list of objects) and ``tools`` (one per intent of the dialogue's
services, in the order of its services: ``<service>__<intent>``, with a JSON schema of
the intent's slots as ``parameters``). A call's ``arguments`` and a tool's ``parameters``
are ``datasets.Json()`` values on datasets 4.7 and later, JSON strings on 3.6, with the
same text (``unified_dialogue.chat.agent`` says all of it). User option: ``instruction``,
the system message's text.

The row is the whole dialogue, as in the source; its tools are those of the services the
dialogue lists.
"""

import pyarrow as pa

from .agent import DIALOGUE_FEATURES as FEATURES
from .agent import Conversations, relist


def table(unified, instruction=None):
    """The ``agent-chat`` rows of a pa.Table of unified SGD records."""
    chats = Conversations(unified, instruction)
    ids = unified.column("dialogue_id").combine_chunks()
    columns = {
        "id": ids,
        "dialogue_id": ids,
        "original_id": unified.column("original_id").combine_chunks(),
        "messages": relist(chats.dialogue_sizes(), chats.messages),
        "tools": chats.tools_of(chats.tools.services),
    }
    schema = FEATURES.arrow_schema
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)
