"""SGD's environment as inspect-ai tasks: ``sgd_ticket``, ``sgd_replay`` and
``sgd_simulated``, one per mode (``inspect eval unified_dialogue/sgd_ticket --model ...``
after ``pip install unified-dialogue[inspect]``; docs/environment.md, "inspect-ai").

Each sample is one episode of the split (its ``episodes`` row): the prompt's messages, the
tools of the dialogue's own services (``play.tools_of``: the JSON schemas of
``agent-call-chat`` and the evaluation command, ``send_message_to_user`` in the spoken modes)
answered from the environment's database. The solver plays it with ``play.play_episode``, the
evaluation command's own loop, the task's model as the agent and in ``simulated`` mode the
``user`` model role as the user; the scorer gives its reward and parts (``scores``). The
samples are ordered across domains, so a ``--limit`` run meets every domain it can.
"""

import os
import sys

import anyio.to_thread
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model, model_roles
from inspect_ai.solver import solver

from ...core.errors import ConfigError, UnifiedDialogueError
from ...core.sources import called_from
from ...environment import endpoint, play, runs
from ...environment.__main__ import unseen_services
from ...environment.leftout import judged
from ...environment.runs import across_domains
from ...environment.splits import checked, prepare
from ...environment.user import UserModel
from .bridge import ModelEndpoint, chat_message
from .scores import RECORD, environment_reward, trials

USER_ROLE = "user"
TASKS = {"ticket": "sgd_ticket", "replay": "sgd_replay", "simulated": "sgd_simulated"}


class TaskError(ConfigError):
    """A mistake in a task's arguments or roles, found before any episode runs: its message
    is one line naming the fix."""


def sample_of(row, unseen, tools):
    """The inspect ``Sample`` of an ``episodes`` row (``unseen``: the services train lacks)."""
    unseen_here = [name for name in row["services"] if name in unseen]
    return Sample(id=row["id"], input=[chat_message(m) for m in row["prompt"]],
                  metadata={"dialogue_id": row["dialogue_id"], "services": list(row["services"]),
                            "unseen_services": unseen_here, "seen": not unseen_here,
                            "domain": runs.first_domain(row),
                            "domains": sorted({runs.domain(name) for name in row["services"]}),
                            "tools": [tool["function"]["name"] for tool in tools]})


@solver
def play_episodes(ready, rows, unseen, max_steps, variant, max_user_turns, user_instruction):
    """Play each sample's episode with ``play.play_episode``; its record in the store."""
    async def solve(state, generate):
        row = rows[state.sample_id]
        agent = ModelEndpoint(get_model(), endpoint.AGENT)
        user_model = None
        if row["mode"] == "simulated":
            user = ModelEndpoint(get_model(role=USER_ROLE, required=True), endpoint.USER)
            user_model = UserModel(user, max_user_turns, user_instruction)
        record = await anyio.to_thread.run_sync(play.play_episode, agent, ready, row, unseen, max_steps, variant,
                                                user_model)
        state.store.set(RECORD, {key: value for key, value in record.items() if key != "messages"})
        state.messages = [chat_message(m) for m in [*row["prompt"], *record["messages"]]]
        state.output.completion = record["final_answer"] or ""
        return state

    return solve


def fail(message):
    """Stop with one line naming the fix, before any episode runs: in inspect's own command
    (``inspect eval``) the line and exit status 2, as the project's commands end; in Python a
    ``TaskError`` with that line."""
    if os.path.basename(sys.argv[0]) == "inspect":
        sys.stderr.write(f"error: {message}\n")
        sys.stderr.flush()
        # Now: inspect prints a traceback for any exception of a task's creation, and nothing
        # has run yet that a shutdown would save.
        os._exit(2)
    raise TaskError(message)


def episodes_task(mode, split, variant=None, data_dir=None, verify=True, checksums=None, cache_dir=None,
                  instruction=None, max_steps=30, max_user_turns=30, user_instruction=None):
    """The inspect ``Task`` of ``mode``'s episodes of ``split`` (see the module's docstring)."""
    try:
        checked(split, mode, variant)
        if mode == "simulated" and USER_ROLE not in model_roles():
            raise TaskError(f"{TASKS[mode]}: give the simulated user's model with --model-role "
                            f"{USER_ROLE}=<model> (Python: eval(..., model_roles={{'{USER_ROLE}': ...}}))")
        for name, value, least in (("max_steps", max_steps, 1), ("max_user_turns", max_user_turns, 1)):
            if not isinstance(value, int) or value < least:
                raise TaskError(f"-T {name}={value}: give a whole number of at least {least}")
        options = {name: value for name, value in (("data_dir", data_dir), ("checksums", checksums),
                                                   ("cache_dir", cache_dir)) if value is not None}
        if verify in (False, "false", "False", 0):
            options["verify"] = False
        with called_from("inspect"):  # a loader's hint names the -T argument that fixes it
            ready = prepare(split, mode=mode, variant=variant, instruction=instruction, **options)
            unseen = unseen_services(ready, variant, options)
    except UnifiedDialogueError as error:  # the loaders' and the environment's mistakes alike
        fail(" ".join(str(error).split()))
    rows = {row["id"]: row for row in across_domains([row for row in ready.episodes if judged(row)])}
    samples = [sample_of(row, unseen, play.tools_of(ready, row["services"], mode)) for row in rows.values()]
    return Task(dataset=MemoryDataset(samples, name=f"sgd-{split}-{mode}"),
                solver=play_episodes(ready, rows, unseen, max_steps, variant, max_user_turns, user_instruction),
                scorer=environment_reward(), epochs=Epochs(1, trials()),
                metadata={"split": split, "mode": mode, "variant": variant})


@task
def sgd_ticket(split="validation", variant=None, data_dir=None, verify=True, checksums=None, cache_dir=None,
               instruction=None, max_steps=30):
    """SGD's episodes in ``ticket`` mode: the user's goal as the first message, the agent's
    final answer what the user is told."""
    return episodes_task("ticket", split, variant, data_dir, verify, checksums, cache_dir, instruction, max_steps)


@task
def sgd_replay(split="validation", variant=None, data_dir=None, verify=True, checksums=None, cache_dir=None,
               instruction=None, max_steps=30):
    """SGD's episodes in ``replay`` mode: the corpus's user turns, one per
    ``send_message_to_user`` call."""
    return episodes_task("replay", split, variant, data_dir, verify, checksums, cache_dir, instruction, max_steps)


@task
def sgd_simulated(split="validation", variant=None, data_dir=None, verify=True, checksums=None, cache_dir=None,
                  instruction=None, max_steps=30, max_user_turns=30, user_instruction=None):
    """SGD's episodes in ``simulated`` mode: the ``user`` model role plays the user, given the
    system message of ``user-chat`` rows and ending the conversation with its stop marker."""
    return episodes_task("simulated", split, variant, data_dir, verify, checksums, cache_dir, instruction, max_steps,
                         max_user_turns, user_instruction)


__all__ = ["across_domains", "episodes_task", "judged", "sgd_replay", "sgd_simulated", "sgd_ticket"]
