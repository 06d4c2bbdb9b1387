"""One row per frame of a user turn: the service's items by id with descriptions, the dialogue so far, and the state as text.

The ``d3st`` view, for schema-guided state tracking with sequence models (D3ST, Zhao et
al. 2022): one row per frame of each user turn, its input listing the service's slots and
intents by id with their descriptions, then the dialogue so far; its target the frame's
state by those ids (``views.d3st_text`` has the format and its parser).

- ``id`` (``<dialogue_id>/<turn_index>/<frame_index>``), ``dialogue_id``, ``original_id``,
  ``turn_index``, ``frame_index`` (the frame's position in its turn), ``service``;
- ``input``, ``target``: the texts;
- ``legend``: the ids the texts use (``d3st_text.Legend.from_row`` reads it back), so that a
  model's output can be parsed without making the input again;
- ``frame``: the frame's service and state as the source has it, the reference a parsed
  output is scored against; ``unseen``: the service is absent from the train schema.

The descriptions come from the schemas each record holds (``knowledge``): under an SGD-X
variant, the variant's names and descriptions. Options, named as the flags of the D3ST
authors' generator (``create_sgd_schemaless_data.py``): ``level`` (``dst``: the slot values;
``dst_intent``: also the active intent and the requested slots), ``data_format``
(``full_desc``: descriptions; ``item_name``: ``<service>-<name>``; ``rand_name``: the name's
letters shuffled, drawn from ``seed``), ``multiple_choice`` (``none``; ``a``: options shown as
``a) …``; ``1a``: as ``1a) …``), ``lowercase``, ``delimiter``, ``randomize_items`` (ids and
options in an order drawn from ``seed`` and the row's id, else in schema order).

With ``upstream_compat`` the texts are the generator's, faults included (docs/views.md lists
them): every frame of a two-frame turn gets the text of its last frame, and a slot once
filled keeps its value in the target after the state drops it.

A row of turn t uses turns 0..t only.
"""

import random

import pyarrow as pa
from datasets import Features

from ..core.errors import ConfigError
from ..core.features import BOOL, INT, STRING
from ..core.options import Option
from . import d3st_text as text
from .dst import source_states
from .turns import Turns, lengths, parents, starts

LEGEND = {
    "service": STRING,
    "level": STRING,
    "multiple_choice": STRING,
    "lowercase": BOOL,
    "delimiter": STRING,
    "slots": [{"name": STRING, "id": INT, "categorical": BOOL, "values": [STRING], "lettered": BOOL}],
    "intents": [{"name": STRING, "id": INT}],
}
FEATURES = Features({
    "id": STRING,
    "dialogue_id": STRING,
    "original_id": STRING,
    "turn_index": INT,
    "frame_index": INT,
    "service": STRING,
    "input": STRING,
    "target": STRING,
    "legend": LEGEND,
    "frame": {"service": STRING,
              "state": {"active_intent": STRING, "requested_slots": [STRING],
                        "slot_values": [{"slot": STRING, "values": [STRING]}]}},
    "unseen": BOOL,
})
SCHEMA = FEATURES.arrow_schema
# The generator's options as its README runs it, with the items in schema order.
OPTIONS = (
    Option("level", str, "dst_intent", "dst: slot values; dst_intent: also the active intent and requested slots",
           text.LEVELS),
    Option("data_format", str, "full_desc", "how items are shown: full_desc (descriptions), item_name "
           "(<service>-<name>) or rand_name (the name's letters shuffled, from seed)", text.DATA_FORMATS),
    Option("multiple_choice", str, "1a", "categorical options shown as none, 'a) …' or '1a) …'",
           text.MULTIPLE_CHOICE),
    Option("lowercase", bool, True, "lowercase inputs and targets"),
    Option("delimiter", str, "=", "between an id and its description or value: no letter, digit, white space, "
           "character with case, nor one of [ ] | \" \\ )", problem=text.delimiter_problem),
    Option("randomize_items", bool, False, "ids and options in an order drawn from seed and the row id"),
    Option("seed", int, 0, "seed of randomize_items and rand_name"),
    Option("upstream_compat", bool, False, "the generator's texts, faults included"),
)
DEFAULTS = {option.name: option.default for option in OPTIONS}


