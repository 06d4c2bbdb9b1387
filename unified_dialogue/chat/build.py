"""The rows of a chat config, built from a batch of unified records: the view's rows, then
each row's messages. The same messages as each chat module's ``messages`` (tests check it
row by row), made by Arrow over whole tables, not row by row in Python: the bulk of the
data (the turns so far, the services' schemas) would otherwise be copied into Python and
back. The turns are taken from the view's context; each chat module gives the system
messages and completions of a table of the view's rows (``systems``, ``targets``)."""

import functools
import json
from importlib import resources

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from .. import views
from ..core.errors import SourceFormatError
from ..core.features import INT, STRING
from ..views.turns import lengths, parents, relist, starts
from .text import ASSISTANT, GO_ON, JOIN, OPENING, SYSTEM, USER, compose, services_text

MESSAGE = {"role": STRING, "content": STRING}
FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "turn_index": INT,
    "prompt": [MESSAGE],
    "completion": [MESSAGE],
    "messages": [MESSAGE],
})
SCHEMA = FEATURES.arrow_schema
MESSAGE_TYPE = SCHEMA.field("prompt").type.value_type


def templates():
    """``{view: {name: instruction}}`` of ``templates.json``; each view has a ``default``."""
    return json.loads(resources.files(__package__).joinpath("templates.json").read_text(encoding="utf-8"))


def instruction(view, given=None):
    """The instruction of a chat config: the one ``given``, else the view's default."""
    return templates()[view]["default"] if given is None else given


def view_table(name, **options):
    """The function from unified tables to the rows of view ``name``, with its corpus options."""
    view = views.get(name)
    views.check_corpus_options(view, options)
    return functools.partial(view.module.table, **options)


def messages_array(roles, contents):
    """A StructArray of messages from the Arrow strings ``roles`` and ``contents``."""
    return pa.StructArray.from_arrays([roles, contents], fields=list(MESSAGE_TYPE))


def turn_messages(sizes, utterances, assistant):
    """Each row's turns as messages (a list array): ``sizes``, each row's number of turns;
    ``utterances``, every turn's text, row after row; ``assistant``, whether each is the
    assistant's (numpy). Consecutive turns of one side are one message, joined by a line
    break, as ``text.conversation`` joins them."""
    sizes = np.asarray(sizes, dtype=np.int64)
    row = np.repeat(np.arange(len(sizes)), sizes)
    new = np.ones(len(row), dtype=bool)
    new[1:] = (assistant[1:] != assistant[:-1]) | (row[1:] != row[:-1])
    if not new.all():
        group_sizes = np.bincount(np.cumsum(new) - 1)
        utterances = pc.binary_join(relist(group_sizes, utterances), JOIN)
        sizes = np.bincount(row[new], minlength=len(sizes))
    roles = pc.if_else(pa.array(assistant[new]), ASSISTANT, USER)
    return with_opening(sizes, assistant[new], messages_array(roles, utterances))


