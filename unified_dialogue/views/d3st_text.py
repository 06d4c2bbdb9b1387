"""The D3ST text format (Zhao et al. 2022, "Description-Driven Task-Oriented Dialog Modeling"):
from a service schema and a frame's state to an input and a target text, and back.

Input: every slot and intent of the frame's service by id with its description, then the
dialogue so far::

    0=name of the restaurant 1=whether the restaurant has outdoor seating 1a) true 1b) false
    i0=find restaurants by location [user] i want to eat out [system] where? [user] in sf

Target: ``[states] 0=nopa 1=1a [intents] i0 [req_slots] 3`` (``[intents]`` and
``[req_slots]`` from level ``dst_intent`` on). A slot's several spoken values are joined by
`` | ``; a categorical slot shown as multiple choice takes the letter of its value.

A ``Legend`` holds the ids the texts use: which slot and intent each id names, the options
of each categorical slot in the order shown, and the format options. It is stored with each
row, so that a parser reads the ids the row was made with, whatever order they were drawn in.
``parse`` is lenient with model text (it keeps what it can read and lists the rest as
problems); a bad legend is an error naming what is wrong.
"""

import functools
import random
import re
import string
from dataclasses import dataclass
from typing import Tuple

from ..core.errors import UnifiedDialogueError
from ..core.features import NO_INTENT

LEVELS = ("dst", "dst_intent")
DATA_FORMATS = ("full_desc", "item_name", "rand_name")
MULTIPLE_CHOICE = ("none", "a", "1a")
DONTCARE = "dontcare"
VALUE_SEPARATOR = " | "
LETTERS = string.ascii_lowercase
STATES, INTENTS, REQUESTED = "[states]", "[intents]", "[req_slots]"


class LegendError(UnifiedDialogueError, ValueError):
    """A legend that cannot be used: the message names the service and the entry."""


@dataclass(frozen=True)
class Slot:
    name: str
    id: int
    categorical: bool  # as the schema says
    values: Tuple[str, ...]  # the schema's possible values, in the order the input shows them
    lettered: bool  # shown as multiple choice: its values are written as letters


@dataclass(frozen=True)
class Intent:
    name: str
    id: int


@dataclass(frozen=True)
class Legend:
    """The ids of one service's slots and intents in a row's texts, in schema order, and the
    format options the texts were written with."""

    service: str
    slots: Tuple[Slot, ...]
    intents: Tuple[Intent, ...]
    level: str = "dst_intent"
    multiple_choice: str = "1a"
    lowercase: bool = True
    delimiter: str = "="

    def __post_init__(self):
        where = f"legend of {self.service!r}"
        if self.level not in LEVELS:
            raise LegendError(f"{where}: level {self.level!r} is not one of {', '.join(LEVELS)}")
        if self.multiple_choice not in MULTIPLE_CHOICE:
            raise LegendError(f"{where}: multiple_choice {self.multiple_choice!r} is not one of "
                              f"{', '.join(MULTIPLE_CHOICE)}")
        check_delimiter(self.delimiter, where)
        for kind, items in (("slot", self.slots), ("intent", self.intents)):
            ids = sorted(item.id for item in items)
            if ids != list(range(len(items))):
                raise LegendError(f"{where}: the {kind} ids are {ids}, not 0 to {len(items) - 1} once each")
            names = [item.name for item in items]
            if len(set(names)) != len(names):
                raise LegendError(f"{where}: a {kind} name is given twice in {names}")
        for slot in self.slots:
            if slot.lettered and not 0 < len(slot.values) <= len(LETTERS):
                raise LegendError(f"{where}: slot {slot.name!r} is multiple choice with {len(slot.values)} options "
                                  f"(1 to {len(LETTERS)} can be lettered)")
            if slot.lettered and self.multiple_choice == "none":
                raise LegendError(f"{where}: slot {slot.name!r} is lettered, but multiple_choice is 'none'")

    def to_row(self):
        """The legend as the view's ``legend`` column holds it."""
        return {
            "service": self.service, "level": self.level, "multiple_choice": self.multiple_choice,
            "lowercase": self.lowercase, "delimiter": self.delimiter,
            "slots": [{"name": s.name, "id": s.id, "categorical": s.categorical, "values": list(s.values),
                       "lettered": s.lettered} for s in self.slots],
            "intents": [{"name": i.name, "id": i.id} for i in self.intents],
        }

    @classmethod
    def from_row(cls, row):
        """The legend of a row's ``legend`` column (a dict); an error names a bad entry."""
        try:
            return cls(row["service"],
                       tuple(Slot(s["name"], s["id"], s["categorical"], tuple(s["values"]), s["lettered"])
                             for s in row["slots"]),
                       tuple(Intent(i["name"], i["id"]) for i in row["intents"]),
                       row["level"], row["multiple_choice"], row["lowercase"], row["delimiter"])
        except (KeyError, TypeError) as error:
            raise LegendError(f"legend {str(row)[:80]}: not a legend ({type(error).__name__}: {error})") from None


