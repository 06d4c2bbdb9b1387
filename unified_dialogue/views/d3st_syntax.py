"""How a D3ST target writes a slot's values and reads them back (the one escape rule), and
the reader of a target's markers and entries.

A value is written as it is (*plain*) when reading it back cannot mistake it for anything
else; otherwise as a JSON string literal (``"..."``, with ``\\"``, ``\\\\``, ``\\n`` and
``\\uXXXX`` for control characters, ``<\\/think>``: ``core.answer.json_text``). A value is
plain when it is not empty; has no leading, trailing or repeated space and no other white
space (line breaks, tabs); does not start with ``"``; holds no ``[`` or ``]`` (the markers'
brackets) and nothing a reader of a model's output takes for a marker (``</think>``,
``<|``: ``core.answer.MARKER_INSIDE``); is not ``|`` and does
not start with ``| ``, end with `` |`` or hold `` | `` (the separator of values); holds no
digits followed by the delimiter at a word start (``5=``, ``4:`` with ``:``: the start of
a slot entry, spaces before the delimiter included); and, for a slot shown as multiple
choice, does not read as an option letter (``b``, ``3b``, ``b)``). Several values are
joined by `` | ``.

The input's descriptions and options follow the same rule (``written_text``), quoted also
where a reader could take part of one for an intent entry (``i0=``) or an option
(``b)``); nothing reads the input back, but a model reads it.

With ``upstream_compat`` the texts are the generator's: values as they are, whatever they
hold (``d3st_text.target``). ``parse`` reads both: a ``"`` where a value starts opens a
JSON string.

The delimiter is checked before any row is made (``check_delimiter``): the characters the
format itself uses cannot be part of it.
"""

import functools
import json
import re

from ..core.answer import MARKER_INSIDE, json_text
from ..core.problems import MALFORMED, Problem, cut

VALUE_SEPARATOR = " | "
# The markers of a target's sections, in their order.
STATES_MARKER, INTENTS_MARKER, REQUESTED_MARKER = "[states]", "[intents]", "[req_slots]"
SECTION_MARKERS = (STATES_MARKER, INTENTS_MARKER, REQUESTED_MARKER)
# The characters of the format's own structure, never part of a delimiter: markers'
# brackets, the separator of values, quotes and their escape, option letters' ``)``.
RESERVED = '[]|"\\)'

_LETTER = re.compile(r"(\d*)\s*([a-zA-Z])\)?")
_NOT_PLAIN = re.compile(rf"[\[\]]|{MARKER_INSIDE}")


def delimiter_problem(delimiter):
    """Why ``delimiter`` cannot be used (a text), or None."""
    if not isinstance(delimiter, str) or not delimiter:
        return "it must be a non-empty string"
    if delimiter != "".join(delimiter.split()):
        return "it must hold no white space"
    letters = [c for c in delimiter if c.isalnum()]
    if letters:
        return f"it holds {letters[0]!r}: ids are digits and intent ids begin with 'i', so no letter or digit"
    reserved = [c for c in delimiter if c in RESERVED]
    if reserved:
        return (f"it holds {reserved[0]!r}, which the format itself uses (markers' brackets, the separator "
                "` | ` of values, quotes, option letters' `)`)")
    cased = [c for c in delimiter if c.lower() != c or c.upper() != c]
    if cased:
        return f"it holds {cased[0]!r}, which has case: lowercase would change it"
    return None


@functools.lru_cache(maxsize=16)
def entry_start(delimiter):
    """An entry of ``[states]``: an id and the delimiter at a word start (spaces around the
    delimiter read too)."""
    return re.compile(r"(?<!\S)(\d+)\s*" + re.escape(delimiter) + r"\s*")


def letter_of(text):
    """``(id prefix, letter)`` of a text that reads as an option letter (``b``, ``3b``,
    ``b)``), else None."""
    match = _LETTER.fullmatch(text)
    return match.groups() if match else None


def plain(value, delimiter, lettered=False):
    """Whether ``value`` reads back as itself when written as it is (the rule above)."""
    return (bool(value) and value == " ".join(value.split())
            and not value.startswith('"') and not _NOT_PLAIN.search(value)
            and VALUE_SEPARATOR not in f" {value} " and not entry_start(delimiter).search(value)
            and not (lettered and letter_of(value)))


def written(value, delimiter, lettered=False):
    """One value as the target writes it: as it is when plain, else as a JSON string."""
    return value if plain(value, delimiter, lettered) else json_text(value)


