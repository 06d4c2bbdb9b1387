"""``dst-chat`` on names its form uses (a slot named ``intent`` or ``requested``, as the SGD
test split has), built through the loader and scored through the command; and the counts
that tell an unreadable text from a readable one naming what the schema lacks."""

import json
import shutil
import subprocess
import sys

import pytest

from conftest import fixture_dir, write_predictions
from unified_dialogue import load
from unified_dialogue.scoring.dst_chat import score_dst_chat

RENAMED = {"genre": "intent", "director": "requested"}  # slots of Movies_2, in the dev fixture's states


def renamed_slots(record, service):
    """Rename ``RENAMED``'s slots of ``service`` wherever an SGD schema or dialogue names them."""
    def name(slot):
        return RENAMED.get(slot, slot)

    if "service_name" in record:
        if record["service_name"] == service:
            for slot in record["slots"]:
                slot["name"] = name(slot["name"])
            for intent in record["intents"]:
                intent["required_slots"] = [name(s) for s in intent["required_slots"]]
                intent["optional_slots"] = {name(s): v for s, v in intent["optional_slots"].items()}
                intent["result_slots"] = [name(s) for s in intent["result_slots"]]
        return record
    for turn in record["turns"]:
        for frame in turn["frames"]:
            if frame["service"] != service:
                continue
            for item in frame["actions"] + frame["slots"]:
                item["slot"] = name(item["slot"])
            if "state" in frame:
                frame["state"]["requested_slots"] = [name(s) for s in frame["state"]["requested_slots"]]
                frame["state"]["slot_values"] = {name(s): v for s, v in frame["state"]["slot_values"].items()}
            if "service_call" in frame:
                call = frame["service_call"]
                call["parameters"] = {name(s): v for s, v in call["parameters"].items()}
            if "service_results" in frame:
                frame["service_results"] = [{name(s): v for s, v in r.items()} for r in frame["service_results"]]
    return record


@pytest.fixture(scope="module")
def keyword_copy(tmp_path_factory):
    """A copy of the SGD fixtures whose Movies_2 has slots named ``intent`` and ``requested``."""
    copy = tmp_path_factory.mktemp("sgd-keywords") / "sgd"
    shutil.copytree(fixture_dir("sgd"), copy, ignore=shutil.ignore_patterns("sgd_x", "SHA256SUMS.tsv"))
    for path in copy.glob("*/*.json"):
        records = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps([renamed_slots(r, "Movies_2") for r in records]), encoding="utf-8")
    return copy


def command(copy, tmp_path, config, predictions):
    return [sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", config, "--split",
            "validation", "--data-dir", str(copy), "--no-verify", "--cache-dir", str(tmp_path / "cache"),
            "--predictions", str(predictions)]


@pytest.mark.parametrize("config", ["dst-chat", "nlu-chat"])
def test_slots_named_like_keywords_build_and_their_gold_scores_1(keyword_copy, tmp_path, config):
    rows = load("sgd", config, split="validation", data_dir=str(keyword_copy), verification_mode="no_checks",
                cache_dir=str(tmp_path / "cache"))
    texts = {r["id"]: r["completion"][0]["content"] for r in rows}
    if config == "dst-chat":
        assert any('"intent"=' in t for t in texts.values()) and any('["requested"' in t for t in texts.values())
    else:
        assert any('Movies_2."requested"=Christian Petzold' in t for t in texts.values())
    predictions = write_predictions(tmp_path / "p.jsonl", texts)
    done = subprocess.run(command(keyword_copy, tmp_path, config, predictions), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)
    if config == "dst-chat":
        values = {v for group in metrics.values() if isinstance(group, dict) for v in group.values()}
        assert values == {1.0}
    else:
        assert (metrics["slot_f1"], metrics["intent_accuracy"], metrics["frame_exact_match"]) == (1.0, 1.0, 1.0)
    counts = ("malformed", "unknown_services", "unknown_slots", "unknown_intents", "missing")
    assert {c: metrics[c] for c in counts} == dict.fromkeys(counts, 0)


def test_unknown_names_are_counted_apart_from_unreadable_texts(build):
    rows = build("sgd", "dst-chat")["validation"]
    predictions = {r["id"]: r["completion"][0]["content"] for r in rows}
    ids = list(predictions)
    predictions[ids[0]] = "Hotels_9: intent=BookHotel; city=Paris"  # readable: a service of no split
    predictions[ids[1]] = predictions[ids[1]].split(":")[0] + ": intent=BookAnything; cuisine=Thai"
    predictions[ids[2]] = "I do not know."
    schemas = build("sgd", "schema")
    metrics = score_dst_chat(predictions, rows, references=build("sgd", "dst")["validation"],
                             schemas=schemas["validation"], train_schemas=schemas["train"])
    assert metrics["unknown_services_ids"] == [ids[0]] and metrics["unknown_services"] == 1
    assert metrics["unknown_intents_ids"] == [ids[1]] and metrics["unknown_slots_ids"] == [ids[1]]
    assert metrics["malformed_ids"] == [ids[2]] and metrics["malformed"] == 1
    assert metrics["#ALL_SERVICES"]["joint_goal_accuracy"] < 1.0
