"""Dataset cards: valid Hub metadata, configs that match the loaders, statistics computed
from the data and rendered from the stored figures (never edited by hand)."""

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from conftest import checksums, fixture_dir
from unified_dialogue import registry
from unified_dialogue.testing import read_json
from unified_dialogue.tools import card_statistics, cards, stats

CARD_DIR = Path(__file__).parent.parent / "dataset_cards"
AVAILABLE = [c for c in registry.corpora().values() if c.package.startswith(f"{registry.BUNDLED}.")]
SGD, CCPE, FAITHDIAL = (registry.get(name) for name in ("sgd", "ccpe", "faithdial"))
# Hub identifiers the cards may use (https://huggingface.co/docs/hub/repositories-licenses,
# the Hub's task list).
HUB_LICENSES = {"cc-by-sa-4.0", "cc-by-4.0", "mit"}
HUB_TASK_CATEGORIES = {"text-generation", "text-classification", "token-classification", "question-answering"}
HUB_TASK_IDS = {"dialogue-modeling", "dialogue-generation", "intent-classification", "multi-label-classification",
                "named-entity-recognition"}
SIZE_CATEGORIES = {"n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M"}


def card_files():
    return sorted(CARD_DIR.glob("*.md"))


def test_a_card_for_every_available_corpus_and_the_combined_repository():
    assert [p.name for p in card_files()] == sorted([f"{c.name}.md" for c in AVAILABLE] + ["all.md"])


@pytest.mark.parametrize("path", card_files(), ids=lambda p: p.name)
def test_card_metadata_is_valid(path):
    card = DatasetCard.load(path)
    assert isinstance(card.data, DatasetCardData)
    data = card.data.to_dict()
    assert data["pretty_name"] and data["language"] == ["en"]
    assert data["license"] and set(data["license"]) <= HUB_LICENSES
    assert data["task_categories"] and set(data["task_categories"]) <= HUB_TASK_CATEGORIES
    assert set(data.get("task_ids", [])) <= HUB_TASK_IDS
    assert set(data.get("size_categories", [])) <= SIZE_CATEGORIES
    assert all(s.startswith(("original", "extended")) for s in data["source_datasets"])
    # datasets reads configs with this parser when loading a repository.
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert configs and sum(bool(c.get("default")) for c in configs.values()) == 1
    assert "dataset_info" not in data  # only an export knows the build's sizes
    # Every template placeholder was filled.
    assert not cards.PLACEHOLDER.search(card.text)


@pytest.mark.parametrize("corpus", AVAILABLE, ids=lambda c: c.name)
def test_the_builders_configs_are_the_declared_ones(corpus):
    cls = registry.builder_class(corpus)
    assert tuple(c.name for c in cls.BUILDER_CONFIGS) == corpus.config_names
    assert cls.DEFAULT_CONFIG_NAME == corpus.default_config


@pytest.mark.parametrize("corpus", AVAILABLE, ids=lambda c: c.name)
def test_the_declared_splits_are_the_splits_the_loader_builds(build, corpus):
    for config in corpus.config_names:
        assert tuple(build(corpus.name, config)) == corpus.splits, config


@pytest.mark.parametrize("corpus", AVAILABLE, ids=lambda c: c.name)
def test_card_configs_match_the_loader(corpus):
    configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(CARD_DIR / f"{corpus.name}.md").data)
    variants = [f"{config}_{variant}" for variant in corpus.variants for config in corpus.config_names]
    assert tuple(configs) == corpus.config_names + tuple(variants)
    for name, config in configs.items():
        assert [f["split"] for f in config["data_files"]] == list(corpus.splits)
        assert [f["path"] for f in config["data_files"]] == [f"{name}/{s}-*.parquet" for s in corpus.splits]
        assert bool(config.get("default")) == (name == corpus.default_config)


