"""SGD: the shared corpus test case, and what only SGD has (seen/unseen services, the
schema config and knowledge, service calls)."""

import json
import shutil

import pytest

from conftest import EXPECTED, FIXTURES, checksums, fixture_dir
from loaders.sgd import mapping
from loaders.sgd.corpus import SPLIT_DIRS
from loaders.sgd.roundtrip import sgd_mismatches
from unified_dialogue import load
from unified_dialogue.api import load_builder
from unified_dialogue.core.errors import MissingFilesError, SourceFormatError
from unified_dialogue.core.sources import read_checksum_table
from unified_dialogue.testing import (CorpusTestCase, Mirror, Mutation, become, cut, edit, nested, raw, read_json,
                                     remove, replace)
from unified_dialogue.testing.strategies import SourceFiles

pytestmark = pytest.mark.both_lines

TRAIN_1, TRAIN_2, SCHEMA = "train/dialogues_001.json", "train/dialogues_002.json", "train/schema.json"
TURN = "0.turns.0"  # the first turn of 2_00089, a USER turn with one frame (Media_1)
FRAME = f"{TURN}.frames.0"
ALL = ("unified", "original", "schema")


def dump_like_upstream(dialogues):
    """Upstream writes sorted keys, two-space indents and a final newline."""
    return json.dumps(dialogues, indent=2, sort_keys=True) + "\n"


