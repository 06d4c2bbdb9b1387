"""The D3ST text format (Zhao et al. 2022, "Description-Driven Task-Oriented Dialog Modeling"):
from a service schema and a frame's state to an input and a target text, and back.

Input: every slot and intent of the frame's service by id with its description, then the
dialogue so far::

    0=name of the restaurant 1=whether the restaurant has outdoor seating 1a) true 1b) false
    i0=find restaurants by location [user] i want to eat out [system] where? [user] in sf

Target: ``[states] 0=nopa 1=1a [intents] i0 [req_slots] 3`` (``[intents]`` and
``[req_slots]`` from level ``dst_intent`` on). A slot's several spoken values are joined by
`` | ``; a categorical slot shown as multiple choice takes the letter of its value. A value
that could be misread is written as a JSON string (``views.d3st_syntax`` has the rule), so
that ``parse`` gives back every state the target was written from.

A ``Legend`` holds the ids the texts use: which slot and intent each id names, the options
of each categorical slot in the order shown, and the format options. It is stored with each
row, so that a parser reads the ids the row was made with, whatever order they were drawn in.
``parse`` is lenient with model text: it reads the answer of a model's output
(``core.answer``: no reasoning block, no code fence), keeps what it can read and lists the
rest as ``core.problems.Problem``s (``malformed``, or ``unknown_slot`` / ``unknown_intent``
for an id the legend lacks); a bad legend is an error naming what is wrong.
"""

import random
import re
import string
from dataclasses import dataclass
from typing import Tuple

from ..core.answer import answer
from ..core.errors import UnifiedDialogueError
from ..core.features import DONTCARE, NO_INTENT  # noqa: F401  (DONTCARE: the D3ST text's too)
from ..core.problems import MALFORMED, UNKNOWN_INTENT, UNKNOWN_SLOT, Problem, cut
from .d3st_syntax import INTENTS_MARKER, REQUESTED_MARKER, STATES_MARKER, VALUE_SEPARATOR, delimiter_problem, \
    letter_of, read_sections, written_text, written_values

LEVELS = ("dst", "dst_intent")
DATA_FORMATS = ("full_desc", "item_name", "rand_name")
MULTIPLE_CHOICE = ("none", "a", "1a")
LETTERS = string.ascii_lowercase


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
        check_delimiter(self.delimiter, f"{where}: delimiter")
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
            if self.lowercase and slot.categorical and not slot.lettered:
                self.check_cases(slot, where)

    @staticmethod
    def check_cases(slot, where):
        """With ``lowercase``, a categorical value is read back by its case-folded text:
        two options (or an option and ``dontcare``) that lowercasing makes one cannot be."""
        seen = {DONTCARE: DONTCARE}
        for value in slot.values:
            other = seen.setdefault(value.lower(), value)
            if other != value:
                raise LegendError(f"{where}: option lowercase=True makes the values {other!r} and {value!r} of "
                                  f"slot {slot.name!r} one text {value.lower()!r}")

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
    problem = delimiter_problem(delimiter)
    if problem:
        raise LegendError(f"{where}={delimiter!r}: {problem}")


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


def prompt(legend, texts, compat=False):
    """The schema part of the input (normalized): slots by id, with their options, then
    intents. Each description and option is written by the escape rule (``d3st_syntax``:
    quoted where a reader could take it for an entry, an option or a marker); with
    ``compat`` as it is, as the generator writes it."""
    d, pieces = legend.delimiter, []

    def shown(text):
        text = normalized(text, legend.lowercase)
        return text if compat else written_text(text, d)

    for slot in sorted(legend.slots, key=lambda s: s.id):
        text = shown(texts["slots", slot.name])
        if slot.lettered:
            prefix = str(slot.id) if legend.multiple_choice == "1a" else ""
            text += " " + " ".join(f"{prefix}{letter}) {shown(value)}" for letter, value in zip(LETTERS, slot.values))
        pieces.append(f"{slot.id}{d}{text}")
    for intent in sorted(legend.intents, key=lambda i: i.id):
        pieces.append(f"i{intent.id}{d}{shown(texts['intents', intent.name])}")
    return normalized(" ".join(pieces), legend.lowercase) if compat else " ".join(pieces)


