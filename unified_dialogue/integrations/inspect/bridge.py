"""An inspect model behind the calling convention of the environment's endpoints
(``endpoint.Endpoint.answer(messages, tools)``: OpenAI messages and tools in, the assistant
message out), so that ``play.play_episode`` plays an inspect sample as the evaluation command
plays an episode, its rule for every step and its record the same.

``play_episode`` is synchronous: it runs in a worker thread (``anyio.to_thread``), and each
answer it asks for is awaited back on inspect's event loop (``anyio.from_thread``).
"""

import json

import anyio.from_thread
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser, GenerateConfig
from inspect_ai.tool import ToolCall, ToolInfo, ToolParams


def chat_message(message):
    """One OpenAI chat message as inspect's."""
    role, content = message["role"], message.get("content") or ""
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "user":
        return ChatMessageUser(content=content)
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=message.get("tool_call_id") or None,
                               function=message.get("name"))
    calls = [tool_call(call) for call in message.get("tool_calls") or ()]
    return ChatMessageAssistant(content=content, tool_calls=calls or None)


def tool_call(call):
    function = call["function"]
    arguments = function.get("arguments") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return ToolCall(id=call.get("id") or "", function=function["name"], arguments={},
                            parse_error=arguments)
    return ToolCall(id=call.get("id") or "", function=function["name"], arguments=arguments)


def tool_info(tool):
    """An OpenAI tool (``play.tools_of``) as inspect's ``ToolInfo``: the same name, description
    and JSON schema (its ``enum``s, descriptions and defaults)."""
    function = tool["function"]
    return ToolInfo(name=function["name"], description=function["description"],
                    parameters=ToolParams(**function["parameters"]))


def openai_message(message):
    """inspect's assistant message as the OpenAI message ``play_episode`` reads (its
    arguments as JSON text; a call whose arguments the provider could not read keeps their
    text, which the episode answers as the evaluation command does)."""
    calls = [{"id": call.id, "type": "function",
              "function": {"name": call.function,
                           "arguments": call.parse_error if call.parse_error is not None and not call.arguments
                           else json.dumps(call.arguments, ensure_ascii=False)}}
             for call in message.tool_calls or ()]
    return {"role": "assistant", "content": message.text, **({"tool_calls": calls} if calls else {})}


class ModelEndpoint:
    """An inspect ``Model`` answering as an ``endpoint.Endpoint`` does, from a worker thread.

    Args:
        model: the inspect model (the task's, or a model role's).
        flags: the ``endpoint.Flags`` its errors name (``endpoint.AGENT`` or ``endpoint.USER``).
    """

    def __init__(self, model, flags):
        self.inspect_model, self.flags = model, flags
        self.model = str(model)
        self.temperature, self.seed = model.config.temperature, model.config.seed
        self.max_tokens = model.config.max_tokens

    def answer(self, messages, tools, seed=None, stop=None):
        """As ``endpoint.Endpoint.answer``: ``seed`` this request's (a trial's), else the
        model's; ``stop`` is inspect's to honour (it cancels the sample)."""
        infos = [tool_info(tool) for tool in tools or ()]
        output = anyio.from_thread.run(self.generate, [chat_message(m) for m in messages], infos, seed)
        return openai_message(output.message)

    async def generate(self, messages, tools, seed=None):
        config = GenerateConfig(seed=seed) if seed is not None else GenerateConfig()
        return await self.inspect_model.generate(messages, tools=tools, config=config)
