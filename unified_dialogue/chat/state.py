"""The dialogue state of a turn as text, and back: the target of ``dst-chat``.

One line per frame of the turn, in the turn's order::

    Restaurants_1: intent=FindRestaurants; requested=[phone_number, price_range]; city=San Jose; cuisine=Italian | Pizza

- the service, a colon, then items separated by ``; ``: ``intent=<active intent>`` (``NONE``
  where none) always first; ``requested=[<slot>, ...]`` only where the user requests slots;
  then one ``<slot>=<values>`` per filled slot, slots in alphabetical order, requested slots
  too; a slot's values (every spoken variant the state keeps) in the state's order,
  separated by `` | ``;
- names and values are written as they are, or as JSON strings where they could be misread
  (``chat.text``'s one escape rule): a value holding ``;``, ``|``, ``"``, ``[``, ``]``, a
  line break, beginning with a quote or a space, ending with a space, or empty
  (``name="Ginza | Japanese"``); a service, intent or slot name that is not letters,
  digits, ``_`` and ``-`` alone, or is a keyword in any case (``"intent"=buy``,
  ``"price range"=cheap``); a slot with no value is ``slot=[]``; no intent is ``NONE``.

``parse`` reads such text back into frames shaped like the ``dst`` view's (what
``scoring.dst.score_dst`` takes). It inverts the writer exactly: names are found as
written first. And it reads leniently, as a model writes: spaces around anything, either
quote, any case of service, keyword, slot, intent and categorical value names (given back
in the schema's spelling), items in any order, frames on one line (a known service
followed by a colon starts a frame), a cut-off end. Keywords are keywords only unquoted.
It reads the answer of a model's output (``core.answer``: no reasoning block, no code
fence). What it cannot take is reported as a ``core.problems.Problem``, never raised: text
it cannot read (``malformed``: an item without ``=``, text before any service, a reasoning
block that never ends), and readable text naming what the schema lacks: an unknown service
(its frame is left out), an unknown slot (left out) or an unknown intent (kept as written,
so scored wrong).
"""

import re
from dataclasses import dataclass, field

from ..core.answer import answer
from ..core.features import NO_INTENT
from ..core.problems import MALFORMED, UNKNOWN_INTENT, UNKNOWN_SERVICE, UNKNOWN_SLOT, Problem, cut
from ..views.dst import empty_frame
from .text import (INTENT, NONE_WORD, REQUESTED, Names, is_quoted, key, name, read_value, split_outside_quotes,
                   values)

# A slot with no value (none is dropped): bare brackets, which no written value can be.
NO_VALUES = "[]"
_HEADER = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_.\-]+)\s*:\s*(.*)', re.DOTALL)


def frame_line(frame):
    """One frame (``{service, state: {active_intent, requested_slots, slot_values}}``, the
    ``dst`` view's shape) as a line."""
    state = frame["state"]
    return line(frame["service"], state["active_intent"], state["requested_slots"],
                [(entry["slot"], slot_values(entry["values"])) for entry in state["slot_values"]])


def slot_values(texts):
    """A slot's values as written: separated by `` | ``, ``[]`` for none."""
    return values(texts) if texts else NO_VALUES


def intent_name(active_intent):
    """The active intent as written: ``NONE`` where there is none."""
    return NO_INTENT if not active_intent or active_intent == NO_INTENT else name(active_intent)


def line(service, active_intent, requested_slots, slot_values):
    """A frame's line from its parts; ``slot_values``: ``(slot, its values written)``
    pairs (``slot_values``), slots sorted by name as given."""
    items = [f"{INTENT}={intent_name(active_intent)}"]
    if requested_slots:
        items.append(f"{REQUESTED}=[{', '.join(name(slot) for slot in sorted(requested_slots))}]")
    items.extend(f"{name(slot)}={written}" for slot, written in sorted(slot_values))
    return f"{name(service)}: " + "; ".join(items)


def state_text(frames):
    """The frames of a turn as text, one line each."""
    return "\n".join(frame_line(frame) for frame in frames)


# ---------------------------------------------------------------- reading it back

@dataclass(frozen=True)
class Service:
    """What parsing needs of a service's schema: its names (``text.Names``)."""

    name: str
    intents: Names
    slots: Names
    categorical: dict  # slot name -> Names of its possible values