def context_piece(role, utterance, lowercase):
    """One turn of the input's dialogue: ``[user] …`` or ``[system] …`` (normalized)."""
    return normalized(f"[{role.lower()}] {utterance}", lowercase)


def value_text(slot, values, delimiter="=", lowercase=False, compat=False):
    """A slot's values as the target writes them, joined by `` | ``: each option of a
    multiple-choice slot as its letter, any other value by the escape rule
    (``d3st_syntax``), lowercased with ``lowercase``. With ``compat`` as the generator
    wrote them: joined as they are (the caller lowercases the whole target)."""
    if compat:
        joined = VALUE_SEPARATOR.join(values)
        if slot.lettered and joined != DONTCARE and joined in slot.values:
            return f"{slot.id}{LETTERS[slot.values.index(joined)]}"
        return joined
    if slot.lettered:  # each option by its letter, any other value as text that reads as no letter
        return VALUE_SEPARATOR.join(
            f"{slot.id}{LETTERS[slot.values.index(v)]}" if v != DONTCARE and v in slot.values
            else written_values([v.lower() if lowercase else v], delimiter, lettered=True) for v in values)
    return written_values([v.lower() for v in values] if lowercase else values, delimiter)


def target(legend, slot_values, active_intent=NO_INTENT, requested_slots=(), compat=False):
    """The target text of a state: ``slot_values`` maps slot names to their values (a slot
    with no value is left out). With ``compat``, written as the generator writes it: the
    values as they are, the whole text normalized, and the active intent as ``i<id>``
    followed by the delimiter less its last character."""
    by_name = {slot.name: slot for slot in legend.slots}
    unknown = sorted(set(slot_values) - set(by_name))
    if unknown:
        raise LegendError(f"legend of {legend.service!r}: state slot {unknown[0]!r} is not a slot of the service")
    states = []
    for slot in sorted(legend.slots, key=lambda s: s.id):
        values = slot_values.get(slot.name)
        if values:
            text = value_text(slot, values, legend.delimiter, legend.lowercase, compat)
            if text:
                states.append(f"{slot.id}{legend.delimiter}{text}")
    text = " ".join([STATES_MARKER] + states)
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
        text = " ".join([text, INTENTS_MARKER] + [f"i{i.id}{tail}" for i in intents] + [REQUESTED_MARKER] + requested)
    return normalized(text, legend.lowercase) if compat else text


def encode(legend, texts, context, slot_values, active_intent=NO_INTENT, requested_slots=()):
    """``(input, target)`` of one frame: ``texts`` from ``descriptions``, ``context`` the
    dialogue so far as ``[(role, utterance)]``, and the frame's state."""
    dialogue = " ".join(filter(None, (context_piece(role, utterance, legend.lowercase) for role, utterance in context)))
    return (" ".join(filter(None, (prompt(legend, texts), dialogue))),
            target(legend, slot_values, active_intent, requested_slots))


# ---------------------------------------------------------------- the way back

def _spelling(slot, value, lowercase):
    """A categorical value in the schema's spelling: with ``lowercase`` (the text holds no
    case) an option or ``dontcare`` in any case; any other value as it is (the metrics
    count it wrong, not unreadable)."""
    if not slot.categorical or not lowercase or value in slot.values or value == DONTCARE:
        return value
    for option in slot.values:
        if option.lower() == value.lower():
            return option
    return DONTCARE if value.lower() == DONTCARE else value


def _slot_values(slot, values, lowercase, problems):
    """The values of one entry, option letters read back to their options."""
    read = []
    for value, quoted in values:
        letter = slot.lettered and not quoted and letter_of(value)
        if letter and letter[0] in ("", str(slot.id)):
            index = LETTERS.find(letter[1].lower())
            if index < len(slot.values):
                read.append(slot.values[index])
            else:
                problems.append(Problem(MALFORMED, f"slot {slot.id}: option {value!r} is past the {len(slot.values)} "
                                                   "options"))
        elif value or quoted:
            read.append(_spelling(slot, value, lowercase))
        else:
            problems.append(Problem(MALFORMED, f"slot {slot.id}: no value"))
    return read or None


