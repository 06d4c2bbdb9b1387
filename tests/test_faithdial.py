"""FaithDial on its fixtures: lossless round trips, counts, the union splits, bad input, the
download path, both datasets lines, and concatenation with the other corpora."""

import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path

import datasets
import pytest

from conftest import ONLY_DATASETS_3, ONLY_DATASETS_4_PLUS, checksums, expected_counts, fixture_dir
from mirror import Mirror
from unified_dialogue import UNIFIED_FEATURES, faithdial, load
from unified_dialogue.errors import ChecksumError, MissingFilesError, SourceFormatError
from unified_dialogue.sources import UNKNOWN, read_checksum_table

ROOT = Path(__file__).parent.parent
EXPECTED = Path(__file__).parent / "expected"
PREFIX = "datasets/McGill-NLP/FaithDial/resolve/7a414e80725eac766f2602676dc8b39f80b061e4"


def source_file(split):
    return fixture_dir("faithdial") / faithdial.SPLIT_FILES[split]


def dump_like_the_fixtures(dialogues):
    return json.dumps(dialogues, indent=2, ensure_ascii=False) + "\n"


def copy_with(tmp_path, replacements):
    """A copy of the fixtures whose files ``replacements`` (relpath -> bad file) replaces."""
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("faithdial"), copy)
    for relpath, bad in replacements.items():
        shutil.copy(fixture_dir("faithdial") / "bad" / bad, copy / relpath)
    return copy


# ---------------------------------------------------------------- round trips and counts

def test_unified_round_trip_reproduces_every_source_file_byte_for_byte(build):
    dsd = build("faithdial")
    assert sorted(dsd) == sorted(faithdial.SPLIT_FILES)
    for split, ds in dsd.items():
        rebuilt = [faithdial.unified_to_source(record) for record in ds]
        assert dump_like_the_fixtures(rebuilt) == source_file(split).read_text(encoding="utf-8"), split


def test_original_round_trip_reproduces_every_source_file_byte_for_byte(build):
    for split, ds in build("faithdial", "original").items():
        rebuilt = faithdial.original_to_source(ds)
        assert dump_like_the_fixtures(rebuilt) == source_file(split).read_text(encoding="utf-8"), split


def test_counts_and_labels_match_the_fixture_notes(build):
    unified, original = build("faithdial"), build("faithdial", "original")
    for split, expected in expected_counts("faithdial").items():
        records, rows = unified[split], original[split]
        assert faithdial.SPLIT_FILES[split] == expected["file"]
        assert [int(r["original_id"]) for r in records] == expected["dialog_idx"]
        assert [r["dialog_idx"] for r in rows if r["utterance_position"] == 0] == expected["dialog_idx"]
        turns = [t for r in records for t in r["dialog"]]
        responses = [t for t in turns if t["original_response"] is not None]
        assert len(rows) == len(responses) == expected["wizard_responses"], split
        assert sum(t["roles"] == ["Seeker"] for t in turns) == expected["seeker_turns"], split
        assert len(turns) == expected["turns"], split
        assert sum(r["dialog"][0]["roles"] == ["Wizard"] for r in records) == expected["wizard_first_dialogues"]
        originals = [t["original_response"]["utterance"] for t in responses]
        assert {"null": originals.count(None), "empty": originals.count(""),
                "edited": sum(bool(o) for o in originals)} == expected["original_response"], split
        assert Counter(b for t in responses for b in t["original_response"]["begin"]) == expected["begin"], split
        acts = [a["act"] for t in responses for a in t["dialog_acts"]]
        assert Counter(acts) == expected["vrm"], split
        assert Counter(map(faithdial.normalized_vrm, acts)) == expected["vrm_normalized"], split


def test_whole_conversation_matches_the_expected_record(build):
    # train d2: the Wizard speaks first; original responses "", edited and null; two VRM labels.
    expected = json.loads((EXPECTED / "faithdial_unified_train_2.json").read_text(encoding="utf-8"))
    (record,) = [r for r in build("faithdial")["train"] if r["original_id"] == "2"]
    assert record == expected


def test_roles_alternate_and_end_with_a_wizard_response(build):
    for ds in build("faithdial").values():
        for record in ds:
            roles = [t["roles"][0] for t in record["dialog"]]
            assert roles[-1] == "Wizard"
            assert all(a != b for a, b in zip(roles, roles[1:])), record["dialogue_id"]


def test_absent_stays_distinct_from_empty(build):
    for ds in build("faithdial").values():
        for record in ds:
            assert record["domain"] is None and record["unseen_domains"] is None and record["summary"] is None
            for turn in record["dialog"]:
                seeker = turn["roles"] == ["Seeker"]
                assert (turn["dialog_acts"] is None) == seeker
                assert (turn["knowledge_to_select"] is None) == seeker
                assert (turn["original_response"] is None) == seeker
                assert turn["belief_state"] is None and turn["frames"] is None and turn["segments"] is None
                assert all(a["slot_value_table"] is None and a["domain"] is None for a in turn["dialog_acts"] or [])


