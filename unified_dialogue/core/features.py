"""The unified dialogue features: one definition shared by every corpus.

Keys mirror ``unified-schema-spec`` exactly, including its spelling ``cononical_value``.
Every key of the spec is present for every corpus so that ``concatenate_datasets`` works
across corpora; a key the source does not annotate is ``None`` (absent), which stays
distinct from an empty list (annotated, nothing there).

Nested lists of records are written ``[{...}]``: ``Sequence({...})`` would turn them into
records of lists and break streaming on ``datasets`` 3.6 with recent pyarrow, and every
use on ``datasets`` 5.x.

Shapes the spec leaves open (documented in README.md, "The unified schema"):
- ``query``: ``{domain, method, parameters: [{slot, value}]}``;
- ``querying_result``: ``{domain, results: [[{slot, value}]]}``, one inner list per result;
- ``knowledge.value``: a record with one member per knowledge type a corpus uses
  (``text``, ``schema``); only the member named by ``knowledge.type`` is set, so the
  spec's JSON is ``{"type": t, "value": value[t]}``.

Extension fields (not in the spec, where the sources have data the spec has no home for):
- dialogue: ``dialogue_id`` (unique across corpora and splits), ``original_id``,
  ``corpus``, ``split``, ``unseen_domains`` (SGD);
- turn: ``frames`` (SGD), ``segments`` (CCPE), ``original_response`` (FaithDial).
"""

from datasets import Features, Value

STRING = Value("string")
INT = Value("int32")
BOOL = Value("bool")
# A frame's ``active_intent`` when no intent is active, in SGD's files and in the frames
# the ``dst`` view gives in their format (the unified ``belief_state`` has None).
NO_INTENT = "NONE"
# The value a user gives a slot they do not mind (SGD's own word).
DONTCARE = "dontcare"
# SGD's dialogue acts that the goals, the user scorer and the environment read (the names
# of its files' ``act`` fields, kept as they are in the unified ``dialog_acts``).
INFORM, REQUEST, INFORM_INTENT = "INFORM", "REQUEST", "INFORM_INTENT"
OFFER, CONFIRM, SELECT, AFFIRM, NEGATE = "OFFER", "CONFIRM", "SELECT", "AFFIRM", "NEGATE"
NOTIFY_SUCCESS, NOTIFY_FAILURE = "NOTIFY_SUCCESS", "NOTIFY_FAILURE"

SPAN = {"value": STRING, "start": INT, "end": INT}
SLOT_VALUE_PAIR = {"slot": STRING, "value": STRING}

# An SGD service schema; also the row of the SGD ``schema`` config.
SERVICE_SCHEMA = {
    "service_name": STRING,
    "description": STRING,
    "slots": [
        {
            "name": STRING,
            "description": STRING,
            "is_categorical": BOOL,
            "possible_values": [STRING],
        }
    ],
    "intents": [
        {
            "name": STRING,
            "description": STRING,
            "is_transactional": BOOL,
            "required_slots": [STRING],
            "optional_slots": [SLOT_VALUE_PAIR],
            "result_slots": [STRING],
        }
    ],
}

BELIEF_STATE = {
    "intent": STRING,
    "informed_slot_value_table": [
        {
            "slot": STRING,
            "values": [{"value": STRING, "cononical_value": STRING}],
            "relation": STRING,
        }
    ],
    "requested_slots": [STRING],
    "domain": STRING,
}

DIALOG_ACT = {
    "act": STRING,
    "slot_value_table": [
        {
            "slot": STRING,
            "relation": STRING,
            "values": [{"value": STRING, "cononical_value": STRING, "start": INT, "end": INT}],
        }
    ],
    "domain": STRING,
}

