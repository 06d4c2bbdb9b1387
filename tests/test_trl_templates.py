"""Every chat config's rows through the real chat templates of the models people train:
the templates TRL ships for text models (Qwen 2.5, 3, 3.6; Llama 3.1, 3.2; Gemma 3, 4;
Phi-3; gpt-oss; GLM-4 MoE; DeepSeek-V3; Nemotron 3; LFM2), read from the installed
``trl`` package as files (it is installed without its dependencies: no torch, no model),
rendered by transformers' own ``apply_chat_template``. Every message's content appears,
in order; in the tool-calling configs every tool, call (name, each argument, arguments
not encoded twice) and result appears, in every template that takes tool calls; the
templates the docs list as taking no tool calls indeed show none (docs/views.md)."""

import importlib.util
import json
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")  # test dependencies only
tokenizers = pytest.importorskip("tokenizers")

from unified_dialogue.chat import agent  # noqa: E402

SPEC = importlib.util.find_spec("trl")  # found, not imported: trl's own imports need torch
if SPEC is None:
    pytest.skip("trl is not installed (requirements/templates.txt, make test installs it)", allow_module_level=True)
TEMPLATES = Path(SPEC.submodule_search_locations[0]) / "chat_templates"

# Each family's template files in trl 1.16.0 (requirements/templates.txt): the models'
# own templates (every revision TRL keeps) and TRL's training patches of them, which
# SFTTrainer swaps in for assistant-only loss.
FAMILIES = {
    "Qwen 2.5": ["qwen2_5", "qwen2_5_training"],
    "Qwen 3": ["qwen3", "qwen3_training", "qwen3_instruct_2507", "qwen3_instruct_2507_training"],
    "Qwen 3.6": ["qwen3_6", "qwen3_6_training"],
    "Llama 3.1": ["llama3_1"],
    "Llama 3.2": ["llama3_2"],
    "Gemma 3": ["gemma3", "gemma3_training"],
    "Gemma 4": ["gemma4", "gemma4_v2", "gemma4_v3", "gemma4_v4", "gemma4_v5"],
    "Phi-3": ["phi3", "phi3_training", "phi3_5", "phi3_5_training"],
    "gpt-oss": ["gptoss", "gptoss_training"],
    "GLM-4 MoE": ["glm4moe", "glm4moe_training"],
    "DeepSeek-V3": ["deepseekv3", "deepseekv3_training"],
    "Nemotron 3": ["nemotron_3_nano", "nemotron_3_nano_training", "nemotron_3_super", "nemotron_3_super_training",
                   "nemotron_3_ultra", "nemotron_3_ultra_training", "nemotron_3_5_lightning",
                   "nemotron_3_5_lightning_training"],
    "LFM2": ["lfm2", "lfm2_training", "lfm2_v2", "lfm2_v2_training", "lfm2_2_5", "lfm2_2_5_v2"],
}
ALL_TEMPLATES = [name for names in FAMILIES.values() for name in names]
# No tool role or no tool calls (docs/views.md lists them as unsupported for the tool configs).
NO_TOOL_CALLS = {"gemma3", "gemma3_training", "phi3", "phi3_training", "phi3_5", "phi3_5_training",
                 "lfm2", "lfm2_training"}
# Templates that take a tool call's arguments as JSON text only (string concatenation).
ARGUMENTS_AS_TEXT = {"deepseekv3"}
# Templates that do not write the tools given (DeepSeek-V3's: its calls and results only;
# the tools' schemas go in the system message, docs/views.md).
TOOLS_NOT_RENDERED = {"deepseekv3", "deepseekv3_training"}

CHAT_CONFIGS = [("sgd", "dst-chat"), ("sgd", "nlg-chat"), ("sgd", "response-chat"), ("sgd", "nlu-chat"),
                ("sgd", "user-chat"), ("ccpe", "response-chat"), ("ccpe", "nlu-chat"), ("faithdial", "response-chat"),
                ("faithdial", "critic-chat"), ("faithdial", "preference"), ("faithdial", "preference-unpaired")]
TOOL_CONFIGS = [("sgd", "agent-chat"), ("sgd", "agent-call-chat")]


def test_trl_ships_every_template_named():
    assert [name for name in ALL_TEMPLATES if not (TEMPLATES / f"{name}.jinja").is_file()] == []


@pytest.fixture(scope="module")
def tokenizer():
    """A tokenizer with no vocabulary to speak of: only its apply_chat_template is used."""
    from tokenizers.models import WordLevel

    model = tokenizers.Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=model, unk_token="[UNK]",
                                                bos_token="<bos>", eos_token="<eos>")


