"""Text pieces every chat rendering shares: the messages of a conversation, values written
so that they read back unchanged, and SGD service schemas in a compact form.

Pure Python over plain values (a view row's fields), with the Arrow counterparts that
build a whole table's texts at once (``written_values``, ``system_texts``)."""

import json
import re

from ..core.answer import MARKER_INSIDE, json_text

SYSTEM, USER, ASSISTANT = "system", "user", "assistant"
# Turns of one role in a row become one message, their utterances joined by this.
JOIN = "\n"
VALUES_JOIN = " | "
# The parts of a system message are a blank line apart.
SYSTEM_JOIN = "\n\n"
# The escape rule of every text the project reads back (the ``dst-chat`` and ``nlu-chat``
# completions; ``nlg`` and ``response`` write values the same way): a name or a value is
# written as it is where it cannot be mistaken for anything else, else as a JSON string in
# double quotes (``core.answer.json_text``, non-ASCII kept). The patterns are both
# Python's and Arrow's (RE2), so that the two writers quote the same texts.
# - A value is quoted where it holds ``;``, ``|``, ``"``, ``[``, ``]``, a line break, a
#   tab or what a reader of a model's output takes for a marker (``</think>``, written
#   ``<\/think>`` in quotes), begins with a space or a quote, ends with a space, or is
#   empty. "Space" is every character ``str.strip`` drops (the reader strips), spelled out
#   since RE2's ``\s`` is ASCII only.
# - A name (service, intent, slot, label, domain, type) is quoted unless it is letters,
#   digits, ``_`` and ``-`` only (ASCII), and not a keyword of the forms in any case.
WHITESPACE = "".join(c for c in map(chr, range(0x3001)) if c.isspace())  # U+3000 is the last
NEEDS_QUOTES = rf'[;|"\[\]\n\r\t]|^[{WHITESPACE}\']|[{WHITESPACE}]$|^$|{MARKER_INSIDE}'
_NEEDS_QUOTES = re.compile(NEEDS_QUOTES)
# Words the forms give a meaning to: a name spelled like one (in any case) is quoted, and
# the reader takes them as keywords only where they are not quoted.
# ``intent=`` and ``requested=`` items (dst-chat), ``intents:`` and ``spans:`` lines
# (nlu-chat), ``none`` for no intent or no span (both).
INTENT, REQUESTED, INTENTS, SPANS, NONE_WORD = "intent", "requested", "intents", "spans", "none"
KEYWORDS = (INTENT, REQUESTED, INTENTS, SPANS, NONE_WORD)
NAME_NEEDS_QUOTES = rf"[^A-Za-z0-9_\-]|^$|^(?i:{'|'.join(KEYWORDS)})$"
_NAME_NEEDS_QUOTES = re.compile(NAME_NEEDS_QUOTES)


def message(role, content):
    return {"role": role, "content": content}


# The user messages a row's turns get where the user does not speak first, or last before
# the completion (the assistant's): where the assistant opens the dialogue or the row has no
# turn before the completion (OPENING), and where the assistant spoke just before the
# completion too (GO_ON). Chat templates that need the conversation to open with the user
# and alternate (Gemma 3: "roles must alternate"; Qwen 3.6: a user query must exist) then
# take every row; every turn stays a message of its own, unchanged.
OPENING = "(The conversation begins.)"
GO_ON = "(Go on.)"


def conversation(turns):
    """Chat messages of ``turns`` (``(side, utterance)`` pairs in order, ``side`` ``user``
    or ``assistant``): consecutive turns of one side are one message, their utterances
    joined by a line break (none is dropped); a user message ``OPENING`` first where the
    turns do not begin with the user's, ``GO_ON`` last where they end with the assistant's."""
    messages = [] if turns and turns[0][0] == USER else [message(USER, OPENING)]
    for side, utterance in turns:
        if messages and messages[-1]["role"] == side:
            messages[-1]["content"] += JOIN + utterance
        else:
            messages.append(message(side, utterance))
    if messages[-1]["role"] == ASSISTANT:
        messages.append(message(USER, GO_ON))
    return messages


def compose(system, turns, completion):
    """A row's chat: ``{"prompt": [system message, *turns], "completion": [assistant message]}``."""
    return {"prompt": [message(SYSTEM, system), *turns], "completion": [message(ASSISTANT, completion)]}


def quoted(text):
    """``text`` as a JSON string: in double quotes, with JSON escapes, non-ASCII kept
    (``core.answer.json_text``)."""
    return json_text(text)


def value(text):
    """A value as written in a target: as it is, or in double quotes (JSON escapes) where
    it could not be read back otherwise."""
    return quoted(text) if _NEEDS_QUOTES.search(text) else text


def name(text):
    """A name (of a service, intent, slot, label, domain or type) as written in a target:
    as it is, or quoted (``quoted``) where it is not a plain word or is a keyword."""
    return quoted(text) if _NAME_NEEDS_QUOTES.search(text) else text


def values(texts):
    """Several values of one slot, separated by `` | ``."""
    return VALUES_JOIN.join(value(text) for text in texts)