def test_knowledge_text_lists_the_sentences_each_wizard_turn_selects(build):
    for ds in build("faithdial").values():
        for record in ds:
            assert record["knowledge"]["type"] == "text" and record["knowledge"]["value"]["schema"] is None
            sentences = record["knowledge"]["value"]["text"].split(faithdial.KNOWLEDGE_SEPARATOR)
            selected = [t["knowledge_to_select"] for t in record["dialog"] if t["roles"] == ["Wizard"]]
            assert sentences == list(dict.fromkeys(selected))


def test_no_dialog_idx_round_trips_to_its_absence(tmp_path):
    copy = copy_with(tmp_path, {"data/train.json": "no_dialog_idx.json"})
    text = (copy / "data/train.json").read_text(encoding="utf-8")
    unified = load("faithdial", split="train", data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    assert [(r["original_id"], r["dialogue_id"]) for r in unified] == [
        (None, "faithdial/train/#0"), (None, "faithdial/train/#1")]
    assert dump_like_the_fixtures([faithdial.unified_to_source(r) for r in unified]) == text
    original = load("faithdial", "original", split="train", data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    assert [r["dialog_idx"] for r in original] == [None, None, None]
    assert dump_like_the_fixtures(faithdial.original_to_source(original)) == text


# ---------------------------------------------------------------- the union splits

@pytest.mark.parametrize("config", ["unified", "original"])
def test_validation_and_test_are_the_unions_of_their_random_and_topic_splits(build, config):
    dsd = build("faithdial", config)

    def by_idx(split):
        if config == "original":
            return {(r["dialog_idx"], r["utterance_position"]): {**r, "dialogue_position": None} for r in dsd[split]}
        return {r["original_id"]: {**r, "dialogue_id": None, "split": None} for r in dsd[split]}

    for union, parts in faithdial.UNIONS.items():
        whole = by_idx(union)
        merged = {}
        for part in parts:
            assert not set(merged) & set(by_idx(part))
            merged.update(by_idx(part))
        assert merged == whole, union


def test_unions_interleave_their_parts_by_dialog_idx(build):
    dsd = build("faithdial")
    for union, parts in faithdial.UNIONS.items():
        part_of = {r["original_id"]: part for part in parts for r in dsd[part]}
        order = [part_of[r["original_id"]] for r in dsd[union]]
        assert [int(r["original_id"]) for r in dsd[union]] == sorted(int(i) for i in part_of)
        assert order != sorted(order), union  # not one part after the other


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("config", ["unified", "original"])
@pytest.mark.parametrize("bad, field, problem", [
    ("missing_key.json", "utterances[1].response", "missing"),
    ("labels_wrong_type.json", "utterances[1].BEGIN", "expected a list of strings, got str 'Entailment'"),
])
def test_bad_file_error_names_file_dialogue_and_field(tmp_path, config, bad, field, problem):
    copy = copy_with(tmp_path, {"data/test_topic_split.json": bad})
    with pytest.raises(SourceFormatError) as error:
        load("faithdial", config, data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    assert str(error.value) == f"data/test_topic_split.json: dialogue #0 (dialog_idx 0): field '{field}': {problem}"


def test_invalid_json_names_the_file(tmp_path):
    copy = copy_with(tmp_path, {"data/valid.json": "invalid_json.json"})
    with pytest.raises(SourceFormatError, match=r"^data/valid.json: whole file: field '\(json\)': invalid JSON"):
        load("faithdial", data_dir=str(copy), cache_dir=str(tmp_path / "c"))


def test_history_contradiction_is_an_error_naming_dialogue_and_turn(tmp_path):
    copy = copy_with(tmp_path, {"data/train.json": "history_contradiction.json"})
    with pytest.raises(SourceFormatError) as error:
        load("faithdial", data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    message = str(error.value)
    assert message.startswith("data/train.json: dialogue #0 (dialog_idx 0): field 'utterances[1].history[1]': "
                              "turn 1 of the conversation differs from the response of utterances[0]")
    assert "'Sure, penguins live at the North Pole" in message


def test_history_contradiction_is_reported_by_the_original_config(tmp_path, caplog):
    copy = copy_with(tmp_path, {"data/train.json": "history_contradiction.json"})
    rows = load("faithdial", "original", split="train", data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    assert "data/train.json: dialogue #0 (dialog_idx 0): field 'utterances[1].history[1]'" in caplog.text
    source = (copy / "data/train.json").read_text(encoding="utf-8")
    assert dump_like_the_fixtures(faithdial.original_to_source(rows)) == source


# ---------------------------------------------------------------- files and downloads

@pytest.fixture
def mirror():
    server = Mirror(fixture_dir("faithdial"), PREFIX)
    yield server
    server.close()


def test_bundled_table_lists_the_seven_files_with_unknown_checksums():
    from loaders.faithdial.faithdial import FaithDial

    assert FaithDial.BASE_URL == f"https://huggingface.co/{PREFIX}"
    table = read_checksum_table(corpus="faithdial")
    assert sorted(table) == sorted(faithdial.SPLIT_FILES.values())
    assert all(r.num_bytes == UNKNOWN and r.sha256 == UNKNOWN for r in table.values())


def test_download_verifies_and_builds(mirror, tmp_path, build):
    dsd = load("faithdial", base_url=mirror.url, checksums=checksums("faithdial"), cache_dir=str(tmp_path))
    assert mirror.fetched() == sorted(faithdial.SPLIT_FILES.values())
    for split, ds in build("faithdial").items():
        assert dsd[split].to_list() == ds.to_list(), split


def test_corrupted_download_fails_naming_file_and_checksums(mirror, tmp_path):
    mirror.corrupted.add("data/valid_topic_split.json")
    with pytest.raises(ChecksumError) as error:
        load("faithdial", base_url=mirror.url, checksums=checksums("faithdial"), cache_dir=str(tmp_path))
    expected = read_checksum_table(checksums("faithdial"))["data/valid_topic_split.json"].sha256
    assert "data/valid_topic_split.json" in str(error.value) and expected in str(error.value)


def test_unknown_checksums_still_catch_a_broken_download(mirror, tmp_path):
    mirror.corrupted.add("data/test.json")  # its closing bracket is overwritten
    with pytest.raises(SourceFormatError, match=r"^data/test.json: whole file: field '\(json\)': invalid JSON"):
        load("faithdial", "original", base_url=mirror.url, cache_dir=str(tmp_path))


def test_streaming_download_gives_the_prepared_records(mirror, build):
    streamed = load("faithdial", split="test_topic", base_url=mirror.url, checksums=checksums("faithdial"),
                    streaming=True)
    assert list(streamed) == build("faithdial")["test_topic"].to_list()


def test_local_copy_missing_a_file(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("faithdial"), copy)
    (copy / "data/test_topic_split.json").unlink()
    with pytest.raises(MissingFilesError, match="data/test_topic_split.json"):
        load("faithdial", data_dir=str(copy), cache_dir=str(tmp_path / "a"))
    dsd = load("faithdial", data_dir=str(copy), cache_dir=str(tmp_path / "b"), verification_mode="no_checks")
    assert sorted(dsd) == sorted(set(faithdial.SPLIT_FILES) - {"test_topic"})


@ONLY_DATASETS_3
def test_load_dataset_script_gives_the_entry_point_records(build, tmp_path):
    for config in ("unified", "original"):
        via_script = datasets.load_dataset(
            str(ROOT / "loaders" / "faithdial"), config, data_dir=str(fixture_dir("faithdial")),
            checksums=checksums("faithdial"), cache_dir=str(tmp_path), trust_remote_code=True)
        via_entry = build("faithdial", config)
        assert sorted(via_script) == sorted(via_entry)
        for split in via_entry:
            assert via_script[split].to_list() == via_entry[split].to_list()


@ONLY_DATASETS_4_PLUS
def test_load_dataset_refuses_the_script_so_the_entry_point_is_needed():
    with pytest.raises(RuntimeError, match="scripts are no longer supported"):
        datasets.load_dataset(str(ROOT / "loaders" / "faithdial"), data_dir=str(fixture_dir("faithdial")))


# ---------------------------------------------------------------- with the other corpora

def test_unified_concatenates_with_the_other_corpora_and_reads_back(build, tmp_path):
    corpora = ["sgd", "faithdial"]
    if importlib.util.find_spec("loaders.ccpe") and importlib.util.find_spec("loaders.ccpe.ccpe") \
            and fixture_dir("ccpe").is_dir():
        corpora.insert(1, "ccpe")
    parts = [ds for corpus in corpora for ds in build(corpus).values()]
    combined = datasets.concatenate_datasets(parts)
    assert combined.features == UNIFIED_FEATURES
    expected = [record for ds in parts for record in ds]
    assert combined.to_list() == expected
    combined.to_parquet(str(tmp_path / "all.parquet"))
    read_back = datasets.Dataset.from_parquet(str(tmp_path / "all.parquet"), features=UNIFIED_FEATURES,
                                              cache_dir=str(tmp_path / "c"))
    assert read_back.to_list() == expected
    assert {r["corpus"] for r in read_back} == set(corpora)


@pytest.mark.parametrize("config, record, field", [
    ("unified", "record #1", "dialog[5].utterance"),  # the file's second dialogue, as a unified record
    ("original", "record #4", "response"),  # the original config has one record per utterance
])
def test_a_lone_surrogate_names_file_record_and_field(tmp_path, config, record, field):
    copy = copy_with(tmp_path, {})
    path = copy / "data/test_topic_split.json"
    dialogues = json.loads(path.read_text())
    dialogues[-1]["utterances"][-1]["response"] = "\ud800"  # json reads it; Arrow cannot store it
    path.write_text(json.dumps(dialogues))
    with pytest.raises(SourceFormatError, match="lone surrogate") as error:
        load("faithdial", config, data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    assert (error.value.file, error.value.record, error.value.field) == ("data/test_topic_split.json", record, field)
