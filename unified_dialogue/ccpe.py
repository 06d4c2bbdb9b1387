"""CCPE-M (Coached Conversational Preference Elicitation, movies): validation, the two
config mappings, and the reverse mappings back to the source format. Pure functions, no
I/O except the logged warnings of ``file_to_records``.

Source layout (one file, ``data.json``): a JSON list of ``{conversationId, utterances}``;
an utterance is ``{index, speaker, text, segments?}`` (``segments`` absent when the
utterance has no annotation); a segment is ``{startIndex, endIndex (exclusive), text,
annotations: [{annotationType, entityType}]}`` with ``text[startIndex:endIndex] == text``.
"""

import json
import logging
import re

from datasets import Features

from .errors import SourceFormatError
from .features import INT, STRING, UNIFIED_FEATURES, dialogue_id

logger = logging.getLogger(__name__)

FILE = "data.json"
SPLIT = "train"
SPEAKERS = ("USER", "ASSISTANT")
ANNOTATION_TYPES = ("ENTITY_NAME", "ENTITY_PREFERENCE", "ENTITY_DESCRIPTION", "ENTITY_OTHER")
ENTITY_TYPES = ("MOVIE_GENRE_OR_CATEGORY", "MOVIE_OR_SERIES", "PERSON", "SOMETHING_ELSE")

# Keys in upstream order; the reverse mappings write them in this order.
CONVERSATION_KEYS = ("conversationId", "utterances")
UTTERANCE_KEYS = ("index", "speaker", "text", "segments")
SEGMENT_KEYS = ("startIndex", "endIndex", "text", "annotations")
ANNOTATION_KEYS = ("annotationType", "entityType")

ORIGINAL_FEATURES = Features({
    "conversationId": STRING,
    "utterances": [{
        "index": INT,
        "speaker": STRING,
        "text": STRING,
        # None where the source has no ``segments`` key, [] where it has an empty list.
        "segments": [{
            "startIndex": INT,
            "endIndex": INT,
            "text": STRING,
            "annotations": [{"annotationType": STRING, "entityType": STRING}],
        }],
    }],
})
FEATURES = {"unified": UNIFIED_FEATURES, "original": ORIGINAL_FEATURES}


# ---------------------------------------------------------------- validation

def record_name(conversation, position=None):
    name = conversation.get("conversationId") if isinstance(conversation, dict) else None
    return f"conversation {name}" if isinstance(name, str) else f"conversation #{position} (no conversationId)"


class _Checker:
    """Type checks that raise SourceFormatError naming file, conversation and field."""

    def __init__(self, file, record):
        self.file, self.record = file, record

    def fail(self, field, problem):
        raise SourceFormatError(self.file, self.record, field, problem)

    def object(self, obj, keys, field, optional=()):
        if not isinstance(obj, dict):
            self.fail(field or "(conversation)", f"expected an object, got {type(obj).__name__}")
        prefix = f"{field}." if field else ""
        for key in keys:
            if key not in obj and key not in optional:
                self.fail(prefix + key, "missing")
        unexpected = [key for key in obj if key not in keys]
        if unexpected:
            self.fail(prefix + unexpected[0], f"unexpected key (known keys: {', '.join(keys)})")
        return obj

    def check(self, value, kind, field):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.fail(field, f"expected {kind.__name__}, got {type(value).__name__} {value!r:.60}")
        return value

    def label(self, value, allowed, field):
        if self.check(value, str, field) not in allowed:
            self.fail(field, f"unknown label {value!r} (expected one of {', '.join(allowed)})")


def validate_conversation(conversation, file, position=None):
    """Raise SourceFormatError at the first field that breaks the documented format.

    ``index`` must be the utterance's 0-based position (the upstream README defines it so);
    the reverse mappings rebuild it from the position. Segment offsets are not checked
    here: see ``offset_problems``.
    """
    c = _Checker(file, record_name(conversation, position))
    c.object(conversation, CONVERSATION_KEYS, "")
    c.check(conversation["conversationId"], str, "conversationId")
    for u, utterance in enumerate(c.check(conversation["utterances"], list, "utterances")):
        where = f"utterances[{u}]"
        c.object(utterance, UTTERANCE_KEYS, where, optional=("segments",))
        if c.check(utterance["index"], int, f"{where}.index") != u:
            c.fail(f"{where}.index", f"expected {u} (0-based and consecutive), got {utterance['index']}")
        c.label(utterance["speaker"], SPEAKERS, f"{where}.speaker")
        c.check(utterance["text"], str, f"{where}.text")
        if "segments" in utterance:
            for s, segment in enumerate(c.check(utterance["segments"], list, f"{where}.segments")):
                _validate_segment(c, segment, f"{where}.segments[{s}]")


