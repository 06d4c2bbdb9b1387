"""Scoring ``nlu-chat`` (``scoring.nlu``): gold texts score 1.0 on the SGD and CCPE-M
fixtures, a changed text less, the per-row values make the corpus metrics, and unknown
names are counted apart from unreadable texts."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue.scoring import SCORERS, flags
from unified_dialogue.scoring.nlu import CORRECT, PREDICTED, REFERENCE, prf, score_nlu, score_row

METRICS = ("intent_accuracy", "slot_precision", "slot_recall", "slot_f1", "frame_exact_match")


def gold(build, corpus, split, **options):
    return {r["id"]: r["completion"][0]["content"] for r in build(corpus, "nlu-chat", **options)[split]}


def scored(build, corpus, split, predictions, variant=None, **scorer_options):
    options = {"variant": variant} if variant else {}
    schemas = build(corpus, "schema", **options)[split] if corpus == "sgd" else None
    return score_nlu(predictions, build(corpus, "nlu-chat", **options)[split],
                     references=build(corpus, "nlu", **options)[split], schemas=schemas, **scorer_options)


@pytest.mark.parametrize("corpus, split, variant", [("sgd", "train", None), ("sgd", "validation", None),
                                                    ("sgd", "test", None), ("sgd", "validation", "v2"),
                                                    ("ccpe", "train", None)])
def test_gold_texts_score_1(build, corpus, split, variant):
    options = {"variant": variant} if variant else {}
    metrics = scored(build, corpus, split, gold(build, corpus, split, **options), variant)
    expected = {m: 1.0 for m in METRICS}
    if corpus == "ccpe":
        expected["intent_accuracy"] = None  # CCPE-M annotates no intents
    assert {m: metrics[m] for m in METRICS} == expected
    counts = ("malformed", "unknown_services", "unknown_slots", "unknown_intents", "missing")
    assert {c: metrics[c] for c in counts} == dict.fromkeys(counts, 0)
    assert SCORERS["nlu-chat"] is score_nlu and "per_row" not in flags("nlu-chat")


def test_gold_texts_have_spans_and_intents_to_score(build):
    references = build("sgd", "nlu")["validation"]
    assert sum(len(r["spans"]) for r in references) > 5
    assert sum(1 for r in references if r["intents"]) > 5


def perturbed(predictions):
    """Each third text with its first span's text changed, each fifth's intents dropped."""
    changed = {}
    for position, (identifier, text) in enumerate(predictions.items()):
        head, spans = text.split("spans: ")
        if position % 3 == 0:
            text = head + "spans: " + spans.replace("=", "=x", 1)
        if position % 5 == 0 and text.startswith("intents: ") and not text.startswith("intents: none"):
            text = text.split("\n", 1)[1]
        changed[identifier] = text
    return changed


@pytest.mark.parametrize("corpus, split", [("sgd", "validation"), ("ccpe", "train")])
def test_a_changed_text_scores_less_and_per_row_values_make_the_corpus_metrics(build, corpus, split):
    predictions = perturbed(gold(build, corpus, split))
    metrics = scored(build, corpus, split, predictions, per_row=True)
    assert metrics["slot_f1"] < 1.0 and metrics["frame_exact_match"] < 1.0
    if corpus == "sgd":
        assert metrics["intent_accuracy"] < 1.0
    rows = metrics["per_row"]
    assert [r["id"] for r in rows] == list(build(corpus, "nlu-chat")[split]["id"])
    # the accuracies are the means of the rows' values (over the rows that have one)
    for metric in ("frame_exact_match", "intent_accuracy"):
        values = [r[metric] for r in rows if metric in r]
        assert metrics[metric] == (sum(values) / len(values) if values else None)
    # the slot metrics are micro: made from the rows' summed span counts
    totals = [sum(r[count] for r in rows) for count in (CORRECT, PREDICTED, REFERENCE)]
    assert (metrics["slot_precision"], metrics["slot_recall"], metrics["slot_f1"]) == prf(*totals)
    assert all(r["slot_f1"] == prf(r[CORRECT], r[PREDICTED], r[REFERENCE])[2] for r in rows)
    assert json.dumps(rows)  # serialisable, as --per-row writes it


def test_one_row_is_scored_by_its_own_function():
    reference = {"intents": ["FindRestaurants"], "spans": [
        {"domain": "Restaurants_1", "label": "city", "type": None, "text": "San Jose", "start": 0, "end": 8},
        {"domain": "Restaurants_1", "label": "cuisine", "type": None, "text": "Thai", "start": 9, "end": 13}]}
    right = "intents: FindRestaurants\nspans: Restaurants_1.city=San Jose; Restaurants_1.cuisine=Thai"
    assert score_row(right, reference)[0] == {"slot_f1": 1.0, CORRECT: 2, PREDICTED: 2, REFERENCE: 2,
                                              "intent_accuracy": 1.0, "frame_exact_match": 1.0}
    half, problems = score_row("intents: none\nspans: Restaurants_1.city=San Jose; Restaurants_1.cuisine=thai",
                               reference)
    assert problems == [] and half == {"slot_f1": 0.5, CORRECT: 1, PREDICTED: 2, REFERENCE: 2,
                                       "intent_accuracy": 0.0, "frame_exact_match": 0.0}
    nothing = score_row("spans: none", {"intents": None, "spans": []})[0]
    assert nothing["slot_f1"] == 1.0 and "intent_accuracy" not in nothing


def test_unknown_names_are_counted_apart_from_unreadable_texts(build):
    predictions = gold(build, "sgd", "validation")
    ids = list(predictions)
    predictions[ids[0]] = "spans: Hotels_9.city=Paris"
    predictions[ids[1]] = "intents: BookAnything\nspans: none"
    predictions[ids[2]] = "I do not know."
    del predictions[ids[3]]
    metrics = scored(build, "sgd", "validation", predictions, allow_missing=True)
    assert (metrics["unknown_services_ids"], metrics["unknown_intents_ids"], metrics["malformed_ids"],
            metrics["missing_ids"]) == ([ids[0]], [ids[1]], [ids[2]], [ids[3]])


def test_the_command_scores_nlu_chat(build, tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", gold(build, "ccpe", "train"))
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "ccpe", "--config", "nlu-chat",
                           "--split", "train", "--data-dir", str(fixture_dir("ccpe")), "--checksums",
                           checksums("ccpe"), "--cache-dir", str(tmp_path / "cache"), "--predictions",
                           str(predictions)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)
    assert (metrics["slot_f1"], metrics["frame_exact_match"], metrics["malformed"]) == (1.0, 1.0, 0)
