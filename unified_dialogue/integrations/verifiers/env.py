"""The environment a rollout runs in: the agent alone with its tools, through verifiers'
plain tool loop (the ``null`` harness: no tools of its own, no system message added), in a
process on this machine, answering at most as many times as the evaluation command lets a
model (``--max-steps``).

In ``simulated`` mode the user's model speaks first, as in the evaluation command: its
opening, asked here before the agent's first request, becomes the episode's first user
message, and its answer begins the rollout's record. From then on the user is reached only
through ``send_message_to_user`` (the tool server asks it), speaks at most
``max_user_turns`` times and ends the conversation where its words end with the stop
marker (``environment.user``). verifiers' own user simulation (``user-sim``) differs in
each of these, so it is not used.
"""

import asyncio
import inspect

import verifiers.v1 as vf

from ...environment import play
from ...environment.tickets import user_text
from .record import simulated_user
from .toolset import user_endpoint

MAX_STEPS = inspect.signature(play.evaluate).parameters["max_steps"].default


class SgdEnvConfig(vf.SingleAgentEnvConfig):
    """The one ``agent`` seat (``--env.agent.*``), by default the plain tool loop in a local
    process with the evaluation command's most answers."""

    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig(),
                                           max_turns=MAX_STEPS)


def opened(task):
    """``task`` with its simulated user's opening: the first user message, and the first
    answer of the user's record (``SgdData.opening``)."""
    data = task.data
    user = simulated_user(data, (), user_endpoint(data.user))
    first = f"{user.said[0]}\n\n({user_text('ended')})" if user.ended else user.said[0]
    prompt = [*data.prompt[:-1], data.prompt[-1].model_copy(update={"content": first})]
    return task.with_data(prompt=prompt, opening=user.endpoint.answers[0])


class SgdEnv(vf.Env[SgdEnvConfig]):
    """One agent playing one episode (``simulated_user`` speaking first in ``simulated`` mode)."""

    async def run(self, task, agents):
        if task.data.mode == "simulated":
            task = await asyncio.to_thread(opened, task)
        await agents.agent.run(task)