class TestSgd(CorpusTestCase):
    corpus = "sgd"
    fixtures = FIXTURES / "sgd"
    expected_counts = {"train": {"dialogues": 5, "turns": 42}, "validation": {"dialogues": 3, "turns": 26},
                       "test": {"dialogues": 3, "turns": 24}}
    expected_rows = {"original": {"train": 5, "validation": 3, "test": 3},
                     "schema": {"train": 3, "validation": 4, "test": 4}}
    expected_record = EXPECTED / "sgd_unified_validation_10_00091.json"
    reverse = {
        "unified": lambda ds: [mapping.unified_to_source(r) for r in ds],
        "original": lambda ds: [mapping.original_to_source(r) for r in ds],
    }
    dump = staticmethod(dump_like_upstream)
    data_configs = ("unified", "original")
    mutations = (
        Mutation("truncated", TRAIN_1, cut(0.5), "dialogue 2_00090", "turns[4].frames[0].actions[0]"),
        Mutation("empty file", TRAIN_1, become(b""), "whole file", "(json)"),
        Mutation("empty list", TRAIN_1, become(b"[]"), "whole file", "(top level)"),
        Mutation("not UTF-8", TRAIN_1, replace(b"The birds movie", b"The birds \xff movie"),
                 "dialogue 2_00089", "turns[0].frames[0].actions[0].values[0]"),
        Mutation("invalid JSON", TRAIN_1, replace(b'"speaker": "SYSTEM"', b'"speaker" "SYSTEM"'),
                 "dialogue 2_00089", "turns[1].speaker"),
        Mutation("not a list", TRAIN_1, become(b'{"dialogue_id": "2_00089"}'), "whole file", "(top level)"),
        Mutation("wrong type", TRAIN_1, edit(f"{FRAME}.slots.0.start", "22"), "dialogue 2_00089",
                 "turns[0].frames[0].slots[0].start"),
        Mutation("wrong type", TRAIN_1, edit(f"{FRAME}.state", None), "dialogue 2_00089", "turns[0].frames[0].state"),
        Mutation("missing key", TRAIN_1, remove(f"{TURN}.utterance"), "dialogue 2_00089", "turns[0].utterance"),
        Mutation("unknown key", TRAIN_1, edit("1.notes", "x"), "dialogue 2_00090", "notes"),
        Mutation("unknown key", TRAIN_1, edit(f"{TURN}.emotion", "happy"), "dialogue 2_00089", "turns[0].emotion"),
        Mutation("unknown key", TRAIN_1, edit(f"{FRAME}.domain", "Media"), "dialogue 2_00089",
                 "turns[0].frames[0].domain"),
        Mutation("unknown key", TRAIN_1, edit(f"{FRAME}.actions.0.relation", "="), "dialogue 2_00089",
                 "turns[0].frames[0].actions[0].relation"),
        Mutation("unknown key", TRAIN_1, edit(f"{FRAME}.state.slot_value_table", []), "dialogue 2_00089",
                 "turns[0].frames[0].state.slot_value_table"),
        Mutation("unknown key", SCHEMA, edit("0.extra", 1), "service Media_1", "extra", configs=ALL),
        Mutation("unknown label", TRAIN_1, edit(f"{FRAME}.actions.0.act", "SHRUG"), "dialogue 2_00089",
                 "turns[0].frames[0].actions[0].act"),
        Mutation("unknown label", TRAIN_1, edit(f"{TURN}.speaker", "BOT"), "dialogue 2_00089", "turns[0].speaker"),
        Mutation("act of the other speaker", TRAIN_1, edit(f"{FRAME}.actions.0.act", "OFFER"), "dialogue 2_00089",
                 "turns[0].frames[0].actions[0].act"),
        Mutation("span out of range", TRAIN_1, edit(f"{FRAME}.slots.0.exclusive_end", 999), "dialogue 2_00089",
                 "turns[0].frames[0].slots[0]"),
        Mutation("values without canonical values", TRAIN_1, edit(f"{FRAME}.actions.0.canonical_values", []),
                 "dialogue 2_00089", "turns[0].frames[0].actions[0].canonical_values"),
        Mutation("int32 overflow", TRAIN_1, edit(f"{FRAME}.slots.0.start", 2**31), "dialogue 2_00089",
                 "turns[0].frames[0].slots[0].start"),
        Mutation("deep nesting", TRAIN_1, nested("1.services"), "dialogue 2_00090",
                 "services[0][0][0][0][0][0][0][0][0]…"),
        Mutation("lone surrogate", TRAIN_1, raw(f"{TURN}.utterance", '"\\ud800"'), "dialogue 2_00089",
                 "turns[0].utterance"),
        Mutation("lone surrogate", SCHEMA, raw("1.description", '"x\\udfff"'), "service Music_1", "description",
                 configs=ALL),
        Mutation("duplicate id", TRAIN_1, edit("2.dialogue_id", "2_00089"), "dialogue 2_00089", "dialogue_id",
                 also="train/dialogues_001.json, dialogue #0"),
        Mutation("duplicate id", TRAIN_2, edit("1.dialogue_id", "2_00125"), "dialogue 2_00125", "dialogue_id",
                 also="train/dialogues_001.json, dialogue #2"),
        Mutation("duplicate id", SCHEMA, edit("2.service_name", "Media_1"), "service Media_1", "service_name",
                 configs=ALL, also="train/schema.json, service #0"),
        Mutation("empty dialogue", TRAIN_1, edit("0.turns", []), "dialogue 2_00089", "turns"),
        Mutation("service missing from the schema", TRAIN_1, edit("0.services", ["Nowhere_1"]), "dialogue 2_00089",
                 "services", configs=("unified",)),
    )

    def source_rows(self, view, split):
        dialogues = [d for file in source_files(split) for d in read_json(file)]
        if view in ("agent", "episodes"):  # agent-chat and the environment's episodes, a row per dialogue
            return len(dialogues)
        turns = [t for d in dialogues for t in d["turns"]]
        if view in ("agent-call", "database"):  # agent-call-chat and the database, a row per service call
            return sum("service_call" in f for t in turns for f in t["frames"])
        if view == "d3st":  # a row per frame of a user turn
            return sum(len(t["frames"]) for t in turns if t["speaker"] == "USER")
        speaker = {"dst": "USER", "nlg": "SYSTEM", "response": "SYSTEM", "user": "USER"}.get(view)
        return sum(speaker is None or t["speaker"] == speaker for t in turns)

    def prefixes(self, dialogue):
        for t in range(len(dialogue["turns"])):
            turns = dialogue["turns"][:t + 1]
            seen = {frame["service"] for turn in turns for frame in turn["frames"]}
            cut_id = f"{dialogue['dialogue_id']}~{t}"
            services = [s for s in dialogue["services"] if s in seen]
            yield t, {"dialogue_id": cut_id, "services": services, "turns": turns}, cut_id, dialogue["dialogue_id"]

    def test_the_bundled_table_lists_all_184_upstream_files(self):
        table = read_checksum_table(self.info.checksums_path)
        assert len(table) == 184
        assert sum(p.endswith("schema.json") for p in table) == 3
        assert sum(p.startswith("train/dialogues_") for p in table) == 127


