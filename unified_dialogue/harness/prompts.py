"""What a model is shown for a row, and the text a perfect model answers.

Every prompt is a list of plain ``{"role", "content"}`` messages with the roles
``system``, ``user`` and ``assistant`` only: what every chat template and every
OpenAI-compatible server accepts. lm-eval hands a chat template the messages alone (never
``tools``), so a tool-calling row carries its tools, and its earlier calls and results, as
text in the conventions of Hermes-style templates:

- the tools go at the end of the system message, after ``TOOLS_HEADER``, one JSON object
  ``{"name", "description", "parameters"}`` a line;
- an assistant's call is ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
- a tool's results are a user message ``<tool_response>...</tool_response>``.

Without a chat template (``plain_text``) the messages are written one after another as
``Role: content``, separated by a blank line, and the prompt ends with ``Assistant:``; the
answer ends at ``PLAIN_TEXT_STOPS``. Through a chat template, the template's own end of turn
ends it: a stop sequence would cut a reasoning model's thinking, blank lines and all, before
its answer (``core.answer`` reads the answer after it).
"""

from ..chat.agent import plain_messages, plain_tools
from ..core.answer import json_text

TOOLS_HEADER = ("Tools: to call one, answer with <tool_call>{\"name\": <tool name>, \"arguments\": "
                "{<argument>: <value>, ...}}</tool_call>. The tools:")
ROLE_NAMES = {"system": "System", "user": "User", "assistant": "Assistant"}
# Where a plain-text answer ends: the blank line before the next turn, or the user's name.
PLAIN_TEXT_STOPS = ("\n\n", f"\n{ROLE_NAMES['user']}:")


def dumps(value):
    return json_text(value)  # a gold call is its own answer (core.answer)


def call_text(call):
    """One tool call (``{"function": {"name", "arguments"}}``, arguments as a dict) as text."""
    function = call["function"]
    return f"<tool_call>{dumps({'name': function['name'], 'arguments': function['arguments']})}</tool_call>"


def tools_text(tools):
    """The tools of a row as the lines that end its system message."""
    return "\n".join([TOOLS_HEADER] + [dumps(tool["function"]) for tool in plain_tools(tools)])


def text_message(message):
    """A message of a row as a plain ``{"role", "content"}`` message."""
    if message["role"] == "tool":
        return {"role": "user", "content": f"<tool_response>{message['content']}</tool_response>"}
    calls = [call_text(call) for call in message.get("tool_calls") or []]
    return {"role": message["role"], "content": "\n".join(filter(None, [message.get("content")] + calls))}


def messages(doc, system_instruction=None):
    """The prompt of a row (a chat config's ``prompt``, a D3ST row's ``input`` as the user
    message), ``system_instruction`` (lm-eval's ``--system_instruction``) before the row's
    own system message."""
    if "input" in doc:  # d3st: the input text is the whole prompt
        prompt = [{"role": "user", "content": doc["input"]}]
    else:
        prompt = [text_message(message) for message in plain_messages(doc["prompt"])]
    if doc.get("tools"):
        prompt = with_system(prompt, tools_text(doc["tools"]), first=False)
    if system_instruction:
        prompt = with_system(prompt, system_instruction, first=True)
    return prompt


def with_system(prompt, text, first):
    """``prompt`` with ``text`` in its system message (before or after what it says), or in
    a new one."""
    if not prompt or prompt[0]["role"] != "system":
        return [{"role": "system", "content": text}] + prompt
    parts = [text, prompt[0]["content"]] if first else [prompt[0]["content"], text]
    return [{"role": "system", "content": "\n\n".join(filter(None, parts))}] + prompt[1:]


def plain_text(prompt):
    """Messages as one text for a model without a chat template."""
    turns = [f"{ROLE_NAMES[message['role']]}: {message['content']}" for message in prompt]
    return "\n\n".join(turns + [f"{ROLE_NAMES['assistant']}:"])


def doc_to_text(doc):
    """The plain-text prompt of a row (lm-eval's ``doc_to_text``)."""
    return plain_text(messages(doc))


def doc_to_target(doc):
    """The text a perfect model answers: the D3ST target, the completion's content, or its
    tool call written as the prompt asks."""
    if "target" in doc:
        return doc["target"]
    (completion,) = plain_messages(doc["completion"])
    return text_message(completion)["content"]
