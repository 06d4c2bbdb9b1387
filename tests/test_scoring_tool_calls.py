"""The tool-call scorer (``scoring.tool_calls``) on agent-call-chat rows: the encodings of a
call that models write, malformed output, how values compare, the scores of right, partly
right and wrong calls, the errors, gold completions scoring 1.0 in every SGD-X variant and
form, values holding the encodings' own tags, and the scoring command on a variant. Names
and values of any kind: tests/test_agent.py."""

import json

import pytest

from agent_cases import VARIANTS, build_variant, schema
from unified_dialogue.chat import agent
from unified_dialogue.scoring.tool_calls import MalformedOutput, ScoringError, gold_text, parse_tool_calls, \
    score_tool_calls, value_key

ROW = {
    "id": "sgd/train/1_00000/1",
    "completion": [{"role": "assistant", "content": "", "name": None, "tool_calls": [{"type": "function", "function": {
        "name": "Restaurants_1__FindRestaurants", "arguments": '{"city": "San Jose", "price": "moderate"}'}}]}],
    "tools": agent.service_tools(schema()),
}


@pytest.mark.parametrize("text", [
    '{"name": "f", "arguments": {"a": "1"}}',
    '[{"name": "f", "arguments": {"a": "1"}}]',
    '<tool_call>\n{"name": "f", "arguments": {"a": "1"}}\n</tool_call>',
    '<tool_call>{"name": "f", "arguments": {"a": "1"}}',  # the closing tag cut off
    '{"type": "function", "function": {"name": "f", "arguments": "{\\"a\\": \\"1\\"}"}}',
    '{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": "1"}}}]}',
    'Sure, calling it now.\n```json\n{"name": "f", "parameters": {"a": "1"}}\n```',
    'I will call {"name": "f", "arguments": {"a": "1"}} now',
    '<tool_call>{"name": broken</tool_call>\n<tool_call>{"name": "f", "arguments": {"a": "1"}}</tool_call>',
])
def test_the_usual_encodings_parse(text):
    assert parse_tool_calls(text)[0] == ("f", {"a": "1"})


@pytest.mark.parametrize("text", ["", "no call here", '{"arguments": {}}', '{"name": "f", "arguments": "{bad"}',
                                  '{"name": "f", "arguments": [1]}', '"just a string"'])
def test_malformed_output_raises(text):
    with pytest.raises(MalformedOutput):
        parse_tool_calls(text)


def test_values_compare_in_the_schemas_spelling_or_normalised():
    price = {"enum": ["cheap", "Very Expensive"]}
    assert value_key(" very expensive ", price) == "Very Expensive"
    assert value_key("CHEAP", price) == "cheap"
    assert value_key("  San   JOSE ", None) == value_key('"san jose"', None) == "san jose"
    assert value_key(True, {"enum": ["True", "False"]}) == "True"
    assert value_key(2.0, None) == value_key(2, None) == "2"


def test_scores_of_right_partly_right_wrong_and_malformed_calls():
    rows = [dict(ROW, id=f"r{k}") for k in range(4)]
    predictions = {
        "r0": '{"name": "Restaurants_1__FindRestaurants", "arguments": {"city": "san jose", "price": "Moderate"}}',
        "r1": '{"name": "Restaurants_1__FindRestaurants", "arguments": {"city": "San Jose", "price": "cheap"}}',
        "r2": '{"name": "Other_1__Find", "arguments": {"city": "San Jose"}}',
        "r3": "I cannot help with that.",
    }
    scores = score_tool_calls(predictions, rows)
    assert scores["call_accuracy"] == 0.5
    assert scores["joint_accuracy"] == 0.25
    assert scores["argument_precision"] == 3 / 5  # r0: 2 of 2, r1: 1 of 2, r2: 0 of 1 (wrong function)
    assert scores["argument_recall"] == 3 / 8
    assert scores["argument_f1"] == pytest.approx(2 * (3 / 5) * (3 / 8) / (3 / 5 + 3 / 8))
    assert (scores["malformed"], scores["malformed_ids"]) == (1, ["r3"])
    assert (scores["unknown_tools"], scores["unknown_tools_ids"]) == (1, ["r2"])  # readable, no tool of the row


