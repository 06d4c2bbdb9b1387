"""One row per system turn in GEM's format: dialog acts, context and prompt to the target utterance.

The ``nlg`` view, GEM's data-to-text task on SGD (GEM's ``schema_guided_dialog``), with
GEM's field names and meanings: one row per turn of the responding role (SGD: every
system turn).

- ``id``: the row's id, ``<dialogue_id>/<turn_id>`` with the unified record's
  ``dialogue_id`` (``sgd/train/1_00000/3``), as in the other views (unique within a split);
- ``gem_id``: ``<dataset>-<split>-<dialog_id>-<turn_id>``. GEM numbers the examples of its
  own files, whose validation and test are 10,000-turn samples that cannot be derived from
  the source: here every system turn is a row, and the id says which;
- ``dialog_acts``: the turn's acts, ``{act, slot, values}``, ``act`` a ClassLabel over the
  act names sorted (SGD's 18, numbered as GEM numbers them); an act with several slots
  gives one entry per slot;
- ``context``: every utterance before the target; ``prompt``: the utterance just before
  (the user's); ``target``: the turn's utterance; ``references``: ``[target]``;
- ``dialog_id``: the source's dialogue id; ``turn_id``: the target's position in the
  dialogue; ``service``: the service of the turn's first act.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import ClassLabel, Features

from ..core.errors import SourceFormatError
from ..core.features import INT, STRING
from .turns import Turns, lengths, parents, ranges, relist, row_ids, rows_where, starts


def features(act_names):
    return Features({
        "id": STRING,
        "gem_id": STRING,
        "dialog_acts": [{"act": ClassLabel(names=list(act_names)), "slot": STRING, "values": [STRING]}],
        "context": [STRING],
        "prompt": STRING,
        "target": STRING,
        "references": [STRING],
        "dialog_id": STRING,
        "turn_id": INT,
        "service": STRING,
    })


def table(unified, role, act_names, dataset="schema_guided_dialog"):
    """The nlg rows of a pa.Table of unified records (``role``: the responding role)."""
    schema = features(act_names).arrow_schema
    turns = Turns(unified)
    rows = rows_where(np.array(turns.roles()) == role)
    utterance = turns.field("utterance")
    acts = turns.field("dialog_acts").take(pa.array(rows))
    check_acts(acts, act_names, lambda row: (turns.of_dialogue("dialogue_id", rows)[row].as_py(),
                                             turns.position[rows][row]))
    first_domain = {}
    for row, domain in zip(parents(acts), acts.flatten().field("domain").to_pylist()):
        first_domain.setdefault(row, domain)
    dialog_id = turns.of_dialogue("original_id", rows).to_pylist()
    split = turns.of_dialogue("split", rows).to_pylist()
    position = turns.position[rows]
    previous = utterance.take(pa.array(np.where(position > 0, rows - 1, rows))).to_pylist()
    targets = utterance.take(pa.array(rows))
    columns = {
        "id": row_ids(turns.of_dialogue("dialogue_id", rows), position),
        "gem_id": pa.array([f"{dataset}-{s}-{d}-{t}" for s, d, t in zip(split, dialog_id, position.tolist())]),
        "dialog_acts": gem_dialog_acts(acts, act_names, schema.field("dialog_acts").type.value_type),
        "context": relist(position, utterance.take(pa.array(ranges(turns.first[rows], position)))),
        "prompt": pa.array([p if t else "" for p, t in zip(previous, position.tolist())], pa.string()),
        "target": targets,
        "references": relist(np.ones(len(rows), dtype=np.int64), targets),
        "dialog_id": pa.array(dialog_id, pa.string()),
        "turn_id": pa.array(position, pa.int32()),
        "service": pa.array([first_domain.get(k) for k in range(len(rows))], pa.string()),
    }
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)


def check_acts(acts, act_names, place_of):
    """Refuse an act the view's ClassLabel cannot hold, naming its dialogue and turn
    (``place_of(row)``: the dialogue id and turn position of a row)."""
    names = acts.flatten().field("act")
    unknown = pc.invert(pc.is_in(names, value_set=pa.array(list(act_names), pa.string())))
    if not pc.any(unknown).as_py():
        return
    act = pc.index(unknown, True).as_py()
    dialogue, turn = place_of(parents(acts)[act])
    raise SourceFormatError("(unified records)", f"dialogue {dialogue}", f"dialog[{turn}].dialog_acts.act",
                            f"{names[act].as_py()!r} is not one of the nlg view's act names ({', '.join(act_names)})")


def gem_dialog_acts(acts, act_names, item_type):
    """GEM's ``dialog_acts`` of each row. GEM gives an act one slot: an act with several
    slot-value entries is one GEM act per entry, an act without any is one with slot ""."""
    number = {name: i for i, name in enumerate(act_names)}
    act_rows = acts.flatten()
    tables = act_rows.field("slot_value_table")
    entries = tables.flatten()
    codes, picks = [], []
    for name, begin, size in zip(act_rows.field("act").to_pylist(), starts(tables), lengths(tables)):
        items = range(begin, begin + size) if size else [None]
        codes += [number[name]] * len(items)
        picks += items
    pick = pa.array(picks, pa.int64())
    values = entries.field("values")
    spoken = relist(lengths(values), values.flatten().field("value"))
    item = pa.StructArray.from_arrays(
        [pa.array(codes, pa.int64()), pc.fill_null(entries.field("slot").take(pick), ""),
         pc.coalesce(spoken.take(pick), pa.scalar([], pa.list_(pa.string())))],
        fields=list(item_type))
    per_act = np.maximum(lengths(tables), 1)
    per_row = np.bincount(parents(acts), weights=per_act, minlength=len(acts)).astype(np.int64)
    return relist(per_row, item)