def source_files(split):
    return sorted((fixture_dir("sgd") / SPLIT_DIRS[split]).glob("dialogues_*.json"))


def test_schema_config_round_trips(build):
    for split, ds in build("sgd", "schema").items():
        file = fixture_dir("sgd") / SPLIT_DIRS[split] / "schema.json"
        assert json.dumps([mapping.row_to_service(row) for row in ds], indent=2) + "\n" == file.read_text()


def test_counts_of_acts_and_spans(build):
    expected = {"train": (65, 16), "validation": (48, 18), "test": (45, 18)}  # counted in the fixture files
    for split, ds in build("sgd").items():
        acts = sum(len(t["dialog_acts"]) for r in ds for t in r["dialog"])
        spans = sum(len(f["slots"]) for r in ds for t in r["dialog"] for f in t["frames"])
        assert (acts, spans) == expected[split], split
        source = [json.loads(f.read_text()) for f in source_files(split)]
        frames = [f for dialogues in source for d in dialogues for t in d["turns"] for f in t["frames"]]
        assert (acts, spans) == (sum(len(f["actions"]) for f in frames), sum(len(f["slots"]) for f in frames))


def test_unseen_services_follow_the_train_schema(build):
    train_services = {s["service_name"] for s in read_json(fixture_dir("sgd") / "train/schema.json")}
    dsd = build("sgd")
    assert all(r["unseen_domains"] == [] for r in dsd["train"])
    marked = 0
    for split in ("validation", "test"):
        for record in dsd[split]:
            assert record["unseen_domains"] == [s for s in record["domain"] if s not in train_services]
            for turn in record["dialog"]:
                for frame in turn["frames"]:
                    assert frame["unseen"] == (frame["service"] not in train_services)
                    marked += frame["unseen"]
    assert marked > 0


def test_same_id_in_two_splits_gets_two_unique_ids(build):
    ids = {split: {r["original_id"]: r["dialogue_id"] for r in ds} for split, ds in build("sgd").items()}
    assert ids["train"]["2_00125"] == "sgd/train/2_00125"
    assert ids["validation"]["2_00125"] == "sgd/validation/2_00125"


def test_absent_stays_distinct_from_empty(build):
    record = build("sgd")["validation"][0]
    user, system = record["dialog"][0], record["dialog"][1]
    assert system["belief_state"] is None and system["active_intents"] is None
    assert isinstance(user["belief_state"], list)
    assert record["summary"] is None and record["role_personas"] is None
    assert all(t["segments"] is None and t["original_response"] is None for t in record["dialog"])
    assert any(b["informed_slot_value_table"] == [] for t in record["dialog"] for b in t["belief_state"] or [])


def test_empty_utterance_is_kept(build):
    (record,) = [r for r in build("sgd")["test"] if r["original_id"] == "3_00078"]
    assert record["dialog"][3]["utterance"] == ""


def test_knowledge_holds_the_split_schema_of_the_dialogue_services(build):
    schema_rows = {split: {row["service_name"]: row for row in ds} for split, ds in build("sgd", "schema").items()}
    for split, ds in build("sgd").items():
        for record in ds:
            assert record["knowledge"]["type"] == "schema"
            assert record["knowledge"]["value"]["text"] is None
            assert record["knowledge"]["value"]["schema"] == [schema_rows[split][s] for s in record["domain"]]


def test_schema_config_downloads_only_the_schemas(tmp_path):
    mirror = Mirror(fixture_dir("sgd"), "sgd")
    try:
        dsd = load("sgd", "schema", base_url=mirror.url, checksums=checksums("sgd"), cache_dir=str(tmp_path))
        assert mirror.fetched() == ["dev/schema.json", "test/schema.json", "train/schema.json"]
        assert all(ds.num_rows > 0 for ds in dsd.values())
    finally:
        mirror.close()


