"""FaithDial: validation, rebuilt conversations, the ``unified`` and ``original`` mappings
and the reverse mappings back to the source. Pure functions, no I/O.

Source layout (``data/<file>.json``): a list of dialogues ``{"utterances": [...],
"dialog_idx": int}``; ``dialog_idx`` may be absent (readers then use the list position).
Each utterance is one Wizard response with its full history: ``{history, speaker,
knowledge, original_response, response, BEGIN, VRM}``. Seeker turns exist only inside
histories; ``history[-1]`` is the Seeker message being answered.
"""

import logging

from datasets import Features

from .errors import SourceFormatError
from .features import INT, STRING, UNIFIED_FEATURES, dialogue_id

CORPUS = "faithdial"
SEEKER, WIZARD = "Seeker", "Wizard"
SPLIT_FILES = {
    "train": "data/train.json",
    "validation": "data/valid.json",
    "test": "data/test.json",
    "validation_random": "data/valid_random_split.json",
    "validation_topic": "data/valid_topic_split.json",
    "test_random": "data/test_random_split.json",
    "test_topic": "data/test_topic_split.json",
}
# validation and test hold the dialogues of their random (seen topics) and topic (unseen
# topics) splits: never concatenate all seven splits.
UNIONS = {"validation": ("validation_random", "validation_topic"), "test": ("test_random", "test_topic")}
DIALOGUE_KEYS = ("utterances", "dialog_idx")
UTTERANCE_KEYS = ("history", "speaker", "knowledge", "original_response", "response", "BEGIN", "VRM")
# Abbreviations the data may use for VRM labels. The data keeps them as written;
# ``normalized_vrm`` gives the full name.
VRM_ABBREVIATIONS = {"Ack.": "Acknowledgment"}
# Separates the knowledge sentences in the dialogue-level knowledge text.
KNOWLEDGE_SEPARATOR = "\n"

ORIGINAL_FEATURES = Features({
    "history": [STRING],
    "speaker": STRING,
    "knowledge": STRING,
    "original_response": STRING,
    "response": STRING,
    "BEGIN": [STRING],
    "VRM": [STRING],
    "dialog_idx": INT,  # None where the source has none
    "dialogue_position": INT,  # the dialogue's position in its file
    "utterance_position": INT,  # the utterance's position in the dialogue's utterances
})
FEATURES = {"unified": UNIFIED_FEATURES, "original": ORIGINAL_FEATURES}
logger = logging.getLogger(__name__)


# ---------------------------------------------------------------- validation

def record_name(dialogue, position):
    """How errors name a dialogue: its position in the file and its dialog_idx."""
    if isinstance(dialogue, dict) and "dialog_idx" in dialogue:
        return f"dialogue #{position} (dialog_idx {dialogue['dialog_idx']!r:.40})"
    return f"dialogue #{position} (no dialog_idx)"


class _Where:
    """Raises SourceFormatError naming the file, the dialogue and the field."""

    def __init__(self, file, dialogue, position):
        self.file, self.record = file, record_name(dialogue, position)

    def fail(self, field, problem):
        raise SourceFormatError(self.file, self.record, field, problem)

    def keys(self, obj, required, optional, field):
        if not isinstance(obj, dict):
            self.fail(field or "(dialogue)", f"expected an object, got {type(obj).__name__}")
        prefix = f"{field}." if field else ""
        for key in required:
            if key not in obj:
                self.fail(prefix + key, "missing")
        for key in obj:
            if key not in required and key not in optional:
                self.fail(prefix + key, "unexpected key: not in the documented format (the mapping would drop it)")

    def check(self, value, kind, field, nullable=False):
        if value is None and nullable:
            return
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            expected = kind.__name__ + (" or null" if nullable else "")
            self.fail(field, f"expected {expected}, got {type(value).__name__} {value!r:.60}")

    def strings(self, value, field):
        if not isinstance(value, list):
            self.fail(field, f"expected a list of strings, got {type(value).__name__} {value!r:.60}")
        for i, item in enumerate(value):
            self.check(item, str, f"{field}[{i}]")