def written_values(array, needs_quotes=NEEDS_QUOTES):
    """``value`` of every string of a pa.Array, as a pa.Array (``name`` with
    ``needs_quotes=NAME_NEEDS_QUOTES``): found by Arrow, only the few that need quotes
    converted in Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    quote = pc.fill_null(pc.match_substring_regex(array, needs_quotes), False)
    if not pc.any(quote).as_py():
        return array
    converted = [quoted(t) for t in array.filter(quote).to_pylist()]
    return pc.replace_with_mask(array, quote, pa.array(converted, pa.string()))


def written_names(array):
    """``name`` of every string of a pa.Array, as a pa.Array."""
    return written_values(array, NAME_NEEDS_QUOTES)


def read_value(text):
    """The value a written one stands for, leniently: surrounding spaces dropped; a double
    quoted value decoded (also without its closing quote, as in a cut text); single quotes
    around a value dropped."""
    text = text.strip()
    if text.startswith('"'):
        closed = len(text) > 1 and text.endswith('"') and not _escaped(text, len(text) - 1)
        for candidate in (text, text + '"') if not closed else (text,):
            try:
                decoded = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(decoded, str):
                return decoded
        return text.strip('"')
    if len(text) > 1 and text[0] == text[-1] == "'":
        return text[1:-1]
    return text


def _escaped(text, position):
    """Whether the character at ``position`` follows an odd number of backslashes."""
    count = 0
    while position - count - 1 >= 0 and text[position - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def is_quoted(text):
    """Whether a written name or value is in quotes (then it is never a keyword)."""
    return text.strip()[:1] in ('"', "'")


def split_outside_quotes(text, separators, maxsplit=-1, boundaries="=[,|:./;"):
    """``text`` cut at each character of ``separators`` that is not inside a double quoted
    value (at the first ``maxsplit`` only, where given). A quote opens a value only where a
    value begins (at the start, or after a separator or a character of ``boundaries``, and
    spaces), so that a bare ``"`` inside a value (``8 o"clock``) does not swallow the rest;
    a quote never closed runs to the end."""
    parts, current, quoted, boundary = [], [], False, True
    position = 0
    while position < len(text):
        char = text[position]
        if quoted:
            current.append(char)
            if char == "\\" and position + 1 < len(text):
                current.append(text[position + 1])
                position += 1
            elif char == '"':
                quoted = False
        elif char in separators:
            parts.append("".join(current))
            current, boundary = [], True
            if len(parts) == maxsplit:
                return parts + [text[position + 1:]]
        else:
            current.append(char)
            if char == '"' and boundary:
                quoted = True
            if not char.isspace():
                boundary = char in boundaries
        position += 1
    parts.append("".join(current))
    return parts


class Names:
    """Names a text may give (a schema's), found as written first, then without case and
    extra spaces (``key``): a model's ``CITY`` is ``city``, while two names differing only
    in case are each found by their own spelling."""

    def __init__(self, names):
        self.exact = list(dict.fromkeys(names))
        self._exact = set(self.exact)
        self.keyed = {}
        for each in self.exact:
            self.keyed.setdefault(key(each), each)

    def get(self, written, default=None):
        return written if written in self._exact else self.keyed.get(key(written), default)


def key(name):
    """A name compared without case and extra spaces."""
    return " ".join(name.split()).casefold()


# ---------------------------------------------------------------- service schemas

def schema_text(service):
    """A service schema (the SGD ``schema`` row's shape) in a few lines: its name and
    description, then each intent and slot with its description; a categorical slot lists
    its possible values."""
    lines = [f"{service['service_name']}: {service.get('description') or ''}".rstrip()]
    for intent in service.get("intents") or []:
        lines.append(f"- intent {intent['name']}: {intent.get('description') or ''}".rstrip())
    for slot in service.get("slots") or []:
        line = f"- slot {slot['name']}: {slot.get('description') or ''}".rstrip()
        if slot.get("is_categorical") and slot.get("possible_values"):
            line += f" (one of: {', '.join(slot['possible_values'])})"
        lines.append(line)
    return "\n".join(lines)


def services_text(services):
    """The ``Services:`` part of a system message, or "" without services."""
    if not services:
        return ""
    return "Services:\n" + "\n\n".join(schema_text(service) for service in services)


def system_text(instruction, *parts):
    """A system message: the instruction, then each non-empty part, a blank line apart."""
    return SYSTEM_JOIN.join(part for part in (instruction, *parts) if part)


def system_texts(instruction, *parts):
    """``system_text`` of every row, by Arrow: ``parts``, pa.Arrays of strings (a
    DictionaryArray too; "" or null where a row has no such part)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pieces = [pa.scalar(instruction)]
    for part in parts:
        if isinstance(part, pa.DictionaryArray):
            part = part.dictionary_decode()
        part = pc.fill_null(part, "")
        pieces.append(pc.if_else(pc.equal(part, ""), "", pc.binary_join_element_wise(SYSTEM_JOIN, part, "")))
    joined = pc.binary_join_element_wise(*pieces, "")
    # Without an instruction, the first part present has no blank line before it.
    return joined if instruction else pc.replace_substring_regex(joined, "^" + SYSTEM_JOIN, "", max_replacements=1)