def template(name):
    return (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


def arguments_as_text(messages):
    """Tool-call arguments as JSON text, the form DeepSeek-V3's own template takes (docs/views.md)."""
    return [{**m, "tool_calls": [{**c, "function": {**c["function"], "arguments": json.dumps(
        c["function"]["arguments"], ensure_ascii=False)}} for c in m["tool_calls"]]} if m.get("tool_calls") else m
            for m in messages]


def conversations(rows):
    """(id, messages, tools) of each row, as apply_chat_template takes them; a preference
    row gives two, its prompt with each response."""
    for row in rows:
        tools = agent.plain_tools(row["tools"]) if "tools" in row else None
        if "chosen" in row:
            for side in ("chosen", "rejected"):
                yield f"{row['id']} ({side})", agent.plain_messages(row["prompt"] + row[side]), tools
            continue
        messages = row["messages"] if "messages" in row else row["prompt"] + row["completion"]
        yield row["id"], agent.plain_messages(messages), tools


def after(text, piece, position, where):
    """Where ``piece`` (or, as some templates write a string, its JSON form) first appears
    in ``text`` from ``position``; fails naming ``where`` if it does not."""
    found = [at for at in (text.find(piece, position), text.find(json.dumps(piece, ensure_ascii=False)[1:-1], position))
             if at >= 0]
    assert found, f"{where}: {piece[:60]!r} not rendered"
    return min(found)


def check_rendered(text, messages, tools, name, where):
    """Every message's content in order; every tool; every call's name and arguments (each
    key and value, the arguments object never written as a JSON string) between its
    message and the next; every result."""
    for tool in [] if name in TOOLS_NOT_RENDERED else tools or []:
        after(text, tool["function"]["name"], 0, where)
        after(text, tool["function"]["description"], 0, where)
    positions, position = [], 0
    for k, message in enumerate(messages):
        content = message["content"].strip()
        if content:
            position = after(text, content, position, f"{where} message {k} ({message['role']})")
        positions.append(position)
    for k, message in enumerate(messages):
        for call in message.get("tool_calls", []):
            function = call["function"]
            start = after(text, function["name"], positions[k], f"{where} call in message {k}")
            end = min([p for p in positions[k + 1:] if p > start] or [len(text)])
            for key, value in function["arguments"].items():
                after(text[:end], key, start, f"{where} argument {key}")
                after(text[:end], value, start, f"{where} argument {key}")
            twice = json.dumps(json.dumps(function["arguments"], ensure_ascii=False), ensure_ascii=False)[1:-1]
            assert not function["arguments"] or twice not in text[start:end], \
                f"{where}: the arguments are rendered as a JSON string"


@pytest.mark.parametrize("name", ALL_TEMPLATES)
@pytest.mark.parametrize("corpus, config", CHAT_CONFIGS, ids=[f"{c}-{k}" for c, k in CHAT_CONFIGS])
def test_every_chat_row_renders_with_every_message(build, tokenizer, name, corpus, config):
    chat_template = template(name)
    for split, rows in build(corpus, config).items():
        for row_id, messages, _ in conversations(rows):
            text = tokenizer.apply_chat_template(messages, chat_template=chat_template, tokenize=False)
            check_rendered(text, messages, None, name, f"{name} {row_id}")
            # the prompt alone too, as TRL renders it for prompt-completion training
            prompt = tokenizer.apply_chat_template(messages[:-1], chat_template=chat_template, tokenize=False,
                                                   add_generation_prompt=True)
            check_rendered(prompt, messages[:-1], None, name, f"{name} {row_id} prompt")


@pytest.mark.parametrize("name", [n for n in ALL_TEMPLATES if n not in NO_TOOL_CALLS])
@pytest.mark.parametrize("corpus, config", TOOL_CONFIGS, ids=[f"{c}-{k}" for c, k in TOOL_CONFIGS])
def test_every_tool_row_renders_with_every_tool_call_and_result(build, tokenizer, name, corpus, config):
    chat_template = template(name)
    for split, rows in build(corpus, config).items():
        for row_id, messages, tools in conversations(rows):
            given = arguments_as_text(messages) if name in ARGUMENTS_AS_TEXT else messages
            text = tokenizer.apply_chat_template(given, tools=tools, chat_template=chat_template, tokenize=False)
            check_rendered(text, messages, tools, name, f"{name} {row_id}")


def test_deepseek_v3_takes_arguments_as_text_only(build, tokenizer):
    """Why ARGUMENTS_AS_TEXT: the original template concatenates the arguments as a string;
    TRL's training patch of it takes the object, as the rows carry it."""
    _, messages, tools = next(conversations(build("sgd", "agent-call-chat")["train"]))
    with pytest.raises(TypeError, match="concatenate"):
        tokenizer.apply_chat_template(messages, tools=tools, chat_template=template("deepseekv3"), tokenize=False)
    text = tokenizer.apply_chat_template(messages, tools=tools, chat_template=template("deepseekv3_training"),
                                         tokenize=False)
    assert json.dumps(messages[-1]["tool_calls"][0]["function"]["arguments"], ensure_ascii=False) in text


@pytest.mark.parametrize("name", sorted(NO_TOOL_CALLS))
def test_the_templates_listed_unsupported_show_no_tool_call(build, tokenizer, name):
    """Gemma 3 and Phi-3 have no tool role, LFM2's first template drops ``tool_calls``: the
    docs list them as unsupported for the tool configs, and this holds."""
    shown = 0
    for row_id, messages, tools in conversations(build("sgd", "agent-call-chat")["train"]):
        try:
            text = tokenizer.apply_chat_template(messages, tools=tools, chat_template=template(name), tokenize=False)
        except Exception:  # noqa: BLE001 - refused (Gemma 3: roles must alternate): not supported either
            continue
        function = messages[-1]["tool_calls"][0]["function"]
        last = messages[-2]["content"]
        tail = text[text.rfind(last) + len(last):]  # after the prompt: where the call would be
        shown += function["name"] in tail or any(value in tail for value in function["arguments"].values())
    assert shown == 0