def with_opening(sizes, assistant, messages):
    """Each row's ``messages`` (a StructArray, ``sizes`` of them a row; ``assistant``:
    whether each is the assistant's) as a list array, a user message ``text.OPENING`` put
    first in every row whose messages do not begin with the user's, ``text.GO_ON`` last in
    every row whose messages end with the assistant's (as ``text.conversation`` does)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.cumsum(sizes) - sizes
    some = sizes > 0
    opens, closes = ~some, np.zeros(len(sizes), dtype=bool)
    opens[some] = assistant[offsets[some]]
    closes[some] = assistant[offsets[some] + sizes[some] - 1]
    new_sizes = sizes + opens + closes
    new_offsets = np.cumsum(new_sizes) - new_sizes
    index = np.empty(int(new_sizes.sum()), dtype=np.int64)
    index[new_offsets[opens]] = len(messages)  # the two user messages, after every other
    index[(new_offsets + new_sizes - 1)[closes]] = len(messages) + 1
    within = np.arange(len(messages)) - np.repeat(offsets, sizes)
    index[np.repeat(new_offsets + opens, sizes) + within] = np.arange(len(messages))
    added = messages_array(pa.array([USER, USER]), pa.array([OPENING, GO_ON]))
    return relist(new_sizes, pa.concat_arrays([messages, added]).take(pa.array(index)))


def prompts_and_messages(system, system_of, turns, completion):
    """Each row's prompt, ``[system[system_of[i]], *turns[i]]``, and its messages, the
    prompt then ``completion[i]`` (list arrays); ``system`` and ``completion`` StructArrays
    of messages (``system`` the distinct ones, ``system_of`` each row's among them),
    ``turns`` a list array of them. One array of every message, taken twice."""
    n, size = len(completion), lengths(turns)
    total, first_turn = int(size.sum()), len(system)
    values = pa.concat_arrays([system, turns.flatten(), completion])
    turn_at = first_turn + np.arange(total)  # where each turn is in ``values``
    within = np.arange(total) - np.repeat(starts(turns), size)
    out = []
    for tail in (0, 1):
        sizes = size + 1 + tail
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        index = np.empty(int(sizes.sum()), dtype=np.int64)
        index[offsets] = system_of
        index[np.repeat(offsets, size) + 1 + within] = turn_at
        if tail:
            index[offsets + sizes - 1] = first_turn + total + np.arange(n)
        out.append(relist(sizes, values.take(pa.array(index))))
    return out


def services_so_far(unified, dialogue_ids, turn_indices):
    """For each row (a turn of ``unified``, by dialogue id and position), the schemas of
    the services its dialogue has used in its frames up to and including that turn, in the
    order of first use, as text (the ``Services:`` part of a system message; "" without):
    a pa.DictionaryArray, each distinct text made and converted once (rows share them, and
    they are long: a kilobyte a service)."""
    schemas = unified.column("knowledge").combine_chunks().field("value").field("schema")
    by_name = {}
    if schemas.null_count < len(schemas):
        flat = schemas.flatten()
        names = flat.field("service_name")
        first = pc.index_in(pc.unique(names), names).to_numpy()  # a service has one schema within a batch
        by_name = {schema["service_name"]: schema for schema in flat.take(pa.array(first, pa.int64())).to_pylist()}
    dialog = unified.column("dialog").combine_chunks()
    frames = dialog.flatten().field("frames")
    # A service's first use in a dialogue: its first frame there (frames are in turn order).
    frame_turn = parents(frames)
    encoded = pc.dictionary_encode(frames.flatten().field("service"), null_encoding="encode")
    names, codes = encoded.dictionary.to_pylist(), encoded.indices.to_numpy()
    frame_dialogue = parents(dialog)[frame_turn]
    first_frames = np.sort(np.unique(frame_dialogue * len(names) + codes, return_index=True)[1])
    use_turn, use_service = frame_turn[first_frames], codes[first_frames]
    # A row's services are its dialogue's first uses up to its turn: a slice of them.
    dialogue = pc.index_in(dialogue_ids, unified.column("dialogue_id")).to_numpy()
    first_turn = starts(dialog)[dialogue]
    begin = np.searchsorted(use_turn, first_turn, side="left")
    end = np.searchsorted(use_turn, first_turn + np.asarray(turn_indices, dtype=np.int64), side="right")
    slices, row_slice = np.unique(begin * (len(use_turn) + 1) + end, return_inverse=True)
    row_slice = row_slice.reshape(-1)
    position, texts, slice_text = {}, [], []
    for k, (b, e) in enumerate(zip(*np.divmod(slices, len(use_turn) + 1))):
        used = tuple(names[code] for code in use_service[b:e].tolist())
        if used not in position:
            unknown = [service for service in used if service not in by_name]
            if unknown:
                dialogue_id = dialogue_ids[int(np.argmax(row_slice == k))].as_py()
                raise SourceFormatError("(unified records)", f"dialogue {dialogue_id}", "knowledge.value.schema",
                                        f"no schema of service {unknown[0]!r}, which its frames name")
            position[used] = len(texts)
            texts.append(services_text([by_name[service] for service in used]))
        slice_text.append(position[used])
    indices = np.asarray(slice_text, dtype=np.int32)[row_slice]
    return pa.DictionaryArray.from_arrays(pa.array(indices), pa.array(texts, pa.string()))


def row_messages(module, row, given_instruction=None, services=(), **extra):
    """The chat of one view row, ``{"prompt": [...], "completion": [...]}``, by the chat
    ``module`` (its ``system``, ``turns`` and ``target``); ``given_instruction``: the
    system message's (None: the view's default); ``services``: the schemas (``schema``
    rows) of the services used up to the row's turn."""
    system_message = module.system(row, instruction(module.NAME, given_instruction), services_text(services),
                                   **extra)
    return compose(system_message, module.turns(row), module.target(row))


