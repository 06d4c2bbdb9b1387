"""FaithDial: the shared corpus test case, and what only FaithDial has (conversations
rebuilt from histories, the union splits, labels, checksums not known yet)."""

import json
import logging
import shutil
from collections import Counter

import datasets
import pytest

from conftest import EXPECTED, FIXTURES, fixture_dir
from loaders.faithdial import mapping
from unified_dialogue import UNIFIED_FEATURES, load
from unified_dialogue.core.errors import SourceFormatError
from unified_dialogue.core.sources import UNKNOWN, read_checksum_table
from unified_dialogue.testing import (CorpusTestCase, Mutation, become, cut, edit, nested, raw, read_json, remove,
                                     replace, write_checksums)

pytestmark = pytest.mark.both_lines

TRAIN, VALID = "data/train.json", "data/valid.json"
FIRST = "dialogue #0 (dialog_idx 0)"
UTTERANCE = "0.utterances.1"


def dump_like_the_fixtures(dialogues):
    return json.dumps(dialogues, indent=2, ensure_ascii=False) + "\n"


class TestFaithDial(CorpusTestCase):
    corpus = "faithdial"
    fixtures = FIXTURES / "faithdial"
    expected_counts = {
        "train": {"dialogues": 5, "turns": 23}, "validation": {"dialogues": 4, "turns": 18},
        "test": {"dialogues": 5, "turns": 19}, "validation_random": {"dialogues": 2, "turns": 8},
        "validation_topic": {"dialogues": 2, "turns": 10}, "test_random": {"dialogues": 3, "turns": 9},
        "test_topic": {"dialogues": 2, "turns": 10},
    }
    expected_rows = {
        "original": {"train": 12, "validation": 9, "test": 10, "validation_random": 4, "validation_topic": 5,
                     "test_random": 5, "test_topic": 5},
        # NOTICE.md's originals labelled Hallucination (all rewritten), and the labelled ones
        # (Hallucination or Entailment) plus the rewrites among them.
        "preference": {"train": 3, "validation": 3, "test": 4, "validation_random": 1, "validation_topic": 2,
                       "test_random": 2, "test_topic": 2},
        "critic": {"train": 11, "validation": 10, "test": 13, "validation_random": 4, "validation_topic": 6,
                   "test_random": 7, "test_topic": 6},
    }
    # train d2: the Wizard speaks first; original responses "", edited and null; two VRM labels.
    expected_record = EXPECTED / "faithdial_unified_train_2.json"
    reverse = {
        "unified": lambda ds: [mapping.unified_to_source(r) for r in ds],
        "original": lambda ds: mapping.original_to_source(ds),
    }
    dump = staticmethod(dump_like_the_fixtures)
    spans = False
    mutations = (
        Mutation("truncated", TRAIN, cut(0.5), "dialogue #1", "utterances[1].original_respons"),
        Mutation("empty file", TRAIN, become(b""), "whole file", "(json)"),
        Mutation("empty list", TRAIN, become(b"[]"), "whole file", "(top level)"),
        Mutation("not UTF-8", TRAIN, replace(b"keeping bees", b"keeping \xc3 bees"), FIRST, "utterances[0].history[0]"),
        # dialog_idx follows the utterances: JSON that breaks before it leaves the position alone.
        Mutation("invalid JSON", TRAIN, replace(b'"speaker": "Wizard"', b'"speaker": Wizard'), "dialogue #0",
                 "utterances[0].speaker"),
        Mutation("not a list", TRAIN, become(b'{"utterances": []}'), "whole file", "(top level)"),
        Mutation("wrong type", TRAIN, edit(f"{UTTERANCE}.BEGIN", "Entailment"), FIRST, "utterances[1].BEGIN"),
        Mutation("wrong type", TRAIN, edit("0.dialog_idx", "0"), "dialogue #0 (dialog_idx '0')", "dialog_idx"),
        Mutation("missing key", TRAIN, remove(f"{UTTERANCE}.response"), FIRST, "utterances[1].response"),
        Mutation("unknown key", TRAIN, edit("0.topic", "bees"), FIRST, "topic"),
        Mutation("unknown key", TRAIN, edit(f"{UTTERANCE}.checked", True), FIRST, "utterances[1].checked"),
        Mutation("unknown label", TRAIN, edit(f"{UTTERANCE}.speaker", "Seeker"), FIRST, "utterances[1].speaker"),
        Mutation("int32 overflow", TRAIN, edit("0.dialog_idx", 2**40), "dialogue #0 (dialog_idx 1099511627776)",
                 "dialog_idx"),
        Mutation("deep nesting", TRAIN, nested(f"{UTTERANCE}.knowledge"), "dialogue #0",
                 "utterances[1].knowledge[0][0][0][0][0][0][0]…"),
        Mutation("lone surrogate", TRAIN, raw(f"{UTTERANCE}.response", '"\\ud83d"'), FIRST, "utterances[1].response"),
        Mutation("duplicate id", TRAIN, edit("1.dialog_idx", 0), "dialogue #1 (dialog_idx 0)", "dialog_idx",
                 also="data/train.json, dialogue #0"),
        Mutation("empty dialogue", TRAIN, edit("0.utterances", []), FIRST, "utterances"),
        Mutation("history contradiction", TRAIN, edit(f"{UTTERANCE}.history.0", "Bees?"), FIRST,
                 "utterances[1].history[0]", configs=("unified",)),
        Mutation("knowledge with a line break", TRAIN, edit(f"{UTTERANCE}.knowledge", "one\ntwo"), FIRST,
                 "utterances[1].knowledge", configs=("unified",)),
        Mutation("union without a dialogue of its part", VALID, remove("1"), "dialogue #0 (dialog_idx 1)",
                 "utterances", also="missing from data/valid.json", named_file="data/valid_topic_split.json"),
    )

    def source_rows(self, view, split):
        utterances = [u for d in read_json(fixture_dir("faithdial") / mapping.SPLIT_FILES[split])
                      for u in d["utterances"]]
        # rewritten: an original with words that differ from the response's
        rewritten = [(u["original_response"] or "").split() not in ([], u["response"].split()) for u in utterances]
        hallucination = ["Hallucination" in u["BEGIN"] for u in utterances]
        labelled = [h or "Entailment" in u["BEGIN"] for h, u in zip(hallucination, utterances)]
        pairs = sum(r and h for r, h in zip(rewritten, hallucination))
        return {"preference": pairs, "preference-unpaired": 2 * pairs,
                "critic": sum(labelled) + sum(r and k for r, k in zip(rewritten, labelled))}.get(view, len(utterances))

    def prefixes(self, dialogue):
        # Seeker turns live in the histories of later responses: a cut ends at a response.
        for k, utterance in enumerate(dialogue["utterances"]):
            cut_id = dialogue["dialog_idx"] * 100 + k
            cut = {"utterances": dialogue["utterances"][:k + 1], "dialog_idx": cut_id}
            yield len(utterance["history"]), cut, str(cut_id), str(dialogue["dialog_idx"])

    def test_response_rows_are_the_sources_history_knowledge_response_triples(self, build):
        for split, ds in build("faithdial", "response").items():
            source = [u for d in read_json(fixture_dir("faithdial") / mapping.SPLIT_FILES[split]) for u in d["utterances"]]
            assert [([c["utterance"] for c in r["context"]], r["knowledge"], r["response"]) for r in ds] == [
                (u["history"], u["knowledge"], u["response"]) for u in source], split
            assert [(r["original_response"]["utterance"], r["original_response"]["begin"]) for r in ds] == [
                (u["original_response"], u["BEGIN"]) for u in source]
            assert [[a["act"] for a in r["dialog_acts"]] for r in ds] == [u["VRM"] for u in source]
            assert [r["act_names"] for r in ds] == [[mapping.normalized_vrm(v) for v in u["VRM"]] for u in source]

    def test_the_bundled_table_lists_the_seven_files_with_unknown_checksums(self):
        table = read_checksum_table(self.info.checksums_path)
        assert sorted(table) == sorted(mapping.SPLIT_FILES.values())
        assert all(r.num_bytes == UNKNOWN and r.sha256 == UNKNOWN for r in table.values())


