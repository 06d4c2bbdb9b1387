"""Per-row scores (``per_row=True`` of every scorer, ``--per-row PATH`` of the command) on the
fixtures: one record per row in the rows' order, and averaging the records as
docs/scoring.md says gives the corpus metrics."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue import scoring
from unified_dialogue.scoring import ScoringError, gem
from unified_dialogue.scoring.tool_calls import gold_text

ALL = "#ALL_SERVICES"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def score(cache, corpus, config, split, predictions, **options):
    return scoring.score(corpus, config, split, predictions, data_dir=str(fixture_dir(corpus)),
                         load_options={"checksums": checksums(corpus), "cache_dir": cache}, per_row=True, **options)


def rotated(texts):
    """Each row given the next row's gold text: right on some rows, wrong on others."""
    ids, values = list(texts), list(texts.values())
    return dict(zip(ids, values[1:] + values[:1]))


def gold_chat(build, corpus, config, split):
    return {row["id"]: row["completion"][0]["content"] for row in build(corpus, config)[split]}


def weighted_mean(records, metric):
    """A DST metric averaged over the rows' frames: each row's value weighted by its frames
    (or by ``weights[metric]`` where fewer frames give the metric a value)."""
    pairs = [(record[metric], record.get("weights", {}).get(metric, record["frames"])) for record in records]
    total = sum(weight for _, weight in pairs)
    return sum(value * weight for value, weight in pairs if weight) / total


def check_dst_means(metrics):
    records = metrics["per_row"]
    for metric, corpus_value in metrics[ALL].items():
        assert weighted_mean(records, metric) == pytest.approx(corpus_value, rel=1e-12, abs=1e-12), metric
    return records


@pytest.mark.parametrize("across", [False, True])
def test_dst_chat_rows_averaged_by_frames_are_the_corpus_metrics(build, cache, across):
    gold = gold_chat(build, "sgd", "dst-chat", "validation")
    texts = rotated(gold)
    texts[next(iter(texts))] = "I cannot tell."  # unreadable: every frame scored against an empty state
    metrics = score(cache, "sgd", "dst-chat", "validation", texts, joint_acc_across_turn=across)
    records = check_dst_means(metrics)
    assert [record["id"] for record in records] == list(gold)
    assert 0 < metrics[ALL]["joint_goal_accuracy"] < 1  # the check above is not on all-ones
    assert sum(record["frames"] for record in records) > len(records)  # some turns have two frames


def test_d3st_rows_are_frames_and_average_to_the_corpus_metrics(build, cache):
    rows = build("sgd", "d3st")["validation"]
    texts = rotated({row["id"]: row["target"] for row in rows})
    metrics = score(cache, "sgd", "d3st", "validation", texts)
    records = check_dst_means(metrics)
    assert [record["id"] for record in records] == list(rows["id"]) and {r["frames"] for r in records} == {1}
    assert 0 < metrics[ALL]["joint_goal_accuracy"] < 1
    with pytest.raises(ScoringError, match="joint_acc_across_turn"):
        score(cache, "sgd", "d3st", "validation", texts, joint_acc_across_turn=True)


@pytest.mark.parametrize("config", ["dst-chat", "d3st"])
def test_a_dst_record_gives_each_reference_frame_its_own_scores(build, cache, config):
    """``per_frame``: the frames' own values (what the evaluator writes into each frame), with
    their service and whether the train schema has it; a turn's values are their mean."""
    rows = build("sgd", config)["validation"]
    gold = {row["id"]: row["target"] for row in rows} if config == "d3st" else gold_chat(build, "sgd", config,
                                                                                          "validation")
    records = score(cache, "sgd", config, "validation", rotated(gold))["per_row"]
    train = {row["service_name"] for row in build("sgd", "schema")["train"]}
    frames = [frame for record in records for frame in record["per_frame"]]
    assert {frame["seen"] for frame in frames} == {True, False}  # the fixture split has both
    assert all(frame["seen"] == (frame["service"] in train) for frame in frames)
    for record in records:
        for metric in ("joint_goal_accuracy", "average_goal_accuracy", "requested_slots_f1"):
            given = [frame[metric] for frame in record["per_frame"] if frame[metric] is not None]
            assert record[metric] == (pytest.approx(sum(given) / len(given), abs=1e-15) if given else None)
    assert {len(record["per_frame"]) for record in records} == ({1} if config == "d3st" else {1, 2})
    assert 0 < sum(frame["joint_goal_accuracy"] for frame in frames) < len(frames)


def test_tool_call_rows_average_and_add_up_to_the_corpus_metrics(build, cache):
    rows = build("sgd", "agent-call-chat")["validation"]
    gold = {row["id"]: gold_text(row) for row in rows}
    texts = {i: text if k % 3 else rotated(gold)[i] for k, (i, text) in enumerate(gold.items())}
    texts[rows[0]["id"]] = "no call here"
    metrics = score(cache, "sgd", "agent-call-chat", "validation", texts)
    records = metrics["per_row"]
    assert [record["id"] for record in records] == list(rows["id"])
    for metric in ("call_accuracy", "joint_accuracy"):
        assert sum(record[metric] for record in records) / len(records) == pytest.approx(metrics[metric], abs=1e-15)
    right, predicted, gold = (sum(record[key] for record in records)
                              for key in ("arguments_right", "arguments_predicted", "arguments_gold"))
    assert (right / predicted, right / gold) == pytest.approx((metrics["argument_precision"],
                                                               metrics["argument_recall"]))
    assert 0 < metrics["joint_accuracy"] < 1 and records[0]["argument_f1"] == 0.0