def test_a_split_without_its_schema_is_an_error(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "dev" / "schema.json").unlink()
    with pytest.raises(MissingFilesError, match="dev/schema.json is missing: every split read needs its schema.json"):
        load("sgd", data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks")


def test_a_partial_copy_without_a_split_folder_loads_every_config(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    shutil.rmtree(copy / "test")
    for config in ALL:
        dsd = load("sgd", config, data_dir=str(copy), checksums=checksums("sgd"),
                   cache_dir=str(tmp_path / config), verification_mode="no_checks")
        assert sorted(dsd) == ["train", "validation"], config


def test_roundtrip_command_checks_every_file_and_can_fail(tmp_path):
    results = list(sgd_mismatches(str(fixture_dir("sgd")), str(tmp_path / "a")))
    assert len(results) == 2 * 4 and all(same for _, _, same in results)
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / "dev" / "dialogues_001.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4))
    bad = [(config, file) for config, file, same in sgd_mismatches(str(copy), str(tmp_path / "b")) if not same]
    assert bad == [("unified", str(path)), ("original", str(path))]


def test_a_turn_with_two_service_calls_is_refused_by_name(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / TRAIN_1
    dialogues = json.loads(path.read_text())
    (t, frame), = [(t, f) for t, turn in enumerate(dialogues[0]["turns"]) for f in turn["frames"]
                   if "service_call" in f][:1]
    dialogues[0]["turns"][t]["frames"].append({**frame, "service": "Music_1"})
    path.write_text(json.dumps(dialogues))
    with pytest.raises(SourceFormatError) as caught:
        load("sgd", data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks")
    assert (caught.value.record, caught.value.field) == ("dialogue 2_00089", f"turns[{t}].frames.service_call")


@pytest.mark.parametrize("config", ["unified", "original", "dst", "nlg", "response", "nlu"])
def test_an_id_repeated_in_files_two_processes_built_names_both_places(tmp_path, config):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / TRAIN_2
    dialogues = json.loads(path.read_text())
    dialogues[0]["dialogue_id"] = "2_00089"  # dialogue #0 of train/dialogues_001.json
    path.write_text(json.dumps(dialogues))
    with pytest.raises(SourceFormatError) as caught:  # each process saw one file: the split is checked whole
        load("sgd", config, data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks",
             num_proc=2)
    assert (caught.value.file, caught.value.record, caught.value.field) == (TRAIN_2, "dialogue 2_00089", "dialogue_id")
    assert "train/dialogues_001.json, dialogue #0" in caught.value.problem


def test_a_split_written_as_parquet_by_two_processes_is_checked_whole_too(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    builder = load_builder("sgd", "nlu", data_dir=str(copy), checksums=checksums("sgd"), cache_dir=str(tmp_path / "a"))
    builder.download_and_prepare(file_format="parquet", num_proc=2)  # no false alarm
    unified = load("sgd", data_dir=str(copy), checksums=checksums("sgd"), cache_dir=str(tmp_path / "b"))
    assert builder.info.splits["train"].num_examples == sum(len(d) for d in unified["train"]["dialog"])
    path = copy / TRAIN_2
    dialogues = json.loads(path.read_text())
    dialogues[0]["dialogue_id"] = "2_00089"
    path.write_text(json.dumps(dialogues))
    builder = load_builder("sgd", "nlu", data_dir=str(copy), cache_dir=str(tmp_path / "c"))
    with pytest.raises(SourceFormatError, match="train/dialogues_001.json, dialogue #0"):
        builder.download_and_prepare(file_format="parquet", num_proc=2, verification_mode="no_checks")


def test_a_file_without_rows_of_a_view_builds_when_its_split_has_rows(tmp_path):
    """A file whose dialogues have no row of a view (no system turn) once made every chat
    config fail: the chat rows of an empty view table could not be made (found on a
    generated copy, tests/test_generated_corpora.py)."""
    files = SourceFiles({
        "train/schema.json": [{"service_name": "S", "description": "", "slots": [],
                               "intents": [{"name": "I", "description": "", "is_transactional": False,
                                            "required_slots": [], "optional_slots": {}, "result_slots": []}]}],
        "train/dialogues_001.json": [{"dialogue_id": "a", "services": ["S"], "turns": [
            {"speaker": "USER", "utterance": "hi", "frames": [{"service": "S", "slots": [], "actions": [], "state": {
                "active_intent": "I", "requested_slots": [], "slot_values": {}}}]}]}],
        "train/dialogues_002.json": [{"dialogue_id": "b", "services": ["S"], "turns": [
            {"speaker": "SYSTEM", "utterance": "ok", "frames": [{"service": "S", "slots": [], "actions": []}]}]}],
    })
    kwargs = files.load_kwargs(tmp_path)
    for config in ("nlg-chat", "response-chat"):
        assert load("sgd", config, cache_dir=str(tmp_path / "cache"), **kwargs)["train"].num_rows == 1
