"""The Schema-Guided Dialogue dataset (SGD / DSTC8): what the shared code knows of it."""

import glob
import os

from unified_dialogue import chat, environment, views
from unified_dialogue.core.corpus import Config, Corpus, Measure
from unified_dialogue.core.features import UNIFIED_FEATURES

from .format import ACTS
from .sgdx import VARIANTS
from .mapping import ORIGINAL_FEATURES, SCHEMA_FEATURES

COMMIT = "2aaccde45fd85e9c7d9887280a0c7acddc605107"
REPOSITORY = "https://raw.githubusercontent.com/google-research-datasets/dstc8-schema-guided-dialogue"
# SGD-X's variant schemas were added later; the SGD files are the same at this commit.
SGDX_COMMIT = "e852981ae34990f4358979625854259302feaa78"
SGDX_BASE_URL = f"{REPOSITORY}/{SGDX_COMMIT}"
SGDX_CHECKSUMS = os.path.join(os.path.dirname(__file__), "checksums_sgdx.tsv")
# The user's acts that end the conversation (user-chat's stop marker): every dialogue's last
# user turn, and no other, has GOODBYE, or NEGATE with THANK_YOU ("No, thank you"), in all
# 131,262 user turns of the train and dev files measured.
CLOSING_ACTS = (("GOODBYE",), ("NEGATE", "THANK_YOU"))
# Upstream's split folders; dev is the validation split.
SPLIT_DIRS = {"train": "train", "validation": "dev", "test": "test"}

CITATION = """\
@inproceedings{rastogi2020towards,
  title={Towards Scalable Multi-Domain Conversational Agents: The Schema-Guided Dialogue Dataset},
  author={Rastogi, Abhinav and Zang, Xiaoxue and Sunkara, Srinivas and Gupta, Raghav and Khaitan, Pranav},
  booktitle={Proceedings of the AAAI Conference on Artificial Intelligence},
  volume={34}, number={05}, pages={8689--8696}, year={2020}
}"""


def count(record, acc):
    """Add one unified record to a split's statistics (the measures below)."""
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


def replicate(source, destination, scale):
    """A copy of ``source`` (upstream layout) whose split folders hold each dialogue file
    ``scale`` times under new numbers: the first time as a symbolic link, then with the
    dialogue ids made new (ids are unique in a split); returns ``{split: [paths]}``."""
    data_files = {}
    for split, folder in SPLIT_DIRS.items():
        originals = sorted(glob.glob(os.path.join(source, folder, "dialogues_*.json")))
        schema = os.path.join(source, folder, "schema.json")
        if not originals or not os.path.exists(schema):
            continue
        os.makedirs(os.path.join(destination, folder))
        os.symlink(os.path.abspath(schema), os.path.join(destination, folder, "schema.json"))
        width = max(3, len(str(len(originals) * scale)))
        data_files[split] = []
        for number, (copy, path) in enumerate(((c, p) for c in range(scale) for p in originals), start=1):
            target = os.path.join(destination, folder, f"dialogues_{number:0{width}d}.json")
            if copy == 0:
                os.symlink(os.path.abspath(path), target)
            else:
                with open(path, "rb") as f, open(target, "wb") as out:
                    out.write(f.read().replace(b'"dialogue_id": "', f'"dialogue_id": "copy{copy}-'.encode()))
            data_files[split].append(target)
    return data_files


CORPUS = Corpus(
    name="sgd",
    package=__package__,
    short_name="SGD",
    pretty_name="Schema-Guided Dialogue (SGD / DSTC8) in the unified dialogue schema",
    description="Schema-Guided Dialogue: 20k+ annotated multi-domain task-oriented dialogues over 45 services.",
    homepage="https://github.com/google-research-datasets/dstc8-schema-guided-dialogue",
    citation=CITATION,
    license="CC BY-SA 4.0",
    base_url=f"{REPOSITORY}/{COMMIT}",
    source_revision=COMMIT,
    configs=(
        Config("unified", "Dialogues in the unified schema.", UNIFIED_FEATURES),
        Config("original", "Dialogues as the source has them.", ORIGINAL_FEATURES),
        Config("schema", "The service schemas of each split.", SCHEMA_FEATURES, key=("service_name",)),
        views.config("dst"),
        views.config("nlg", role="SYSTEM", act_names=ACTS),
        views.config("response", role="SYSTEM"),
        views.config("nlu"),
        views.config("d3st"),
        chat.config("dst"),
        chat.config("nlg", role="SYSTEM", act_names=ACTS),
        chat.config("response", role="SYSTEM"),
        chat.config("nlu"),
        chat.config("user", role="USER", closing=CLOSING_ACTS),
        *chat.agent_configs(),
        *environment.configs(),
    ),
    splits=tuple(SPLIT_DIRS),
    variants=VARIANTS,
    split_files={split: f"{folder}/dialogues_*.json" for split, folder in SPLIT_DIRS.items()},
    support_files={split: f"{folder}/schema.json" for split, folder in SPLIT_DIRS.items()},
    license_ids=("cc-by-sa-4.0",),
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
    count=count,
    local_copies=("sgd",),
    replicate=replicate,
    bench_source=os.path.join("tests", "fixtures", "sgd"),
)
