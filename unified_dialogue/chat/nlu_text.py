"""What an utterance holds as text, and back: the target of ``nlu-chat``.

Two lines::

    intents: FindRestaurants, ReserveRestaurant
    spans: Restaurants_1.city=San Jose; ENTITY_NAME/MOVIE_OR_SERIES=Dune

- ``intents: `` and the turn's active intents separated by ``, `` (``none`` for none); the
  line only where the corpus annotates intents (a row's ``intents`` is not None);
- ``spans: `` and each span as ``[domain.]label[/type]=text``, separated by ``; ``, in the
  view's order (``none`` for none); the domain and the type only where the span has one
  (an empty one is written, as ``""``);
- names (intents, domains, labels, types) and texts are escaped by ``chat.text``'s one rule:
  as they are, or as JSON strings where they could be misread (a name that is not letters,
  digits, ``_`` and ``-`` alone, or is a keyword such as ``none``; a text holding ``;``,
  ``|``, a quote, a bracket or a line break, with a space at either end, or empty):
  ``"Restaurants 1"."date.from"="2 | 3"``, ``intents: "none"``.

``parse`` reads such text back into ``{"intents", "spans"}`` (spans as ``{domain, label,
type, text}``): exactly what was written, and leniently what a model writes (spaces,
the answer of a model's output (``core.answer``: no reasoning block, no code fence), single
quotes around a value, any case of the line names and of names a schema knows, lines in any
order, a cut-off end), reporting what it cannot take as ``core.problems.Problem``s, never
raising.
"""

from ..core.answer import answer
from ..core.problems import MALFORMED, UNKNOWN_INTENT, UNKNOWN_SERVICE, UNKNOWN_SLOT, Problem, cut
from .state import Schemas
from .text import INTENTS, NONE_WORD, SPANS, is_quoted, key, name, read_value, split_outside_quotes, value

INTENTS_JOIN, SPANS_JOIN = ", ", "; "


def span_name(span):
    """``[domain.]label[/type]`` of a span, each name escaped."""
    written = name(span["label"])
    if span.get("domain") is not None:
        written = f"{name(span['domain'])}.{written}"
    if span.get("type") is not None:
        written += f"/{name(span['type'])}"
    return written


def span_text(span):
    return f"{span_name(span)}={value(span['text'])}"


def nlu_text(intents, spans):
    """The text of a turn's ``intents`` (a list, or None where not annotated) and ``spans``."""
    lines = []
    if intents is not None:
        lines.append(f"{INTENTS}: " + (INTENTS_JOIN.join(name(intent) for intent in intents) or NONE_WORD))
    lines.append(f"{SPANS}: " + (SPANS_JOIN.join(span_text(span) for span in spans or []) or NONE_WORD))
    return "\n".join(lines)


# ---------------------------------------------------------------- reading it back

def parse(text, schemas=None):
    """``(record, problems)`` of an nlu text: ``record`` is ``{"intents": [...] or None,
    "spans": [{domain, label, type, text}, ...]}``; ``problems``, what could not be taken,
    each a ``core.problems.Problem``. ``text``: a model's output, whose answer is read
    (``core.answer``). ``schemas``: a ``chat.state.Schemas`` (or ``schema`` rows) where the
    corpus has one: spans of an unknown service or slot, and unknown intents, are then
    reported (and kept as written), names a schema knows given in its spelling."""
    if schemas is not None and not isinstance(schemas, Schemas):
        schemas = Schemas.of(schemas)
    record = {"intents": None, "spans": []}
    if not isinstance(text, str):
        return record, [Problem(MALFORMED, "no text")]
    text, problems = answer(text)
    for line in split_outside_quotes(text, "\n"):
        if not line.strip():
            continue
        head, *rest = split_outside_quotes(line, ":", maxsplit=1)
        if not rest or key(head) not in (INTENTS, SPANS):
            problems.append(Problem(MALFORMED, f"{cut(line)!r} is neither intents: nor spans:"))
        elif key(head) == INTENTS:
            record["intents"] = _intents(rest[0], schemas, problems)
        else:
            record["spans"] = _spans(rest[0], schemas, problems)
    return record, problems


def _none(text):
    return not is_quoted(text) and key(text) in ("", NONE_WORD)


def _intents(text, schemas, problems):
    if _none(text):
        return []
    known = schemas.intents if schemas is not None else None
    intents = []
    for part in split_outside_quotes(text, ","):
        if not part.strip():
            continue
        intent = read_value(part)
        if known is not None:
            found = known.get(intent)
            if found is None:
                problems.append(Problem(UNKNOWN_INTENT, f"unknown intent {intent!r}", intent))
            intent = intent if found is None else found
        intents.append(intent)
    return intents


def _spans(text, schemas, problems):
    if _none(text):
        return []
    spans = []
    for item in split_outside_quotes(text, ";"):
        if not item.strip():
            continue
        written, *rest = split_outside_quotes(item, "=", maxsplit=1)
        if not rest:
            problems.append(Problem(MALFORMED, f"{cut(item)!r} is not label=text"))
            continue
        left, *kind = split_outside_quotes(written, "/", maxsplit=1)
        *domain, label = split_outside_quotes(left, ".", maxsplit=1)
        span = {"domain": read_value(domain[0]) if domain else None, "label": read_value(label),
                "type": read_value(kind[0]) if kind else None, "text": read_value(rest[0])}
        if schemas is not None and span["domain"] is not None:
            _known(span, schemas, problems)
        spans.append(span)
    return spans


def _known(span, schemas, problems):
    """Give a span's service and slot in the schema's spelling, or report them unknown."""
    service = schemas.get(span["domain"])
    if service is None:
        problems.append(Problem(UNKNOWN_SERVICE, f"unknown service {span['domain']!r}", span["domain"]))
        return
    span["domain"] = service.name
    slot = service.slots.get(span["label"])
    if slot is None:
        problems.append(Problem(UNKNOWN_SLOT, f"{service.name}: unknown slot {span['label']!r}", span["label"]))
    else:
        span["label"] = slot


__all__ = ["nlu_text", "parse", "span_name", "span_text"]
