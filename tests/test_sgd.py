"""SGD on its fixtures: lossless round trips, counts, seen/unseen, both datasets lines."""

import json
from pathlib import Path

import datasets
import pytest

from conftest import ONLY_DATASETS_3, ONLY_DATASETS_4_PLUS, checksums, expected_counts, fixture_dir
from unified_dialogue import load, sgd

EXPECTED = Path(__file__).parent / "expected"
FOLDERS = sgd.SPLIT_DIRS


def source_files(split):
    return sorted((fixture_dir("sgd") / FOLDERS[split]).glob("dialogues_*.json"))


def dump_like_upstream(dialogues):
    return json.dumps(dialogues, indent=2, sort_keys=True) + "\n"


@pytest.mark.parametrize("config, to_source", [("unified", sgd.unified_to_source), ("original", sgd.original_to_source)])
def test_round_trip_reproduces_the_source_files_byte_for_byte(build, config, to_source):
    for split, ds in build("sgd", config).items():
        rebuilt = [to_source(record) for record in ds]
        for file in source_files(split):
            count = len(json.loads(file.read_text()))
            assert dump_like_upstream(rebuilt[:count]) == file.read_text(), file
            rebuilt = rebuilt[count:]
        assert rebuilt == []


def test_schema_config_round_trips(build):
    for split, ds in build("sgd", "schema").items():
        file = fixture_dir("sgd") / FOLDERS[split] / "schema.json"
        assert json.dumps([sgd.row_to_service(row) for row in ds], indent=2) + "\n" == file.read_text()


def test_counts_of_acts_and_spans(build):
    expected = expected_counts("sgd")
    for split, ds in build("sgd").items():
        acts = sum(len(t["dialog_acts"]) for r in ds for t in r["dialog"])
        spans = sum(len(f["slots"]) for r in ds for t in r["dialog"] for f in t["frames"])
        assert (acts, spans) == (expected[split]["actions"], expected[split]["spans"]), split


def test_whole_dialogue_matches_the_expected_record(build):
    expected = json.loads((EXPECTED / "sgd_unified_validation_10_00091.json").read_text())
    (record,) = [r for r in build("sgd")["validation"] if r["original_id"] == "10_00091"]
    assert record == expected


def test_unseen_services_follow_the_train_schema(build):
    train_services = {s["service_name"] for s in json.loads((fixture_dir("sgd") / "train/schema.json").read_text())}
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
    dsd = build("sgd")
    ids = {split: {r["original_id"]: r["dialogue_id"] for r in ds} for split, ds in dsd.items()}
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
    dsd = build("sgd")
    schema_rows = {split: {row["service_name"]: row for row in ds} for split, ds in build("sgd", "schema").items()}
    for split, ds in dsd.items():
        for record in ds:
            assert record["knowledge"]["type"] == "schema"
            assert record["knowledge"]["value"]["text"] is None
            assert record["knowledge"]["value"]["schema"] == [schema_rows[split][s] for s in record["domain"]]


@ONLY_DATASETS_3
def test_load_dataset_script_gives_the_entry_point_records(build, tmp_path):
    root = Path(__file__).parent.parent
    for config in ("unified", "original", "schema"):
        via_script = datasets.load_dataset(
            str(root / "loaders" / "sgd"), config, data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
            cache_dir=str(tmp_path), trust_remote_code=True)
        via_entry = build("sgd", config)
        assert sorted(via_script) == sorted(via_entry)
        for split in via_entry:
            assert via_script[split].to_list() == via_entry[split].to_list()
    streamed = datasets.load_dataset(str(root / "loaders" / "sgd"), split="validation", streaming=True,
                                     data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                                     trust_remote_code=True)
    assert list(streamed) == build("sgd")["validation"].to_list()


@ONLY_DATASETS_4_PLUS
def test_load_dataset_refuses_the_script_so_the_entry_point_is_needed():
    root = Path(__file__).parent.parent
    with pytest.raises(RuntimeError, match="scripts are no longer supported"):
        datasets.load_dataset(str(root / "loaders" / "sgd"), data_dir=str(fixture_dir("sgd")))


def test_split_argument_returns_a_dataset(build, tmp_path):
    ds = load("loaders/sgd", "original", split="test", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
              cache_dir=str(tmp_path))
    assert isinstance(ds, datasets.Dataset)
    assert ds.to_list() == build("sgd", "original")["test"].to_list()


def test_bad_file_error_names_file_dialogue_and_field(tmp_path):
    copy = tmp_path / "copy"
    import shutil
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / "dev" / "dialogues_001.json"
    dialogues = json.loads(path.read_text())
    dialogues[1]["turns"][2]["frames"][0]["actions"][0]["act"] = "SHRUG"
    path.write_text(json.dumps(dialogues))
    with pytest.raises(sgd.SourceFormatError) as error:
        load("sgd", data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks")
    assert str(error.value).startswith(
        "dev/dialogues_001.json: dialogue 5_00103: field 'turns[2].frames[0].actions[0].act': unknown USER act 'SHRUG'")


def test_with_num_proc_one_pool_converts_the_files_of_every_split(tmp_path, monkeypatch):
    from unified_dialogue import builder

    pools = []

    class RecordedPool(builder.WorkerPool):
        def __init__(self, tasks, num_proc):
            super().__init__(tasks, num_proc)
            pools.append(([task.relpath for task in tasks], num_proc))

    monkeypatch.setattr(builder, "WorkerPool", RecordedPool)
    prepared = load("sgd", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), cache_dir=str(tmp_path / "c"),
                    num_proc=2)
    files = [f"{folder}/{p.name}" for folder in ("train", "dev", "test")
             for p in sorted((fixture_dir("sgd") / folder).glob("dialogues_*.json"))]
    assert pools == [(files, 2)]  # made once, with every split's files, in the order they are written
    assert set(prepared) == {"train", "validation", "test"}


def test_bad_file_with_num_proc_gives_the_same_error(tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / "train" / "dialogues_002.json"  # converted here or in the worker: the same error
    dialogues = json.loads(path.read_text())
    dialogues[1]["turns"][0]["frames"][0]["slots"] = [{"slot": "x", "start": "1", "exclusive_end": 2}]
    path.write_text(json.dumps(dialogues))
    with pytest.raises(sgd.SourceFormatError) as error:
        load("sgd", data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks", num_proc=2)
    assert str(error.value) == (f"train/dialogues_002.json: dialogue {dialogues[1]['dialogue_id']}: "
                                "field 'turns[0].frames[0].slots[0].start': expected int, got str '1'")


def test_invalid_json_names_the_file(tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").write_text('[{"dialogue_id": "1_0"')
    with pytest.raises(sgd.SourceFormatError, match=r"^test/dialogues_001.json: whole file: field '\(json\)': invalid JSON"):
        load("sgd", data_dir=str(copy), cache_dir=str(tmp_path / "c"), verification_mode="no_checks")


def test_roundtrip_command_checks_every_file_and_can_fail(tmp_path):
    import shutil

    from unified_dialogue.roundtrip import sgd_mismatches

    results = list(sgd_mismatches(str(fixture_dir("sgd")), str(tmp_path / "a")))
    assert len(results) == 2 * 4 and all(same for _, _, same in results)
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / "dev" / "dialogues_001.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4))
    bad = [(config, file) for config, file, same in sgd_mismatches(str(copy), str(tmp_path / "b")) if not same]
    assert bad == [("unified", str(path)), ("original", str(path))]
