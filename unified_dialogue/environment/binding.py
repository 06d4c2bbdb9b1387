"""The environment as TRL's ``GRPOTrainer`` takes it (``environment_factory``): one class
per set of services (TRL reads the tools from the class), its public methods the tools.

Each tool is a method named as ``agent-call-chat`` names the tool (``chat.agent.tool_name``,
a Python identifier); its docstring holds the tool's description and each argument's,
one line each (as ``transformers.utils.get_json_schema`` reads them), with ``(default:
<value>)`` after an optional slot's description (``get_json_schema`` has no ``default``);
a categorical slot is typed ``Literal[<its values>]`` (an ``enum``). A slot whose name is no
Python identifier becomes a parameter by one rule (``parameter_name``) and is mapped back
before the database sees it. Everything else of the class is ``_private``, but ``reset``
(TRL's), in ``replay`` and ``simulated`` modes ``send_message_to_user``, and ``get_reward``
where asked for (``trl(..., get_reward=True)``: TRL adds it to the reward functions, weighted
1, one column per class; ``reward_function`` is one column for all, and judges the final
answer too).

The factories and the instances carry the database's path, never an open connection:
both pickle (TRL's asynchronous trainer sends the factories to other processes).
"""

import functools
import inspect
import json
import keyword
import re
from dataclasses import dataclass
from typing import Literal, NamedTuple, Optional

from ..core.errors import ConfigError
from . import reward as rewards
from ..core.answer import content_text
from .episode import Episode, error_text
from .episodes import environment_name
from .services import Services
from .splits import prepare
from .tickets import SPOKEN, user_text
from .user import UserModel

NOT_BEGUN = "the episode has not begun: reset() comes first"
# The columns of an ``episodes`` row that ``reset`` reads.
RESET_COLUMNS = ("dialogue_id", "services", "mode", "user_turns", "goal", "outcome")
# The words get_json_schema takes for the start of a docstring section, anywhere in a line.
SECTIONS = re.compile(r"(Args|Returns|Raises):")
CHOICES = re.compile(r"\(choices:.*\)\s*$", re.IGNORECASE)


def parameter_name(slot, taken=()):
    """The Python parameter of a slot name: the name itself where it is an ASCII
    identifier, no keyword and not ``self``; a keyword or ``self`` with ``_`` after it
    (PEP 8: ``from`` → ``from_``); any other name its ASCII letters, digits and ``_``, each
    other run of characters one ``_``, after ``slot_`` where it would not begin with a
    letter or ``_`` (``"number of rooms"`` → ``number_of_rooms``, ``"2nd"`` → ``slot_2nd``);
    then ``_`` added until it is none of ``taken``."""
    if not (slot.isascii() and slot.isidentifier()):
        slot = re.sub(r"[^0-9A-Za-z_]+", "_", slot)
        if not re.match(r"[A-Za-z_]", slot):
            slot = f"slot_{slot}"
    if keyword.iskeyword(slot) or slot == "self":
        slot += "_"
    while slot in taken:
        slot += "_"
    return slot


def one_line(text):
    """A description as a docstring line ``get_json_schema`` reads back whole: white space
    made one space, ``Args:``/``Returns:``/``Raises:`` written with a space before the
    colon, a trailing ``(choices: …)`` followed by ``.``."""
    text = SECTIONS.sub(r"\1 :", " ".join(text.split()))
    return f"{text} ." if CHOICES.search(text) else text


def argument_text(prop, slot, parameter):
    """The docstring line of an argument: its description (else the slot's name, else the
    parameter's), then ``(default: <value>)`` where it has one, made ``one_line``."""
    text = " ".join(prop["description"].split()) or " ".join(slot.split()) or parameter
    return one_line(f"{text} (default: {prop['default']})" if "default" in prop else text)


def tool_method(tool, description):
    """The method of one tool: its signature, annotations and docstring say its
    arguments; it calls the episode with the arguments under their slot names."""
    slots, lines, params, annotations = {}, [one_line(description) or tool.name], [], {}
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if tool.properties:
        lines += ["", "Args:"]
    for slot, prop in tool.properties.items():
        name = parameter_name(slot, slots)
        slots[name] = slot
        lines.append(f"    {name}: {argument_text(prop, slot, name)}")
        annotations[name] = Literal[tuple(prop["enum"])] if prop.get("enum") else str
        default = prop["default"] if "default" in prop else inspect.Parameter.empty
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                        annotation=annotations[name]))

    def method(self, **arguments):
        if self._episode is None:
            return error_text(NOT_BEGUN)
        return self._episode.call(tool.name, {slots.get(name, name): value for name, value in arguments.items()})

    method.__name__ = method.__qualname__ = tool.name
    method.__doc__ = "\n".join(lines)
    method.__signature__ = inspect.Signature([self_param, *params])
    method.__annotations__ = annotations
    return method