def check_options(level, data_format, multiple_choice, lowercase, delimiter, randomize_items, seed, upstream_compat):
    if level == "dst_intent_act":
        raise ConfigError("the d3st view has no level 'dst_intent_act' (rows of system turns with actions and "
                          "responses): the levels are dst and dst_intent")
    for name, value, allowed in (("level", level, text.LEVELS), ("data_format", data_format, text.DATA_FORMATS),
                                 ("multiple_choice", multiple_choice, text.MULTIPLE_CHOICE)):
        if value not in allowed:
            raise ConfigError(f"d3st option {name}={value!r}: one of {', '.join(allowed)}")
    for name, value in (("lowercase", lowercase), ("randomize_items", randomize_items),
                        ("upstream_compat", upstream_compat)):
        if not isinstance(value, bool):
            raise ConfigError(f"d3st option {name}={value!r}: True or False")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"d3st option seed={seed!r}: an integer")
    try:
        text.check_delimiter(delimiter, "d3st option delimiter")
    except text.LegendError as error:
        raise ConfigError(str(error)) from None


class Schemas:
    """Each record's service schemas (``knowledge``), read once per split and service."""

    def __init__(self, unified):
        schemas = unified.column("knowledge").combine_chunks().field("value").field("schema")
        self.flat = schemas.flatten()
        self.names = self.flat.field("service_name").to_pylist()
        self.begin, self.size = starts(schemas).tolist(), lengths(schemas).tolist()
        self.splits = unified.column("split").to_pylist()
        self.cache = {}

    def of(self, dialogue, service, where):
        key = (self.splits[dialogue], service)
        if key not in self.cache:
            begin = self.begin[dialogue]
            for k in range(begin, begin + self.size[dialogue]):
                if self.names[k] == service:
                    self.cache[key] = self.flat[k].as_py()
                    break
            else:
                raise ConfigError(f"{where}: the dialogue's knowledge has no schema of service {service!r}")
        return self.cache[key]