def test_counts_and_labels_match_the_fixture_notes(build):
    unified, original = build("faithdial"), build("faithdial", "original")
    for split, expected in read_json(fixture_dir("faithdial") / "EXPECTED.json").items():
        records, rows = unified[split], original[split]
        assert mapping.SPLIT_FILES[split] == expected["file"]
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
        assert Counter(map(mapping.normalized_vrm, acts)) == expected["vrm_normalized"], split


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
            sentences = record["knowledge"]["value"]["text"].split(mapping.KNOWLEDGE_SEPARATOR)
            selected = [t["knowledge_to_select"] for t in record["dialog"] if t["roles"] == ["Wizard"]]
            assert sentences == list(dict.fromkeys(selected))


def changed_copy(tmp_path, relpath, change):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("faithdial"), copy)
    dialogues = json.loads((copy / relpath).read_text(encoding="utf-8"))
    change(dialogues)
    (copy / relpath).write_text(dump_like_the_fixtures(dialogues), encoding="utf-8")
    return copy, write_checksums(copy)


def test_no_dialog_idx_round_trips_to_its_absence(tmp_path):
    def drop_ids(dialogues):
        for dialogue in dialogues:
            del dialogue["dialog_idx"]

    copy, table = changed_copy(tmp_path, "data/test_topic_split.json", drop_ids)
    text = (copy / "data/test_topic_split.json").read_text(encoding="utf-8")
    unified = load("faithdial", split="test_topic", data_dir=str(copy), checksums=table, cache_dir=str(tmp_path / "c"))
    assert [(r["original_id"], r["dialogue_id"]) for r in unified] == [
        (None, "faithdial/test_topic/#0"), (None, "faithdial/test_topic/#1")]
    assert dump_like_the_fixtures([mapping.unified_to_source(r) for r in unified]) == text
    original = load("faithdial", "original", split="test_topic", data_dir=str(copy), checksums=table,
                    cache_dir=str(tmp_path / "c"))
    assert {r["dialog_idx"] for r in original} == {None}
    assert dump_like_the_fixtures(mapping.original_to_source(original)) == text


