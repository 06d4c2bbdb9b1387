"""One row per user turn: the context so far, the turn's frames and the dialogue state carried forward.

The ``dst`` view, for dialogue state tracking: one row per turn with a dialogue state
(SGD: every user turn).

- ``id``: the row's id, ``<dialogue_id>/<turn_index>`` (unique within a split);
- ``dialogue_id``, ``original_id``, ``turn_index`` (the turn's position in its dialogue);
- ``context``: every turn up to and including this one, ``{role, utterance}``;
- ``frames``: this turn's frames with their state as the source has them (what the DSTC8
  evaluator scores): ``{service, slots: [{slot, start, exclusive_end}], state:
  {active_intent ("NONE" when none), requested_slots, slot_values: [{slot, values}]}}``,
  every spoken variant of a value kept;
- ``dialogue_state``: every service of the dialogue so far, in order of first appearance,
  with its latest state carried forward: ``{domain, active_intent, requested_slots,
  slot_values: [{slot, values, canonical_value}], unseen}``. ``canonical_value`` is the
  canonical form the dialogue's acts and service calls give one of the slot's values up to
  this turn (None before any does); ``unseen``: the service is absent from the train schema.

The input of a tracker is ``context``; ``frames`` and ``dialogue_state`` are the labels of
the row's turn (its targets). Nothing after the turn is used: the row of turn t is the same
whether the dialogue ends at t or goes on.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets import Features

from ..core.features import BOOL, INT, NO_INTENT, STRING
from .turns import Turns, lengths, parents, ranges, relist, row_ids, rows_where, starts

FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "original_id": STRING,
    "turn_index": INT,
    "context": [{"role": STRING, "utterance": STRING}],
    "frames": [{
        "service": STRING,
        "slots": [{"slot": STRING, "start": INT, "exclusive_end": INT}],
        "state": {"active_intent": STRING, "requested_slots": [STRING],
                  "slot_values": [{"slot": STRING, "values": [STRING]}]},
    }],
    "dialogue_state": [{
        "domain": STRING,
        "active_intent": STRING,
        "requested_slots": [STRING],
        "slot_values": [{"slot": STRING, "values": [STRING], "canonical_value": STRING}],
        "unseen": BOOL,
    }],
})
SCHEMA = FEATURES.arrow_schema


def empty_frame(service):
    """A frame of ``service`` with no state, the shape of the view's ``frames``: what a
    scorer takes a frame no prediction gives to be."""
    return {"service": service, "slots": None,
            "state": {"active_intent": NO_INTENT, "requested_slots": [], "slot_values": []}}


def canonical_pairs(turns):
    """For each turn, the ``((service, slot, value), canonical value)`` pairs its dialog acts
    and service call give, in order: acts first, then the call's parameters (canonical
    already), as the source lists them within a frame."""
    pairs = [[] for _ in range(len(turns))]
    acts = turns.field("dialog_acts")
    act_rows, act_turn = acts.flatten(), parents(acts)
    tables = act_rows.field("slot_value_table")
    entries, entry_act = tables.flatten(), parents(tables)
    values = entries.field("values")
    value_rows, value_entry = values.flatten(), parents(values)
    value_act = entry_act[value_entry]
    domains = act_rows.field("domain").take(pa.array(value_act)).to_pylist()
    slots = entries.field("slot").take(pa.array(value_entry)).to_pylist()
    spoken, forms = value_rows.field("value").to_pylist(), value_rows.field("cononical_value").to_pylist()
    for turn, domain, slot, value, form in zip(act_turn[value_act], domains, slots, spoken, forms):
        pairs[turn].append(((domain, slot, value), form))
    query = turns.field("query")
    parameters = query.field("parameters")
    rows, call_turn = parameters.flatten(), parents(parameters)
    domains = query.field("domain").take(pa.array(call_turn)).to_pylist()
    for turn, domain, slot, value in zip(call_turn, domains, rows.field("slot").to_pylist(),
                                         rows.field("value").to_pylist()):
        pairs[turn].append(((domain, slot, value), value))
    return pairs


def source_states(entries):
    """Belief-state entries of the unified schema as the source's frame states."""
    table = entries.field("informed_slot_value_table")
    rows = table.flatten()
    values = rows.field("values")
    spoken = relist(lengths(values), values.flatten().field("value"), values.is_valid())
    slot_values = pa.StructArray.from_arrays([rows.field("slot"), spoken], names=["slot", "values"])
    return pa.StructArray.from_arrays(
        [pc.fill_null(entries.field("intent"), NO_INTENT), entries.field("requested_slots"),
         relist(lengths(table), slot_values, table.is_valid())],
        fields=list(SCHEMA.field("frames").type.value_type.field("state").type))


def frames_column(frames, beliefs):
    """Each row's frames (``frames``, ``beliefs``: the rows' unified lists) with the state
    of the belief entry of the same service in the same turn."""
    flat = frames.flatten()
    services, turn_of_frame = flat.field("service").to_pylist(), parents(frames)
    entries = beliefs.flatten()
    entry_of = {(turn, domain): e for e, (turn, domain) in
                enumerate(zip(parents(beliefs), entries.field("domain").to_pylist()))}
    pick = pa.array([entry_of.get(key) for key in zip(turn_of_frame, services)], pa.int64())
    spans = flat.field("slots")
    span_rows = spans.flatten()
    renamed = pa.StructArray.from_arrays([span_rows.field("slot"), span_rows.field("start"), span_rows.field("end")],
                                         names=["slot", "start", "exclusive_end"])
    frame_rows = pa.StructArray.from_arrays(
        [flat.field("service"), relist(lengths(spans), renamed, spans.is_valid()),
         source_states(entries).take(pick)],
        fields=list(SCHEMA.field("frames").type.value_type))
    return relist(lengths(frames), frame_rows, frames.is_valid())