def chat_table(unified, module, view_table, given_instruction, sides, extra=None):
    """The chat rows of a pa.Table of unified records. ``module``: the chat module, whose
    ``systems(rows, instruction, services, **extra)`` and ``targets(rows)`` give the system
    messages and completions of a table of the view's rows (``services``: each row's
    ``Services:`` text, a pa.DictionaryArray), as Arrow strings; ``view_table``: the view's
    function; ``given_instruction``: the system message's (None: the view's default);
    ``sides(rows)``: ``(sizes, utterances, assistant)`` of each row's turns (see
    ``turn_messages``)."""
    rows = view_table(unified)
    n = rows.num_rows
    if n == 0:  # a file without a row of the view (its split may have rows in other files)
        return SCHEMA.empty_table()
    ids = rows.column("id").combine_chunks()
    if "dialogue_id" in rows.column_names:
        dialogue_ids = rows.column("dialogue_id").combine_chunks()
        turn_indices = rows.column("turn_index").combine_chunks()
    else:  # nlg: GEM's columns
        dialogue_ids = pc.replace_substring_regex(ids, r"/[0-9]+$", "")
        turn_indices = rows.column("turn_id").combine_chunks()
    services = services_so_far(unified, dialogue_ids, turn_indices.to_numpy(zero_copy_only=False))
    systems = module.systems(rows, instruction(module.NAME, given_instruction), services, **(extra or {}))
    if isinstance(systems, pa.DictionaryArray):  # rows sharing a system message: each converted once
        system_texts, system_of = systems.dictionary, systems.indices.to_numpy().astype(np.int64)
    else:
        system_texts, system_of = systems, np.arange(n)
    system = messages_array(pa.repeat(pa.scalar(SYSTEM), len(system_texts)), system_texts)
    completion = messages_array(pa.repeat(pa.scalar(ASSISTANT), n), module.targets(rows))
    prompts, messages = prompts_and_messages(system, system_of, turn_messages(*sides(rows)), completion)
    columns = {
        "id": ids,
        "dialogue_id": dialogue_ids,
        "turn_index": pc.cast(turn_indices, pa.int32()),
        "prompt": prompts,
        "completion": relist(np.ones(n, dtype=np.int64), completion),
        "messages": messages,
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)


# ---------------------------------------------------------------- each view's turns

def context_sides(rows, assistant_of):
    """Sizes, utterances and sides of a ``context`` column (``[{role, utterance}]``);
    ``assistant_of(roles, row_of_each)``: whether each turn is the assistant's (numpy)."""
    context = rows.column("context").combine_chunks()
    flat = context.flatten()
    return lengths(context), flat.field("utterance"), assistant_of(flat.field("role"), parents(context), context)


def _np(array):
    return pc.fill_null(array, False).to_numpy(zero_copy_only=False)


def dst_sides(rows):
    """The user is the role of a row's last turn."""
    def assistant_of(roles, row, context):
        last = starts(context) + lengths(context) - 1
        user = roles.take(pa.array(last)).take(pa.array(row))
        return ~_np(pc.equal(roles, user))
    return context_sides(rows, assistant_of)


def response_sides(rows):
    """The assistant is the row's responding role."""
    def assistant_of(roles, row, context):
        responding = rows.column("role").combine_chunks().take(pa.array(row))
        return _np(pc.equal(roles, responding))
    return context_sides(rows, assistant_of)


def nlg_sides(rows):
    """The utterances alternate back from the last, the user's."""
    context = rows.column("context").combine_chunks()
    size = lengths(context)
    back = np.repeat(size, size) - 1 - (np.arange(int(size.sum())) - np.repeat(starts(context), size))
    return size, context.flatten(), back % 2 == 1


def nlu_sides(rows):
    """The utterance alone, the user's."""
    return np.ones(rows.num_rows, dtype=np.int64), rows.column("utterance").combine_chunks(), \
        np.zeros(rows.num_rows, dtype=bool)
