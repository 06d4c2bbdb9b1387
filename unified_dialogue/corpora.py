"""The corpora that cards, export and publishing know about: configs, splits, card metadata
and the figures each corpus's statistics report.

Configs and splits are declared here so that a card can be written without building; a
test checks them against what each loader actually builds.
"""

import importlib.util
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Measure:
    """One figure of a split's statistics.

    ``kind``: ``count`` (a number added up over dialogues), ``distinct`` (the number of
    different values seen) or ``labels`` (a count per label, shown as its own table).
    """

    key: str
    label: str
    kind: str = "count"


@dataclass(frozen=True)
class Corpus:
    name: str
    short_name: str
    pretty_name: str
    configs: tuple
    splits: tuple
    # Hugging Face card metadata.
    license: tuple
    license_text: str  # the license and attribution line of the combined card
    task_categories: tuple
    task_ids: tuple
    source_datasets: tuple
    # Statistics: corpus figures after the shared ones (dialogues, turns, dialog acts), and
    # a function that adds one unified record to a split's accumulator.
    measures: tuple
    count: Callable
    # The files a local copy (``data_dir``) provides, as the loader globs them.
    local_pattern: str
    # Where ``make cards DATA=<folder>`` looks for a local copy, relative to the folder; the
    # first that exists is used. A file stands in for the corpus's single source file.
    local_copies: tuple
    # Splits of the combined ``unified`` config of an ``all`` export this corpus adds to.
    common_splits: tuple = ("train", "validation", "test")
    default_config: str = "unified"
    language: tuple = ("en",)

    @property
    def module(self):
        return f"loaders.{self.name}.{self.name}"

    def available(self):
        """Whether this checkout has the corpus's loader."""
        package = f"loaders.{self.name}"
        return importlib.util.find_spec(package) is not None and importlib.util.find_spec(self.module) is not None


# ---------------------------------------------------------------- SGD

def _count_sgd(record, acc):
    for turn in record["dialog"]:
        acc["turns_with_two_frames"] += len(turn["frames"]) > 1
        acc["service_calls"] += turn["query"] is not None
        for frame in turn["frames"]:
            acc["frames"] += 1
            acc["spans"] += len(frame["slots"])
            acc["seen_frames"] += frame["unseen"] is False
            acc["unseen_frames"] += frame["unseen"] is True
    unseen = set(record["unseen_domains"] or [])
    acc["services"].update(record["domain"])
    acc["unseen_services"].update(unseen)
    if record["unseen_domains"] is not None:
        acc["seen_services"].update(s for s in record["domain"] if s not in unseen)


SGD = Corpus(
    name="sgd",
    short_name="SGD",
    pretty_name="Schema-Guided Dialogue (SGD / DSTC8) in the unified dialogue schema",
    configs=("unified", "original", "schema"),
    splits=("train", "validation", "test"),
    license=("cc-by-sa-4.0",),
    license_text="SGD: © Google, CC BY-SA 4.0; adaptations are shared under the same license.",
    task_categories=("text-generation", "text-classification", "token-classification"),
    task_ids=("dialogue-modeling", "intent-classification"),
    source_datasets=("extended|schema_guided_dstc8",),
    measures=(
        Measure("spans", "slot spans (`frames[].slots`)"),
        Measure("frames", "frames"),
        Measure("seen_frames", "frames of seen services"),
        Measure("unseen_frames", "frames of unseen services"),
        Measure("turns_with_two_frames", "turns with two frames"),
        Measure("service_calls", "service calls (`query`)"),
        Measure("services", "services in the dialogues", "distinct"),
        Measure("seen_services", "seen services", "distinct"),
        Measure("unseen_services", "unseen services", "distinct"),
    ),
    count=_count_sgd,
    local_pattern="*/*.json",
    local_copies=("sgd",),
)


# ---------------------------------------------------------------- CCPE-M

def _count_ccpe(record, acc):
    for turn in record["dialog"]:
        acc["user_turns" if turn["roles"] == ["USER"] else "assistant_turns"] += 1
        acc["entity_names"] += sum(len(entity["values"]) for entity in turn["named_entity_recognition"] or [])
        acc["aspects"] += len(turn["aspects"] or [])
        if turn["segments"] is None:
            acc["turns_without_segments"] += 1
            continue
        text = turn["utterance"]
        for segment in turn["segments"]:
            acc["spans"] += 1
            start, end = segment["start"], segment["end"]
            acc["unlocated_segments"] += not (0 <= start <= end <= len(text) and text[start:end] == segment["text"])
            for annotation in segment["annotations"]:
                acc["annotations"] += 1
                acc["annotation_types"][annotation["annotation_type"]] += 1
                acc["entity_types"][annotation["entity_type"]] += 1