def validate_dialogue(dialogue, file, position):
    """Raise SourceFormatError at the first field that breaks the documented format."""
    w = _Where(file, dialogue, position)
    w.keys(dialogue, ("utterances",), ("dialog_idx",), "")
    if "dialog_idx" in dialogue:
        w.check(dialogue["dialog_idx"], int, "dialog_idx")
    w.check(dialogue["utterances"], list, "utterances")
    if not dialogue["utterances"]:
        w.fail("utterances", "empty: a dialogue has at least one Wizard response")
    for k, utterance in enumerate(dialogue["utterances"]):
        where = f"utterances[{k}]"
        w.keys(utterance, UTTERANCE_KEYS, (), where)
        w.strings(utterance["history"], f"{where}.history")
        w.check(utterance["speaker"], str, f"{where}.speaker")
        if utterance["speaker"] != WIZARD:
            w.fail(f"{where}.speaker",
                   f"expected {WIZARD!r} (each utterance is a Wizard response), got {utterance['speaker']!r:.40}")
        w.check(utterance["knowledge"], str, f"{where}.knowledge")
        w.check(utterance["original_response"], str, f"{where}.original_response", nullable=True)
        w.check(utterance["response"], str, f"{where}.response")
        w.strings(utterance["BEGIN"], f"{where}.BEGIN")
        w.strings(utterance["VRM"], f"{where}.VRM")


def conversation(dialogue, file, position):
    """The conversation's turns in order, each once, and the position of each utterance's
    response among them.

    Each history must repeat the conversation so far exactly: earlier histories, and the
    earlier utterances' responses where they reappear as Wizard turns. Any mismatch is an
    error naming the utterance and the history item. Turns alternate; the last item of each
    history is the Seeker message being answered.
    """
    w = _Where(file, dialogue, position)
    turns, positions = [], []
    for k, utterance in enumerate(dialogue["utterances"]):
        history = utterance["history"]
        field = f"utterances[{k}].history"
        if len(history) < len(turns):
            w.fail(field, f"{len(history)} turns, but the conversation already has {len(turns)} "
                          f"(the history and response of utterances[{k - 1}])")
        for p, (said, before) in enumerate(zip(history, turns)):
            if said != before:
                if p in positions:
                    owner = f"the response of utterances[{positions.index(p)}] (a Wizard turn)"
                else:
                    owner = "the same turn in the earlier histories"
                w.fail(f"{field}[{p}]", f"turn {p} of the conversation differs from {owner}: "
                                        f"{said!r:.80} != {before!r:.80}")
        if positions and (len(history) - positions[0]) % 2:
            w.fail(field, f"{len(history)} turns: its last item would be a Wizard turn, not the Seeker "
                          f"message answered (turns alternate from the response of utterances[0], "
                          f"turn {positions[0]} of the conversation)")
        turns.extend(history[len(turns):])
        positions.append(len(turns))
        turns.append(utterance["response"])
    return turns, positions


# ---------------------------------------------------------------- unified config

def normalized_vrm(label):
    """The full VRM label name (``Ack.`` -> ``Acknowledgment``); other labels unchanged."""
    return VRM_ABBREVIATIONS.get(label, label)


def vrm_to_act(label):
    """One VRM label as one dialog act, the label exactly as written. VRM has no domain and
    no slot values: both are None (not annotated)."""
    return {"act": label, "domain": None, "slot_value_table": None}


def response_turn(utterance):
    """A Wizard response with its annotations."""
    return {
        "roles": [utterance["speaker"]],
        "utterance": utterance["response"],
        "dialog_acts": [vrm_to_act(label) for label in utterance["VRM"]],
        "knowledge_to_select": utterance["knowledge"],
        "original_response": {"utterance": utterance["original_response"], "begin": utterance["BEGIN"]},
    }


def history_turn(text, role):
    """A turn that is only in histories: every Seeker turn (and a Wizard turn without a row)."""
    return {"roles": [role], "utterance": text}


def knowledge_sentences(utterances, file, dialogue, position):
    """The distinct knowledge sentences in order of first use; none may hold a line break."""
    sentences = []
    for k, utterance in enumerate(utterances):
        sentence = utterance["knowledge"]
        if KNOWLEDGE_SEPARATOR in sentence:
            _Where(file, dialogue, position).fail(
                f"utterances[{k}].knowledge", "contains a line break, which separates the sentences of the "
                                              "unified knowledge text")
        if sentence not in sentences:
            sentences.append(sentence)
    return sentences