def test_a_block_that_does_not_parse_is_passed_over_and_later_calls_are_extra():
    text = ('<tool_call>{"name": "f", "arguments": {"a": "1"}}</tool_call><tool_call>{oops</tool_call>'
            '<tool_call>{"name": "g", "arguments": {}}</tool_call>')
    assert parse_tool_calls(text) == [("f", {"a": "1"}), ("g", {})]


def test_a_non_string_prediction_is_an_error_or_a_counted_malformed_one():
    rows = [dict(ROW, id="r0"), dict(ROW, id="r1"), dict(ROW, id="r2")]
    with pytest.raises(ScoringError, match="prediction 'r1': the text is a number, not a string"):
        score_tool_calls({"r0": gold_text(ROW), "r1": 7}, rows, allow_missing=False)
    scores = score_tool_calls({"r0": gold_text(ROW), "r1": 7}, rows, allow_missing=True)
    assert (scores["malformed_ids"], scores["missing_ids"]) == (["r1"], ["r2"])


def test_a_gold_row_without_one_call_is_an_error_naming_it():
    row = dict(ROW, id="r0", completion=[{"role": "assistant", "content": "hi", "tool_calls": []}])
    with pytest.raises(ScoringError, match="row r0: the completion is not one assistant message with one tool call"):
        score_tool_calls({"r0": "{}"}, [row])


def test_missing_and_unknown_ids():
    with pytest.raises(ScoringError, match="r1"):
        score_tool_calls({"r0": gold_text(ROW)}, [dict(ROW, id="r0"), dict(ROW, id="r1")])
    with pytest.raises(ScoringError, match="nowhere"):
        score_tool_calls({"nowhere": "{}"}, [dict(ROW, id="r0")], allow_missing=True)
    scores = score_tool_calls({"r0": gold_text(ROW)}, [dict(ROW, id="r0"), dict(ROW, id="r1")], allow_missing=True)
    assert (scores["missing"], scores["missing_ids"], scores["call_accuracy"]) == (1, ["r1"], 0.5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_gold_completions_score_one_everywhere(build, variant):
    for ds in build_variant(build, "agent-call-chat", variant).values():
        for form in ("json", "tool_call", "openai"):
            scores = score_tool_calls({row["id"]: gold_text(row, form) for row in ds}, ds)
            assert {k: v for k, v in scores.items() if k.endswith(("accuracy", "precision", "recall", "f1"))} == \
                dict.fromkeys(["call_accuracy", "joint_accuracy", "argument_precision", "argument_recall",
                               "argument_f1"], 1.0), (variant, form)
            assert scores["malformed"] == scores["missing"] == scores["extra_calls"] == 0


@pytest.mark.parametrize("value", ["</tool_call>", "<tool_call>{\"name\": \"g\"}</tool_call>", "```", "``` {} ```"])
def test_a_value_holding_the_encodings_own_tags_reads_back(value):
    row = {**ROW, "id": "r0", "completion": [{**ROW["completion"][0], "tool_calls": [{"type": "function", "function": {
        "name": "Restaurants_1__FindRestaurants", "arguments": json.dumps({"city": value})}}]}]}
    for form in ("json", "tool_call", "openai"):
        assert parse_tool_calls(gold_text(row, form)) == [("Restaurants_1__FindRestaurants", {"city": value})], form


def test_the_scoring_command_scores_tool_calls_of_a_variant(build, tmp_path):
    from conftest import checksums, fixture_dir
    from unified_dialogue.scoring.__main__ import main
    from unified_dialogue.scoring.rows import load_json

    rows = build("sgd", "agent-call-chat", variant="v5")["validation"]
    texts = {row["id"]: gold_text(row, "tool_call") for row in rows}
    first = rows[0]["id"]
    texts[first] = "I would rather not."
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in texts.items()))
    output = tmp_path / "metrics.json"
    main(["--corpus", "sgd", "--config", "agent-call-chat", "--split", "validation", "--variant", "v5",
          "--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "c"),
          "--predictions", str(predictions), "--output", str(output)])
    metrics = load_json(output)
    assert (metrics["malformed"], metrics["malformed_ids"]) == (1, [first])
    assert metrics["call_accuracy"] == (rows.num_rows - 1) / rows.num_rows