CCPE = Corpus(
    name="ccpe",
    short_name="CCPE-M",
    pretty_name="CCPE-M (Coached Conversational Preference Elicitation, movies) in the unified dialogue schema",
    configs=("unified", "original"),
    splits=("train",),
    license=("cc-by-sa-4.0",),
    license_text=("CCPE-M: © Google; the upstream README says CC BY 4.0, the earlier Hugging Face card "
                  "CC BY-SA 4.0; this adaptation is shared under CC BY-SA 4.0, which both allow."),
    task_categories=("text-generation", "token-classification"),
    task_ids=("dialogue-modeling", "named-entity-recognition"),
    source_datasets=("extended|coached_conv_pref",),
    measures=(
        Measure("spans", "segments (annotated spans)"),
        Measure("user_turns", "USER turns"),
        Measure("assistant_turns", "ASSISTANT turns"),
        Measure("turns_without_segments", "turns without `segments` (no annotation)"),
        Measure("annotations", "annotations"),
        Measure("unlocated_segments", "segments whose offsets do not locate their text"),
        Measure("entity_names", "entity names (`named_entity_recognition` values)"),
        Measure("aspects", "preferences (`aspects`)"),
        Measure("annotation_types", "Annotations per annotation type", "labels"),
        Measure("entity_types", "Annotations per entity type", "labels"),
    ),
    count=_count_ccpe,
    local_pattern="data.json",
    local_copies=("ccpe/data.json", "ccpe/sample-data.json"),
    common_splits=("train",),
)


# ---------------------------------------------------------------- FaithDial

def _count_faithdial(record, acc):
    dialog = record["dialog"]
    acc["wizard_first"] += bool(dialog) and dialog[0]["roles"] == ["Wizard"]
    for turn in dialog:
        acc["wizard_turns" if turn["roles"] == ["Wizard"] else "seeker_turns"] += 1
        original = turn["original_response"]
        if original is None:
            continue
        acc["responses"] += 1
        if original["utterance"] is None:
            acc["original_null"] += 1
        elif original["utterance"] == "":
            acc["original_empty"] += 1
        else:
            acc["original_edited"] += 1
        acc["begin"].update(original["begin"])
        acc["vrm"].update(act["act"] for act in turn["dialog_acts"] or [])


FAITHDIAL = Corpus(
    name="faithdial",
    short_name="FaithDial",
    pretty_name="FaithDial in the unified dialogue schema",
    configs=("unified", "original"),
    splits=("train", "validation", "test", "validation_random", "validation_topic", "test_random", "test_topic"),
    license=("mit",),
    license_text="FaithDial: MIT; its knowledge sentences come from Wikipedia (CC BY-SA).",
    task_categories=("text-generation", "text-classification"),
    task_ids=("dialogue-modeling", "dialogue-generation", "multi-label-classification"),
    source_datasets=("extended|McGill-NLP/FaithDial",),
    measures=(
        Measure("spans", "character spans (FaithDial annotates none)"),
        Measure("seeker_turns", "Seeker turns"),
        Measure("wizard_turns", "Wizard turns"),
        Measure("responses", "Wizard responses (rows of `original`)"),
        Measure("wizard_first", "dialogues the Wizard opens"),
        Measure("original_edited", "responses edited from a different original"),
        Measure("original_empty", "responses whose original is `\"\"`"),
        Measure("original_null", "responses whose original is `null`"),
        Measure("begin", "BEGIN labels (of the original response, `original_response.begin`)", "labels"),
        Measure("vrm", "VRM labels (of the response, `dialog_acts[].act`, as written)", "labels"),
    ),
    count=_count_faithdial,
    local_pattern="data/*.json",
    local_copies=("faithdial",),
)

CORPORA = {corpus.name: corpus for corpus in (SGD, CCPE, FAITHDIAL)}


def get(name):
    try:
        return CORPORA[name]
    except KeyError:
        raise ValueError(f"unknown corpus {name!r}: expected one of {', '.join(CORPORA)}") from None
