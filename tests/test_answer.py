"""One reader of a model's answer (``core.answer``) for every text form and scorer: the output
shapes of real reasoning models, as each model's chat template or server gives them, read
as the answer alone; a gold text of any form, in any of these shapes, reads as itself; a
call drafted in a reasoning block is never made; a block that never ends is no answer.

The shapes (the prompt's end, then what the model writes):

- Qwen3 (TRL's ``qwen3.jinja``: the prompt ends ``<|im_start|>assistant\\n``; with
  ``enable_thinking=False`` it holds ``<think>\\n\\n</think>\\n\\n`` itself), Phi-4-reasoning
  (its system prompt asks for ``<think> {Thought} </think> {Solution}``) and Magistral 2506
  (``<think>\\n`` and ``\\n</think>\\n`` as text, docs.mistral.ai): the model writes the block;
- QwQ-32B, Qwen3.5 and Qwen3.6 (``qwen3_5_think.jinja``), Qwen3 Thinking 2507 and
  DeepSeek-R1 (``deepseek_r1_distill.jinja``: ``<｜Assistant｜><think>\\n``), Nemotron 3
  (``nemotron_3_nano.jinja``: ``<think>\\n``): the prompt opens the block, the output holds
  its end only;
- GLM-4.5 (``glm4moe.jinja``: ``\\n<think>…</think>`` then ``\\n`` and the content);
- Magistral 2507 and 2509 (``[THINK]…[/THINK]`` tokens) and Kimi-VL Thinking (``◁think▷…◁/think▷``);
- gpt-oss (``gptoss.jinja``: the prompt ends ``<|start|>assistant``; an analysis message,
  then the final one, ``<|return|>`` kept or dropped by the server; a server with a
  reasoning parser gives the final content alone, the analysis in ``reasoning_content``).
"""

import dataclasses
import json
import random

import pytest
from hypothesis import given, strategies as st

from conftest import checksums, fixture_dir
from test_chat_text_forms import RECORDS, TEXTS, frames, schemas_of
from test_d3st_text import schemas_and_states
from test_rewards import gold_texts
from unified_dialogue import scoring
from unified_dialogue.chat import nlu_text, state
from unified_dialogue.core.answer import answer
from unified_dialogue.core.problems import KINDS, MALFORMED, UNKNOWN_SLOT, Problem, unreadable
from unified_dialogue.scoring.rows import counted
from unified_dialogue.scoring.tool_calls import MalformedOutput, gold_text, parse_tool_calls, score_tool_calls
from unified_dialogue.views.d3st_text import LegendError, legend, parse, target

# A draft in the reasoning: another state, a call, a fence, a harmony-looking line.
DRAFT = ('Maybe "Restaurants_1: intent=BookRestaurant; city=Draft" or\n<tool_call>{"name": "Wrong_1__X", '
         '"arguments": {}}</tool_call>\n```\n[states] 0=draft\n```\nno: final<|message|>x')

SHAPES = {
    "qwen3": lambda t: f"<think>\n{DRAFT}\n</think>\n\n{t}",
    "qwen3, thinking off": lambda t: t,
    "qwq, qwen3.5, deepseek-r1 (prompt opens the block)": lambda t: f"{DRAFT}\n</think>\n\n{t}",
    "nemotron 3 (prompt opens the block)": lambda t: f"{DRAFT}\n</think>\n{t}",
    "glm-4.5": lambda t: f"\n<think>{DRAFT}</think>\n{t}",
    "phi-4-reasoning": lambda t: f"<think> {DRAFT} </think> {t}",
    "magistral 2506": lambda t: f"<think>\n{DRAFT}\n</think>\n{t}",
    "magistral 2507": lambda t: f"[THINK]{DRAFT}[/THINK]{t}",
    "kimi-vl thinking": lambda t: f"◁think▷{DRAFT}◁/think▷{t}",
    "gpt-oss": lambda t: f"<|channel|>analysis<|message|>{DRAFT}<|end|><|start|>assistant<|channel|>final"
                         f"<|message|>{t}<|return|>",
    "gpt-oss, stop token dropped": lambda t: f"<|channel|>analysis<|message|>{DRAFT}<|end|><|start|>assistant"
                                             f"<|channel|>final<|message|>{t}",
    "several blocks": lambda t: f"<think>\n{DRAFT}\n</think>\n\n<think>again</think>\n\n{t}",
    "a fence after reasoning": lambda t: f"<think>\n{DRAFT}\n</think>\n\n```text\n{t}\n```",
    "a fence": lambda t: f"```\n{t}\n```\n",
}
SHAPE = st.sampled_from(sorted(SHAPES))


def test_every_shape_gives_the_answer_alone():
    written = "Restaurants_1: intent=FindRestaurants; city=San Jose"
    for name, shape in SHAPES.items():
        assert answer(shape(written)) == (written, []), name


