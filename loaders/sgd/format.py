"""The SGD source format as types: ``schema.json`` (a list of Service) and
``dialogues_NNN.json`` (a list of Dialogue), as the upstream README documents them.

Decoding checks every type, label and key (an unknown key is an error: the mappings would
drop it). The checks types cannot express are the small functions at the end.
"""

from typing import Dict, List, Literal, Union

from msgspec import UNSET, Struct, UnsetType

from unified_dialogue.core.validation import FieldError, Int32

USER_ACTS = (
    "INFORM_INTENT", "NEGATE_INTENT", "AFFIRM_INTENT", "INFORM", "REQUEST", "AFFIRM",
    "NEGATE", "SELECT", "REQUEST_ALTS", "THANK_YOU", "GOODBYE",
)
SYSTEM_ACTS = (
    "INFORM", "REQUEST", "CONFIRM", "OFFER", "NOTIFY_SUCCESS", "NOTIFY_FAILURE",
    "INFORM_COUNT", "OFFER_INTENT", "REQ_MORE", "GOODBYE",
)
ACTS_OF = {"USER": frozenset(USER_ACTS), "SYSTEM": frozenset(SYSTEM_ACTS)}
# The 18 act names, sorted: also the ClassLabel order GEM uses.
ACTS = tuple(sorted(set(USER_ACTS) | set(SYSTEM_ACTS)))

Act = Literal[ACTS]
Speaker = Literal["USER", "SYSTEM"]


class Source(Struct, forbid_unknown_fields=True):
    """A part of a source record: unknown keys are refused."""


class Span(Source):
    slot: str
    start: Int32
    exclusive_end: Int32


class Action(Source):
    act: Act
    slot: str
    values: List[str]
    canonical_values: List[str]


class State(Source):
    active_intent: str
    requested_slots: List[str]
    slot_values: Dict[str, List[str]]


class ServiceCall(Source):
    method: str
    parameters: Dict[str, str]


class Frame(Source):
    service: str
    slots: List[Span]
    actions: List[Action]
    # Absent (UNSET), not empty, where a frame has none: state on system turns, a service
    # call and its results on most turns.
    state: Union[State, UnsetType] = UNSET
    service_call: Union[ServiceCall, UnsetType] = UNSET
    service_results: Union[List[Dict[str, str]], UnsetType] = UNSET


class Turn(Source):
    speaker: Speaker
    utterance: str
    frames: List[Frame]


class Dialogue(Source):
    dialogue_id: str
    services: List[str]
    turns: List[Turn]


class Slot(Source):
    name: str
    description: str
    is_categorical: bool
    possible_values: List[str]


class Intent(Source):
    name: str
    description: str
    is_transactional: bool
    required_slots: List[str]
    optional_slots: Dict[str, str]
    result_slots: List[str]


class Service(Source):
    service_name: str
    description: str
    slots: List[Slot]
    intents: List[Intent]


# ---------------------------------------------------------------- checks types cannot express

def check_dialogue(dialogue):
    """Raise FieldError at the first value the types let through but the format forbids:
    a dialogue without turns, an act its speaker cannot use, a span outside its utterance,
    and values without a canonical value each."""
    if not dialogue.turns:
        raise FieldError("turns", "empty: a dialogue has at least one turn")
    # One quick pass over every dialogue; the field is looked for only when one fails.
    for turn in dialogue.turns:
        acts, length = ACTS_OF[turn.speaker], len(turn.utterance)
        for frame in turn.frames:
            for span in frame.slots:
                if not 0 <= span.start <= span.exclusive_end <= length:
                    raise first_problem(dialogue)
            for action in frame.actions:
                if action.act not in acts or len(action.values) != len(action.canonical_values):
                    raise first_problem(dialogue)


def first_problem(dialogue):
    """The FieldError of the first value check_dialogue refuses."""
    for t, turn in enumerate(dialogue.turns):
        length = len(turn.utterance)
        for f, frame in enumerate(turn.frames):
            where = f"turns[{t}].frames[{f}]"
            for s, span in enumerate(frame.slots):
                if not 0 <= span.start <= span.exclusive_end <= length:
                    return FieldError(f"{where}.slots[{s}]", f"span {span.start}:{span.exclusive_end} lies outside "
                                                             f"the utterance ({length} characters)")
            for a, action in enumerate(frame.actions):
                if action.act not in ACTS_OF[turn.speaker]:
                    return FieldError(f"{where}.actions[{a}].act", f"{action.act!r} is not a {turn.speaker} act")
                if len(action.values) != len(action.canonical_values):
                    return FieldError(f"{where}.actions[{a}].canonical_values",
                                      f"{len(action.canonical_values)} canonical values for "
                                      f"{len(action.values)} values")
    raise AssertionError("check_dialogue refused a dialogue with no problem")