def send_message_to_user(self, message: str):
    """Send the user a message; returns the user's reply.

    Args:
        message: What to tell the user.
    """
    if self._episode is None:
        return error_text(NOT_BEGUN)
    return self._episode.send_message_to_user(message)


class Environment:
    """The base of every environment class: ``reset(**row)`` begins an episode of an
    ``episodes`` row (in ``simulated`` mode it returns the simulated user's first turn,
    which TRL appends to the row's empty first user message). It raises ConfigError for a
    row that is no episode of the class (a column left out, other services, another mode)
    and where the database file is not there: TRL would show a tool's error to the model
    and train on."""

    _services = None
    _factory = None

    def __init__(self, factory):
        self._factory = factory
        self._episode = None

    def reset(self, **row):
        self._check(row)
        user = None
        if self._factory.mode == "simulated":
            schemas = {schema["service_name"]: schema for schema in self._services.schemas}
            user = self._factory.user.user_of(schemas, row)
            opening = user.opening()
        self._episode = Episode(self._services, self._factory.path, row, user)
        if user is not None:
            return f"{opening}\n\n({user_text('ended')})" if user.ended else opening
        return None

    def __reduce__(self):
        return restore, (self._factory, self._episode)

    def _check(self, row):
        """Raise ConfigError unless ``row`` is an ``episodes`` row of this environment's
        services and mode (TRL would otherwise train on a silent mismatch)."""
        missing = [column for column in RESET_COLUMNS if column not in row]
        if missing:
            raise ConfigError(f"reset(): the row has no {', '.join(missing)}: give the trainer the rows "
                              f"environment.trl(...) returns with all their columns (no select_columns)")
        names = [schema["service_name"] for schema in self._services.schemas]
        if environment_name(row["services"]) != environment_name(names) or row["mode"] != self._factory.mode:
            raise ConfigError(f"reset(): the row {row['dialogue_id']} is an episode of {row['services']} in mode "
                              f"{row['mode']!r}, this environment of {names} in mode {self._factory.mode!r}: pass "
                              f"the whole dict of factories that environment.trl(...) returns with its rows")


class RewardedEnvironment(Environment):
    """An environment that owns its reward (``trl(..., get_reward=True)``): TRL adds
    ``get_reward`` to the reward functions, weighted 1, one column per class. It is the
    reward as the environment sees it, without the final answer (which TRL keeps in the
    completions): in ``ticket`` mode the requested values are not judged here."""

    def get_reward(self) -> float:
        if self._episode is None:
            return 0.0
        return rewards.parts(self._episode, None, judge_told=self._factory.mode in SPOKEN)["reward"]


def restore(factory, episode):
    environment = factory()
    environment._episode = episode
    return environment


@functools.lru_cache(maxsize=None)
def environment_class(schemas_text, mode, rewarded=False):
    """The class of a set of services (their schema records as JSON text) in ``mode``;
    ``rewarded``: with ``get_reward``."""
    services = Services(json.loads(schemas_text))
    names = [schema["service_name"] for schema in services.schemas]
    methods = {}
    for schema in services.schemas:
        for intent in schema["intents"]:
            tool = services.tool(schema["service_name"], intent["name"])
            methods[tool.name] = tool_method(tool, f"{intent['description']} (service: {schema['description']})")
    if mode in SPOKEN:
        methods["send_message_to_user"] = send_message_to_user
    methods["_services"] = services
    title = re.sub(r"[^0-9A-Za-z_]+", "_", "_".join(sorted(names))) or "none"
    return type(f"SGD_{title}", (RewardedEnvironment if rewarded else Environment,), methods)


@dataclass(frozen=True)
class Factory:
    """``Factory()`` → a new environment of one set of services: picklable, it holds the
    schemas as JSON text, the mode, the database's path, whether the environment has
    ``get_reward`` and, in ``simulated`` mode, the user's model (``user.UserModel``)."""

    schemas_text: str
    mode: str
    path: str
    rewarded: bool = False
    user: Optional[UserModel] = None

    def __call__(self):
        return environment_class(self.schemas_text, self.mode, self.rewarded)(self)


def factories(ready, get_reward=False, user=None):
    """``{environment name: Factory}`` for every set of services of a ``splits.Split``'s
    episodes; ``get_reward``: environments with ``get_reward``; ``user``: the simulated
    user's model, in ``simulated`` mode."""
    made = {}
    for names in {tuple(services) for services in ready.episodes["services"]}:
        schemas = [ready.schemas[name] for name in names]
        made[environment_name(names)] = Factory(json.dumps(schemas, ensure_ascii=False, sort_keys=True),
                                                ready.mode, ready.path, get_reward, user)
    return dict(sorted(made.items()))