@dataclass
class Schemas:
    """The services a text may name, from ``schema`` rows (or schema.json entries)."""

    services: dict = field(default_factory=dict)  # name -> Service
    names: Names = field(default_factory=lambda: Names(()))  # of the services
    intents: Names = field(default_factory=lambda: Names(()))  # of every service

    @classmethod
    def of(cls, schema_rows):
        services = {}
        for row in schema_rows:
            slots = row.get("slots") or []
            services[row["service_name"]] = Service(
                row["service_name"],
                Names([intent["name"] for intent in row.get("intents") or []]),
                Names([slot["name"] for slot in slots]),
                {slot["name"]: Names(slot.get("possible_values") or [])
                 for slot in slots if slot.get("is_categorical")})
        return cls(services, Names(services), Names([i for s in services.values() for i in s.intents.exact]))

    def get(self, service):
        """The Service of a name (as written first, then without case), or None."""
        found = self.names.get(service)
        return None if found is None else self.services[found]


def parse(text, schemas):
    """``(frames, problems)`` of a state text: frames shaped like the ``dst`` view's
    (``{service, slots: None, state: {active_intent, requested_slots, slot_values}}``),
    names and categorical values in the schema's spelling; ``problems``, what could not be
    taken, each a ``core.problems.Problem``. ``schemas``: a ``Schemas``, or ``schema``
    rows. ``text``: a model's output, whose answer is read (``core.answer``); an empty
    answer is a turn without frames. Never raises on the text."""
    if not isinstance(schemas, Schemas):
        schemas = Schemas.of(schemas)
    frames = {}
    if not isinstance(text, str):
        return [], [Problem(MALFORMED, "no text")]
    text, problems = answer(text)
    current = None  # the Service whose items are being read; False after an unknown one
    for line in split_outside_quotes(text, "\n"):
        for position, segment in enumerate(split_outside_quotes(line, ";")):
            if not segment.strip():
                continue
            header = _HEADER.fullmatch(segment)
            known = header and schemas.get(read_value(header.group(1)))
            if known or (header and position == 0):  # a frame begins: a known service, or a line's first name
                current = known or False
                if not known:
                    written = read_value(header.group(1))
                    problems.append(Problem(UNKNOWN_SERVICE, f"unknown service {written!r}", written))
                    continue
                frames.setdefault(known.name, empty_frame(known.name))  # a service named twice: one frame
                segment = header.group(2)
                if not segment.strip():
                    continue
            if current is None:
                problems.append(Problem(MALFORMED, f"{cut(segment)!r} before any service"))
            elif current is not False:  # else an item of an unknown service, already reported
                _read_item(segment, current, frames[current.name]["state"], problems)
    return list(frames.values()), problems


def _read_item(item, service, state, problems):
    """Read one ``key=value`` item of a frame into its ``state``."""
    written, *rest = split_outside_quotes(item, "=", maxsplit=1)
    if not rest:
        problems.append(Problem(MALFORMED, f"{service.name}: {cut(item)!r} is not name=value"))
        return
    text, keyword = rest[0], None if is_quoted(written) else key(written)
    if keyword == INTENT:
        state["active_intent"] = _intent(text, service, problems)
    elif keyword == REQUESTED:
        inside = text.strip()
        inside = inside[1:] if inside.startswith("[") else inside
        inside = split_outside_quotes(inside, "]", maxsplit=1)[0]  # what follows the closing bracket is dropped
        for part in split_outside_quotes(inside, ","):
            if not part.strip():
                continue
            requested = read_value(part)
            slot = service.slots.get(requested)
            if slot is None:
                problems.append(Problem(UNKNOWN_SLOT, f"{service.name}: unknown slot {requested!r} requested",
                                        requested))
            elif slot not in state["requested_slots"]:
                state["requested_slots"].append(slot)
    else:
        slot = service.slots.get(read_value(written))
        if slot is None:
            written = read_value(written)
            problems.append(Problem(UNKNOWN_SLOT, f"{service.name}: unknown slot {written!r}", written))
            return
        found = [] if text.strip() == NO_VALUES else [read_value(part) for part in split_outside_quotes(text, "|")]
        spelling = service.categorical.get(slot)
        if spelling is not None:
            found = [spelling.get(v, v) for v in found]
        state["slot_values"] = [e for e in state["slot_values"] if e["slot"] != slot]
        state["slot_values"].append({"slot": slot, "values": found})


def _intent(text, service, problems):
    """The active intent an ``intent=`` item gives: the schema's, NONE, or as written (an
    unknown intent, reported)."""
    if not is_quoted(text) and key(text) in ("", NONE_WORD):
        return NO_INTENT
    written = read_value(text)
    found = service.intents.get(written)
    if found is None:
        problems.append(Problem(UNKNOWN_INTENT, f"{service.name}: unknown intent {written!r}", written))
    return written if found is None else found


__all__ = ["Schemas", "frame_line", "line", "parse", "slot_values", "state_text"]
