"""CCPE-M: the shared corpus test case, and what only CCPE has (segments, offsets that may
not locate their text, one file, one split)."""

import json
import logging
from collections import Counter
from pathlib import Path

import datasets
import pytest

from conftest import EXPECTED, FIXTURES, fixture_dir
from loaders.ccpe import mapping
from unified_dialogue import UNIFIED_FEATURES, load
from unified_dialogue.core.errors import ChecksumError, SourceFormatError, UnifiedDialogueError
from unified_dialogue.core.sources import read_checksum_table, write_checksum_table
from unified_dialogue.testing import CorpusTestCase, Mutation, become, cut, edit, nested, raw, remove, replace

pytestmark = pytest.mark.both_lines

DATA = "data.json"
SEGMENT = "0.utterances.1.segments.0"  # "thrillers" in CCPE-8e113
REAL = "conversation CCPE-8e113"


def source(name=DATA):
    return json.loads((fixture_dir("ccpe") / name).read_text())


class TestCcpe(CorpusTestCase):
    corpus = "ccpe"
    fixtures = FIXTURES / "ccpe"
    expected_counts = {"train": {"dialogues": 4, "turns": 64}}
    expected_rows = {"original": {"train": 4}}
    expected_record = EXPECTED / "ccpe_unified_train_CCPE-test1.json"
    reverse = {
        "unified": lambda ds: [mapping.unified_to_source(r) for r in ds],
        "original": lambda ds: [mapping.original_to_source(r) for r in ds],
    }
    mutations = (
        Mutation("truncated", DATA, cut(0.5), REAL, "utterances[28]"),
        Mutation("empty file", DATA, become(b""), "whole file", "(json)"),
        Mutation("empty list", DATA, become(b"[]"), "whole file", "(top level)"),
        Mutation("not UTF-8", DATA, replace(b"thrillers a lot", b"thrillers \xe9 lot"), REAL, "utterances[1].text"),
        Mutation("invalid JSON", DATA, replace(b'"speaker": "USER"', b'"speaker" "USER"'), REAL,
                 "utterances[1].speaker"),
        Mutation("not a list", DATA, become(b'{"conversationId": "CCPE-8e113"}'), "whole file", "(top level)"),
        Mutation("wrong type", DATA, edit(f"{SEGMENT}.startIndex", "7"), REAL, "utterances[1].segments[0].startIndex"),
        Mutation("wrong type", DATA, edit("0.utterances.1.segments", {}), REAL, "utterances[1].segments"),
        Mutation("missing key", DATA, remove("0.utterances.1.speaker"), REAL, "utterances[1].speaker"),
        Mutation("missing key", DATA, remove(f"{SEGMENT}.annotations"), REAL, "utterances[1].segments[0].annotations"),
        Mutation("unknown key", DATA, edit("0.rating", 5), REAL, "rating"),
        Mutation("unknown key", DATA, edit(f"{SEGMENT}.annotations.0.polarity", "+"), REAL,
                 "utterances[1].segments[0].annotations[0].polarity"),
        Mutation("unknown label", DATA, edit(f"{SEGMENT}.annotations.0.annotationType", "ENTITY_FOO"), REAL,
                 "utterances[1].segments[0].annotations[0].annotationType"),
        Mutation("unknown label", DATA, edit("0.utterances.1.speaker", "SYSTEM"), REAL, "utterances[1].speaker"),
        Mutation("index not the position", DATA, edit("0.utterances.2.index", 3), REAL, "utterances[2].index"),
        Mutation("int32 overflow", DATA, edit(f"{SEGMENT}.endIndex", -(2**31) - 1), REAL,
                 "utterances[1].segments[0].endIndex"),
        Mutation("deep nesting", DATA, nested("0.utterances.1.text"), REAL,
                 "utterances[1].text[0][0][0][0][0][0][0]…"),
        Mutation("lone surrogate", DATA, raw("0.utterances.1.text", '"I like \\udc80"'), REAL, "utterances[1].text"),
        Mutation("duplicate id", DATA, edit("2.conversationId", "CCPE-test1"), "conversation CCPE-test1",
                 "conversationId", also="data.json, conversation #1"),
        Mutation("empty dialogue", DATA, edit("0.utterances", []), REAL, "utterances"),
    )

    def source_rows(self, view, split):
        utterances = [u for c in source() for u in c["utterances"]]
        return sum(view == "nlu" or u["speaker"] == "ASSISTANT" for u in utterances)

    def prefixes(self, conversation):
        for t in range(len(conversation["utterances"])):
            cut_id = f"{conversation['conversationId']}~{t}"
            cut = {"conversationId": cut_id, "utterances": conversation["utterances"][:t + 1]}
            yield t, cut, cut_id, conversation["conversationId"]

    def test_the_bundled_table_holds_the_upstream_file(self):
        assert f"{self.info.base_url}/{DATA}" == "https://storage.googleapis.com/dialog-data-corpus/CCPE-M-2019/data.json"
        (record,) = read_checksum_table(self.info.checksums_path).values()
        assert (record.path, record.num_bytes, record.sha256) == (
            DATA, 5191959, "4ff051ea7ea60cf0f480c911c7e2cfed56434e2e2c9ea8965ac5e26365773f0a")

    def test_the_bundled_table_refuses_a_fixture_copy_and_names_the_option_that_loads_it(self, tmp_path):
        with pytest.raises(ChecksumError, match="expected 5191959 bytes, got [0-9]+. To load a copy that differs "
                                                "from the published files, pass verify=False$"):
            load("ccpe", data_dir=str(fixture_dir("ccpe")), cache_dir=str(tmp_path))
        assert load("ccpe", data_dir=str(fixture_dir("ccpe")), cache_dir=str(tmp_path), verify=False,
                    split="train").num_rows == self.expected_counts["train"]["dialogues"]