# ---------------------------------------------------------------- gold texts, any shape

@given(frames(), SHAPE)
def test_a_gold_state_text_reads_as_itself_in_any_shape(turn, shape):
    written, schema = state.state_text(turn), schemas_of(turn, False)
    assert answer(SHAPES[shape](written)) == (written, [])
    assert state.parse(SHAPES[shape](written), schema) == state.parse(written, schema)


@given(RECORDS, SHAPE)
def test_a_gold_nlu_text_reads_as_itself_in_any_shape(record, shape):
    written = nlu_text.nlu_text(record["intents"], record["spans"])
    assert answer(SHAPES[shape](written)) == (written, [])
    assert nlu_text.parse(SHAPES[shape](written)) == nlu_text.parse(written)


@given(schemas_and_states(), SHAPE)
def test_a_gold_d3st_target_reads_as_itself_in_any_shape(drawn, shape):
    schema, (slot_values, intent, requested), options, seed = drawn
    try:
        made = legend(schema, rng=None if seed is None else random.Random(seed), **options)
    except LegendError:  # options that lowercasing makes one: refused (test_d3st_text)
        return
    written = target(made, slot_values, intent, requested)
    assert answer(SHAPES[shape](written)) == (written, [])
    assert parse(SHAPES[shape](written), made) == parse(written, made)