def test_unions_interleave_their_parts_by_dialog_idx(build):
    dsd = build("faithdial")
    for union, parts in mapping.UNIONS.items():
        part_of = {r["original_id"]: part for part in parts for r in dsd[part]}
        order = [part_of[r["original_id"]] for r in dsd[union]]
        assert [int(r["original_id"]) for r in dsd[union]] == sorted(int(i) for i in part_of)
        assert order != sorted(order), union  # not one part after the other


def test_a_union_with_a_dialogue_of_no_part_is_an_error(tmp_path):
    def add_foreign(dialogues):
        dialogues.append({**dialogues[0], "dialog_idx": 99, "utterances": dialogues[0]["utterances"][:1]})

    copy, table = changed_copy(tmp_path, "data/test.json", add_foreign)
    with pytest.raises(SourceFormatError) as caught:
        load("faithdial", data_dir=str(copy), checksums=table, cache_dir=str(tmp_path / "c"))
    assert (caught.value.file, caught.value.record, caught.value.field) == (
        "data/test.json", "dialogue #5 (dialog_idx 99)", "utterances")
    assert "test must be data/test_random_split.json + data/test_topic_split.json" in caught.value.problem


def test_history_contradiction_shows_where_the_texts_differ(tmp_path):
    long = "A" * 90 + " penguins live in the south"

    def contradict(dialogues):
        dialogues[0]["utterances"][0]["response"] = long
        dialogues[0]["utterances"][1]["history"][1] = long.replace("south", "north")

    copy, table = changed_copy(tmp_path, TRAIN, contradict)
    with pytest.raises(SourceFormatError) as caught:
        load("faithdial", data_dir=str(copy), checksums=table, cache_dir=str(tmp_path / "c"))
    assert caught.value.field == "utterances[1].history[1]"
    assert "differs from the response of utterances[0] (a Wizard turn)" in caught.value.problem
    assert "first differ at character 112" in caught.value.problem
    assert "live in the north'" in caught.value.problem and "live in the south'" in caught.value.problem