def dialogue_to_unified(dialogue, split, file, position):
    """One FaithDial dialogue as one unified record (validate_dialogue first)."""
    turns, positions = conversation(dialogue, file, position)
    responses = dict(zip(positions, dialogue["utterances"]))
    wizard_parity = positions[0] % 2
    dialog = [
        response_turn(responses[p]) if p in responses
        else history_turn(text, WIZARD if p % 2 == wizard_parity else SEEKER)
        for p, text in enumerate(turns)
    ]
    sentences = knowledge_sentences(dialogue["utterances"], file, dialogue, position)
    original_id = str(dialogue["dialog_idx"]) if "dialog_idx" in dialogue else None
    return {
        "turn": "multi",
        "domain": None,
        "locale": "en",
        "dialog": dialog,
        "knowledge": {"type": "text", "value": {"text": KNOWLEDGE_SEPARATOR.join(sentences), "schema": None}},
        "dialogue_id": dialogue_id(CORPUS, split, f"#{position}" if original_id is None else original_id),
        "original_id": original_id,
        "corpus": CORPUS,
        "split": split,
    }


def unified_to_source(record):
    """Inverse of dialogue_to_unified: the source dialogue, exactly. Takes a loaded record
    (absent fields None) or the mapping's own output (absent fields left out)."""
    texts = [turn["utterance"] for turn in record["dialog"]]
    utterances = []
    for p, turn in enumerate(record["dialog"]):
        original = turn.get("original_response")
        if original is None:
            continue  # a turn that is only in histories
        utterances.append({
            "history": texts[:p],
            "speaker": turn["roles"][0],
            "knowledge": turn["knowledge_to_select"],
            "original_response": original["utterance"],
            "response": turn["utterance"],
            "BEGIN": original["begin"],
            "VRM": [act["act"] for act in turn["dialog_acts"]],
        })
    dialogue = {"utterances": utterances}
    if record.get("original_id") is not None:
        dialogue["dialog_idx"] = int(record["original_id"])
    return dialogue


# ---------------------------------------------------------------- original config

def dialogue_to_original(dialogue, position):
    """One row per Wizard response, as the source has it, with the dialogue's dialog_idx
    (None when absent) and the positions that group rows back into dialogues."""
    for k, utterance in enumerate(dialogue["utterances"]):
        yield {
            **{key: utterance[key] for key in UTTERANCE_KEYS},
            "dialog_idx": dialogue.get("dialog_idx"),
            "dialogue_position": position,
            "utterance_position": k,
        }


def original_to_source(rows):
    """Inverse of dialogue_to_original over a whole file: the source dialogues, exactly."""
    dialogues, positions = [], []
    for row in rows:
        if not positions or row["dialogue_position"] != positions[-1]:
            positions.append(row["dialogue_position"])
            dialogues.append({"utterances": []})  # dialog_idx follows utterances, as in the source
            if row["dialog_idx"] is not None:
                dialogues[-1]["dialog_idx"] = row["dialog_idx"]
        dialogues[-1]["utterances"].append({key: row[key] for key in UTTERANCE_KEYS})
    return dialogues


# ---------------------------------------------------------------- a whole file

def file_to_records(dialogues, file, split, config):
    """Validate every dialogue of a file (dialog_idx unique within it) and map it.

    Histories that contradict the conversation are an error for ``unified`` (which would
    have to choose one text) and a logged warning for ``original`` (which chooses nothing).
    """
    seen = {}
    for position, dialogue in enumerate(dialogues):
        validate_dialogue(dialogue, file, position)
        if "dialog_idx" in dialogue:
            idx = dialogue["dialog_idx"]
            if idx in seen:
                raise SourceFormatError(file, record_name(dialogue, position), "dialog_idx",
                                        f"also the dialog_idx of dialogue #{seen[idx]}: it must be unique in a file")
            seen[idx] = position
        if config == "original":
            try:
                conversation(dialogue, file, position)
            except SourceFormatError as error:  # reported; the rows stay as the source has them
                logger.warning("%s (the original config keeps the rows as they are)", error)
            yield from dialogue_to_original(dialogue, position)
        else:
            yield dialogue_to_unified(dialogue, split, file, position)
