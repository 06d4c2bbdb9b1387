"""Reward functions for reinforcement learning with TRL (``GRPOTrainer``, ``RLOOTrainer``): each
the per-row score that the scoring command writes with ``--per-row``, for the row a completion
answers. docs/rl.md shows them in a training run.

    >>> f = reward("sgd", "dst-chat", "train", data_dir="sgd")  # doctest: +SKIP
    >>> f(prompts=prompts, completions=completions, id=ids)  # as GRPOTrainer calls it  # doctest: +SKIP
    [1.0, 0.0, ...]

A reward never re-computes a metric: each config's declaration (``scoring.configs.CONFIGS``)
names what to load once and the scorer's own per-row function (``scoring.per_row``), the
per-row metrics a reward can be and the scorer settings a reward takes. A text the scorer
counts as malformed (it could not be read whole: ``core.problems.unreadable``) gets 0.0,
whatever part of it could be read.
"""

import json
import threading
from dataclasses import dataclass
from typing import Optional

from .core.answer import content_text
from .core.errors import did_you_mean
from .scoring.configs import CONFIGS
from .core.problems import unreadable
from .scoring.rows import ScoringError, json_type, looks_like, shown


# ---------------------------------------------------------------- completions

def completion_text(completion):
    """The text of a completion as TRL gives it: a string, or a list of messages (the
    assistant's contents joined, the text parts of a list of parts; a message's
    ``tool_calls`` written as JSON, which the tool-call parser reads). A message's reasoning
    (``reasoning_content``, ``thinking``, ``reasoning``, as a response parser or a server
    splits it off, or a part of another type than text) is never read: a reasoning block is
    not part of the answer (docs/scoring.md). Anything else (a list of strings, None, a
    number) is no completion of TRL's: None, which the reward refuses by name."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, list):
        return None
    parts = []
    for message in completion:
        if not isinstance(message, dict):
            return None
        content = message.get("content")
        if content_text(content):
            parts.append(content_text(content))
        if message.get("tool_calls"):
            parts.append(json.dumps({"tool_calls": message["tool_calls"]}, ensure_ascii=False, default=str))
    return "\n".join(parts)


@dataclass(frozen=True)
class Recipe:
    """What makes a config's rewards: the corpus, config and split, and the sorted
    arguments (``api.sort_arguments``): ``load``'s, the config's options, the per-row
    function's settings, and the per-row metrics asked for. A few hundred bytes: a pickled
    reward carries this, not the rows, and loads them again (from the datasets cache) when
    first called."""

    corpus: str
    config: str
    split: Optional[str]
    load: dict
    options: dict
    settings: dict
    metrics: tuple

    @property
    def where(self):
        return " ".join(filter(None, (self.corpus, self.load.get("variant"), self.config, self.split)))

    def prepare(self):
        """``({id: what scoring the row needs}, score)``: the declaration's ``prepare`` on
        the rows this recipe names."""
        from .api import load as load_config

        def load(name, split, **config_options):
            return load_config(self.corpus, name, split=split, **self.load, **config_options)

        return CONFIGS[self.config].prepare(load, self.config, self.split, self.options, list(self.metrics),
                                            self.settings)


class Scores:
    """The per-row values of one config's rows, shared by the rewards of its metrics: the
    last batch scored is kept, so rewards of several metrics score each completion once.
    Pickled (and deep-copied) as its ``Recipe`` alone: the copy prepares the rows again on
    its first call; rewards pickled together share one copy."""

    def __init__(self, recipe, prepared=None):
        self.recipe = recipe
        self._prepared = prepared
        self._last = (None, None)
        # TRL's asynchronous trainer calls each reward function in a thread of its own
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"recipe": self.recipe}

    def __setstate__(self, state):
        self.__init__(state["recipe"])

    @property
    def prepared(self):
        with self._lock:
            if self._prepared is None:
                self._prepared = self.recipe.prepare()
            return self._prepared

    def of(self, ids, completions):
        where = self.recipe.where
        if ids is None:
            raise ScoringError(f"{where}: no 'id' column: a reward finds each completion's reference by the id of its "
                               "row; keep it in the training dataset: .select_columns([\"prompt\", \"id\"]) (with "
                               "\"completion\" where it is kept too), not .select_columns([\"prompt\", "
                               "\"completion\"])")
        if len(ids) != len(completions):
            raise ScoringError(f"{where}: {len(completions)} completions for {len(ids)} ids")
        key = (tuple(ids), tuple(map(repr, completions)))
        last = self._last  # one read: another thread may replace it
        if last[0] == key:
            return last[1]
        index, score = self.prepared
        unknown = [identifier for identifier in ids if identifier not in index]
        if unknown:
            hint = looks_like(unknown, index)
            raise ScoringError(f"{where}: {len(unknown)} id(s) name no row of the config: {shown(unknown)}"
                               + (f" ({hint})" if hint else ""))
        texts = [completion_text(completion) for completion in completions]
        odd = [position for position, text in enumerate(texts) if text is None]
        if odd:  # a caller's mistake, not a model's text: it would score 0.0 without a word
            first = completions[odd[0]]
            shape = json_type(first) + (f" holding {json_type(first[0])}" if isinstance(first, list) and first else "")
            raise ScoringError(f"{where}: completion #{odd[0]} (id {ids[odd[0]]!r}; {len(odd)} such) is {shape}: a "
                               "reward takes each completion as TRL gives it, a string or a list of messages "
                               "({\"role\": \"assistant\", \"content\": ...})")
        records = []
        for identifier, text in zip(ids, texts):
            values, problems = score(text, index[identifier])
            records.append(None if unreadable(problems) else values)
        self._last = (key, records)
        return records


class Reward:
    """One metric as a TRL reward function: ``f(prompts=..., completions=..., **columns)``
    returns one float per completion (0.0 for an unreadable text; None where the metric has
    no value for the row, as DST's average accuracies on a turn with no slot filled)."""

    def __init__(self, scores, config, metric):
        self.scores, self.metric = scores, metric
        self.__name__ = f"{config}_{metric}"

    def __call__(self, prompts=None, completions=None, completion_ids=None, **columns):
        records = self.scores.of(columns.get("id"), list(completions or []))
        log_metric = columns.get("log_metric")
        if callable(log_metric) and records:  # GRPOTrainer's: the share of unreadable texts, logged by step
            log_metric(f"{self.__name__}/malformed", sum(record is None for record in records) / len(records))
        return [0.0 if record is None else _value(record.get(self.metric)) for record in records]

    def __repr__(self):
        return f"<reward {self.__name__}>"


def _value(value):
    return None if value is None else float(value)


def reward(corpus, config, split=None, *, metric=None, variant=None, **load_options):
    """TRL reward functions of a corpus's config: each completion scored against the row of
    its ``id``, with the scorer's own per-row function.

    Args:
        corpus: the corpus (``sgd``, ``faithdial``, ...).
        config: the config trained on (``dst-chat``, ``d3st``, ``agent-call-chat``, ``nlg``,
            ``nlg-chat``, ``response``, ``response-chat``, ``nlu-chat``, ``user-chat``,
            ``critic``, ``critic-chat``: ``scoring.configs.CONFIGS``, but ``preference``).
        split: the split whose rows the completions answer; None: every split.
        metric: a per-row metric of the config (``CONFIGS[config].row_metrics``; default its first:
            ``joint_goal_accuracy``, ``joint_accuracy``, ``sentence_chrf`` or
            ``frame_exact_match``; user-chat's are ``turn_chrf``, ``informed_values_said``
            and ``stop_accuracy``; the critic's ``accuracy``), or a list of
            them for one reward function each.
        variant: the corpus's variant (SGD-X's ``v1`` … ``v5``).
        **load_options: ``load``'s arguments (``data_dir``, ``cache_dir``,
            ``checksums``, ``verify=False``, ...), the config's own options (D3ST's), and
            the scorer's settings (``use_fuzzy_match``, ``joint_acc_across_turn``).

    Returns:
        A reward function (a list of them where ``metric`` is a list), whose ``__name__`` is
        ``<config>_<metric>``. It loads nothing more once made. It can be pickled and
        deep-copied (TRL's asynchronous trainer pickles reward functions): the copy holds
        the ``Recipe``, not the rows, and loads them again on its first call.

    Raises:
        ScoringError for a config without rewards or an unknown metric; ConfigError, before
        anything loads, for a split the corpus lacks or an argument neither ``load``, the
        config nor the per-row function takes (``api.sort_arguments``); the loader's errors
        for rows that cannot be loaded. A reward function raises ScoringError only for an ``id``
        that names no row (or no ``id`` column), never for a completion's text.

    Example:
        >>> jga, rsf = reward("sgd", "dst-chat", "train", metric=["joint_goal_accuracy", "requested_slots_f1"],
        ...                   data_dir="sgd")  # doctest: +SKIP
        >>> config = GRPOConfig(reward_weights=[1.0, 0.5])  # doctest: +SKIP
        >>> GRPOTrainer(model, reward_funcs=[jga, rsf], args=config, ...)  # doctest: +SKIP
    """
    from .api import sort_arguments

    rewarded = sorted(name for name, declaration in CONFIGS.items() if declaration.prepare is not None)
    if config in CONFIGS and config not in rewarded:
        raise ScoringError(f"no reward for config {config!r}: it is scored from a model's scores of its rows, not "
                           f"from completions (there are rewards for {', '.join(rewarded)})")
    if config not in CONFIGS:
        raise ScoringError(f"no reward for config {config!r}{did_you_mean([config], rewarded, cutoff=0.9)} "
                           f"(there are rewards for {', '.join(rewarded)})")
    task = CONFIGS[config]
    metrics = [metric] if isinstance(metric, str) else list(task.row_metrics[:1] if metric is None else metric)
    unknown = [name for name in metrics if name not in task.row_metrics]
    if not metrics:
        raise ScoringError(f"metric={metric!r}: name at least one of the per-row metrics of {config} "
                           f"({', '.join(task.row_metrics)}), or leave it out for the first")
    if unknown:
        raise ScoringError(f"{config} has no per-row metric {', '.join(map(repr, unknown))}"
                           f"{did_you_mean(unknown, task.row_metrics)} (its metrics: {', '.join(task.row_metrics)})")
    given = dict(load_options, **({"variant": variant} if variant else {}))
    sorted_ = sort_arguments(corpus, config, given, split=split,
                             settings=[task.setting(name) for name in task.row_settings], whole=True)
    recipe = Recipe(sorted_.corpus, config, split, sorted_.load, sorted_.options, sorted_.settings, tuple(metrics))
    scores = Scores(recipe, recipe.prepare())  # now: a mistake in the rows shows before training starts
    functions = [Reward(scores, config, name) for name in metrics]
    return functions if isinstance(metric, (list, tuple)) else functions[0]


__all__ = ["Reward", "ScoringError", "completion_text", "reward"]
