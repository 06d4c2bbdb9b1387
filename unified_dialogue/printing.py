"""Readable text of a unified record (one line per turn, role and utterance, and under it
the turn's annotations in short), of a task view's row (its context, then its fields in
short) or of a chat row (its messages, each line of a long one cut). ``show(item)``
returns the text."""

WIDTH = 100


def _cut(text, width=WIDTH):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def _values(values):
    return "|".join(v["value"] for v in values)


def _slot_values(table):
    return ", ".join(f"{entry['slot']}={_values(entry['values'] or [])}" if entry["values"] else entry["slot"]
                     for entry in table or [])


def turn_notes(turn):
    """Short lines for a unified turn's annotations, the absent ones left out."""
    notes = []
    acts = turn.get("dialog_acts")
    if acts:
        notes.append("acts: " + "; ".join(
            f"{a['act']}({_slot_values(a['slot_value_table'])})" if a.get("slot_value_table") else a["act"]
            for a in acts))
    for belief in turn.get("belief_state") or []:
        intent = f" [{belief['intent']}]" if belief["intent"] else ""
        requested = f" requested: {', '.join(belief['requested_slots'])}" if belief["requested_slots"] else ""
        notes.append(f"state {belief['domain']}{intent}: {_slot_values(belief['informed_slot_value_table'])}"
                     f"{requested}")
    query, result = turn.get("query"), turn.get("querying_result")
    if query:
        parameters = ", ".join(f"{p['slot']}={p['value']}" for p in query["parameters"])
        found = f" -> {len(result['results'])} result(s)" if result else ""
        notes.append(f"call {query['domain']}.{query['method']}({parameters}){found}")
    for entity in turn.get("named_entity_recognition") or []:
        notes.append(f"names {entity['type']}: {_values(entity['values'])}")
    for aspect in turn.get("aspects") or []:
        target = aspect["target"]["value"] if aspect["target"] else "-"
        notes.append(f"preference {aspect['category']}: {target!r} in {aspect['opinion']['value']!r}")
    if turn.get("knowledge_to_select"):
        notes.append(f"knowledge: {turn['knowledge_to_select']}")
    original = turn.get("original_response")
    if original:
        before = "(null)" if original["utterance"] is None else repr(original["utterance"])
        notes.append(f"original response {before}; BEGIN {', '.join(original['begin'])}")
    return notes


def show(item, features=None):
    """The text of a unified record or of a view row; with the dataset's ``features``,
    class labels are shown by name."""
    if features is not None:
        item = with_label_names(item, features)
    if "dialog" in item:
        return show_record(item)
    return show_chat(item) if "messages" in item else show_row(item)


def with_label_names(value, feature):
    """``value`` with every ClassLabel number replaced by its name."""
    from datasets import ClassLabel

    if isinstance(feature, ClassLabel) and isinstance(value, int):
        return feature.int2str(value)
    if isinstance(value, dict) and isinstance(feature, dict):
        return {key: with_label_names(item, feature.get(key)) for key, item in value.items()}
    if isinstance(value, list):
        inner = feature[0] if isinstance(feature, list) else getattr(feature, "feature", None)
        return [with_label_names(item, inner) for item in value]
    return value


ID_FIELDS = ("id", "dialogue_id", "dialog_id", "gem_id", "turn_index", "turn_id")
# A row's id holds its dialogue and turn: the head line shows these where a row has one.
HEAD_WITH_ID = ("id", "gem_id")
CONTEXT_SHOWN = 4


def compact(value):
    """A short one-line form of a field's value; None and empty parts left out."""
    if isinstance(value, dict):
        parts = [f"{key}={compact(item)}" for key, item in value.items() if item not in (None, [], "")]
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + "; ".join(compact(item) for item in value) + "]"
    return str(value)


def show_row(row):
    """The text of a task view's row: its ids, the end of its context, its other fields."""
    head = HEAD_WITH_ID if row.get("id") is not None else ID_FIELDS
    lines = ["  ".join(f"{key}={row[key]}" for key in head if row.get(key) is not None)]
    context = row.get("context") or []
    if len(context) > CONTEXT_SHOWN:
        lines.append(f"{'':>12}… {len(context) - CONTEXT_SHOWN} earlier turn(s)")
    for entry in context[-CONTEXT_SHOWN:]:
        role, text = (entry["role"], entry["utterance"]) if isinstance(entry, dict) else ("", entry)
        lines.append(f"{role:>10}: {_cut(text)}")
    for key, value in row.items():
        if key in ID_FIELDS or key == "context" or value in (None, [], ""):
            continue
        lines.append(f"{key:>20}: {_cut(compact(value), WIDTH - 12)}")
    return "\n".join(lines)


CHAT_LINES = 14  # lines of a message shown; the rest counted


def show_chat(row):
    """The text of a chat row: its id, then each message, role and content (its lines cut
    to the width, at most CHAT_LINES of each; the completion marked)."""
    lines = [f"id={row['id']}"]
    completion = len(row["messages"]) - len(row.get("completion") or [])
    for position, message in enumerate(row["messages"]):
        mark = "  (completion)" if position >= completion else ""
        lines.append(f"[{message['role']}]{mark}")
        content = message["content"].split("\n")
        lines += [f"    {_cut(line, WIDTH - 4)}" for line in content[:CHAT_LINES]]
        if len(content) > CHAT_LINES:
            lines.append(f"    … {len(content) - CHAT_LINES} more line(s)")
    return "\n".join(lines)


def show_record(record):
    """The text of a unified record."""
    head = [record.get("dialogue_id") or "(no id)"]
    if record.get("domain"):
        head.append("domains: " + ", ".join(record["domain"]))
    if record.get("unseen_domains"):
        head.append("unseen: " + ", ".join(record["unseen_domains"]))
    knowledge = record.get("knowledge")
    if knowledge:
        head.append(f"knowledge: {knowledge['type']}")
    lines = ["  ".join(head)]
    for turn in record["dialog"]:
        role = "/".join(turn["roles"] or [])
        lines.append(f"{role:>10}: {_cut(turn['utterance'])}")
        lines += [f"{'':>12}{_cut(note, WIDTH - 2)}" for note in turn_notes(turn)]
    return "\n".join(lines)
