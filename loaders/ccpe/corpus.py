"""CCPE-M (Coached Conversational Preference Elicitation, movies): what the shared code knows of it."""

import json
import os

from unified_dialogue import chat, views
from unified_dialogue.core.corpus import Config, Corpus, Measure
from unified_dialogue.core.features import UNIFIED_FEATURES, locates

from .mapping import FILE, ORIGINAL_FEATURES, SPLIT

CITATION = """\
@inproceedings{radlinski-etal-2019-ccpe,
  title = {Coached Conversational Preference Elicitation: A Case Study in Understanding Movie Preferences},
  author = {Filip Radlinski and Krisztian Balog and Bill Byrne and Karthik Krishnamoorthi},
  booktitle = {Proceedings of the Annual Meeting of the Special Interest Group on Discourse and Dialogue ({SIGDIAL})},
  year = 2019
}"""
UPSTREAM_CONVERSATIONS = 502


def count(record, acc):
    """Add one unified record to a split's statistics (the measures below)."""
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
            acc["unlocated_segments"] += not locates(segment["start"], segment["end"], segment["text"], text)
            for annotation in segment["annotations"]:
                acc["annotations"] += 1
                acc["annotation_types"][annotation["annotation_type"]] += 1
                acc["entity_types"][annotation["entity_type"]] += 1


def replicate(source, destination, scale):
    """A ``data.json`` of ``502 × scale`` conversations, those of ``source`` (a file in the
    upstream layout) repeated under new ids; returns ``{split: [path]}``."""
    with open(source, encoding="utf-8") as f:
        sample = json.load(f)
    total = UPSTREAM_CONVERSATIONS * scale
    conversations = [{**c, "conversationId": f"{c['conversationId']}-{n}"}
                     for n, c in zip(range(total), (c for _ in range(total) for c in sample))]
    path = os.path.join(destination, FILE)
    os.makedirs(destination, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(conversations, f, indent=2)
    return {SPLIT: [path]}


CORPUS = Corpus(
    name="ccpe",
    package=__package__,
    short_name="CCPE-M",
    pretty_name="CCPE-M (Coached Conversational Preference Elicitation, movies) in the unified dialogue schema",
    description="CCPE-M: 502 English conversations eliciting movie preferences, annotated with entities and "
                "preferences.",
    homepage="https://research.google/tools/datasets/coached-conversational-preference-elicitation/",
    citation=CITATION,
    license="CC BY 4.0 (upstream README; the older Hugging Face card says CC BY-SA 4.0)",
    base_url="https://storage.googleapis.com/dialog-data-corpus/CCPE-M-2019",
    source_revision="CCPE-M-2019",
    configs=(
        Config("unified", "Conversations in the unified schema.", UNIFIED_FEATURES),
        Config("original", "Conversations as the source has them.", ORIGINAL_FEATURES, key=("conversationId",)),
        views.config("response", role="ASSISTANT"),
        views.config("nlu"),
        chat.config("response", role="ASSISTANT"),
        chat.config("nlu"),
    ),
    splits=(SPLIT,),
    split_files={SPLIT: FILE},
    license_ids=("cc-by-sa-4.0",),
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
    count=count,
    local_copies=("ccpe/data.json", "ccpe/sample-data.json"),
    replicate=replicate,
    bench_source=os.path.join("tests", "fixtures", "ccpe", "sample-data.json"),
)
