"""The tasks: one per judged episode of a split, in an order that takes every domain in
turn, each carrying what its tool server and its reward need as JSON.

The split is made ready by the environment (``environment.splits.prepare``: its
``episodes`` rows, service schemas and database file); a task's tools are the
evaluation command's (``environment.play.tools_of``: ``agent-call-chat``'s JSON schemas,
and ``send_message_to_user`` where the agent talks to a user).
"""

from typing import Any, Optional

import verifiers.v1 as vf
from pydantic import Field, field_validator, model_validator

from ...core.errors import ConfigError, UnifiedDialogueError
from ...core.sources import called_from
from ...environment import gold, splits
from ...environment.play import tools_of
from ...environment.leftout import judged
from ...environment.runs import across_domains, domain
from ...environment.tickets import MODES
from ...environment.user import UserModel
from .reward import gold_parts, scored
from .toolset import SgdState, SgdToolset, SgdToolsetConfig


class SgdTaskConfig(vf.TaskConfig):
    """The tasks' run-time settings: their tool server's (``--env.taskset.task.tools.*``)."""

    tools: SgdToolsetConfig = SgdToolsetConfig()


class SgdConfig(vf.TasksetConfig):
    """Which episodes, and how the user speaks (``--env.taskset.*``).

    ``split``, ``mode`` (``ticket``, ``replay`` or ``simulated``), ``variant`` (an SGD-X
    variant, or none) and ``load``'s options ``data_dir``, ``checksums``, ``cache_dir`` and
    ``verify`` (False for a partial or changed copy). In ``simulated`` mode the user's model
    (``user_base_url``, ``user_model``, ``user_api_key_var``: the environment variable
    holding its key, ``user_temperature``, ``user_seed``), the most turns it speaks
    (``max_user_turns``) and its instruction (``user_instruction``), as the evaluation
    command's ``--user-*`` flags.
    """

    split: str = "validation"
    mode: str = "ticket"
    variant: Optional[str] = None
    data_dir: Optional[str] = None
    checksums: Optional[str] = None
    cache_dir: Optional[str] = None
    verify: bool = True
    user_base_url: Optional[str] = None
    user_model: Optional[str] = None
    user_api_key_var: str = "OPENAI_API_KEY"
    user_temperature: float = Field(0.0, ge=0)
    user_seed: Optional[int] = None
    max_user_turns: int = Field(UserModel._field_defaults["max_turns"], ge=1)
    user_instruction: Optional[str] = None
    task: SgdTaskConfig = SgdTaskConfig()

    @field_validator("mode")
    @classmethod
    def known_mode(cls, mode):
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: give one of {', '.join(MODES)} (--env.taskset.mode)")
        return mode

    @model_validator(mode="after")
    def checked(self):
        try:
            splits.checked(self.split, self.mode, self.variant)
        except ConfigError as error:
            raise ValueError(str(error)) from None
        given = [name for name in ("user_base_url", "user_model") if getattr(self, name) is not None]
        if self.mode == "simulated" and len(given) < 2:
            raise ValueError("mode 'simulated': give the user's model with --env.taskset.user-base-url and "
                             "--env.taskset.user-model")
        if self.mode != "simulated" and given:
            raise ValueError(f"--env.taskset.{given[0].replace('_', '-')}: a user model plays only in mode "
                             f"'simulated' (--env.taskset.mode simulated)")
        return self

    def load_options(self):
        options = {name: getattr(self, name) for name in ("data_dir", "checksums", "cache_dir")
                   if getattr(self, name) is not None}
        return {**options, **({} if self.verify else {"verify": False})}

    def user(self):
        """The simulated user's endpoint settings, None outside ``simulated`` mode."""
        if self.mode != "simulated":
            return None
        return {"base_url": self.user_base_url, "model": self.user_model, "api_key_var": self.user_api_key_var,
                "temperature": self.user_temperature, "seed": self.user_seed}


class SgdData(vf.TaskData):
    """One episode: its ``episodes`` row (``episode``), its services' ``schemas``, the
    split's ``database`` file, its OpenAI ``tools``, the ``mode``, the ``domains`` and the
    ``unseen_services`` its summary groups by, the gold agent's assistant messages
    (``gold``, for ``Task.validate``) and, in ``simulated`` mode, the ``user`` model's
    settings, ``max_user_turns``, ``user_instruction`` and the user's ``opening`` answer
    (written when the episode begins)."""

    episode: dict[str, Any]
    schemas: dict[str, Any]
    database: str
    tools: list[dict[str, Any]]
    mode: str
    domains: list[str]
    unseen_services: list[str]
    gold: list[dict[str, Any]] = Field(default_factory=list)
    user: Optional[dict[str, Any]] = None
    max_user_turns: int = UserModel._field_defaults["max_turns"]
    user_instruction: Optional[str] = None
    opening: Optional[str] = None


class SgdTask(vf.Task[SgdData, SgdState, SgdTaskConfig]):
    """An episode: its tool server (``SgdToolset``), its reward and parts (``reward.scored``)."""

    @property
    def key(self):
        return self.data.id

    @classmethod
    def toolsets(cls, config):
        return [SgdToolset(config.tools)]

    async def setup(self, trace, runtime):
        if self.data.opening is not None:
            trace.state.user_answers = [self.data.opening]

    @vf.metric
    async def parts(self, trace):
        return {name: value for name, value in scored(self.data, trace).items() if name != "reward"}

    @vf.reward(weight=1.0)
    async def reward(self, trace):
        return scored(self.data, trace)["reward"]

    async def validate(self, runtime):
        """Whether the gold agent earns 1.0 in this episode (played by its recorded user in
        ``simulated`` mode, which no model plays here)."""
        return gold_parts(self.data)["reward"] == 1.0


class SgdTaskset(vf.Taskset[SgdTask, SgdConfig]):
    """SGD's episodes as verifiers tasks (``load``): see the package's docstring."""

    def __init__(self, config):
        super().__init__(config)
        try:
            with called_from("load"):
                self.ready = splits.prepare(config.split, mode=config.mode, variant=config.variant,
                                            **config.load_options())
                self.unseen = unseen_services(self.ready, config)
        except UnifiedDialogueError as error:
            # A mistake of the copy (a split it lacks, a partial copy checked whole), found before
            # any rollout: verifiers' commands print a SystemExit's text as they print their own
            # configuration's mistakes, as one line.
            raise SystemExit(str(error)) from None

    def load(self):
        from ... import load

        chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split=self.config.split,
                                                          **variant_option(self.config), **self.config.load_options())}
        playing = "replay" if self.config.mode == "simulated" else self.config.mode
        for row in across_domains([row for row in self.ready.episodes if judged(row)]):
            names = row["services"]
            yield SgdTask(SgdData(
                id=row["id"], name=row["dialogue_id"], prompt=row["prompt"], episode=row,
                schemas={name: self.ready.schemas[name] for name in names}, database=self.ready.path,
                tools=tools_of(self.ready, names, self.config.mode), mode=self.config.mode,
                domains=sorted({domain(name) for name in names}),
                unseen_services=[name for name in names if name in self.unseen],
                gold=gold.actions(chats[row["dialogue_id"]]["messages"], playing), user=self.config.user(),
                max_user_turns=self.config.max_user_turns, user_instruction=self.config.user_instruction),
                self.config.task)


def variant_option(config):
    return {"variant": config.variant} if config.variant else {}


def unseen_services(ready, config):
    from ...environment.__main__ import unseen_services as unseen

    return unseen(ready, config.variant, config.load_options())
