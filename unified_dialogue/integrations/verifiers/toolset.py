"""The tool server of a rollout: it lists the episode's own tools (``SgdData.tools``, the
evaluation command's) and answers each call from the split's database, through the
environment's ``Episode`` rebuilt from the rollout's record (``record.call``). verifiers
runs it in a process of its own (``python -m`` this module) and hands it the rollout's task
and state; in ``simulated`` mode it asks the user's model for the user's next turn, as the
evaluation command does, and adds the answer to the record.
"""

import asyncio
import os
from typing import Any, Optional

import verifiers.v1 as vf
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import Field

from ...environment.endpoint import USER, Endpoint
from . import record


class SgdToolsetConfig(vf.ToolsetConfig):
    """The tool server's runtime (``--env.taskset.task.tools.runtime.*``; by default a
    process on this machine, beside the split's database)."""


class SgdState(vf.State):
    """The rollout's record (``record.RECORD_KEYS``), kept by verifiers as JSON."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    messages: list[str] = Field(default_factory=list)
    user_answers: list[str] = Field(default_factory=list)


def user_endpoint(settings):
    """The simulated user's ``endpoint.Endpoint`` (``settings``: ``SgdData.user``), or None."""
    if not settings:
        return None
    return Endpoint(settings["base_url"], settings["model"], os.environ.get(settings["api_key_var"]),
                    settings["temperature"], seed=settings["seed"], flags=USER)


class SgdToolset(vf.Toolset[SgdToolsetConfig, SgdState]):
    """The episode's tools, named as the model sees them (no prefix of the server's)."""

    TOOL_PREFIX = None

    def __init__(self, config):
        super().__init__(config)
        self.data: Optional[Any] = None

    async def setup_task(self, task):
        self.data = task

    def register(self, mcp):
        # The tools differ from episode to episode, so the catalogue is answered per rollout
        # instead of being registered from Python functions.
        mcp.list_tools = self._with_state(self.list_tools)
        mcp.call_tool = self._with_state(self.call_tool)

    async def list_tools(self):
        return [Tool(name=tool["function"]["name"], description=tool["function"].get("description") or None,
                     input_schema=tool["function"]["parameters"]) for tool in self.data.tools]

    async def call_tool(self, name, arguments, context=None):
        before = {key: list(getattr(self.state, key)) for key in record.RECORD_KEYS}
        answer, after = await asyncio.to_thread(record.call, self.data, before, name, arguments,
                                                user_endpoint(self.data.user))
        for key, value in after.items():
            setattr(self.state, key, value)
        return CallToolResult(content=[TextContent(type="text", text=answer)], is_error=False)


if __name__ == "__main__":
    SgdToolset.run()
