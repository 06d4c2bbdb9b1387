"""Scoring user-chat: the per-row functions (the values the user's INFORM acts give
non-categorical slots, said by SER's rule in either spelling; the stop marker where the
user's turn ends the conversation; sentence chrF of the words), gold texts scoring 1.0 on
every metric of every fixture split, and texts that miss a value or the end scoring less."""

import pytest
from hypothesis import given, strategies as st

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.chat.user import STOP, completion_text
from unified_dialogue.scoring.rows import ScoringError
from unified_dialogue.scoring.user import ROW_METRICS, informed_said, informed_values, reference, row_scores, \
    score_user, turn_chrf
from unified_dialogue.testing.strategies.text import fillers, values

SPLITS = ("train", "validation", "test")
NONCATEGORICAL = {"Restaurants_1": {"city", "restaurant_name"}}


def act(name, slot, *pairs, service="Restaurants_1"):
    return {"act": name, "domain": service, "slot_value_table": [
        {"slot": slot, "values": [{"value": value, "cononical_value": canonical} for value, canonical in pairs]}]}


def test_the_informed_values_are_those_of_inform_acts_of_non_categorical_slots_but_dontcare():
    acts = [act("INFORM", "city", ("SF", "San Francisco")), act("INFORM", "price_range", ("cheap", "cheap")),
            act("REQUEST", "restaurant_name"), act("INFORM", "restaurant_name", ("dontcare", "dontcare")),
            act("INFORM", "city", ("LA", "LA"), service="Hotels_1"), act("INFORM_INTENT", "intent", ("Find", "Find"))]
    assert informed_values(acts, NONCATEGORICAL) == [("SF", "San Francisco")]
    assert informed_values(None, NONCATEGORICAL) == []


def test_a_value_is_said_in_either_spelling_without_case():
    informed = [("SF", "San Francisco"), ("Nopa", "Nopa")]
    assert informed_said("somewhere in san francisco, at NOPA", informed) == 1.0
    assert informed_said("in sf please", informed) == 0.5
    assert informed_said("anywhere", informed) == 0.0
    assert informed_said("anything", []) == 1.0


@given(st.lists(st.tuples(values(empty=False), values(empty=False)), max_size=4), fillers())
def test_a_text_holding_one_spelling_of_each_value_says_them_all(pairs, filler):
    text = filler.join(said if k % 2 else canonical for k, (said, canonical) in enumerate(pairs))
    assert informed_said(text, pairs) == 1.0


def test_the_stop_marker_is_scored_where_the_users_turn_ends_the_conversation():
    last = reference(completion_text("No, thank you.", True), [], NONCATEGORICAL)
    middle = reference("Somewhere in SF.", [act("INFORM", "city", ("SF", "San Francisco"))], NONCATEGORICAL)

    def scores(text, row):
        values, problems = row_scores(text, row)
        assert problems == []
        return values

    assert scores(f"No, thank you. {STOP}", last) == dict.fromkeys(ROW_METRICS, 1.0)
    assert scores("No, thank you.", last)["stop_accuracy"] == 0.0
    assert scores(f"Somewhere in SF. {STOP}", middle)["stop_accuracy"] == 0.0
    assert scores("Somewhere in San Francisco.", middle)["informed_values_said"] == 1.0
    found = scores("Somewhere nice.", middle)
    assert found["informed_values_said"] == 0.0 and found["stop_accuracy"] == 1.0
    assert found["turn_chrf"] == turn_chrf("Somewhere nice.", "Somewhere in SF.") < 1.0
    # a reasoning block that never ends: no words, malformed (the reward's 0.0)
    values, problems = row_scores("<think>They want SF, so I", middle)
    assert [problem.kind for problem in problems] == ["malformed"] and values["informed_values_said"] == 0.0


# ---------------------------------------------------------------- on the fixtures

def options():
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd")}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("user-scoring"))

    def _loaded(split):
        def load_rows(name, split=split):
            return load("sgd", name, split=split, cache_dir=cache, **options())
        return load_rows("user-chat"), load_rows

    return _loaded


@pytest.mark.parametrize("split", SPLITS)
def test_gold_texts_score_1_on_every_metric(loaded, split):
    rows, load_rows = loaded(split)
    gold = {row["id"]: row["completion"][0]["content"] for row in rows}
    result = score_user(gold, rows, load_rows=load_rows, per_row=True)
    assert result["all"]["N"] == rows.num_rows
    assert result["all"]["bleu"] == result["all"]["chrf"] == 100.0
    assert result["all"]["informed_values_said"] == result["all"]["stop_accuracy"] == 1.0
    assert [r["id"] for r in result["per_row"]] == rows["id"]
    assert all(r[name] == 1.0 for r in result["per_row"] for name in ROW_METRICS)
    assert result["misses"]["count"] == result["malformed"]["count"] == 0