@pytest.mark.parametrize("config", ["nlg", "nlg-chat"])
def test_generated_text_rows_give_sentence_chrf_and_the_slot_error_rate(build, cache, config):
    rows = build("sgd", "nlg")["validation"]
    texts = {row["id"]: " ".join(row["target"].split()[:4]) if k % 2 else row["target"] for k, row in enumerate(rows)}
    metrics = score(cache, "sgd", config, "validation", texts)
    records = metrics["per_row"]
    assert [record["id"] for record in records] == list(rows["id"])
    accuracy = [record["slot_accuracy"] for record in records]
    assert 100 * (1 - sum(accuracy) / len(accuracy)) == pytest.approx(metrics["all"]["ser"], abs=1e-12)
    assert 0 < metrics["all"]["ser"] < 100
    from sacrebleu.metrics import CHRF

    chrf = CHRF(word_order=0, eps_smoothing=True)
    for record, row in zip(records, rows):
        expected = chrf.sentence_score(texts[row["id"]], list(row["references"])).score / 100
        assert record["sentence_chrf"] == pytest.approx(expected, abs=1e-12)
    assert {record["sentence_chrf"] for record in records[::2]} == {1.0}


def test_faithdial_rows_average_to_the_knowledge_scores(build, cache):
    gold = gold_chat(build, "faithdial", "response-chat", "test_topic")
    texts = {i: " ".join(t.split()[: 3 + k % 5]) for k, (i, t) in enumerate(gold.items())}
    metrics = score(cache, "faithdial", "response-chat", "test_topic", texts)
    records = metrics["per_row"]
    for name in ("knowledge_precision", "knowledge_recall", "knowledge_f1"):
        assert sum(record[name] for record in records) / len(records) == pytest.approx(metrics["all"][name],
                                                                                      abs=1e-15)
    assert 0 < metrics["all"]["knowledge_f1"] < 1 and "slot_accuracy" not in records[0]


def test_sentence_chrf_with_references_extracted_once_is_sacrebleus():
    from sacrebleu.metrics import CHRF

    references = ["The table is booked for 7 pm.", "Booked: 7 pm, a table for two."]
    for text in ("Your table is booked for 7 pm.", "", "booked"):
        expected = CHRF(word_order=0, eps_smoothing=True).sentence_score(text, references).score / 100
        assert gem.sentence_chrf(text, references) == gem.sentence_chrf(text, gem.chrf_references(references))
        assert gem.sentence_chrf(text, references) == pytest.approx(expected, abs=1e-15)


# ---------------------------------------------------------------- the command

def command(cache, predictions, *flags, config="dst-chat"):
    return [sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", config,
            "--split", "validation", "--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
            "--cache-dir", cache, "--predictions", str(predictions), *flags]


def test_the_command_writes_the_per_row_scores_as_json_lines_not_in_the_metrics(build, cache, tmp_path):
    texts = rotated(gold_chat(build, "sgd", "dst-chat", "validation"))
    unreadable = next(iter(texts))
    texts[unreadable] = "```\n" + texts[unreadable] + "\nno state here"  # read in part: malformed
    predictions = write_predictions(tmp_path / "p.jsonl", texts)
    per_row, output = tmp_path / "rows.jsonl", tmp_path / "metrics.json"
    subprocess.run(command(cache, predictions, "--per-row", str(per_row), "--output", str(output)), check=True)
    written = [json.loads(line) for line in per_row.read_text(encoding="utf-8").splitlines()]
    expected = score(cache, "sgd", "dst-chat", "validation", texts)
    assert expected["malformed_ids"] == [unreadable]
    records = [dict(record, malformed=record["id"] == unreadable) for record in expected.pop("per_row")]
    assert written == json.loads(json.dumps(records))
    assert json.loads(output.read_text()) == json.loads(json.dumps(expected))
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left


@pytest.mark.parametrize("target", ["predictions", "folder", "no-folder", "output"])
def test_a_per_row_path_onto_an_input_a_folder_or_the_output_is_refused_before_any_work(build, cache, tmp_path,
                                                                                        target):
    predictions = write_predictions(tmp_path / "p.jsonl", gold_chat(build, "sgd", "dst-chat", "validation"))
    before = predictions.read_bytes()
    path = {"predictions": predictions, "folder": tmp_path, "no-folder": tmp_path / "nowhere" / "rows.jsonl",
            "output": tmp_path / "metrics.json"}[target]
    done = subprocess.run(command(cache, predictions, "--per-row", str(path), "--output",
                                  str(tmp_path / "metrics.json")), capture_output=True, text=True)
    assert done.returncode == 2 and "--per-row" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert predictions.read_bytes() == before and not (tmp_path / "metrics.json").exists()