def _validate_segment(c, segment, where):
    c.object(segment, SEGMENT_KEYS, where)
    c.check(segment["startIndex"], int, f"{where}.startIndex")
    c.check(segment["endIndex"], int, f"{where}.endIndex")
    c.check(segment["text"], str, f"{where}.text")
    for a, annotation in enumerate(c.check(segment["annotations"], list, f"{where}.annotations")):
        field = f"{where}.annotations[{a}]"
        c.object(annotation, ANNOTATION_KEYS, field)
        c.label(annotation["annotationType"], ANNOTATION_TYPES, f"{field}.annotationType")
        c.label(annotation["entityType"], ENTITY_TYPES, f"{field}.entityType")


def is_located(start, end, segment_text, utterance_text):
    """Whether the offsets lie inside the utterance and select exactly the segment's text."""
    return 0 <= start <= end <= len(utterance_text) and utterance_text[start:end] == segment_text


def offset_problems(conversation, file, position=None):
    """SourceFormatErrors (not raised) for every segment whose offsets do not locate its
    text: outside the utterance, or ``text[startIndex:endIndex] != segment.text``."""
    problems = []
    for u, utterance in enumerate(conversation["utterances"]):
        text = utterance["text"]
        for s, segment in enumerate(utterance.get("segments") or []):
            start, end = segment["startIndex"], segment["endIndex"]
            if is_located(start, end, segment["text"], text):
                continue
            if not 0 <= start <= end <= len(text):
                problem = f"offsets {start}:{end} lie outside the utterance ({len(text)} characters)"
            else:
                problem = f"text {segment['text']!r} differs from the utterance's text[{start}:{end}] {text[start:end]!r}"
            problems.append(SourceFormatError(
                file, record_name(conversation, position), f"utterances[{u}].segments[{s}]", problem))
    return problems


# ---------------------------------------------------------------- reading a file

_CONVERSATION_ID = re.compile(r'"conversationId"\s*:\s*"((?:[^"\\]|\\.)*)"')
_INDEX = re.compile(r'"index"\s*:\s*(-?\d+)')
_KEY = re.compile(r'"(\w+)"\s*:')


def parse_file(data, file):
    """The conversations of a source file. Invalid JSON is an error that names the
    conversation, utterance and field in which the parser stopped, as far as the text
    before that point tells (upstream writes keys in a fixed order)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    try:
        conversations = json.loads(text)
    except json.JSONDecodeError as error:
        record, field = locate(text, error.pos)
        problem = f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        raise SourceFormatError(file, record, field, problem) from None
    if not isinstance(conversations, list):
        raise SourceFormatError(file, "whole file", "(top level)",
                                f"expected a list of conversations, got {type(conversations).__name__}")
    return conversations


def locate(text, pos):
    """(record, field) of the position ``pos`` of a source file's text, from the keys before it."""
    before = text[:pos]
    conversations = list(_CONVERSATION_ID.finditer(before))
    if not conversations:
        return "whole file", "(json)"
    record = f"conversation {conversations[-1].group(1)}"
    rest = before[conversations[-1].end():]
    indexes = list(_INDEX.finditer(rest))
    if not indexes:
        keys = _KEY.findall(rest)
        return record, keys[-1] if keys else "(json)"
    rest = rest[indexes[-1].end():]
    keys = ["index"] + _KEY.findall(rest)
    field = f"utterances[{indexes[-1].group(1)}]"
    segments = rest.count('"startIndex"')
    if segments:
        field += f".segments[{segments - 1}]"
        annotations = rest[rest.rfind('"startIndex"'):].count('"annotationType"')
        if annotations and keys[-1] in ANNOTATION_KEYS:
            field += f".annotations[{annotations - 1}]"
    return record, f"{field}.{keys[-1]}"


def file_to_records(conversations, file, config, strict_offsets=False):
    """Validate and map every conversation of a file, for the ``unified`` or ``original`` config.

    A segment whose offsets do not locate its text is logged as a warning naming file,
    conversation, utterance and segment (an error with ``strict_offsets``) and kept.
    """
    for position, conversation in enumerate(conversations):
        validate_conversation(conversation, file, position)
        for problem in offset_problems(conversation, file, position):
            if strict_offsets:
                raise problem
            logger.warning("%s (kept as the source has it; its unified span has no start/end)", problem)
        if config == "original":
            yield conversation_to_original(conversation)
        else:
            yield conversation_to_unified(conversation)


# ---------------------------------------------------------------- original config

def conversation_to_original(conversation):
    """The source conversation as it is (a missing ``segments`` becomes None when stored)."""
    return conversation


def original_to_source(row):
    """Inverse of conversation_to_original for a loaded row (absent ``segments`` are None)."""
    return {
        "conversationId": row["conversationId"],
        "utterances": [_utterance(u["index"], u["speaker"], u["text"], u["segments"]) for u in row["utterances"]],
    }


def _utterance(index, speaker, text, segments):
    utterance = {"index": index, "speaker": speaker, "text": text}
    if segments is not None:
        utterance["segments"] = [
            {
                "startIndex": s["startIndex"],
                "endIndex": s["endIndex"],
                "text": s["text"],
                "annotations": [
                    {"annotationType": a["annotationType"], "entityType": a["entityType"]} for a in s["annotations"]
                ],
            }
            for s in segments
        ]
    return utterance


