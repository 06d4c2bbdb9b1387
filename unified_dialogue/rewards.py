"""Reward functions for reinforcement learning with TRL (``GRPOTrainer``, ``RLOOTrainer``): each
the per-row score that the scoring command writes with ``--per-row``, for the row a completion
answers. docs/rl.md shows them in a training run.

    >>> f = reward("sgd", "dst-chat", "train", data_dir="sgd")  # doctest: +SKIP
    >>> f(prompts=prompts, completions=completions, id=ids)  # as GRPOTrainer calls it  # doctest: +SKIP
    [1.0, 0.0, ...]

A reward never re-computes a metric: ``TASKS`` names, for each config, what to load once and
the scorer's own per-row function (``scoring.dst_chat.row_scores``, ``scoring.d3st.row_scores``,
``scoring.tool_calls.row_scores``, ``scoring.generation.row_scores``, ``scoring.nlu.score_row``,
``scoring.critic.row_scores``). A text the scorer counts as malformed (it could not be read
whole: ``core.problems.unreadable``) gets 0.0, whatever part of it could be read.
"""

import inspect
import json
from dataclasses import dataclass

from . import registry
from .chat import SUFFIX
from .chat.state import Schemas
from .core.errors import ConfigError
from .core.options import elsewhere
from .core.problems import unreadable
from .scoring import critic, d3st, dst_chat, generation, nlu, tool_calls
from .scoring import dst as dst_metrics
from .scoring.gem import chrf_references
from .scoring.ser import noncategorical_slots
from .scoring.rows import ScoringError, shown

# The per-row metrics a reward can be, per kind of config; the first is the default.
DST_METRICS = (dst_metrics.JOINT_GOAL_ACCURACY, dst_metrics.AVERAGE_GOAL_ACCURACY, dst_metrics.ACTIVE_INTENT_ACCURACY,
               dst_metrics.REQUESTED_SLOTS_F1, dst_metrics.REQUESTED_SLOTS_PRECISION,
               dst_metrics.REQUESTED_SLOTS_RECALL, dst_metrics.JOINT_CAT_ACCURACY, dst_metrics.JOINT_NONCAT_ACCURACY,
               dst_metrics.AVERAGE_CAT_ACCURACY, dst_metrics.AVERAGE_NONCAT_ACCURACY)
TOOL_METRICS = ("joint_accuracy", "call_accuracy", "argument_f1")
NLU_METRICS = (nlu.FRAME_EXACT_MATCH, nlu.INTENT_ACCURACY, nlu.SLOT_F1)
GENERATION_METRICS = ("sentence_chrf", "slot_accuracy", "knowledge_f1", "knowledge_precision", "knowledge_recall")
CRITIC_METRICS = (critic.ACCURACY,)


# ---------------------------------------------------------------- what each config loads

def _rows(load, config, split, options=None, columns=None):
    """The rows of a config as plain dicts, of one split or of every split (ids are unique
    across splits), with only those of ``columns`` they have (the prompts are never read)."""
    loaded = load(config, split, **(options or {}))
    parts = loaded.values() if hasattr(loaded, "keys") else [loaded]
    if columns is not None:
        parts = [part.select_columns([name for name in part.column_names if name in columns]) for part in parts]
    return [row for part in parts for row in part.to_list()]


def _by_split(load, config, split, columns):
    """``{split: rows}`` of a config, only ``columns`` of them."""
    loaded = load(config, split)
    parts = loaded if hasattr(loaded, "keys") else {split: loaded}
    return {name: part.select_columns(columns).to_list() for name, part in parts.items()}


def _dst_chat(load, config, split, options, metrics, settings):
    """dst-chat: the ``dst`` rows (no context: a text has no spans) with their split's schemas."""
    schemas = _by_split(load, "schema", split, ["service_name", "intents", "slots"])
    references = _by_split(load, "dst", split, ["id", "dialogue_id", "turn_index", "frames"])
    index = {}
    for name, rows in references.items():
        known, slots_of = Schemas.of(schemas[name]), dst_metrics.service_slots(schemas[name])
        index.update((row["id"], (dst_chat.reference_turn(row), known, slots_of)) for row in rows)

    def score(text, item):
        reference, known, slots_of = item
        values, problems = dst_chat.row_scores(text, reference, known, slots_of, **settings)
        return values, unreadable(problems)

    return index, score


def _nlu_chat(load, config, split, options, metrics, settings):
    """nlu-chat: the ``nlu`` rows with their split's schemas, where the corpus has them."""
    references = _by_split(load, "nlu", split, ["id", "intents", "spans"])
    try:
        schemas = _by_split(load, "schema", split, ["service_name", "intents", "slots"])
    except ConfigError:  # a corpus without schemas (CCPE-M): no name is unknown
        schemas = {}
    index = {}
    for name, rows in references.items():
        known = Schemas.of(schemas[name]) if name in schemas else None
        index.update((row["id"], (row, known)) for row in rows)

    def score(text, item):
        values, problems = nlu.score_row(text, *item)
        return values, unreadable(problems)

    return index, score


