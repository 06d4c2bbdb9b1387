"""One row per turn: the utterance, its annotated spans, acts and intents.

The ``nlu`` view, for understanding single utterances (intent detection, slot filling,
entity recognition): one row per turn.

- ``id``: the row's id, ``<dialogue_id>/<turn_index>`` (unique within a split);
- ``dialogue_id``, ``turn_index``, ``role``, ``utterance``;
- ``spans``: every annotated span of the utterance, ``{start, end, text, label, type,
  domain}`` (``end`` exclusive): SGD's slot spans (``label`` the slot, ``domain`` the
  service), CCPE-M's segments, one span per annotation (``label`` the annotation type,
  ``type`` the entity type); offsets as the source gives them, or None where they do not
  locate ``text`` in the utterance (as in the unified spans), ``text`` the source's;
- ``dialog_acts`` (SGD: the acts, with the intents users inform of) and ``intents`` (the
  turn's active intents), None where the corpus has none.

Nothing but the turn itself is used.
"""

import pyarrow as pa
from datasets import Features

from ..core.features import DIALOG_ACT, INT, STRING, locates
from .turns import Turns, parents, relist, row_ids

FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "turn_index": INT,
    "role": STRING,
    "utterance": STRING,
    "spans": [{"start": INT, "end": INT, "text": STRING, "label": STRING, "type": STRING, "domain": STRING}],
    "dialog_acts": [DIALOG_ACT],
    "intents": [STRING],
})
SCHEMA = FEATURES.arrow_schema


def spans_of(turns):
    """Each turn's spans, from the frames' slot spans and the segments' annotations."""
    utterances = turns.field("utterance").to_pylist()
    spans = [[] for _ in range(len(turns))]
    frames = turns.field("frames")
    frame_rows = frames.flatten()
    slots = frame_rows.field("slots")
    slot_rows, slot_frame = slots.flatten(), parents(slots)
    frame_turn, services = parents(frames), frame_rows.field("service").to_pylist()
    for f, slot, start, end in zip(slot_frame, slot_rows.field("slot").to_pylist(),
                                   slot_rows.field("start").to_pylist(), slot_rows.field("end").to_pylist()):
        turn = frame_turn[f]
        spans[turn].append({"start": start, "end": end, "text": utterances[turn][start:end], "label": slot,
                            "type": None, "domain": services[f]})
    segments = turns.field("segments")
    segment_rows, segment_turn = segments.flatten(), parents(segments)
    for turn, segment in zip(segment_turn, segment_rows.to_pylist()):
        start, end, text = segment["start"], segment["end"], segment["text"]
        if not locates(start, end, text, utterances[turn]):
            start = end = None
        for annotation in segment["annotations"]:
            spans[turn].append({"start": start, "end": end, "text": text,
                                "label": annotation["annotation_type"], "type": annotation["entity_type"],
                                "domain": None})
    return spans


def table(unified):
    """The nlu rows of a pa.Table of unified records."""
    turns = Turns(unified)
    rows = list(range(len(turns)))
    span_lists = spans_of(turns)
    flat = pa.array([span for spans in span_lists for span in spans], SCHEMA.field("spans").type.value_type)
    dialogue_ids = turns.of_dialogue("dialogue_id", rows)
    columns = {
        "id": row_ids(dialogue_ids, turns.position),
        "dialogue_id": dialogue_ids,
        "turn_index": pa.array(turns.position, pa.int32()),
        "role": turns.role,
        "utterance": turns.field("utterance"),
        "spans": relist([len(spans) for spans in span_lists], flat),
        "dialog_acts": turns.field("dialog_acts"),
        "intents": turns.field("active_intents"),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)