# ---------------------------------------------------------------- unified config

def segment_to_unified(segment):
    """A source segment in the ``segments`` extension field: every annotation, in order."""
    return {
        "start": segment["startIndex"],
        "end": segment["endIndex"],
        "text": segment["text"],
        "annotations": [
            {"annotation_type": a["annotationType"], "entity_type": a["entityType"]} for a in segment["annotations"]
        ],
    }


def unified_segment_to_source(segment):
    return {
        "startIndex": segment["start"],
        "endIndex": segment["end"],
        "text": segment["text"],
        "annotations": [
            {"annotationType": a["annotation_type"], "entityType": a["entity_type"]} for a in segment["annotations"]
        ],
    }


def span(segment, utterance_text):
    """A segment as a unified span: start and end are None when they do not locate its text."""
    if is_located(segment["start"], segment["end"], segment["text"], utterance_text):
        return {"value": segment["text"], "start": segment["start"], "end": segment["end"]}
    return {"value": segment["text"], "start": None, "end": None}


def _annotated(segments, annotation_type):
    """(segment, entity type) of every annotation of ``annotation_type``, in source order."""
    return [
        (segment, a["entity_type"])
        for segment in segments
        for a in segment["annotations"]
        if a["annotation_type"] == annotation_type
    ]


def named_entities(segments, utterance_text):
    """ENTITY_NAME annotations grouped by entity type (in order of first appearance)."""
    by_type = {}
    for segment, entity_type in _annotated(segments, "ENTITY_NAME"):
        by_type.setdefault(entity_type, []).append(span(segment, utterance_text))
    return [{"type": entity_type, "values": values} for entity_type, values in by_type.items()]


def _touches(name, preference):
    """Whether a name span lies inside or overlaps a preference span (``end`` exclusive)."""
    inside = preference["start"] <= name["start"] and name["end"] <= preference["end"]
    return inside or (name["start"] < preference["end"] and preference["start"] < name["end"])


def targets(opinion, entity_type, names):
    """The target spans of a preference: the located ENTITY_NAME spans of the utterance that
    lie inside or overlap it; if some of them have the preference's entity type, only those.
    Several targets give several aspects; equal spans count once."""
    if opinion["start"] is None:
        return []
    touching = [(name, t) for name, t in names if name["start"] is not None and _touches(name, opinion)]
    same_type = [(name, t) for name, t in touching if t == entity_type]
    found = []
    for name, _ in same_type or touching:
        if name not in found:
            found.append(name)
    return found


def aspects(segments, utterance_text):
    """One aspect per ENTITY_PREFERENCE annotation and target (``target`` None without one).

    ``opinion`` is the preference span, ``category`` its entity type; ``sentiment`` stays
    absent: CCPE does not annotate polarity.
    """
    names = [(span(segment, utterance_text), t) for segment, t in _annotated(segments, "ENTITY_NAME")]
    found = []
    for segment, entity_type in _annotated(segments, "ENTITY_PREFERENCE"):
        opinion = span(segment, utterance_text)
        for target in targets(opinion, entity_type, names) or [None]:
            found.append({"target": target, "category": entity_type, "opinion": opinion, "sentiment": None})
    return found


def utterance_to_turn(utterance):
    """One utterance as one unified turn.

    CCPE annotates every utterance, so a turn without entity names or preferences has
    ``[]`` there; ``segments`` keeps the source's absent (None) / empty ([]) distinction.
    """
    source = utterance.get("segments")
    segments = None if source is None else [segment_to_unified(s) for s in source]
    text = utterance["text"]
    return {
        "roles": [utterance["speaker"]],
        "utterance": text,
        "named_entity_recognition": named_entities(segments or [], text),
        "aspects": aspects(segments or [], text),
        "segments": segments,
    }


def conversation_to_unified(conversation):
    """One CCPE conversation as a unified record: every utterance is a turn, in order."""
    original_id = conversation["conversationId"]
    return {
        "turn": "multi",
        "domain": ["movie"],
        "locale": "en",
        "dialog": [utterance_to_turn(u) for u in conversation["utterances"]],
        "dialogue_id": dialogue_id("ccpe", SPLIT, original_id),
        "original_id": original_id,
        "corpus": "ccpe",
        "split": SPLIT,
    }


def unified_to_source(record):
    """Inverse of conversation_to_unified: the source conversation, exactly (key order
    included). ``index`` is the turn's position; ``segments`` alone rebuilds the annotations
    (``named_entity_recognition`` and ``aspects`` are derived from them)."""
    return {
        "conversationId": record["original_id"],
        "utterances": [
            _utterance(i, turn["roles"][0], turn["utterance"],
                       None if turn["segments"] is None else [unified_segment_to_source(s) for s in turn["segments"]])
            for i, turn in enumerate(record["dialog"])
        ],
    }