TURN = {
    "roles": [STRING],
    "utterance": STRING,
    "start": INT,
    "end": INT,
    "dialog_turn": INT,
    "rewritten": STRING,
    "belief_state": [BELIEF_STATE],
    "dialog_acts": [DIALOG_ACT],
    "slots_to_fill": {
        "intent": STRING,
        "slot_value_table": [{"slot": STRING, "values": [SPAN], "relation": STRING}],
    },
    "named_entity_recognition": [{"type": STRING, "values": [SPAN]}],
    "characters": [SPAN],
    "active_intents": [STRING],
    "query": {"domain": STRING, "method": STRING, "parameters": [SLOT_VALUE_PAIR]},
    "querying_result": {"domain": STRING, "results": [[SLOT_VALUE_PAIR]]},
    "main_items": [STRING],
    "aspects": [{"target": SPAN, "category": STRING, "opinion": SPAN, "sentiment": STRING}],
    "emotions": [
        {
            "emotion": STRING,
            "sentiment": STRING,
            "evidences": [{"turn": INT, "span": STRING, "start": INT, "end": INT}],
            "evidence_types": [STRING],
        }
    ],
    "kg_label": STRING,
    "knowledge_to_select": STRING,
    "sql": STRING,
    "roles_to_select": [STRING],
    # Extensions. SGD: the turn's frames in source order, with the source's character
    # spans (``end`` exclusive) and whether the service is unseen in the train schema.
    "frames": [
        {
            "service": STRING,
            "unseen": BOOL,
            "slots": [{"slot": STRING, "start": INT, "end": INT}],
        }
    ],
    # CCPE: every segment with all its annotations, as the source has it.
    "segments": [
        {
            "start": INT,
            "end": INT,
            "text": STRING,
            "annotations": [{"annotation_type": STRING, "entity_type": STRING}],
        }
    ],
    # FaithDial: the Wizard-of-Wikipedia response before editing, with the BEGIN labels
    # that describe it (``utterance`` is None where the source has null).
    "original_response": {"utterance": STRING, "begin": [STRING]},
}

UNIFIED_FEATURES = Features(
    {
        "turn": STRING,
        "domain": [STRING],
        "locale": STRING,
        "dialog": [TURN],
        "summary": STRING,
        "instance_relations": [
            {
                "instance1": STRING,
                "instance2": STRING,
                "relations": [{"relation": STRING, "trigger": STRING}],
            }
        ],
        "role_relations": [{"turn": INT, "relation": STRING}],
        "role_personas": [
            {"name": STRING, "personas": [{"persona": STRING, "sentiment": INT}]}
        ],
        "knowledge": {
            "type": STRING,
            "value": {"text": STRING, "schema": [SERVICE_SCHEMA]},
        },
        # Extensions.
        "dialogue_id": STRING,
        "original_id": STRING,
        "corpus": STRING,
        "split": STRING,
        "unseen_domains": [STRING],
    }
)

# Keys of the spec itself, for tests and for the spec-shaped JSON export.
SPEC_DIALOGUE_KEYS = (
    "turn", "domain", "locale", "dialog", "summary", "instance_relations",
    "role_relations", "role_personas", "knowledge",
)
SPEC_TURN_KEYS = (
    "roles", "utterance", "start", "end", "dialog_turn", "rewritten", "belief_state",
    "dialog_acts", "slots_to_fill", "named_entity_recognition", "characters",
    "active_intents", "query", "querying_result", "main_items", "aspects", "emotions",
    "kg_label", "knowledge_to_select", "sql", "roles_to_select",
)
EXTENSION_DIALOGUE_KEYS = ("dialogue_id", "original_id", "corpus", "split", "unseen_domains")
EXTENSION_TURN_KEYS = ("frames", "segments", "original_response")


def dialogue_id(corpus, split, original_id):
    """An id unique across corpora and splits (SGD reuses ids like ``1_00000``)."""
    return f"{corpus}/{split}/{original_id}"


def locates(start, end, text, utterance):
    """Whether offsets lie inside the utterance and select exactly ``text``: a unified
    span keeps its offsets only then (else ``start`` and ``end`` are None)."""
    return start is not None and end is not None and 0 <= start <= end <= len(utterance) \
        and utterance[start:end] == text