@functools.lru_cache(maxsize=16)
def _input_entry(delimiter):
    """What else starts a piece of the input: an intent id and the delimiter, an option's
    letter (``b)``, ``3b)``), a turn's marker (``[user]``)."""
    return re.compile(r"(?<!\S)(?:i\d+\s*" + re.escape(delimiter) + r"|\d*[a-zA-Z]\))", re.IGNORECASE)


def written_text(text, delimiter):
    """A description or option of the input, white space already made single spaces:
    as it is where a reader cannot take part of it for an entry, an option or a marker,
    else as a JSON string (nothing reads the input back; the rule keeps it unambiguous)."""
    if plain(text, delimiter) and not _input_entry(delimiter).search(text):
        return text
    return json_text(text)


def written_values(values, delimiter, lettered=False):
    """A slot's values as the target writes them, joined by `` | ``."""
    return VALUE_SEPARATOR.join(written(value, delimiter, lettered) for value in values)


_DECODER = json.JSONDecoder()
_SEPARATOR = re.compile(r"\s*\|\s*")


def read_values(text, pos, stop, problems, where):
    """The values of an entry whose first value starts at ``text[pos]``, as ``([(value,
    quoted)], end)``: ``stop(text, pos)`` is where the entry ends (the next entry, a marker,
    or the end of the text). A quoted value is a JSON string; a plain one runs to the next
    `` | `` or the entry's end, its surrounding spaces left out."""
    values = []
    while True:
        end = stop(text, pos)
        if text.startswith('"', pos):
            try:
                value, after = _DECODER.raw_decode(text, pos)
            except ValueError:
                value = None
            if isinstance(value, str):
                values.append((value, True))
                end = stop(text, after)
                separator = _SEPARATOR.match(text, after, end)
                if separator:
                    pos = separator.end()
                    continue
                if text[after:end].strip():
                    problems.append(Problem(MALFORMED, f"{where}: {cut(text[after:end])!r} after a quoted value"))
                return values, end
            problems.append(Problem(MALFORMED, f"{where}: a quote that opens no JSON string"))
        separator_at = text.find(VALUE_SEPARATOR, pos, end)
        values.append((text[pos:end if separator_at < 0 else separator_at].strip(), False))
        if separator_at < 0:
            return values, end
        pos = separator_at + len(VALUE_SEPARATOR)


_SECTION = re.compile(r"\[\s*(" + "|".join(re.escape(marker[1:-1]) for marker in SECTION_MARKERS) + r")\s*\]",
                      re.IGNORECASE)


def read_sections(text, delimiter):
    """Marker (``SECTION_MARKERS``) -> its entries (``[states]``: ``[(id, [(value,
    quoted)])]``; the others: their tokens), and problems (``core.problems.Problem``). Left
    to right, so that a quoted value may hold anything."""
    entry = entry_start(delimiter)

    def stop(t, pos):
        ends = [m.start() for m in (entry.search(t, pos), _SECTION.search(t, pos)) if m]
        return min(ends, default=len(t))

    sections, problems, section, pos = {}, [], None, 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        marker = _SECTION.match(text, pos)
        if marker:
            kind = f"[{marker.group(1).lower()}]"
            if kind in sections:
                problems.append(Problem(MALFORMED, f"{kind} given twice: the first kept"))
            section = sections.setdefault(kind, []) if kind not in sections else []
            pos = marker.end()
            continue
        found = entry.match(text, pos) if section is not None and kind == STATES_MARKER else None
        if found:
            values, pos = read_values(text, found.end(), stop, problems, f"slot {found.group(1)}")
            section.append((int(found.group(1)), values))
            continue
        after = _SECTION.search(text, pos)
        end = after.start() if after else len(text)
        if section is not None and kind != STATES_MARKER:
            section.extend(text[pos:end].split())
        elif section is not None:
            end = stop(text, pos)
            problems.append(Problem(MALFORMED, f"{STATES_MARKER}: unreadable {cut(text[pos:end])!r}"))
        elif after:  # a text without any marker is just "no [states]"
            problems.append(Problem(MALFORMED, f"text before {after.group(0)}: {cut(text[pos:end])!r}"))
        pos = end
    if STATES_MARKER not in sections:
        problems.append(Problem(MALFORMED, f"no {STATES_MARKER}"))
    return sections, problems