def test_combined_card_configs():
    configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(CARD_DIR / "all.md").data)
    # unified, then the views two corpora or more offer (CCPE-M, FaithDial and SGD: response; CCPE-M, SGD: nlu),
    # and their chat configs
    expected = ["unified", "response", "nlu", "response-chat", "nlu-chat"]
    for corpus in AVAILABLE:
        for variant in (None, *corpus.variants):
            names = [corpus.name if c == corpus.default_config else f"{corpus.name}_{c}" for c in corpus.config_names]
            expected += [f"{n}_{variant}" if variant else n for n in names]
    assert list(configs) == expected
    assert configs["unified"].get("default") is True
    train = next(f for f in configs["unified"]["data_files"] if f["split"] == "train")
    assert train["path"] == [f"{c.name}/train-*.parquet" for c in AVAILABLE if "train" in c.splits]
    train = next(f for f in configs["nlu"]["data_files"] if f["split"] == "train")
    assert train["path"] == ["ccpe_nlu/train-*.parquet", "sgd_nlu/train-*.parquet"]


def test_cards_are_rendered_from_the_stored_statistics(tmp_path, bundled_only):
    """The committed cards are exactly what `make cards` writes: nothing is edited by hand."""
    out = tmp_path / "cards"
    shutil.copytree(CARD_DIR, out)
    for path in out.glob("*.md"):
        path.unlink()
    cards.write_cards(str(out))
    for path in card_files():
        assert (out / path.name).read_text() == path.read_text(), f"{path.name}: run make cards"


def test_stored_statistics_are_not_figures_of_the_test_fixtures():
    fixture_hashes = {
        line.split("\t")[2] for corpus_dir in fixture_dir("sgd").parent.iterdir()
        if (corpus_dir / "SHA256SUMS.tsv").exists()
        for line in (corpus_dir / "SHA256SUMS.tsv").read_text().splitlines()[1:]
    }
    for path in (CARD_DIR / "stats").glob("*.json"):
        source = json.loads(path.read_text())["source"]
        assert source["table"] == "upstream", path.name
        assert not fixture_hashes & {f["sha256"] for f in source["files"]}, path.name


def test_sgd_statistics_of_the_fixtures(build):
    figures = stats.statistics(SGD, build("sgd"))
    assert list(figures) == ["train", "validation", "test"]
    # Counted independently from the source files.
    train_services = {s["service_name"] for s in read_json(fixture_dir("sgd") / "train/schema.json")}
    for split, folder in (("train", "train"), ("validation", "dev"), ("test", "test")):
        dialogues = [d for file in sorted((fixture_dir("sgd") / folder).glob("dialogues_*.json")) for d in read_json(file)]
        frames = [frame for d in dialogues for turn in d["turns"] for frame in turn["frames"]]
        f = figures[split]
        assert (f["dialogues"], f["turns"], f["dialog_acts"], f["spans"]) == (
            len(dialogues), sum(len(d["turns"]) for d in dialogues), sum(len(fr["actions"]) for fr in frames),
            sum(len(fr["slots"]) for fr in frames)), split
        unseen = sum(frame["service"] not in train_services for frame in frames)
        assert (f["frames"], f["unseen_frames"], f["seen_frames"]) == (len(frames), unseen, len(frames) - unseen)
    assert figures["validation"]["unseen_services"] == 3  # Alarm_1, Media_2, Movies_2
    assert figures["train"]["unseen_frames"] == 0


def test_ccpe_statistics_of_the_fixtures(build):
    f = stats.statistics(CCPE, build("ccpe"))["train"]
    conversations = read_json(fixture_dir("ccpe") / "data.json")
    utterances = [u for c in conversations for u in c["utterances"]]
    segments = [s for u in utterances for s in u.get("segments", [])]
    annotations = [a for s in segments for a in s["annotations"]]
    assert (f["dialogues"], f["turns"], f["spans"], f["annotations"]) == (
        len(conversations), len(utterances), len(segments), len(annotations))
    assert f["annotation_types"] == dict(sorted(Counter(a["annotationType"] for a in annotations).items()))
    assert f["user_turns"] == sum(u["speaker"] == "USER" for u in utterances)
    assert f["dialog_acts"] == 0  # CCPE-M has no dialogue acts


