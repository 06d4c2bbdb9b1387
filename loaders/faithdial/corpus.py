"""FaithDial: what the shared code knows of it."""

import json
import os

from unified_dialogue import chat, views
from unified_dialogue.views import critic, faithfulness
from unified_dialogue.core.corpus import Config, Corpus, Measure
from unified_dialogue.core.features import UNIFIED_FEATURES

from .format import WIZARD
from .mapping import ORIGINAL_FEATURES, SPLIT_FILES, UNIONS, VRM_ABBREVIATIONS

REVISION = "7a414e80725eac766f2602676dc8b39f80b061e4"
CITATION = """\
@article{dziri2022faithdial,
  title={FaithDial: A Faithful Benchmark for Information-Seeking Dialogue},
  author={Dziri, Nouha and Kamalloo, Ehsan and Milton, Sivan and Zaiane, Osmar and Yu, Mo and Ponti, Edoardo and Reddy, Siva},
  journal={arXiv preprint, arXiv:2204.10757},
  year={2022},
  url={https://arxiv.org/abs/2204.10757}
}"""
# The fixtures' 23 dialogues this many times are about the upstream 5,649.
UPSTREAM_COPIES = 250


def count(record, acc):
    """Add one unified record to a split's statistics (the measures below)."""
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
        count_faithfulness(turn, acc)


def count_faithfulness(turn, acc):
    """Add a Wizard turn's preference pair and critic rows, with the configs' default
    options, to a split's statistics (``views.faithfulness``'s rules, as the configs
    apply them)."""
    original, begin = turn["original_response"]["utterance"], turn["original_response"]["begin"]
    if faithfulness.rewritten(original, turn["utterance"]):
        acc["rewritten_begin"].update(begin)
    if faithfulness.rejected(original, turn["utterance"], begin):
        acc["preference_pairs"] += 1
    acc["critic_labels"].update(label for _, _, label in critic.examples(original, turn["utterance"], begin,
                                                                         faithfulness.UNFAITHFUL_DEFAULT, True))


def replicate(source, destination, scale):
    """FaithDial files whose dialogues are those of ``source`` (a folder holding ``data/``)
    ``250 × scale`` times, each copy with new ``dialog_idx`` values; ``{split: [path]}``."""
    data_files = {}
    for split, relpath in SPLIT_FILES.items():
        path = os.path.join(source, relpath)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            dialogues = json.load(f)
        step = 1 + max((d.get("dialog_idx", 0) for d in dialogues), default=0)
        copies = [{**d, "dialog_idx": d["dialog_idx"] + copy * step} if "dialog_idx" in d else d
                  for copy in range(UPSTREAM_COPIES * scale) for d in dialogues]
        target = os.path.join(destination, relpath)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            json.dump(copies, f, indent=2)
        data_files[split] = [target]
    return data_files


CORPUS = Corpus(
    name="faithdial",
    package=__package__,
    short_name="FaithDial",
    pretty_name="FaithDial in the unified dialogue schema",
    description="FaithDial: 5,649 information-seeking dialogues whose Wizard responses were edited to be "
                "faithful to their knowledge.",
    homepage="https://mcgill-nlp.github.io/FaithDial/",
    citation=CITATION,
    license="MIT (knowledge text from Wikipedia, CC BY-SA)",
    base_url=f"https://huggingface.co/datasets/McGill-NLP/FaithDial/resolve/{REVISION}",
    source_revision=REVISION,
    configs=(
        Config("unified", "Conversations in the unified schema.", UNIFIED_FEATURES),
        # One row per Wizard response: rows are no dialogues of their own.
        Config("original", "One row per Wizard response, as the source has it.", ORIGINAL_FEATURES, key=()),
        views.config("response", role=WIZARD, full_names=VRM_ABBREVIATIONS),
        chat.config("response", role=WIZARD, full_names=VRM_ABBREVIATIONS),
        *chat.preference_configs(role=WIZARD),
        views.config("critic", role=WIZARD),
        chat.config("critic", role=WIZARD),
    ),
    splits=tuple(SPLIT_FILES),
    split_files=SPLIT_FILES,
    split_unions=UNIONS,
    license_ids=("mit",),
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
        Measure("preference_pairs", "preference pairs (rows of `preference`: originals labelled Hallucination)"),
        Measure("rewritten_begin", "BEGIN labels of the originals the responses rewrote (a label named in the "
                                   "option `unfaithful` makes its rewrites pairs)", "labels"),
        Measure("critic_labels", "Labels of the `critic` rows (default options)", "labels"),
    ),
    count=count,
    local_copies=("faithdial",),
    replicate=replicate,
    bench_source=os.path.join("tests", "fixtures", "faithdial"),
)