def check_delimiter(delimiter, where="delimiter"):
    if not isinstance(delimiter, str) or not delimiter or delimiter != "".join(delimiter.split()) \
            or any(c.isalnum() for c in delimiter):
        raise LegendError(f"{where}: the delimiter {delimiter!r} must be a non-empty string without spaces, "
                          "letters or digits")


def lettered(slot_schema, multiple_choice):
    """Whether a schema slot is shown as multiple choice: a categorical slot with options,
    not all of them numbers (those are written as they are)."""
    values = slot_schema["possible_values"]
    return multiple_choice != "none" and slot_schema["is_categorical"] and bool(values) \
        and not all(v.isdigit() for v in values)


def legend(schema, *, level="dst_intent", multiple_choice="1a", lowercase=True, delimiter="=", rng=None):
    """The legend of one service (``schema``: the service's schema, SGD's shape). Ids follow
    the schema's order, or an order drawn from ``rng`` (a ``random.Random``): slots, then the
    options of each multiple-choice slot, then intents."""
    slots = list(schema["slots"])
    order = list(range(len(slots)))
    if rng is not None:
        rng.shuffle(order)
    ids = {position: k for k, position in enumerate(order)}
    built = []
    for position, slot in enumerate(slots):
        values, shown = list(slot["possible_values"]), lettered(slot, multiple_choice)
        built.append((position, slot, values, shown))
    if rng is not None:  # options are drawn in id order, as each slot is written
        for position in order:
            _, slot, values, shown = built[position]
            if shown:
                rng.shuffle(values)
    intents = list(range(len(schema["intents"])))
    if rng is not None:
        rng.shuffle(intents)
    intent_ids = {position: k for k, position in enumerate(intents)}
    return Legend(
        schema["service_name"],
        tuple(Slot(slot["name"], ids[position], bool(slot["is_categorical"]), tuple(values), shown)
              for position, slot, values, shown in built),
        tuple(Intent(intent["name"], intent_ids[position]) for position, intent in enumerate(schema["intents"])),
        level, multiple_choice, lowercase, delimiter)


def random_name(name, seed, service):
    """A name's letters in an order drawn from ``seed`` (the same for a service's name in
    every row and split)."""
    return "".join(random.Random(f"{seed}/{service}/{name}").sample(list(name), len(name)))


def descriptions(schema, data_format, seed=0):
    """Slot and intent name -> the text the input shows for it."""
    service = schema["service_name"]
    out = {}
    for kind in ("slots", "intents"):
        for item in schema[kind]:
            name = item["name"]
            if data_format == "full_desc":
                text = item["description"]
            elif data_format == "item_name":
                text = f"{service}-{name}"
            else:
                text = random_name(name, seed, service)
            out[kind, name] = text
    return out


def normalized(text, lowercase):
    """Whitespace runs as one space, ends trimmed; lowercased with ``lowercase``."""
    text = " ".join(text.split())
    return text.lower() if lowercase else text


def prompt(legend, texts):
    """The schema part of the input (normalized): slots by id, with their options, then intents."""
    d, pieces = legend.delimiter, []
    for slot in sorted(legend.slots, key=lambda s: s.id):
        text = texts["slots", slot.name]
        if slot.lettered:
            prefix = str(slot.id) if legend.multiple_choice == "1a" else ""
            text += " " + " ".join(f"{prefix}{letter}) {value}" for letter, value in zip(LETTERS, slot.values))
        pieces.append(f"{slot.id}{d}{text}")
    for intent in sorted(legend.intents, key=lambda i: i.id):
        pieces.append(f"i{intent.id}{d}{texts['intents', intent.name]}")
    return normalized(" ".join(pieces), legend.lowercase)