def call_row(name, arguments):
    """An ``agent-call-chat`` row holding one gold call (what ``gold_text`` reads)."""
    return {"id": "r", "completion": [{"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}],
        "tools": [{"type": "function", "function": {"name": name, "parameters": json.dumps({"properties": {}})}}]}


@given(TEXTS, st.dictionaries(TEXTS, TEXTS, max_size=3), st.sampled_from(["json", "tool_call", "openai"]), SHAPE)
def test_a_gold_call_reads_as_itself_in_any_shape(name, arguments, form, shape):
    written = gold_text(call_row(name, arguments), form)
    assert answer(SHAPES[shape](written)) == (written, [])
    assert parse_tool_calls(SHAPES[shape](written)) == [(name, arguments)]


# ---------------------------------------------------------------- tool calls inside and outside

WRONG, RIGHT = ("Wrong_1__X", {}), ("Restaurants_1__FindRestaurants", {"city": "San Jose"})
# Each family's reasoning around a call drafted inside it, then the call made, as its chat
# template writes both (Hermes JSON; Qwen3.5's and Nemotron 3's XML; GLM-4.5's XML; harmony).
CALLS = {
    "qwen3": '<think>\nmaybe <tool_call>\n{"name": "Wrong_1__X", "arguments": {}}\n</tool_call> no\n</think>\n\n'
             '<tool_call>\n{"name": "Restaurants_1__FindRestaurants", "arguments": {"city": "San Jose"}}\n</tool_call>',
    "qwen3.5, nemotron 3": 'maybe <tool_call>\n<function=Wrong_1__X>\n</function>\n</tool_call> no\n</think>\n\n'
                           '<tool_call>\n<function=Restaurants_1__FindRestaurants>\n<parameter=city>\nSan Jose\n'
                           '</parameter>\n</function>\n</tool_call>',
    "glm-4.5": '\n<think>maybe <tool_call>Wrong_1__X\n</tool_call> no</think>\n<tool_call>'
               'Restaurants_1__FindRestaurants\n<arg_key>city</arg_key>\n<arg_value>San Jose</arg_value>\n</tool_call>',
    "gpt-oss": '<|channel|>analysis<|message|>maybe to=functions.Wrong_1__X<|channel|>commentary json<|message|>{}'
               '<|end|><|start|>assistant to=functions.Restaurants_1__FindRestaurants<|channel|>commentary json'
               '<|message|>{"city": "San Jose"}<|call|>',
    "gpt-oss, recipient after the channel": '<|channel|>analysis<|message|>no<|end|><|start|>assistant<|channel|>'
                                            'commentary to=functions.Restaurants_1__FindRestaurants <|constrain|>json'
                                            '<|message|>{"city": "San Jose"}<|call|>',
}


def test_a_call_drafted_in_the_reasoning_is_not_made_the_one_after_it_is():
    text = ('<think>maybe <tool_call>{"name": "Wrong_1__X", "arguments": {}}</tool_call> no</think>'
            '<tool_call>{"name": "Right_1__Y", "arguments": {}}</tool_call>')
    assert parse_tool_calls(text) == [("Right_1__Y", {})]
    row = call_row("Right_1__Y", {})
    scores = score_tool_calls({"r": text}, [row])
    assert (scores["call_accuracy"], scores["extra_calls"], scores["malformed"]) == (1.0, 0, 0)


@pytest.mark.parametrize("family", sorted(CALLS))
def test_each_familys_call_is_read_after_its_reasoning(family):
    assert parse_tool_calls(CALLS[family]) == [RIGHT]


def test_a_call_only_in_the_reasoning_is_no_call():
    with pytest.raises(MalformedOutput, match="no tool call"):
        parse_tool_calls('<think>maybe <tool_call>{"name": "Wrong_1__X", "arguments": {}}</tool_call></think>\n\n'
                         'I would rather not call anything.')


# ---------------------------------------------------------------- no answer

@pytest.mark.parametrize("cut", ["<think>\nThe user wants Restaurants_1: intent=FindRestaurants",
                                 "[THINK]the state is [states] 0=draft", "◁think▷<tool_call>{}</tool_call>",
                                 "<think>a</think><think>b",
                                 "<|channel|>analysis<|message|>the call is to=functions.X"])
def test_a_reasoning_block_that_never_ends_is_no_answer_not_its_draft(cut):
    text, problems = answer(cut)
    assert text == "" and [p.kind for p in problems] == [MALFORMED] and unreadable(problems)
    assert state.parse(cut, [])[0] == [] and unreadable(state.parse(cut, [])[1])
    assert nlu_text.parse(cut)[0] == {"intents": None, "spans": []}
    with pytest.raises(MalformedOutput, match="never ends"):
        parse_tool_calls(cut)


def test_an_output_that_only_reasoned_has_an_empty_answer():
    assert answer("<think>\nnothing to add\n</think>\n\n") == ("", [])
    assert answer("<|channel|>analysis<|message|>nothing<|end|>") == ("", [])


# ---------------------------------------------------------------- the problem type

def test_a_problem_has_one_json_form_and_one_test_of_unreadable():
    unknown = Problem(UNKNOWN_SLOT, "Restaurants_1: unknown slot 'area'", "area")
    broken = Problem(MALFORMED, "'city' is not name=value")
    assert json.loads(json.dumps(dataclasses.asdict(unknown))) == {
        "kind": "unknown_slot", "text": "Restaurants_1: unknown slot 'area'", "name": "area"}
    assert dataclasses.asdict(broken) == {"kind": "malformed", "text": "'city' is not name=value", "name": None}
    assert str(unknown) == "Restaurants_1: unknown slot 'area'"
    assert not unreadable([unknown]) and unreadable([unknown, broken]) and not unreadable([])
    assert counted({"a": [unknown], "b": [broken], "c": []}, (MALFORMED, UNKNOWN_SLOT)) == {
        "malformed": 1, "malformed_ids": ["b"], "unknown_slots": 1, "unknown_slots_ids": ["a"]}
    with pytest.raises(ValueError, match="not one of"):
        Problem("slot", "x")
    assert len(set(KINDS)) == len(KINDS)


def test_every_reader_gives_the_problem_type():
    schema = [{"service_name": "Restaurants_1", "intents": [], "slots": [{"name": "city"}]}]
    found = [*state.parse("Restaurants_1: area=x; oops", schema)[1], *nlu_text.parse("spans: x\nhello")[1]]
    legend_ = legend({"service_name": "S", "slots": [], "intents": []})
    found += parse("[states] 7=x [intents] i2 [req_slots] q", legend_)[1]
    assert found and all(isinstance(problem, Problem) for problem in found)
    assert {(p.kind, p.name) for p in found if p.kind != MALFORMED} == {
        ("unknown_slot", "area"), ("unknown_slot", "7"), ("unknown_intent", "i2")}


# ---------------------------------------------------------------- every scorer reads the answer

SCORED = [("sgd", "dst-chat", "validation"), ("sgd", "nlu-chat", "validation"), ("sgd", "d3st", "validation"),
          ("sgd", "agent-call-chat", "validation"), ("sgd", "nlg", "validation"),
          ("faithdial", "response-chat", "test_topic")]


def malformed_ids(metrics):
    found = metrics["malformed"]
    return found["ids"] if isinstance(found, dict) else metrics["malformed_ids"]


@pytest.mark.parametrize("corpus, config, split", SCORED)
def test_every_scorer_scores_the_answer_alone_and_no_answer_as_malformed(build, tmp_path, corpus, config, split):
    def score(texts):  # as JSON: a metric may be NaN (msttr-100 of under 100 tokens)
        return json.dumps(scoring.score(corpus, config, split, texts, data_dir=str(fixture_dir(corpus)),
                                        load_options={"checksums": checksums(corpus), "cache_dir": str(tmp_path)}),
                          sort_keys=True)

    gold = gold_texts(build, corpus, config, split)
    expected = score(gold)
    for shape in ("qwen3", "gpt-oss", "qwq, qwen3.5, deepseek-r1 (prompt opens the block)", "a fence after reasoning"):
        assert score({i: SHAPES[shape](text) for i, text in gold.items()}) == expected, shape
    cut = score({i: f"<think>\n{text}" for i, text in gold.items()})  # the draft is the gold: never read
    assert malformed_ids(json.loads(cut)) == list(gold)
    assert cut != expected