def test_history_contradiction_is_reported_by_the_original_config(tmp_path, caplog):
    copy, table = changed_copy(tmp_path, TRAIN, lambda d: d[0]["utterances"][1]["history"].__setitem__(0, "Bees?"))
    with caplog.at_level(logging.WARNING, logger=mapping.logger.name):
        rows = load("faithdial", "original", split="train", data_dir=str(copy), checksums=table,
                    cache_dir=str(tmp_path / "c"))
    assert f"data/train.json: {FIRST}: field 'utterances[1].history[0]'" in caplog.text
    assert dump_like_the_fixtures(mapping.original_to_source(rows)) == (copy / TRAIN).read_text(encoding="utf-8")


def test_unknown_checksums_still_catch_a_broken_download_and_do_not_keep_it(tmp_path):
    from unified_dialogue.testing import Mirror

    mirror = Mirror(fixture_dir("faithdial"), "faithdial")
    try:
        mirror.corrupted.add("data/test.json")  # its closing bracket is overwritten
        with pytest.raises(SourceFormatError, match=r"^data/test.json: whole file: field '\(json\)': invalid JSON"):
            load("faithdial", "original", base_url=mirror.url, cache_dir=str(tmp_path))
        mirror.corrupted.clear()  # the server is fixed: the same cache must not fail again
        fixed = load("faithdial", "original", base_url=mirror.url, cache_dir=str(tmp_path))
        assert len(fixed["test"]) > 0
        assert sum(1 for command, path in mirror.requests if command == "GET" and path.endswith("/data/test.json")) == 2
    finally:
        mirror.close()


def test_a_broken_part_of_a_union_is_the_download_discarded(tmp_path):
    from unified_dialogue.testing import Mirror

    mirror = Mirror(fixture_dir("faithdial"), "faithdial")
    part = "data/valid_random_split.json"  # read while validation, its union, is checked
    try:
        mirror.corrupted.add(part)
        with pytest.raises(SourceFormatError, match=f"^{part}: whole file"):
            load("faithdial", base_url=mirror.url, cache_dir=str(tmp_path))
        mirror.corrupted.clear()
        fixed = load("faithdial", base_url=mirror.url, cache_dir=str(tmp_path))
        assert len(fixed["validation_random"]) > 0
        gets = [path.rsplit("/", 1)[-1] for command, path in mirror.requests if command == "GET"]
        assert (gets.count("valid_random_split.json"), gets.count("valid.json")) == (2, 1)
    finally:
        mirror.close()


def test_unified_concatenates_with_the_other_corpora_and_reads_back(build, tmp_path):
    parts = [ds for corpus in ("sgd", "ccpe", "faithdial") for ds in build(corpus).values()]
    combined = datasets.concatenate_datasets(parts)
    assert combined.features == UNIFIED_FEATURES
    expected = [record for ds in parts for record in ds]
    combined.to_parquet(str(tmp_path / "all.parquet"))
    read_back = datasets.Dataset.from_parquet(str(tmp_path / "all.parquet"), features=UNIFIED_FEATURES,
                                              cache_dir=str(tmp_path / "c"))
    assert read_back.to_list() == expected