def own_rows(row_scores, read=None, columns=None):
    """A ``Task.prepare`` for a scorer whose per-row function scores a text against a row of
    the config itself: ``row_scores(text, read(row), **settings)`` -> ``(values, problems)``
    (a list of ``core.problems.Problem``). ``read``: what of a row is kept, read once;
    ``columns``: the columns it needs."""
    def prepare(load, config, split, options, metrics, settings):
        rows = _rows(load, config, split, options, columns)
        index = {row["id"]: read(row) if read else row for row in rows}

        def score(text, item):
            values, problems = row_scores(text, item, **settings)
            return values, unreadable(problems)

        return index, score

    return prepare


def _generation(load, config, split, options, metrics, settings):
    """nlg, response and their chat configs: the view's rows (references, acts, knowledge),
    the schemas of every split where the slot accuracy is asked for."""
    view = config.removesuffix(SUFFIX)
    rows = _rows(load, view, split, options if view == config else None,
                 ("id", "references", "target", "response", "completion", "dialog_acts", "service", "knowledge"))
    scored = [name for name, keys in generation.ROW_METRICS.items() if any(key in metrics for key in keys)]
    # a metric the rows cannot give is refused now, not at a training step
    if "knowledge" in scored and not all(isinstance(row.get("knowledge"), str) for row in rows):
        raise ScoringError(f"{config}: the knowledge scores need a knowledge sentence on every row (FaithDial's "
                           "rows have one); these rows do not")
    noncategorical = None
    if "ser" in scored:
        try:
            noncategorical = noncategorical_slots(_rows(load, "schema", split))
        except ConfigError:  # a corpus without schemas
            raise ScoringError(f"{config}: slot_accuracy needs the acts and schemas of SGD; this corpus has no "
                               "schema config") from None
    index = {row["id"]: [row, None] for row in rows}

    def score(text, item):
        row, references = item
        if references is None and "chrf" in scored:  # the references' n-grams, once per row
            references = item[1] = chrf_references(generation.references_of(row))
        values, problems = generation.row_scores(text, row, scored, noncategorical, references)
        return values, unreadable(problems)

    return index, score


@dataclass(frozen=True)
class Task:
    """How a config is rewarded: ``prepare(load, config, split, options, metrics, settings)``
    gives ``({id: what scoring the row needs}, score)`` where ``score(text, item)`` is
    ``(per-row values, malformed)``; ``metrics``, the per-row values a reward can be, the
    first the default; ``settings``, the scorer's options a reward takes. A scorer whose
    per-row function scores a text against a row of its own config is one entry:
    ``Task(own_rows(module.row_scores), METRICS)``."""

    prepare: object
    metrics: tuple
    settings: tuple = ()


TASKS = {
    "dst-chat": Task(_dst_chat, DST_METRICS, ("use_fuzzy_match", "joint_acc_across_turn")),
    "d3st": Task(own_rows(d3st.row_scores, d3st.Reference.of, ("id", "legend", "frame")), DST_METRICS,
                 ("use_fuzzy_match",)),
    "agent-call-chat": Task(own_rows(tool_calls.row_scores, tool_calls.gold_of, ("id", "completion", "tools")),
                            TOOL_METRICS),
    "nlu-chat": Task(_nlu_chat, NLU_METRICS),
    "nlg": Task(_generation, GENERATION_METRICS),
    "nlg-chat": Task(_generation, GENERATION_METRICS),
    "response": Task(_generation, GENERATION_METRICS),
    "response-chat": Task(_generation, GENERATION_METRICS),
    "critic": Task(own_rows(critic.row_scores, critic.gold_of, ("id", "label")), CRITIC_METRICS),
    "critic-chat": Task(own_rows(critic.row_scores, critic.gold_of, ("id", "completion")), CRITIC_METRICS),
}


# ---------------------------------------------------------------- completions

def completion_text(completion):
    """The text of a completion as TRL gives it: a string, or a list of messages (the
    assistant's contents joined, the text parts of a list of parts; a message's
    ``tool_calls`` written as JSON, which the tool-call parser reads). A message's reasoning
    (``reasoning_content``, ``thinking``, ``reasoning``, as a response parser or a server
    splits it off, or a part of another type than text) is never read: a reasoning block is
    not part of the answer (docs/scoring.md). Anything else is no text (None)."""
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
        if isinstance(content, list):  # content parts: the text ones
            content = "".join(part.get("text", "") for part in content
                              if isinstance(part, dict) and part.get("type", "text") == "text")
        if isinstance(content, str) and content:
            parts.append(content)
        if message.get("tool_calls"):
            parts.append(json.dumps({"tool_calls": message["tool_calls"]}, ensure_ascii=False, default=str))
    return "\n".join(parts)