def copy_as_data_dir(tmp_path, conversations):
    """A folder holding ``conversations`` as data.json, and a checksum table for it."""
    folder = tmp_path / "copy"
    folder.mkdir()
    data = conversations if isinstance(conversations, bytes) else json.dumps(conversations).encode()
    (folder / DATA).write_bytes(data)
    return str(folder), write_checksum_table(folder, tmp_path / "checksums.tsv")


@pytest.mark.parametrize("config", ["unified", "original"])
def test_round_trip_reproduces_the_real_sample(tmp_path, config):
    sample = (fixture_dir("ccpe") / "sample-data.json").read_bytes()
    data_dir, table = copy_as_data_dir(tmp_path, sample)
    ds = load("ccpe", config, split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "cache"))
    to_source = mapping.unified_to_source if config == "unified" else mapping.original_to_source
    assert json.dumps([to_source(record) for record in ds]) == json.dumps(source("sample-data.json"))


def test_counts_of_segments_and_annotations(build):
    turns = [t for r in build("ccpe")["train"] for t in r["dialog"]]
    segments = [s for t in turns for s in t["segments"] or []]
    by_type = Counter(a["annotation_type"] for s in segments for a in s["annotations"])
    in_source = [s for c in source() for u in c["utterances"] for s in u.get("segments", [])]
    assert len(segments) == len(in_source) == 67
    assert by_type == Counter(a["annotationType"] for s in in_source for a in s["annotations"])
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


def with_bad_offsets(start, end, text):
    conversation = {"conversationId": "CCPE-bad", "utterances": [
        {"index": 0, "speaker": "ASSISTANT", "text": "Which film?"},
        {"index": 1, "speaker": "USER", "text": "I saw Dune last week", "segments": [
            {"startIndex": start, "endIndex": end, "text": text,
             "annotations": [{"annotationType": "ENTITY_NAME", "entityType": "MOVIE_OR_SERIES"}]}]},
    ]}
    return [conversation]


OFFSETS = [
    ((6, 10, "saw "), "text 'saw ' differs from the utterance's text[6:10] 'Dune'"),
    ((17, 25, "Dune"), "offsets 17:25 lie outside the utterance (20 characters)"),
]


@pytest.mark.parametrize("offsets, problem", OFFSETS)
def test_bad_offsets_are_reported_and_kept(tmp_path, caplog, offsets, problem):
    conversations = with_bad_offsets(*offsets)
    data_dir, table = copy_as_data_dir(tmp_path, conversations)
    with caplog.at_level(logging.WARNING, logger=mapping.logger.name):
        unified = load("ccpe", split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "u"))
    messages = [r.getMessage() for r in caplog.records if r.name == mapping.logger.name]
    assert messages == [f"data.json: conversation CCPE-bad: field 'utterances[1].segments[0]': {problem} "
                        "(kept as the source has it; its unified span has no start/end)"]
    turn = unified[0]["dialog"][1]
    assert turn["named_entity_recognition"] == [
        {"type": "MOVIE_OR_SERIES", "values": [{"value": offsets[2], "start": None, "end": None}]}]
    assert (turn["segments"][0]["start"], turn["segments"][0]["text"]) == (offsets[0], offsets[2])
    assert mapping.unified_to_source(unified[0]) == conversations[0]
    original = load("ccpe", "original", split="train", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "o"))
    assert mapping.original_to_source(original[0]) == conversations[0]


@pytest.mark.parametrize("offsets, problem", OFFSETS)
def test_bad_offsets_are_errors_when_strict(tmp_path, offsets, problem):
    data_dir, table = copy_as_data_dir(tmp_path, with_bad_offsets(*offsets))
    with pytest.raises(SourceFormatError) as error:
        load("ccpe", data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "c"), strict_offsets=True)
    assert (error.value.record, error.value.field, error.value.problem) == (
        "conversation CCPE-bad", "utterances[1].segments[0]", problem)


def test_concatenates_with_sgd_and_reads_both_back(build):
    sgd, conversations = build("sgd")["train"], build("ccpe")["train"]
    both = datasets.concatenate_datasets([sgd, conversations])
    assert both.features == UNIFIED_FEATURES
    assert both.select(range(sgd.num_rows)).to_list() == sgd.to_list()
    assert both.select(range(sgd.num_rows, both.num_rows)).to_list() == conversations.to_list()
    assert Counter(both["corpus"]) == {"sgd": sgd.num_rows, "ccpe": conversations.num_rows}
    assert [mapping.unified_to_source(r) for r in both.filter(lambda r: r["corpus"] == "ccpe")] == source()


def test_split_argument_returns_a_dataset(build, tmp_path):
    ds = load("loaders/ccpe", "original", split="train", data_dir=str(fixture_dir("ccpe")),
              checksums=str(Path(fixture_dir("ccpe")) / "SHA256SUMS.tsv"), cache_dir=str(tmp_path))
    assert isinstance(ds, datasets.Dataset)
    assert ds.to_list() == build("ccpe", "original")["train"].to_list()


def test_a_split_without_rows_of_a_view_is_the_loaders_error_for_its_chat_config_too(tmp_path):
    data_dir, table = copy_as_data_dir(tmp_path, [{"conversationId": "c", "utterances": [
        {"index": 0, "speaker": "USER", "text": "hi"}]}])
    for config in ("response", "response-chat"):
        with pytest.raises(UnifiedDialogueError, match=f"the {config} config has no rows in this split"):
            load("ccpe", config, data_dir=data_dir, checksums=table, cache_dir=str(tmp_path / "cache"))