def test_faithdial_statistics_of_the_fixtures(build):
    figures = stats.statistics(FAITHDIAL, build("faithdial"))
    expected = read_json(fixture_dir("faithdial") / "EXPECTED.json")
    assert list(figures) == list(FAITHDIAL.splits) == list(expected)
    for split, e in expected.items():
        f = figures[split]
        assert (f["dialogues"], f["turns"], f["seeker_turns"], f["responses"], f["wizard_first"]) == (
            e["dialogues"], e["turns"], e["seeker_turns"], e["wizard_responses"], e["wizard_first_dialogues"]), split
        assert (f["original_null"], f["original_empty"], f["original_edited"]) == (
            e["original_response"]["null"], e["original_response"]["empty"], e["original_response"]["edited"]), split
        assert f["begin"] == e["begin"] and f["vrm"] == e["vrm"], split
        assert f["dialog_acts"] == sum(e["vrm"].values()) and f["spans"] == 0, split


def test_a_single_file_stands_in_for_the_corpus_file_and_is_reported_as_such(tmp_path):
    sample = tmp_path / "sample.json"
    shutil.copy(fixture_dir("ccpe") / "data.json", sample)
    result = stats.compute_stats(CCPE, str(sample))
    assert result["splits"]["train"]["dialogues"] == len(read_json(sample))
    (entry,) = result["source"]["files"]
    assert (entry["path"], entry["read_as"], entry["check"]) == ("sample.json", "data.json", "differs")
    text = cards.statistics_section(CCPE, result)
    assert "`sample.json` (" in text and "read as `data.json`), which differs from the upstream `data.json`" in text
    assert "not the whole corpus" in text


def test_local_source_checks_every_file_against_the_table(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    source = stats.local_source(SGD, str(copy), checksums("sgd"))
    assert [f["path"] for f in source["files"]] == [
        "dev/dialogues_001.json", "dev/schema.json", "test/dialogues_001.json", "test/schema.json",
        "train/dialogues_001.json", "train/dialogues_002.json", "train/schema.json"]
    assert all(f["check"] == "match" for f in source["files"])
    assert source["complete"] is False  # a table other than upstream's is never the whole corpus
    (copy / "dev" / "schema.json").write_text("[]")
    changed = stats.local_source(SGD, str(copy), checksums("sgd"))
    assert [(f["path"], f["check"]) for f in changed["files"] if f["check"] != "match"] == [("dev/schema.json", "differs")]
    # Against the upstream table the excerpts are not upstream files, and the card says so.
    upstream = stats.local_source(SGD, str(fixture_dir("sgd")))
    assert not any(f["check"] == "match" for f in upstream["files"]) and not upstream["complete"]
    sentence = card_statistics.source_sentence(SGD, upstream)
    assert sentence.count("differs from the upstream") == 7


def test_statistics_section_names_the_files_and_flags_partial_data():
    source = {"kind": "local copy", "table": "upstream", "table_files": 184, "complete": False, "files": [
        {"path": p, "num_bytes": 1, "sha256": "0" * 64, "check": "match"}
        for p in ["train/schema.json", "train/dialogues_001.json", "train/dialogues_002.json",
                  "train/dialogues_005.json"]]}
    figures = {"dialogues": 2, "turns": 10, "dialog_acts": 3}
    figures.update({m.key: 1 for m in SGD.measures})
    text = cards.statistics_section(SGD, {"source": source, "splits": {"train": figures}})
    assert "4 of the 184 upstream files" in text
    assert "`train/`: `schema.json`, `dialogues_001–002, 005.json`" in text
    assert "not the whole corpus; no data of `validation`, `test` was in them" in text
    assert "| dialogues | 2 | – | – |" in text


def test_statistics_section_without_figures_shows_none():
    text = cards.statistics_section(SGD, None)
    assert "Not computed" in text and "|" not in text


def test_size_category_only_for_the_complete_corpus():
    splits = {"train": {"dialogues": 16142}, "validation": {"dialogues": 2482}, "test": {"dialogues": 4201}}
    assert cards.size_category({"source": {"complete": True}, "splits": splits}) == "10K<n<100K"
    assert cards.size_category({"source": {"complete": False}, "splits": splits}) is None


def test_template_placeholders_must_all_have_values():
    assert cards.fill("a {{ x }} b", {"x": 1}) == "a 1 b"
    with pytest.raises(KeyError, match="y"):
        cards.fill("{{ x }} {{ y }}", {"x": 1})
