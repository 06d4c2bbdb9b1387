"""Generated text through the one scoring command (``python -m unified_dialogue.scoring``),
end to end on the fixtures: SGD ``nlg`` and ``nlg-chat`` (SER from the split's and the
train split's schemas, ``--upstream-compat``), FaithDial ``response-chat`` (knowledge
overlap from the ``response`` rows), and a missing or unknown id."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue.scoring.__main__ import main
from unified_dialogue.scoring.generation import score_generation
from unified_dialogue.scoring.rows import load_json, read_predictions


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One datasets cache for every command of this module: each config is built once."""
    return str(tmp_path_factory.mktemp("cache"))


def command(cache, predictions, config, corpus="sgd", split="validation", *flags):
    return ["--corpus", corpus, "--config", config, "--split", split, "--data-dir", str(fixture_dir(corpus)),
            "--checksums", checksums(corpus), "--cache-dir", cache, "--predictions", str(predictions), *flags]


def scored(cache, tmp_path, predictions, config, *args):
    output = tmp_path / f"{config}.json"
    main(command(cache, write_predictions(tmp_path / f"{config}.jsonl", predictions), config, *args)
         + ["--output", str(output)])
    return load_json(output)


def edited(texts):
    """Every other text cut after its fourth word: the gold made imperfect."""
    return {i: " ".join(t.split()[:4]) if k % 2 else t for k, (i, t) in enumerate(texts.items())}


def test_gold_nlg_texts_score_bleu_100_and_no_slot_error(build, cache, tmp_path):
    rows = build("sgd", "nlg")["validation"]
    metrics = scored(cache, tmp_path, {row["id"]: row["target"] for row in rows}, "nlg")
    assert metrics["all"]["bleu"] == 100.0 and metrics["all"]["N"] == len(rows)
    assert metrics["all"]["rougeL"]["fmeasure"] == 1.0
    assert {metrics[group]["ser"] for group in ("all", "seen", "unseen") if group in metrics} == {0.0}
    assert metrics["misses"] == metrics["malformed"] == {"count": 0, "ids": []}


def test_nlg_and_nlg_chat_give_the_numbers_of_score_generation_on_the_nlg_rows(build, cache, tmp_path):
    rows = build("sgd", "nlg")["validation"]
    schemas = build("sgd", "schema")
    chat = build("sgd", "nlg-chat")["validation"]
    assert sorted(chat["id"]) == sorted(rows["id"])
    predictions = edited({row["id"]: row["completion"][0]["content"] for row in chat})
    expected = json.loads(json.dumps(score_generation(predictions, rows, schemas=schemas["validation"],
                                                      train_schemas=schemas["train"])))
    assert 0 < expected["all"]["ser"] < 100 and expected["all"]["bleu"] < 100
    assert {"seen", "unseen"} <= set(expected)
    for config in ("nlg", "nlg-chat"):
        assert scored(cache, tmp_path, predictions, config) == expected


def test_upstream_compat_is_a_flag_of_the_command(build, cache, tmp_path):
    rows = build("sgd", "nlg")["validation"]
    schemas = build("sgd", "schema")["validation"]
    predictions = write_predictions(tmp_path / "p.jsonl", edited({row["id"]: row["target"] for row in rows}))
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring",
                           *command(cache, predictions, "nlg-chat"), "--upstream-compat"],
                          capture_output=True, text=True, check=True)
    expected = score_generation(read_predictions(predictions), rows, schemas=schemas, upstream_compat=True)
    assert json.loads(done.stdout) == json.loads(json.dumps(expected))
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--config", "nlg", "--help"],
                          capture_output=True, text=True, check=True)
    assert "--upstream-compat" in done.stdout and "--tokenizer" in done.stdout


def test_faithdial_response_chat_is_scored_with_the_knowledge_of_its_response_rows(build, cache, tmp_path):
    rows = build("faithdial", "response")["test_topic"]
    chat = build("faithdial", "response-chat")["test_topic"]
    gold = {row["id"]: row["completion"][0]["content"] for row in chat}
    metrics = scored(cache, tmp_path, gold, "response-chat", "faithdial", "test_topic")
    assert metrics["all"]["bleu"] == 100.0 and metrics["all"]["N"] == len(rows)
    expected = score_generation(gold, rows)["all"]
    assert 0 < metrics["all"]["knowledge_f1"] == expected["knowledge_f1"] < 1
    assert "ser" not in metrics["all"]


def test_a_missing_id_is_an_error_naming_it_or_with_allow_missing_a_counted_miss(build, cache, tmp_path, capsys):
    rows = build("sgd", "nlg")["validation"]
    texts = {row["id"]: row["target"] for row in rows}
    absent = rows[1]["id"]
    del texts[absent]
    predictions = write_predictions(tmp_path / "p.jsonl", texts)
    with pytest.raises(SystemExit) as exit_:
        main(command(cache, predictions, "nlg-chat"))
    assert exit_.value.code == 2 and f"1 row(s) have no prediction: {absent!r}" in capsys.readouterr().err
    metrics = scored(cache, tmp_path, texts, "nlg-chat", "sgd", "validation", "--allow-missing")
    assert metrics["misses"] == {"count": 1, "ids": [absent]}
    assert metrics["all"]["N"] == len(rows) - 1 and metrics["all"]["bleu"] == 100.0


def test_an_unknown_id_is_an_error_naming_it(build, cache, tmp_path, capsys):
    texts = {row["id"]: row["target"] for row in build("sgd", "nlg")["validation"]}
    predictions = write_predictions(tmp_path / "p.jsonl", {**texts, "sgd/validation/nope/1": "Hello."})
    with pytest.raises(SystemExit) as exit_:
        main(command(cache, predictions, "nlg-chat", "sgd", "validation", "--allow-missing"))
    assert exit_.value.code == 2 and "name no row: 'sgd/validation/nope/1'" in capsys.readouterr().err
