"""Text pieces every chat rendering shares: the messages of a conversation, values written
so that they read back unchanged, and SGD service schemas in a compact form.

Pure Python over plain values (a view row's fields), with the Arrow counterparts that
build a whole table's texts at once (``written_values``, ``system_texts``)."""

import json
import re

SYSTEM, USER, ASSISTANT = "system", "user", "assistant"
# Turns of one role in a row become one message, their utterances joined by this.
JOIN = "\n"
VALUES_JOIN = " | "
# The parts of a system message are a blank line apart.
SYSTEM_JOIN = "\n\n"
# A value is written in double quotes, JSON-escaped, where it holds one of these (or
# begins or ends with a space, or is empty), so that the text reads back unambiguously.
NEEDS_QUOTES = r'[;|"\[\]\n\r\t]|^[\s\']|\s$|^$'
_NEEDS_QUOTES = re.compile(NEEDS_QUOTES)


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


def value(text):
    """A value as written in a target: as it is, or in double quotes (JSON escapes) where
    it could not be read back otherwise."""
    return json.dumps(text, ensure_ascii=False) if _NEEDS_QUOTES.search(text) else text


def values(texts):
    """Several values of one slot, separated by `` | ``."""
    return VALUES_JOIN.join(value(text) for text in texts)


def written_values(array):
    """``value`` of every string of a pa.Array, as a pa.Array: found and quoted by Arrow,
    only the few that need quotes converted in Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    quote = pc.fill_null(pc.match_substring_regex(array, NEEDS_QUOTES), False)
    if not pc.any(quote).as_py():
        return array
    quoted = [json.dumps(t, ensure_ascii=False) for t in array.filter(quote).to_pylist()]
    return pc.replace_with_mask(array, quote, pa.array(quoted, pa.string()))


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


def split_outside_quotes(text, separators):
    """``text`` cut at each character of ``separators`` that is not inside a double quoted
    value. A quote opens a value only where a value begins (at the start, or after a
    separator, ``=``, ``[`` or ``,`` and spaces), so that a bare ``"`` inside a value
    (``8 o"clock``) does not swallow the rest; a quote never closed runs to the end."""
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
        else:
            current.append(char)
            if char == '"' and boundary:
                quoted = True
            if not char.isspace():
                boundary = char in "=[,|"
        position += 1
    parts.append("".join(current))
    return parts


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
