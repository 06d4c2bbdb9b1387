"""Tool calls a server returned as text: a model's call that the server did not parse, so
that it came back as the answer's ``content``, not as ``tool_calls``. The episode takes
such an answer as the final answer (playing it as a call would judge the server's
configuration, not the model); the evaluation counts them and says which option of the
server parses them.

The shapes found (``SHAPES``): Hermes' and Qwen's ``<tool_call>{...}</tool_call>``, Llama
3's ``<|python_tag|>``, Mistral's ``[TOOL_CALLS]``, and an answer that is only a JSON
object (or a list of them) with ``name`` and ``arguments`` (or ``parameters``, as Llama 3
writes them), in a Markdown fence or not.
"""

import json
import re

SHAPES = ("hermes", "llama", "mistral", "json")
HERMES = re.compile(r"<tool_call>")
LLAMA = re.compile(r"<\|python_tag\|>")
MISTRAL = re.compile(r"\[TOOL_CALLS\]")
FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)

# How each server parses the calls of a model's chat template, by the ``owned_by`` of its
# ``/models`` list; any other server gets GENERAL (``transformers serve`` too: its
# ``owned_by`` is the model's owner).
PARSING = {
    "vllm": "vLLM parses them when started with --enable-auto-tool-choice --tool-call-parser <the model's parser> "
            "(hermes for Qwen and Hermes, llama3_json for Llama 3, mistral for Mistral)",
    "sglang": "SGLang parses them when started with --tool-call-parser <the model's parser> (qwen25, llama3, "
              "mistral, ...)",
    "llamacpp": "llama.cpp's server parses them when started with --jinja",
}
GENERAL = ("start the server with its option that parses tool calls: vLLM --enable-auto-tool-choice "
           "--tool-call-parser <parser>; SGLang --tool-call-parser <parser>; llama.cpp --jinja; transformers "
           "serve parses them where the tokenizer declares a response_template or the model is of a type it knows "
           "(Qwen2, Qwen3, Gemma 4)")


def call_object(value):
    return isinstance(value, dict) and isinstance(value.get("name"), str) and \
        isinstance(value.get("arguments", value.get("parameters")), (dict, str))


def bare_json(text):
    """The calls of an answer that is only JSON (a call object, or a list of them): 0 if it is not."""
    fenced = FENCE.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        return 0
    values = value if isinstance(value, list) else [value]
    return len(values) if values and all(call_object(v) for v in values) else 0


def text_calls(content):
    """The tool calls written in an answer's text, as ``{shape: count}`` (empty: none).

    Example:
        >>> text_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
        {'hermes': 1}
    """
    text = (content or "").strip()
    found = {shape: len(pattern.findall(text)) for shape, pattern in
             (("hermes", HERMES), ("llama", LLAMA), ("mistral", MISTRAL))}
    found["json"] = 0 if any(found.values()) else bare_json(text)
    return {shape: count for shape, count in found.items() if count}


def server_of(owned_by):
    """The ``PARSING`` key of a server by its models' ``owned_by`` (None: not known)."""
    owner = (owned_by or "").lower()
    return next((key for key in PARSING if key in owner.replace(".", "").replace(" ", "")), None)


def warning(count, episodes, owned_by=None):
    """The ``warning:`` line of ``count`` tool calls given as text in ``episodes`` episodes."""
    how = PARSING.get(server_of(owned_by), GENERAL)
    return (f"warning: {count} tool call(s) of the model came back as text, not as tool_calls, in {episodes} "
            f"episode(s), each scored as a final answer: the server did not parse them; {how}")


__all__ = ["GENERAL", "PARSING", "SHAPES", "server_of", "text_calls", "warning"]