class Scores:
    """The per-row values of one config's rows, shared by the rewards of its metrics: the
    last batch scored is kept, so rewards of several metrics score each completion once."""

    def __init__(self, index, score, where):
        self.index, self.score, self.where = index, score, where
        self._last = (None, None)

    def of(self, ids, completions):
        if ids is None:
            raise ScoringError(f"{self.where}: no 'id' column: the rewards find each completion's reference by the "
                               "id of its row (keep the column in the training dataset)")
        if len(ids) != len(completions):
            raise ScoringError(f"{self.where}: {len(completions)} completions for {len(ids)} ids")
        key = (tuple(ids), tuple(map(repr, completions)))
        if self._last[0] == key:
            return self._last[1]
        unknown = [identifier for identifier in ids if identifier not in self.index]
        if unknown:
            raise ScoringError(f"{self.where}: {len(unknown)} id(s) name no row of the config: {shown(unknown)}")
        records = []
        for identifier, completion in zip(ids, completions):
            text = completion_text(completion)
            if text is None:
                records.append(None)
                continue
            values, malformed = self.score(text, self.index[identifier])
            records.append(None if malformed else values)
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


def check_load_options(corpus, config, split, load_options):
    """Refuse, before anything loads, a split the corpus does not have and an argument
    neither ``load`` nor the config takes (naming the config, and the one that takes it)."""
    from .api import load, options

    declared = registry.get(corpus)
    if split is not None and split not in declared.splits:
        raise ScoringError(f"split {split!r}: {corpus} has the splits {', '.join(declared.splits)}")
    accepted = set(inspect.signature(load).parameters) | set(options(registry.builder_class(declared), config))
    unknown = sorted(set(load_options) - accepted)
    if unknown:
        raise ConfigError(f"the {config} config of {corpus} takes no option {', '.join(map(repr, unknown))}"
                          f"{elsewhere(unknown, declared.configs)}")


def reward(corpus, config, split=None, *, metric=None, variant=None, **load_options):
    """TRL reward functions of a corpus's config: each completion scored against the row of
    its ``id``, with the scorer's own per-row function.

    Args:
        corpus: the corpus (``sgd``, ``faithdial``, ...).
        config: the config trained on (``dst-chat``, ``d3st``, ``agent-call-chat``, ``nlg``,
            ``nlg-chat``, ``response``, ``response-chat``, ``nlu-chat``, ``critic``,
            ``critic-chat``: ``TASKS``).
        split: the split whose rows the completions answer; None: every split.
        metric: a per-row metric of the config (``TASKS[config].metrics``; default its first:
            ``joint_goal_accuracy``, ``joint_accuracy``, ``sentence_chrf``,
            ``frame_exact_match`` or ``accuracy``), or a list of
            them for one reward function each.
        variant: the corpus's variant (SGD-X's ``v1`` … ``v5``).
        **load_options: ``load``'s arguments (``data_dir``, ``cache_dir``,
            ``checksums``, ``verify=False``, ...), the config's own options (D3ST's), and
            the scorer's settings (``use_fuzzy_match``, ``joint_acc_across_turn``).

    Returns:
        A reward function (a list of them where ``metric`` is a list), whose ``__name__`` is
        ``<config>_<metric>``. It loads nothing more once made.

    Raises:
        ScoringError for a config without rewards or an unknown metric; the loader's errors for
        rows that cannot be loaded. A reward function raises ScoringError only for an ``id``
        that names no row (or no ``id`` column), never for a completion's text.

    Example:
        >>> jga, rsf = reward("sgd", "dst-chat", "train", metric=["joint_goal_accuracy", "requested_slots_f1"],
        ...                   data_dir="sgd")  # doctest: +SKIP
        >>> config = GRPOConfig(reward_weights=[1.0, 0.5])  # doctest: +SKIP
        >>> GRPOTrainer(model, reward_funcs=[jga, rsf], args=config, ...)  # doctest: +SKIP
    """
    from .api import load as load_config

    if config not in TASKS:
        raise ScoringError(f"no reward for config {config!r}: there are rewards for {', '.join(sorted(TASKS))}")
    task = TASKS[config]
    metrics = [metric] if isinstance(metric, str) else list(metric or task.metrics[:1])
    unknown = [name for name in metrics if name not in task.metrics]
    if unknown or not metrics:
        raise ScoringError(f"{config} has no per-row metric {', '.join(map(repr, unknown))}: "
                           f"its metrics are {', '.join(task.metrics)}")
    settings = {name: load_options.pop(name) for name in task.settings if name in load_options}
    declared = {option.name for option in registry.get(corpus).config(config).options}
    options = {name: load_options.pop(name) for name in list(load_options) if name in declared}
    check_load_options(corpus, config, split, load_options)
    common = dict(load_options, **({"variant": variant} if variant else {}))

    def load(name, split, **config_options):
        return load_config(corpus, name, split=split, **common, **config_options)

    index, score = task.prepare(load, config, split, options, metrics, settings)
    scores = Scores(index, score, f"{corpus} {config}" + (f" {split}" if split else ""))
    functions = [Reward(scores, config, name) for name in metrics]
    return functions if isinstance(metric, (list, tuple)) else functions[0]


__all__ = ["TASKS", "Reward", "ScoringError", "completion_text", "reward"]