def context_piece(role, utterance, lowercase):
    """One turn of the input's dialogue: ``[user] …`` or ``[system] …`` (normalized)."""
    return normalized(f"[{role.lower()}] {utterance}", lowercase)


def value_text(slot, values, compat=False):
    """A slot's values as the target writes them: joined by `` | ``, or the letter of a
    multiple-choice value. A value's own `` | `` is written ``|`` so that `` | `` only
    separates values (not with ``compat``, as the generator wrote it)."""
    if not compat:
        values = [value.replace(VALUE_SEPARATOR, VALUE_SEPARATOR.strip()) for value in values]
    joined = VALUE_SEPARATOR.join(values)
    if slot.lettered and joined != DONTCARE and joined in slot.values:
        return f"{slot.id}{LETTERS[slot.values.index(joined)]}"
    return joined


def target(legend, slot_values, active_intent=NO_INTENT, requested_slots=(), compat=False):
    """The target text (normalized) of a state: ``slot_values`` maps slot names to their
    values. With ``compat``, values and the active intent are written as the generator
    writes them: a value's own `` | `` as it is, and the intent as ``i<id>`` followed by
    the delimiter less its last character."""
    by_name = {slot.name: slot for slot in legend.slots}
    unknown = sorted(set(slot_values) - set(by_name))
    if unknown:
        raise LegendError(f"legend of {legend.service!r}: state slot {unknown[0]!r} is not a slot of the service")
    states = []
    for slot in sorted(legend.slots, key=lambda s: s.id):
        values = slot_values.get(slot.name)
        if values:
            text = value_text(slot, values, compat)
            if text:
                states.append(f"{slot.id}{legend.delimiter}{text}")
    text = " ".join([STATES] + states)
    if legend.level != "dst":
        intents = [i for i in legend.intents if i.name == active_intent]
        if not intents and active_intent != NO_INTENT:
            raise LegendError(f"legend of {legend.service!r}: active intent {active_intent!r} is not an intent of "
                              f"the service")
        tail = legend.delimiter[:-1] if compat else ""
        requested = []
        for name in requested_slots:
            if name not in by_name:
                raise LegendError(f"legend of {legend.service!r}: requested slot {name!r} is not a slot of the service")
            requested.append(str(by_name[name].id))
        text = " ".join([text, INTENTS] + [f"i{i.id}{tail}" for i in intents] + [REQUESTED] + requested)
    return normalized(text, legend.lowercase)


def encode(legend, texts, context, slot_values, active_intent=NO_INTENT, requested_slots=()):
    """``(input, target)`` of one frame: ``texts`` from ``descriptions``, ``context`` the
    dialogue so far as ``[(role, utterance)]``, and the frame's state."""
    dialogue = " ".join(filter(None, (context_piece(role, utterance, legend.lowercase) for role, utterance in context)))
    return (" ".join(filter(None, (prompt(legend, texts), dialogue))),
            target(legend, slot_values, active_intent, requested_slots))


# ---------------------------------------------------------------- the way back

_MARKERS = re.compile(r"\[\s*(states|intents|req_slots)\s*\]", re.IGNORECASE)


def _sections(text):
    """Marker name -> the text after it (up to the next marker), and problems."""
    problems, sections = [], {}
    matches = list(_MARKERS.finditer(text))
    if not matches:
        return {}, ["no [states]"]
    if text[:matches[0].start()].strip():
        problems.append(f"text before {matches[0].group(0)}: {text[:matches[0].start()].strip()[:40]!r}")
    for k, match in enumerate(matches):
        name = match.group(1).lower()
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        if name in sections:
            problems.append(f"[{name}] given twice: the first kept")
            continue
        sections[name] = text[match.end():end]
    if "states" not in sections:
        problems.append("no [states]")
    return sections, problems