def table(unified):
    """The dst rows of a pa.Table of unified records, as a pa.Table."""
    turns = Turns(unified)
    all_beliefs = turns.field("belief_state")
    rows = rows_where(all_beliefs.is_valid())
    beliefs, frames = all_beliefs.take(pa.array(rows)), turns.field("frames").take(pa.array(rows))

    # Every belief entry of the rows, flat: its service, slots and spoken values.
    entries = beliefs.flatten()
    entry_domain = entries.field("domain").to_pylist()
    entry_begin, entry_size = starts(beliefs), lengths(beliefs)
    table_ = entries.field("informed_slot_value_table")
    slot_begin, slot_size = starts(table_), lengths(table_)
    slot_rows = table_.flatten()
    slot_names = slot_rows.field("slot").to_pylist()
    spoken_lists = slot_rows.field("values")
    value_begin, value_size = starts(spoken_lists), lengths(spoken_lists)
    spoken = spoken_lists.flatten().field("value").to_pylist()
    unseen_of = [dict(zip((f["service"] for f in row), (f["unseen"] for f in row))) if row else {}
                 for row in frames.to_pylist()]

    # Walk every turn in order: canonical values are learnt from all of them, and each row
    # carries the latest entry of every service seen so far in its dialogue. A carried
    # entry's canonical values are looked up again only for the slots that learnt a value.
    # (Plain lists, not numpy arrays, in the loop: indexing them is several times faster.)
    pairs = canonical_pairs(turns)
    dialogue_of, row_turns = turns.dialogue.tolist(), rows.tolist() + [None]
    entry_begin, entry_size = entry_begin.tolist(), entry_size.tolist()
    slot_begin, slot_size = slot_begin.tolist(), slot_size.tolist()
    value_begin, value_size = value_begin.tolist(), value_size.tolist()

    def canonical_of(domain, s):
        """The canonical form known for the first of the slot's values that has one."""
        slot, first = slot_names[s], value_begin[s]
        for v in range(first, first + value_size[s]):
            form = known.get((domain, slot, spoken[v]))
            if form is not None:
                return form
        return None

    carried_rows, carried_entries, carried_unseen, canonical = [], [], [], []
    known, carried, forms_of, learnt, last_dialogue, k = {}, {}, {}, set(), None, 0
    for turn, dialogue in enumerate(dialogue_of):
        if dialogue != last_dialogue:
            known, carried, forms_of, learnt, last_dialogue = {}, {}, {}, set(), dialogue
        for key, form in pairs[turn]:
            if key not in known:
                known[key] = form
                learnt.add(key[:2])
        if row_turns[k] != turn:
            continue
        for e in range(entry_begin[k], entry_begin[k] + entry_size[k]):
            carried[entry_domain[e]] = (e, unseen_of[k].get(entry_domain[e]))
            forms_of[e] = None
        carried_rows.append(len(carried))
        for e, unseen in carried.values():
            domain, slots = entry_domain[e], range(slot_begin[e], slot_begin[e] + slot_size[e])
            if forms_of[e] is None:
                forms_of[e] = [canonical_of(domain, s) for s in slots]
            elif learnt:
                forms_of[e] = [canonical_of(domain, s) if (domain, slot_names[s]) in learnt else f
                               for s, f in zip(slots, forms_of[e])]
            carried_entries.append(e)
            carried_unseen.append(unseen)
            canonical.extend(forms_of[e])
        learnt = set()
        k += 1
    slot_begin, slot_size = np.array(slot_begin, dtype=np.int64), np.array(slot_size, dtype=np.int64)

    pick = pa.array(carried_entries, pa.int64())
    slot_pick = pa.array(ranges(slot_begin[carried_entries], slot_size[carried_entries]), pa.int64())
    picked_slots = slot_rows.take(slot_pick)
    state_slots = pa.StructArray.from_arrays(
        [picked_slots.field("slot"), source_states(entries).field("slot_values").flatten().take(slot_pick)
         .field("values"), pa.array(canonical, pa.string())],
        names=["slot", "values", "canonical_value"])
    state_entries = pa.StructArray.from_arrays(
        [entries.field("domain").take(pick), pc.fill_null(entries.field("intent").take(pick), NO_INTENT),
         entries.field("requested_slots").take(pick), relist(slot_size[carried_entries], state_slots),
         pa.array(carried_unseen, pa.bool_())],
        fields=list(SCHEMA.field("dialogue_state").type.value_type))
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    columns = {
        "id": row_ids(dialogue_ids, turns.position[rows]),
        "dialogue_id": dialogue_ids,
        "original_id": turns.of_dialogue("original_id", rows),
        "turn_index": pa.array(turns.position[rows], pa.int32()),
        "context": turns.context(rows, inclusive=True),
        "frames": frames_column(frames, beliefs),
        "dialogue_state": relist(carried_rows, state_entries),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