def table(unified, level="dst_intent", data_format="full_desc", multiple_choice="1a", lowercase=True,
          delimiter="=", randomize_items=False, seed=0, upstream_compat=False):
    """The d3st rows of a pa.Table of unified records, as a pa.Table."""
    check_options(level, data_format, multiple_choice, lowercase, delimiter, randomize_items, seed, upstream_compat)
    turns = Turns(unified)
    schemas = Schemas(unified)
    roles, utterances = turns.roles(), turns.field("utterance").to_pylist()
    dialogue_ids = unified.column("dialogue_id").to_pylist()

    frames = turns.field("frames")
    frame_begin, frame_size = starts(frames).tolist(), lengths(frames).tolist()
    flat_frames = frames.flatten()
    frame_service, frame_unseen = flat_frames.field("service").to_pylist(), flat_frames.field("unseen").to_pylist()
    beliefs = turns.field("belief_state")
    has_belief = beliefs.is_valid().to_numpy(zero_copy_only=False)
    entries = beliefs.flatten()
    entry_of = {(turn, domain): e for e, (turn, domain) in
                enumerate(zip(parents(beliefs).tolist(), entries.field("domain").to_pylist()))}
    entry_intent = entries.field("intent").to_pylist()
    entry_requested = entries.field("requested_slots").to_pylist()
    table_ = entries.field("informed_slot_value_table")
    slot_begin, slot_size = starts(table_).tolist(), lengths(table_).tolist()
    slot_rows = table_.flatten()
    slot_names = slot_rows.field("slot").to_pylist()
    value_lists = slot_rows.field("values")
    value_begin, value_size = starts(value_lists).tolist(), lengths(value_lists).tolist()
    spoken = value_lists.flatten().field("value").to_pylist()

    def state_of(e):
        values = {}
        for s in range(slot_begin[e], slot_begin[e] + slot_size[e]):
            values[slot_names[s]] = spoken[value_begin[s]:value_begin[s] + value_size[s]]
        return values

    options = {"level": level, "multiple_choice": multiple_choice, "lowercase": lowercase, "delimiter": delimiter}
    fixed = {}  # (split, service) -> (legend, its row index, prompt), when ids follow the schema

    described = {}  # (split, service) -> the item texts, whatever their order

    def made(schema, row_id, rng=None):
        try:
            return text.legend(schema, rng=rng, **options)
        except text.LegendError as error:  # a collision of an option with this service's names or values
            raise ConfigError(f"d3st row {row_id}: {error}") from None

    def legend_of(dialogue, service, row_id):
        if randomize_items:
            schema = schemas.of(dialogue, service, row_id)
            key = (schemas.splits[dialogue], service)
            if key not in described:
                described[key] = text.descriptions(schema, data_format, seed)
            legend = made(schema, row_id, random.Random(f"{seed}/{row_id}"))
            legend_rows.append(legend.to_row())
            return legend, len(legend_rows) - 1, text.prompt(legend, described[key], upstream_compat)
        key = (schemas.splits[dialogue], service)
        if key not in fixed:
            schema = schemas.of(dialogue, service, row_id)
            legend = made(schema, row_id)
            legend_rows.append(legend.to_row())
            fixed[key] = (legend, len(legend_rows) - 1,
                          text.prompt(legend, text.descriptions(schema, data_format, seed), upstream_compat))
        return fixed[key]

    ids, row_dialogue, row_turn, row_frame, row_service, inputs, targets = [], [], [], [], [], [], []
    row_legend, row_entry, row_unseen, legend_rows = [], [], [], []
    turn_dialogue, position = turns.dialogue.tolist(), turns.position.tolist()
    context, carried, last_dialogue = [], {}, None
    for t, dialogue in enumerate(turn_dialogue):
        if dialogue != last_dialogue:
            context, carried, last_dialogue = [], {}, dialogue
        piece = text.context_piece(roles[t], utterances[t], lowercase)
        if piece:
            context.append(piece)
        if not has_belief[t] or not frame_size[t]:
            continue
        dialogue_id, turn_index = dialogue_ids[dialogue], position[t]
        history = " ".join(context)
        services = frame_service[frame_begin[t]:frame_begin[t] + frame_size[t]]
        frame_entries = []
        for k, service in enumerate(services):
            e = entry_of.get((t, service))
            if e is None:
                raise ConfigError(f"dialogue {dialogue_id}, turn {turn_index}, frame {k}: "
                                  f"no state of service {service!r}")
            frame_entries.append(e)
        if upstream_compat:
            for service, e in zip(services, frame_entries):
                for slot, values in state_of(e).items():
                    carried[service, slot] = text.VALUE_SEPARATOR.join(values)
        for k, (service, e) in enumerate(zip(services, frame_entries)):
            row_id = f"{dialogue_id}/{turn_index}/{k}"
            if upstream_compat:  # every frame of the turn written as its last one
                service, e = services[-1], frame_entries[-1]
                slot_values = {slot: [value] for (s, slot), value in carried.items() if s == service}
            else:
                slot_values = state_of(e)
            legend, legend_row, prompt = legend_of(dialogue, service, row_id)
            try:
                target = text.target(legend, slot_values, entry_intent[e] or text.NO_INTENT, entry_requested[e],
                                     upstream_compat)
            except text.LegendError as error:
                raise ConfigError(f"dialogue {dialogue_id}, turn {turn_index}, frame {k}: {error}") from None
            ids.append(row_id)
            row_dialogue.append(dialogue)
            row_turn.append(turn_index)
            row_frame.append(k)
            row_service.append(service)
            inputs.append(f"{prompt} {history}" if history else prompt)
            targets.append(target)
            row_legend.append(legend_row)
            row_entry.append(frame_entries[k])
            row_unseen.append(frame_unseen[frame_begin[t] + k])

    pick = pa.array(row_entry, pa.int64())
    states = source_states(entries).take(pick)
    frame_type = SCHEMA.field("frame").type
    dialogues = pa.array(row_dialogue, pa.int64())
    columns = {
        "id": pa.array(ids, pa.string()),
        "dialogue_id": unified.column("dialogue_id").combine_chunks().take(dialogues),
        "original_id": unified.column("original_id").combine_chunks().take(dialogues),
        "turn_index": pa.array(row_turn, pa.int32()),
        "frame_index": pa.array(row_frame, pa.int32()),
        "service": pa.array(row_service, pa.string()),
        "input": pa.array(inputs, pa.string()),
        "target": pa.array(targets, pa.string()),
        "legend": pa.array(legend_rows, SCHEMA.field("legend").type).take(pa.array(row_legend, pa.int64())),
        "frame": pa.StructArray.from_arrays([entries.field("domain").take(pick), states],
                                            fields=list(frame_type)),
        "unseen": pa.array(row_unseen, pa.bool_()),
    }
    return pa.Table.from_arrays([columns[name] for name in SCHEMA.names], schema=SCHEMA)
