"""CCPE-M on its fixtures: lossless round trips, the expected record, bad input, the download
path against a local server, and concatenation with SGD."""

import hashlib
import json
import logging
import shutil
import time
from collections import Counter
from pathlib import Path

import datasets
import pytest

from conftest import ONLY_DATASETS_3, ONLY_DATASETS_4_PLUS, checksums, expected_counts, fixture_dir
from mirror import Mirror
from unified_dialogue import UNIFIED_FEATURES, ccpe, load
from unified_dialogue.errors import ChecksumError, DownloadError, MissingFilesError, SourceFormatError

EXPECTED = Path(__file__).parent / "expected"
UPSTREAM = "https://storage.googleapis.com/dialog-data-corpus/CCPE-M-2019"
PREFIX = "dialog-data-corpus/CCPE-M-2019"
REVERSE = {"unified": ccpe.unified_to_source, "original": ccpe.original_to_source}


def source(name="data.json"):
    return json.loads((fixture_dir("ccpe") / name).read_text())


def copy_as_data_dir(tmp_path, file):
    """A folder holding ``file`` as data.json, and a checksum table for it."""
    folder = tmp_path / "copy"
    folder.mkdir()
    data = Path(file).read_bytes()
    (folder / "data.json").write_bytes(data)
    table = tmp_path / "checksums.tsv"
    table.write_text(f"path\tnum_bytes\tsha256\ndata.json\t{len(data)}\t{hashlib.sha256(data).hexdigest()}\n")
    return str(folder), str(table)


# ---------------------------------------------------------------- lossless

@pytest.mark.parametrize("config", ["unified", "original"])
def test_round_trip_reproduces_every_conversation_of_data_json(build, config):
    rebuilt = [REVERSE[config](record) for record in build("ccpe", config)["train"]]
    assert rebuilt == source()
    # key order included
    assert [json.dumps(c) for c in rebuilt] == [json.dumps(c) for c in source()]


@pytest.mark.parametrize("config", ["unified", "original"])
def test_round_trip_reproduces_the_real_sample(tmp_path, config):
    data_dir, table = copy_as_data_dir(tmp_path, fixture_dir("ccpe") / "sample-data.json")
    ds = load("ccpe", config, split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "cache"))
    rebuilt = [REVERSE[config](record) for record in ds]
    assert json.dumps(rebuilt) == json.dumps(source("sample-data.json"))


def test_whole_conversation_matches_the_expected_record(build):
    expected = json.loads((EXPECTED / "ccpe_unified_train_CCPE-test1.json").read_text())
    (record,) = [r for r in build("ccpe")["train"] if r["original_id"] == "CCPE-test1"]
    assert record == expected


def test_counts_of_segments_and_annotations(build):
    expected = expected_counts("ccpe")["train"]
    turns = [t for r in build("ccpe")["train"] for t in r["dialog"]]
    segments = [s for t in turns for s in t["segments"] or []]
    by_type = Counter(a["annotation_type"] for s in segments for a in s["annotations"])
    assert len(segments) == expected["segments"]
    assert sum(by_type.values()) == expected["annotations"]
    assert dict(by_type) == expected["annotations_by_type"]
    # every ENTITY_NAME is a named entity; every ENTITY_PREFERENCE gives at least one aspect
    assert sum(len(e["values"]) for t in turns for e in t["named_entity_recognition"]) == by_type["ENTITY_NAME"]
    opinions = {(i, a["opinion"]["start"], a["opinion"]["end"]) for i, t in enumerate(turns) for a in t["aspects"]}
    assert len(opinions) <= by_type["ENTITY_PREFERENCE"] <= sum(len(t["aspects"]) for t in turns)
    assert all(a["sentiment"] is None for t in turns for a in t["aspects"])


def test_every_utterance_is_a_turn_in_order(build):
    for record, conversation in zip(build("ccpe")["train"], source()):
        assert [(t["roles"], t["utterance"]) for t in record["dialog"]] == [
            ([u["speaker"]], u["text"]) for u in conversation["utterances"]]
    records = {r["original_id"]: r for r in build("ccpe")["train"]}
    assert records["CCPE-test3"]["dialog"][0]["roles"] == ["USER"]  # USER first, kept
    roles = [t["roles"][0] for t in records["CCPE-test1"]["dialog"]]
    assert roles[5] == roles[6] == "USER"  # consecutive same-speaker utterances stay apart


