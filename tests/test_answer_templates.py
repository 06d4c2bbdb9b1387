"""The answer of outputs written exactly as the models' own chat templates write them: the
templates TRL 1.16 ships (``trl/chat_templates/``), rendered by transformers'
``apply_chat_template`` with an assistant turn holding reasoning and an answer, or reasoning
and a tool call. What the model writes is the rendered turn less the generation prompt
(which the prompt already holds: ``<think>\\n`` for Qwen3.6, Nemotron 3 and DeepSeek-R1),
as a server gives it (the end-of-turn token is where it stops, not part of the text)."""

import pytest

from test_trl_templates import template, tokenizer  # noqa: F401 (a fixture)
from unified_dialogue.core.answer import answer
from unified_dialogue.scoring.tool_calls import parse_tool_calls

REASONING = 'maybe Restaurants_1: intent=Draft or <tool_call>{"name": "Wrong_1__X", "arguments": {}}</tool_call>'
ANSWER = 'Restaurants_1: intent=FindRestaurants; city="San Jose | Santa Clara"'
CALL = ("Restaurants_1__FindRestaurants", {"city": "San Jose", "cuisine": "Thai"})
END_OF_TURN = ("<|im_end|>", "<｜end▁of▁sentence｜>")

# template -> the message field its reasoning is read from
TEMPLATES = {"qwen3": "reasoning_content", "qwen3_training": "reasoning_content", "qwen3_6": "reasoning_content",
             "qwen3_6_training": "reasoning_content", "glm4moe": "reasoning_content",
             "nemotron_3_nano": "reasoning_content", "nemotron_3_super": "reasoning_content",
             "gptoss": "thinking", "gptoss_training": "thinking"}
# DeepSeek-R1's training template keeps the reasoning in the content (its own drops it).
IN_CONTENT = {"deepseek_r1_distill_training": lambda content: f"<think>\n{REASONING}\n</think>\n\n{content}"}
NO_TOOL_CALLS = {"deepseek_r1_distill_training"}


def written(tokenizer, name, message):  # noqa: F811 (the fixture)
    """What the model writes for ``message`` after a user turn, as the template renders it."""
    messages = [{"role": "user", "content": "A Thai place in San Jose, please."}]
    prompt = tokenizer.apply_chat_template(messages, chat_template=template(name), tokenize=False,
                                           add_generation_prompt=True)
    whole = tokenizer.apply_chat_template(messages + [message], chat_template=template(name), tokenize=False)
    assert whole.startswith(prompt), name
    output = whole[len(prompt):].rstrip()
    for end in END_OF_TURN:
        output = output.removesuffix(end).rstrip()
    assert REASONING in output, f"{name}: the reasoning is not rendered"
    return output


def turn(name, **fields):
    if name in IN_CONTENT:
        return {"role": "assistant", **fields, "content": IN_CONTENT[name](fields.get("content", ""))}
    return {"role": "assistant", "content": "", **fields, TEMPLATES[name]: REASONING}


@pytest.mark.parametrize("name", [*TEMPLATES, *IN_CONTENT])
def test_the_answer_of_an_output_as_each_template_writes_it(tokenizer, name):  # noqa: F811
    output = written(tokenizer, name, turn(name, content=ANSWER))
    assert answer(output) == (ANSWER, []), output


@pytest.mark.parametrize("name", [name for name in [*TEMPLATES, *IN_CONTENT] if name not in NO_TOOL_CALLS])
def test_the_call_of_an_output_as_each_template_writes_it_not_the_drafted_one(tokenizer, name):  # noqa: F811
    call = {"type": "function", "function": {"name": CALL[0], "arguments": CALL[1]}}
    output = written(tokenizer, name, turn(name, tool_calls=[call]))
    assert parse_tool_calls(output) == [CALL], output