def _spelling(slot, value, problems):
    """A categorical value in the schema's spelling (any case is read), ``dontcare`` as it is."""
    if not slot.categorical or value == DONTCARE:
        return value
    if value in slot.values:
        return value
    for option in slot.values:
        if option.lower() == value.lower():
            return option
    if value.lower() == DONTCARE:
        return DONTCARE
    problems.append(f"slot {slot.id}: {value!r} is not an option of {slot.name}")
    return value


def _slot_value(slot, text, problems):
    """The values of one ``id=text`` entry, letters read back to options."""
    text = text.strip()
    if slot.lettered:
        match = _LETTER.fullmatch(text)
        if match and (match.group(1) in ("", str(slot.id))):
            index = LETTERS.find(match.group(2).lower())
            if index < len(slot.values):
                return [slot.values[index]]
            problems.append(f"slot {slot.id}: option {text!r} is past the {len(slot.values)} options")
            return None
    values = [v.strip() for v in text.split(VALUE_SEPARATOR)]
    values = [v for v in values if v]
    if not values:
        problems.append(f"slot {slot.id}: no value")
        return None
    return [_spelling(slot, v, problems) for v in values]


@functools.lru_cache(maxsize=16)
def _patterns(delimiter):
    """An entry of ``[states]``: an id followed by the delimiter, at a word start; an intent id
    (the delimiter may follow it, as the generator wrote it)."""
    return (re.compile(r"(?<!\S)(\d+)\s*" + re.escape(delimiter) + r"\s*"),
            re.compile(r"i(\d+)(?:" + re.escape(delimiter) + "|" + re.escape(delimiter[:-1]) + ")?", re.IGNORECASE))


_LETTER = re.compile(r"(\d*)\s*([a-zA-Z])\)?")


def parse(text, legend):
    """The frame a D3ST target text gives, in the shape of the ``dst`` view's ``frames``
    (one frame, of the legend's service, without spans), and the problems met reading it.
    Never raises on ``text``: what cannot be read is left out and listed in ``problems``
    (an empty list for a well-formed text)."""
    if not isinstance(legend, Legend):
        raise LegendError(f"parse needs a Legend, not a {type(legend).__name__}")
    if not isinstance(text, str):
        return [_frame(legend, {}, NO_INTENT, [])], [f"not a text: {type(text).__name__}"]
    sections, problems = _sections(text)
    slots = {slot.id: slot for slot in legend.slots}
    intents = {intent.id: intent for intent in legend.intents}
    entry, intent_id = _patterns(legend.delimiter)
    slot_values = {}
    body = sections.get("states", "")
    starts = [m for m in entry.finditer(body) if int(m.group(1)) in slots]
    if body[:starts[0].start() if starts else len(body)].strip():
        problems.append(f"[states]: unreadable {body[:starts[0].start() if starts else len(body)].strip()[:40]!r}")
    for k, match in enumerate(starts):
        slot = slots[int(match.group(1))]
        end = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        if slot.name in slot_values:
            problems.append(f"slot {slot.id} given twice: the first kept")
            continue
        values = _slot_value(slot, body[match.end():end], problems)
        if values:
            slot_values[slot.name] = values
    active = NO_INTENT
    if "intents" in sections:
        named = []
        for token in sections["intents"].split():
            match = intent_id.fullmatch(token)
            if match and int(match.group(1)) in intents:
                named.append(intents[int(match.group(1))].name)
            else:
                problems.append(f"[intents]: {token[:20]!r} is not an intent id")
        if named:
            active = named[0]
        if len(set(named)) > 1:
            problems.append(f"[intents]: {len(named)} intents, the first kept")
    requested = []
    for token in sections.get("req_slots", "").split():
        if token.isdigit() and int(token) in slots:
            if slots[int(token)].name not in requested:
                requested.append(slots[int(token)].name)
        else:
            problems.append(f"[req_slots]: {token[:20]!r} is not a slot id")
    if legend.level != "dst" and "intents" not in sections and "states" in sections:
        problems.append("no [intents]")
    return [_frame(legend, slot_values, active, requested)], problems


def _frame(legend, slot_values, active_intent, requested):
    return {"service": legend.service, "slots": None,
            "state": {"active_intent": active_intent, "requested_slots": requested,
                      "slot_values": [{"slot": name, "values": values} for name, values in slot_values.items()]}}