def _intent_pattern(delimiter):
    """An intent id (the delimiter, or all of it but its last character, may follow it, as
    the generator wrote it)."""
    return re.compile(r"i(\d+)(?:" + re.escape(delimiter) + "|" + re.escape(delimiter[:-1]) + ")?", re.IGNORECASE)


def _unknown(kind, written, where):
    return Problem(kind, f"{where}: {kind.removeprefix('unknown_')} id {written} is not in the legend", written)


def parse(text, legend):
    """The frame a D3ST target text gives, in the shape of the ``dst`` view's ``frames``
    (one frame, of the legend's service, without spans), and the problems met reading it.
    ``text``: a model's output, whose answer is read (``core.answer``). Never raises on
    ``text``: what cannot be read is left out and listed in ``problems`` (an empty list for
    a well-formed text), each a ``core.problems.Problem``: an id the legend lacks is of
    kind ``unknown_slot`` or ``unknown_intent``, anything else ``malformed``."""
    if not isinstance(legend, Legend):
        raise LegendError(f"parse needs a Legend, not a {type(legend).__name__}")
    if not isinstance(text, str):
        return [_frame(legend, {}, NO_INTENT, [])], [Problem(MALFORMED, f"not a text: {type(text).__name__}")]
    text, problems = answer(text)
    if problems:
        return [_frame(legend, {}, NO_INTENT, [])], problems
    sections, problems = read_sections(text, legend.delimiter)
    slots = {slot.id: slot for slot in legend.slots}
    intents = {intent.id: intent for intent in legend.intents}
    slot_values = {}
    for identifier, values in sections.get(STATES_MARKER, ()):
        slot = slots.get(identifier)
        if slot is None:
            problems.append(_unknown(UNKNOWN_SLOT, str(identifier), STATES_MARKER))
        elif slot.name in slot_values:
            problems.append(Problem(MALFORMED, f"slot {slot.id} given twice: the first kept"))
        else:
            read = _slot_values(slot, values, legend.lowercase, problems)
            if read:
                slot_values[slot.name] = read
    active, named = NO_INTENT, []
    intent_id = _intent_pattern(legend.delimiter)
    for token in sections.get(INTENTS_MARKER, ()):
        match = intent_id.fullmatch(token)
        if match and int(match.group(1)) in intents:
            named.append(intents[int(match.group(1))].name)
        elif match:
            problems.append(_unknown(UNKNOWN_INTENT, f"i{int(match.group(1))}", INTENTS_MARKER))
        else:
            problems.append(Problem(MALFORMED, f"{INTENTS_MARKER}: {cut(token, 20)!r} is not an intent id"))
    if named:
        active = named[0]
    if len(set(named)) > 1:
        problems.append(Problem(MALFORMED, f"{INTENTS_MARKER}: {len(named)} intents, the first kept"))
    requested = []
    for token in sections.get(REQUESTED_MARKER, ()):
        if token.isdigit() and int(token) in slots:
            if slots[int(token)].name not in requested:
                requested.append(slots[int(token)].name)
        elif token.isdigit():
            problems.append(_unknown(UNKNOWN_SLOT, str(int(token)), REQUESTED_MARKER))
        else:
            problems.append(Problem(MALFORMED, f"{REQUESTED_MARKER}: {cut(token, 20)!r} is not a slot id"))
    if legend.level != "dst" and INTENTS_MARKER not in sections and STATES_MARKER in sections:
        problems.append(Problem(MALFORMED, f"no {INTENTS_MARKER}"))
    return [_frame(legend, slot_values, active, requested)], problems


def _frame(legend, slot_values, active_intent, requested):
    return {"service": legend.service, "slots": None,
            "state": {"active_intent": active_intent, "requested_slots": requested,
                      "slot_values": [{"slot": name, "values": values} for name, values in slot_values.items()]}}
