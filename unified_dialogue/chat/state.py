"""The dialogue state of a turn as text, and back: the target of ``dst-chat``.

One line per frame of the turn, in the turn's order::

    Restaurants_1: intent=FindRestaurants; requested=[phone_number, price_range]; city=San Jose; cuisine=Italian | Pizza

- the service, a colon, then items separated by ``; ``: ``intent=<active intent>`` (``NONE``
  where none) always first; ``requested=[<slot>, ...]`` only where the user requests slots;
  then one ``<slot>=<values>`` per filled slot, slots in alphabetical order, requested slots
  too; a slot's values (every spoken variant the state keeps) in the state's order,
  separated by `` | ``;
- a value is written as it is, or in double quotes with JSON escapes where it holds ``;``,
  ``|``, ``"``, ``[``, ``]``, a line break, begins with a quote or a space, ends with a
  space, or is empty (``name="Ginza | Japanese"``).

``parse`` reads such text back into frames shaped like the ``dst`` view's (what
``scoring.dst.score_dst`` takes), leniently, as a model writes it: spaces around anything,
either quote, any case of service, keyword, slot, intent and categorical value names (given
back in the schema's spelling), items in any order, frames on one line (a known service
followed by a colon starts a frame), a cut-off end. What it cannot read is reported as a
problem, never raised: an unknown service (its frame is left out), an unknown slot or an
item without ``=`` (left out).
"""

import re
from dataclasses import dataclass, field

from ..core.features import NO_INTENT
from ..views.dst import empty_frame
from .text import read_value, split_outside_quotes, values

INTENT, REQUESTED = "intent", "requested"
KEYWORDS = (INTENT, REQUESTED)
_HEADER = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*:\s*(.*)", re.DOTALL)


def frame_line(frame):
    """One frame (``{service, state: {active_intent, requested_slots, slot_values}}``, the
    ``dst`` view's shape) as a line."""
    state = frame["state"]
    return line(frame["service"], state["active_intent"], state["requested_slots"],
                [(entry["slot"], values(entry["values"])) for entry in state["slot_values"]])


def line(service, active_intent, requested_slots, slot_values):
    """A frame's line from its parts; ``slot_values``: ``(slot, its values written)``
    pairs (``text.values``)."""
    items = [f"{INTENT}={active_intent or NO_INTENT}"]
    if requested_slots:
        items.append(f"{REQUESTED}=[{', '.join(sorted(requested_slots))}]")
    for slot, written in sorted(slot_values):
        check_slot_name(service, slot)
        items.append(f"{slot}={written}")
    return f"{service}: " + "; ".join(items)


def check_slot_name(service, slot):
    if slot in KEYWORDS:
        raise ValueError(f"frame of {service}: a slot named {slot!r} cannot be told from the keyword of the "
                         f"same name")


def state_text(frames):
    """The frames of a turn as text, one line each."""
    return "\n".join(frame_line(frame) for frame in frames)


# ---------------------------------------------------------------- reading it back

def _key(name):
    """A name compared without case and extra spaces."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True)
class Service:
    """What parsing needs of a service's schema: names by their lowered form."""

    name: str
    intents: dict  # lowered name -> name
    slots: dict  # lowered name -> name
    categorical: dict  # slot name -> {lowered value: value}


@dataclass
class Schemas:
    """The services a text may name, from ``schema`` rows (or schema.json entries)."""

    services: dict = field(default_factory=dict)  # lowered name -> Service

    @classmethod
    def of(cls, schema_rows):
        services = {}
        for row in schema_rows:
            slots = row.get("slots") or []
            services[_key(row["service_name"])] = Service(
                row["service_name"],
                {_key(intent["name"]): intent["name"] for intent in row.get("intents") or []},
                {_key(slot["name"]): slot["name"] for slot in slots},
                {slot["name"]: {_key(v): v for v in slot.get("possible_values") or []}
                 for slot in slots if slot.get("is_categorical")})
        return cls(services)


def parse(text, schemas):
    """``(frames, problems)`` of a state text: frames shaped like the ``dst`` view's
    (``{service, slots: None, state: {active_intent, requested_slots, slot_values}}``),
    names and categorical values in the schema's spelling; ``problems``, what could not be
    read, each a short phrase. ``schemas``: a ``Schemas``, or ``schema`` rows. Never raises
    on the text."""
    if not isinstance(schemas, Schemas):
        schemas = Schemas.of(schemas)
    frames, problems = {}, []
    if not isinstance(text, str) or not text.strip():
        return [], ["no text"]
    current = None  # the Service whose items are being read; False after an unknown one
    for line in split_outside_quotes(text, "\n"):
        for position, segment in enumerate(split_outside_quotes(line, ";")):
            if not segment.strip():
                continue
            header = _HEADER.fullmatch(segment)
            known = header and schemas.services.get(_key(header.group(1)))
            if known or (header and position == 0):  # a frame begins: a known service, or a line's first name
                current = known or False
                if not known:
                    problems.append(f"unknown service {header.group(1)!r}")
                    continue
                frames.setdefault(known.name, empty_frame(known.name))  # a service named twice: one frame
                segment = header.group(2)
                if not segment.strip():
                    continue
            if current is None:
                problems.append(f"{_cut(segment)!r} before any service")
            elif current is not False:  # else an item of an unknown service, already reported
                _read_item(segment, current, frames[current.name]["state"], problems)
    if not frames and not problems:
        problems.append("no frame")
    return list(frames.values()), problems


def _read_item(item, service, state, problems):
    """Read one ``key=value`` item of a frame into its ``state``."""
    key, equals, text = item.partition("=")
    key = _key(read_value(key))
    if not equals:
        problems.append(f"{service.name}: {_cut(item)!r} is not name=value")
        return
    if key == INTENT:
        name = read_value(text)
        state["active_intent"] = service.intents.get(_key(name), NO_INTENT if _key(name) in ("", "none") else name)
    elif key == REQUESTED:
        inside = text.strip()
        inside = inside[1:] if inside.startswith("[") else inside
        inside = inside[:-1] if inside.endswith("]") else inside
        for part in split_outside_quotes(inside, ","):
            name = read_value(part)
            if not name:
                continue
            slot = service.slots.get(_key(name))
            if slot is None:
                problems.append(f"{service.name}: unknown slot {name!r} requested")
            elif slot not in state["requested_slots"]:
                state["requested_slots"].append(slot)
    else:
        slot = service.slots.get(key)
        if slot is None:
            problems.append(f"{service.name}: unknown slot {key!r}")
            return
        found = [read_value(part) for part in split_outside_quotes(text, "|")]
        spelling = service.categorical.get(slot)
        if spelling is not None:
            found = [spelling.get(_key(v), v) for v in found]
        state["slot_values"] = [e for e in state["slot_values"] if e["slot"] != slot]
        state["slot_values"].append({"slot": slot, "values": found})


def _cut(text, width=40):
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


__all__ = ["Schemas", "frame_line", "line", "parse", "state_text"]