def final_answer(completion):
    """The agent's final answer in a TRL completion (a text, or messages): the last
    message's content where it is the assistant's without a tool call, else None."""
    if isinstance(completion, str):
        return completion
    last = completion[-1] if completion else None
    if last is None or last.get("role") != "assistant" or last.get("tool_calls"):
        return None
    return content_text(last.get("content"))


class EpisodeReward:
    """A TRL reward function reading ``environments`` (the episodes) and ``completions``
    (their final answers): one part of ``reward.parts``. Picklable; ``__name__`` is
    ``environment_<part>`` (TRL logs ``rewards/environment_<part>/mean``)."""

    def __init__(self, part="reward"):
        if part not in rewards.PARTS:
            raise ValueError(f"no reward part {part!r}: the parts are {', '.join(rewards.PARTS)}")
        self.part = part
        self.__name__ = f"environment_{part}"

    def __call__(self, prompts=None, completions=None, environments=None, **columns):
        if environments is None:
            raise ValueError("the environment's reward reads environments=: train with environment_factory")
        completions = completions if completions is not None else [None] * len(environments)
        return [rewards.parts(environment._episode, final_answer(completion) if completion else None)[self.part]
                if getattr(environment, "_episode", None) is not None else 0.0
                for environment, completion in zip(environments, completions)]


def reward_function(part="reward", *parts):
    """The environment's reward as a TRL reward function (``EpisodeReward``); with more
    than one part, a list of them, one per part.

    Args:
        part: one of ``reward.PARTS``: ``reward`` (1.0 or 0.0), ``transaction_precision``,
            ``transaction_recall``, ``attempts_made``, ``items_found``, ``requested_values_given``,
            ``bookings_confirmed``, ``items_named``, ``refusals_told``.
        parts: more parts.

    Returns:
        A function ``f(prompts, completions, environments, **columns)`` → one float per
        completion, or a list of such functions.

    Example:
        >>> GRPOTrainer(..., reward_funcs=reward_function("reward", "transaction_recall"), environment_factory=factories)
    """
    made = [EpisodeReward(name) for name in (part, *parts)]
    return made if parts else made[0]


class Trl(NamedTuple):
    """What ``GRPOTrainer`` takes: ``train_dataset`` (the ``episodes`` rows) and
    ``environment_factory`` (``{environment name: Factory}``)."""

    train_dataset: object
    environment_factory: dict


def trl(split, *, mode="ticket", variant=None, get_reward=False, user=None, **load_options):
    """The episodes of a split and the environment factories, as ``GRPOTrainer`` takes them.

    Args:
        split: ``train``, ``validation`` or ``test``.
        mode: ``ticket`` (the user's goal as the first message), ``replay`` (the
            corpus's user turns, one per ``send_message_to_user`` call) or ``simulated``
            (a model playing the user: ``user``).
        user: in ``simulated`` mode, the user's model (``user.UserModel``: an endpoint of
            ``play.Endpoint``, the most turns, the instruction).
        variant: an SGD-X variant (``v1`` … ``v5``): the same database and goals, the
            variant's tool, slot and intent names.
        get_reward: give the environments ``get_reward`` (``RewardedEnvironment``): TRL then
            adds it to the reward functions, weighted 1, one column per set of services.
        load_options: ``load``'s options (``data_dir``, ``cache_dir``,
            ``verification_mode``, ...) and the ``episodes`` config's ``instruction``.

    Returns:
        ``Trl(train_dataset, environment_factory)``.

    Raises:
        ConfigError: an unknown mode, split, variant or option, or a ``user`` that is no
            ``UserModel``, before anything is built.

    Example:
        >>> rows, factories = trl("train", data_dir="path/to/sgd")
        >>> GRPOTrainer(model=..., train_dataset=rows, environment_factory=factories,
        ...             reward_funcs=reward_function(), args=GRPOConfig(...))
    """
    if user is not None and not callable(getattr(user, "user_of", None)):
        raise ConfigError(f"user=: give the user's model as UserModel(Endpoint(base_url, model)), not "
                          f"{type(user).__name__} {user!r}")
    if (mode == "simulated") != (user is not None):
        raise ConfigError("mode 'simulated' plays against a user model: give user=UserModel(Endpoint(...))"
                          if user is None else f"user=: a user model plays only in mode 'simulated', not {mode!r}")
    ready = prepare(split, mode=mode, variant=variant, **load_options)
    return Trl(ready.episodes, factories(ready, get_reward, user))