def test_a_text_without_a_value_or_the_end_scores_less(loaded):
    rows, load_rows = loaded("train")
    gold = {row["id"]: row["completion"][0]["content"] for row in rows}
    informing = "sgd/train/2_00089/0"  # "I would like to watch The birds movie."
    closing = "sgd/train/2_00089/4"  # "Thanks, that is all I need." and the marker
    texts = dict(gold, **{informing: "I would like to watch a movie.", closing: "Thanks, that is all I need."})
    result = score_user(texts, rows, load_rows=load_rows, per_row=True)
    per_row = {r["id"]: r for r in result["per_row"]}
    assert per_row[informing]["informed_values_said"] == 0.0 and per_row[informing]["stop_accuracy"] == 1.0
    assert per_row[closing]["stop_accuracy"] == 0.0 and per_row[closing]["turn_chrf"] == 1.0
    assert result["all"]["stop_accuracy"] == result["all"]["informed_values_said"] == \
        (rows.num_rows - 1) / rows.num_rows
    assert result["all"]["bleu"] < 100.0


def test_a_missing_text_is_an_error_or_a_counted_miss(loaded):
    rows, load_rows = loaded("validation")
    gold = {row["id"]: row["completion"][0]["content"] for row in rows}
    first = rows[0]["id"]
    del gold[first]
    with pytest.raises(ScoringError, match="have no prediction"):
        score_user(gold, rows, load_rows=load_rows)
    result = score_user(gold, rows, load_rows=load_rows, allow_missing=True, per_row=True)
    assert result["misses"] == {"count": 1, "ids": [first]}
    assert result["all"]["N"] == len(result["per_row"]) == rows.num_rows - 1
    with pytest.raises(ScoringError, match="load_rows"):
        score_user(gold, rows)


def test_the_scoring_command_scores_user_chat(loaded, tmp_path, capsys):
    from conftest import write_predictions
    from unified_dialogue.scoring.__main__ import main

    rows, _ = loaded("test")
    predictions = write_predictions(tmp_path / "p.jsonl", {row["id"]: row["completion"][0]["content"] for row in rows})
    main(["--corpus", "sgd", "--config", "user-chat", "--split", "test", "--data-dir", str(fixture_dir("sgd")),
          "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "cache"), "--predictions", str(predictions),
          "--output", str(tmp_path / "metrics.json"), "--tokenizer", "fallback"])
    metrics = __import__("json").loads((tmp_path / "metrics.json").read_text())
    assert metrics["all"]["informed_values_said"] == metrics["all"]["stop_accuracy"] == 1.0
    assert metrics["all"]["bleu"] == 100.0 and capsys.readouterr().err == ""


def test_a_short_turn_scores_1_against_itself_as_a_longer_one_does():
    """Users say "Yes": the epsilon-smoothed sentence chrF of generated text gives it 0.5
    against itself (it has no character 4- to 6-grams); the user's per-row chrF 1.0."""
    from sacrebleu.metrics import CHRF

    from unified_dialogue.scoring import gem

    assert gem.sentence_chrf("Yes", ["Yes"]) == 0.5 and turn_chrf("Yes", "Yes") == turn_chrf("SFO", "SFO") == 1.0
    assert turn_chrf("No", "Yes") == 0.0 and turn_chrf("", "") == turn_chrf(" ", "") == 1.0
    assert turn_chrf("Yes", "") == turn_chrf("", "Yes") == 0.0
    for text, turn in (("Somewhere nice.", "Somewhere in SF."), ("Yes.", "Yes"), ("SFO", "SFO please")):
        assert turn_chrf(text, turn) == CHRF(word_order=0).sentence_score(text, [turn]).score / 100


def test_a_text_whose_reasoning_never_ends_is_malformed_and_the_rewards_zero(loaded, tmp_path):
    from unified_dialogue import rewards

    rows, load_rows = loaded("validation")
    gold = {row["id"]: row["completion"][0]["content"] for row in rows}
    cut = rows[0]["id"]
    texts = dict(gold, **{cut: f"<think>The user wants {gold[cut]}"})
    result = score_user(texts, rows, load_rows=load_rows, per_row=True)
    assert result["malformed"] == {"count": 1, "ids": [cut]} and result["all"]["N"] == rows.num_rows
    assert result["all"]["bleu"] < 100.0  # scored as no reply
    reward = rewards.reward("sgd", "user-chat", "validation", data_dir=str(fixture_dir("sgd")),
                            checksums=checksums("sgd"), cache_dir=str(tmp_path))
    ids = [cut, rows[1]["id"]]
    values = reward(prompts=[[]] * 2, completions=[[{"role": "assistant", "content": texts[i]}] for i in ids], id=ids)
    assert values == [0.0, 1.0]