def test_absent_segments_stay_distinct_from_empty(build):
    record = build("ccpe")["train"][1]
    assert record["dialog"][0]["segments"] is None and record["dialog"][4]["segments"] == []
    row = build("ccpe", "original")["train"][1]
    assert row["utterances"][0]["segments"] is None and row["utterances"][4]["segments"] == []
    assert record["knowledge"] is None and record["unseen_domains"] is None
    assert all(t["dialog_acts"] is None and t["frames"] is None for t in record["dialog"])


def test_original_features(build):
    assert build("ccpe", "original")["train"].features == ccpe.ORIGINAL_FEATURES


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("file, record, field, problem", [
    ("invalid_json.json", "conversation CCPE-bad-json", "utterances[1].text", "invalid JSON at line 11 column 13"),
    ("missing_key.json", "conversation CCPE-bad-missing", "utterances[1].speaker", "missing"),
    ("unknown_label.json", "conversation CCPE-bad-label", "utterances[1].segments[0].annotations[0].annotationType",
     "unknown label 'ENTITY_FOO'"),
    ("wrong_type.json", "conversation CCPE-bad-type", "utterances[1].segments[0].startIndex", "expected int, got str '3'"),
])
@pytest.mark.parametrize("config", ["unified", "original"])
def test_bad_file_is_an_error_naming_conversation_utterance_and_field(tmp_path, config, file, record, field, problem):
    data_dir, table = copy_as_data_dir(tmp_path, fixture_dir("ccpe") / "bad" / file)
    with pytest.raises(SourceFormatError) as error:
        load("ccpe", config, data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "cache"))
    assert (error.value.file, error.value.record, error.value.field) == ("data.json", record, field)
    assert error.value.problem.startswith(problem)


OFFSET_FILES = [
    ("bad_offset.json", "conversation CCPE-bad-offset", "text 'saw ' differs from the utterance's text[6:10] 'Dune'"),
    ("offset_outside.json", "conversation CCPE-bad-outside", "offsets 17:25 lie outside the utterance (21 characters)"),
]


@pytest.mark.parametrize("file, record, problem", OFFSET_FILES)
def test_bad_offsets_are_reported_and_kept(tmp_path, caplog, file, record, problem):
    data_dir, table = copy_as_data_dir(tmp_path, fixture_dir("ccpe") / "bad" / file)
    with caplog.at_level(logging.WARNING, logger="unified_dialogue.ccpe"):
        unified = load("ccpe", split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "u"))
    messages = [r.getMessage() for r in caplog.records if r.name == "unified_dialogue.ccpe"]
    assert messages == [f"data.json: {record}: field 'utterances[1].segments[0]': {problem} "
                        "(kept as the source has it; its unified span has no start/end)"]
    (source_conversation,) = json.loads(Path(data_dir, "data.json").read_text())
    bad = source_conversation["utterances"][1]["segments"][0]
    turn = unified[0]["dialog"][1]
    assert turn["named_entity_recognition"] == [
        {"type": "MOVIE_OR_SERIES", "values": [{"value": bad["text"], "start": None, "end": None}]}]
    assert turn["segments"][0]["start"] == bad["startIndex"] and turn["segments"][0]["text"] == bad["text"]
    assert ccpe.unified_to_source(unified[0]) == source_conversation
    original = load("ccpe", "original", split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "o"))
    assert ccpe.original_to_source(original[0]) == source_conversation


@pytest.mark.parametrize("file, record, problem", OFFSET_FILES)
def test_bad_offsets_are_errors_when_strict(tmp_path, file, record, problem):
    data_dir, table = copy_as_data_dir(tmp_path, fixture_dir("ccpe") / "bad" / file)
    with pytest.raises(SourceFormatError) as error:
        load("ccpe", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "c"), strict_offsets=True)
    assert (error.value.record, error.value.field, error.value.problem) == (record, "utterances[1].segments[0]", problem)


# ---------------------------------------------------------------- download and local copies

@pytest.fixture
def mirror():
    server = Mirror(fixture_dir("ccpe"), PREFIX)
    yield server
    server.close()


def test_upstream_url_and_bundled_table():
    from loaders.ccpe.ccpe import Ccpe
    from unified_dialogue.sources import read_checksum_table

    assert f"{Ccpe.BASE_URL}/{ccpe.FILE}" == f"{UPSTREAM}/data.json"
    (record,) = read_checksum_table(corpus="ccpe").values()
    assert (record.path, record.num_bytes, record.sha256) == (
        "data.json", 5191959, "4ff051ea7ea60cf0f480c911c7e2cfed56434e2e2c9ea8965ac5e26365773f0a")


