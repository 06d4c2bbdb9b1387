"""A smoke test of the benchmark (``make bench``), on the fixtures, with one run per row."""

from pathlib import Path

import pytest

from conftest import fixture_dir
from unified_dialogue import load, registry
from unified_dialogue.testing import read_json
from unified_dialogue.tools import bench

ROOT = Path(__file__).parent.parent


def test_benchmark_runs_every_row_on_the_sgd_fixtures():
    # The smallest input (scale 1): each row is a fresh process whatever the scale, and the
    # fixtures' two train files still give the rows of two processes. Replicated inputs:
    # test_every_corpus_replicates_its_bench_source_into_an_input_its_loader_reads.
    lines, scale = [], 1
    table = bench.run({"sgd": str(fixture_dir("sgd"))}, scale=scale, repeat=1, out=lines.append)
    rows = {line[:40].strip(): line for line in table.splitlines()[2:]}
    assert list(rows) == [
        "sgd: floor, json.load", "sgd: floor, 2 processes", "sgd: datasets' json loader",
        "sgd unified: build, 1 process", "sgd unified: build, num_proc=2",
        "sgd original: build, 1 process", "sgd original: build, num_proc=2",
        "sgd dst: build, 1 process", "sgd nlg: build, 1 process", "sgd response: build, 1 process",
        "sgd nlu: build, 1 process", "sgd d3st: build, 1 process", "sgd dst-chat: build, 1 process",
        "sgd nlg-chat: build, 1 process", "sgd response-chat: build, 1 process", "sgd nlu-chat: build, 1 process",
        "sgd user-chat: build, 1 process", "sgd agent-chat: build, 1 process", "sgd agent-call-chat: build, 1 process",
        "sgd database: build, 1 process", "sgd episodes: build, 1 process",
        "sgd unified: streaming", "sgd unified: reload from cache",
    ]
    dialogues = scale * sum(len(read_json(p)) for p in fixture_dir("sgd").glob("*/dialogues_*.json"))
    turns = scale * sum(len(d["turns"]) for p in fixture_dir("sgd").glob("*/dialogues_*.json") for d in read_json(p))
    calls = scale * sum("service_call" in f for p in fixture_dir("sgd").glob("*/dialogues_*.json")
                    for d in read_json(p) for t in d["turns"] for f in t["frames"])
    user_frames = scale * sum(len(t["frames"]) for p in fixture_dir("sgd").glob("*/dialogues_*.json")
                          for d in read_json(p) for t in d["turns"] if t["speaker"] == "USER")
    for label, line in rows.items():
        if "cannot read the files" in line:  # datasets' json loader, on some versions
            continue
        # a view has a row per user or system turn (the fixtures alternate; user-chat per user turn), nlu per turn,
        # d3st per frame of a user turn, agent-call-chat and database per service call, agent-chat
        # and episodes per dialogue
        expected = {"dst": turns // 2, "nlg": turns // 2, "response": turns // 2, "user": turns // 2, "nlu": turns,
                    "d3st": user_frames, "agent-call": calls, "database": calls}.get(label.split()[1].rstrip(":").removesuffix("-chat"), dialogues)
        assert f" {expected} " in line, line
    assert "× floor" in table.splitlines()[0] and "CPU s" in table.splitlines()[0]
    for label, line in rows.items():
        if "build" in label:
            assert float(line[50:59]) > 0, line  # the CPU column
    assert "speed-up over 1 process" in rows["sgd unified: build, num_proc=2"]
    assert "× the unified build" in rows["sgd dst: build, 1 process"]
    assert "× the view's build" in rows["sgd dst-chat: build, 1 process"]
    assert "speed-up over 1 process" in rows["sgd: floor, 2 processes"]
    assert "first record after" in rows["sgd unified: streaming"]
    assert "memory-mapped" in rows["sgd unified: reload from cache"]
    assert "REBUILT" not in rows["sgd unified: reload from cache"]


def test_table_gives_cpu_time_of_num_proc_against_one_process():
    def row(label, measure, num_proc, seconds, cpu):
        spec = {"corpus": "sgd", "measure": measure, "config": None if measure == "floor" else "unified"}
        if num_proc:
            spec["num_proc"] = num_proc
        return bench.Row(label, spec, results=[{"seconds": seconds, "cpu": cpu, "peak_rss": bench.MIB, "records": 3}])

    table = bench.format_table([
        row("floor", "floor", None, 0.5, 0.5),
        row("build", "build", None, 1.0, 1.1),
        row("build np2", "build", 2, 0.625, 1.375),
    ])
    lines = {line[:40].strip(): line for line in table.splitlines()[2:]}
    assert "1.60×, CPU time 1.25× that of 1 process" in lines["build np2"]
    assert float(lines["build np2"][50:59]) == 1.375


def test_cpu_seconds_count_children_that_have_ended():
    import multiprocessing
    import time

    def burn():
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass

    before = bench._cpu_seconds()
    child = multiprocessing.get_context("fork").Process(target=burn)
    child.start()
    child.join()
    assert bench._cpu_seconds() - before >= 0.25


def test_sgd_input_links_every_dialogue_file_scale_times(tmp_path):
    corpus = bench.prepare_input(registry.get("sgd"), str(fixture_dir("sgd")), str(tmp_path), 3)
    assert [len(files) for files in corpus.json_files.values()] == [6, 3, 3]
    assert [p.rsplit("/", 1)[1] for p in corpus.json_files["train"]] == [f"dialogues_00{n}.json" for n in range(1, 7)]
    assert corpus.several_files_a_split


@pytest.mark.parametrize("name", list(registry.corpora()))
def test_every_corpus_replicates_its_bench_source_into_an_input_its_loader_reads(tmp_path, name):
    corpus = registry.get(name)
    source = bench.sources_of(None)[name]
    assert source == corpus.bench_source
    made = bench.prepare_input(corpus, str(ROOT / source), str(tmp_path), 2)
    dsd = load(name, data_dir=made.data_dir, checksums=made.checksums, cache_dir=str(tmp_path / "cache"))
    for split, files in made.json_files.items():
        assert dsd[split].num_rows == sum(len(read_json(path)) for path in files), split
    ids = [record["dialogue_id"] for ds in dsd.values() for record in ds]
    assert len(ids) == len(set(ids)) > 0


def test_a_copy_in_the_data_folder_is_preferred_to_the_fixtures(tmp_path):
    (tmp_path / "sgd").mkdir()
    sources = bench.sources_of(str(tmp_path))
    assert sources["sgd"] == str(tmp_path / "sgd")
    assert sources["ccpe"] == registry.get("ccpe").bench_source