def test_download_verifies_and_builds(mirror, tmp_path, build):
    dsd = load("ccpe", base_url=mirror.url, checksums=checksums("ccpe"), cache_dir=str(tmp_path))
    assert mirror.fetched() == ["data.json"]
    assert [p for c, p in mirror.requests if c == "GET"] == [f"/{PREFIX}/data.json"]
    assert list(dsd) == ["train"]
    assert dsd["train"].to_list() == build("ccpe")["train"].to_list()


def test_corrupted_download_fails_with_the_checksum_error(mirror, tmp_path):
    mirror.corrupted.add("data.json")
    with pytest.raises(ChecksumError) as error:
        load("ccpe", base_url=mirror.url, checksums=checksums("ccpe"), cache_dir=str(tmp_path))
    expected = open(checksums("ccpe")).read().split("\n")[1].split("\t")[2]
    assert "sha256 mismatch for data.json" in str(error.value) and expected in str(error.value)


def test_no_network_fails_fast_and_names_data_dir(tmp_path):
    closed = Mirror(fixture_dir("ccpe"), PREFIX)
    url = closed.url
    closed.close()
    started = time.monotonic()
    with pytest.raises(DownloadError, match="data_dir"):
        load("ccpe", base_url=url, checksums=checksums("ccpe"), cache_dir=str(tmp_path))
    assert time.monotonic() - started < 60


def test_local_copy_is_verified(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("ccpe"), copy)
    path = copy / "data.json"
    path.write_bytes(path.read_bytes().replace(b'"USER"', b'"USER" ', 1))
    with pytest.raises(ChecksumError, match="data.json"):
        load("ccpe", data_dir=str(copy), checksums=checksums("ccpe"), cache_dir=str(tmp_path / "c"))
    # the bundled table holds the real file's checksum: a fixture copy does not pass it
    with pytest.raises(ChecksumError, match="expected 5191959 bytes"):
        load("ccpe", data_dir=str(fixture_dir("ccpe")), cache_dir=str(tmp_path / "d"))


@pytest.mark.parametrize("verification_mode", [None, "no_checks"])
def test_local_copy_without_data_json_is_an_error(tmp_path, verification_mode):
    with pytest.raises(MissingFilesError, match="data.json"):
        load("ccpe", data_dir=str(tmp_path), checksums=checksums("ccpe"), cache_dir=str(tmp_path / "c"),
             verification_mode=verification_mode)


# ---------------------------------------------------------------- with SGD, and both datasets lines

def test_concatenates_with_sgd_and_reads_both_back(build):
    sgd, conversations = build("sgd")["train"], build("ccpe")["train"]
    both = datasets.concatenate_datasets([sgd, conversations])
    assert both.features == UNIFIED_FEATURES
    assert both.num_rows == sgd.num_rows + conversations.num_rows
    assert both.select(range(sgd.num_rows)).to_list() == sgd.to_list()
    assert both.select(range(sgd.num_rows, both.num_rows)).to_list() == conversations.to_list()
    assert Counter(both["corpus"]) == {"sgd": sgd.num_rows, "ccpe": conversations.num_rows}
    assert [ccpe.unified_to_source(r) for r in both.filter(lambda r: r["corpus"] == "ccpe")] == source()


def test_split_argument_returns_a_dataset(build, tmp_path):
    ds = load("loaders/ccpe", "original", split="train", data_dir=str(fixture_dir("ccpe")),
              checksums=checksums("ccpe"), cache_dir=str(tmp_path))
    assert isinstance(ds, datasets.Dataset)
    assert ds.to_list() == build("ccpe", "original")["train"].to_list()


@ONLY_DATASETS_3
def test_load_dataset_script_gives_the_entry_point_records(build, tmp_path):
    root = Path(__file__).parent.parent
    for config in ("unified", "original"):
        via_script = datasets.load_dataset(
            str(root / "loaders" / "ccpe"), config, data_dir=str(fixture_dir("ccpe")), checksums=checksums("ccpe"),
            cache_dir=str(tmp_path), trust_remote_code=True)
        assert list(via_script) == ["train"]
        assert via_script["train"].to_list() == build("ccpe", config)["train"].to_list()
    streamed = datasets.load_dataset(str(root / "loaders" / "ccpe"), "original", split="train", streaming=True,
                                     data_dir=str(fixture_dir("ccpe")), checksums=checksums("ccpe"),
                                     trust_remote_code=True)
    assert list(streamed) == build("ccpe", "original")["train"].to_list()


@ONLY_DATASETS_4_PLUS
def test_load_dataset_refuses_the_script_so_the_entry_point_is_needed():
    root = Path(__file__).parent.parent
    with pytest.raises(RuntimeError, match="scripts are no longer supported"):
        datasets.load_dataset(str(root / "loaders" / "ccpe"), data_dir=str(fixture_dir("ccpe")))
