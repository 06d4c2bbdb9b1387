"""Scoring a model's outputs on any config: ``SCORERS`` maps a config's name to its
scorer, and ``score`` (or ``python -m unified_dialogue.scoring``) loads the rows a
predictions file answers and scores it.

A predictions file is JSON Lines, one ``{"id": <row id>, "text": <model output>}`` per line
(``rows.read_predictions``), or what the scorer's ``read`` reads where it has one
(``reader``: ``preference``, a model's scores of both responses of each row,
``{"id", "chosen", "rejected"}``, ``preference.read_scores``). A scorer is a function
``score_<thing>(predictions, rows, *, allow_missing=False, ...)`` of ``{id: text}`` and the
config's rows, returning a JSON-serialisable dict of metrics; one that needs rows of other
configs of the same corpus
(the ``dst`` references, the ``schema``) takes ``load_rows`` too, a function
``load_rows(config, split=None)`` that ``score`` gives it, and one that serves several
configs takes ``config``, the name of the config scored. Its other keyword-only
arguments with a bool, int, float or str default are the command's scorer flags.

Modules: ``rows``, what every scorer shares (its error, reading predictions, pairing them
with rows by id, writing metrics); ``dst``, the DSTC8 metrics (``score_dst``, and the
official evaluator's command line, ``python -m unified_dialogue.scoring.dst``);
``dst_chat``, ``dst-chat`` texts read back and scored with them; ``nlu``, ``nlu-chat``
texts read back and scored as intents and spans; ``d3st``, D3ST texts read
back with each row's legend and scored with them; ``tool_calls``, the tool calls of
``agent-call-chat`` rows; ``generation``, generated text (``nlg``, ``response`` and their
chat configs) with GEM-metrics' lexical metrics (``gem``), SGD's slot error rate (``ser``)
and the overlap with FaithDial's knowledge (``knowledge``); ``critic``, a faithfulness
critic's labels (``critic``, ``critic-chat``); ``preference``, a model's scores of the
``preference`` rows' responses.
"""

import inspect
import os
import re

from .critic import score_critic
from .d3st import score_d3st
from .dst_chat import score_dst_chat
from .generation import score_generation
from .nlu import score_nlu
from .preference import score_preference
from .rows import ScoringError, read_predictions
from .tool_calls import score_tool_calls

# Config name -> scorer.
SCORERS = {
    "dst-chat": score_dst_chat,
    "d3st": score_d3st,
    "agent-call-chat": score_tool_calls,
    "nlu-chat": score_nlu,
    "nlg": score_generation,
    "nlg-chat": score_generation,
    "response": score_generation,
    "response-chat": score_generation,
    "critic": score_critic,
    "critic-chat": score_critic,
    "preference": score_preference,
}


def scorer(config):
    if config not in SCORERS:
        raise ScoringError(f"no scorer for config {config!r}: there is one for {', '.join(sorted(SCORERS))}")
    return SCORERS[config]


def reader(config):
    """How a config's predictions file is read: its scorer's ``read`` where it has one,
    else ``rows.read_predictions`` (``{"id", "text"}`` lines)."""
    return getattr(scorer(config), "read", read_predictions)


def score(corpus, config, split, predictions, *, variant=None, data_dir=None, options=None, load_options=None,
          allow_missing=False, **scorer_options):
    """The metrics of predictions for one split of a corpus's config.

    Args:
        corpus: the corpus's name (``sgd``).
        config: the config predicted (``dst-chat``); ``SCORERS`` says which have a scorer.
        split: the split predicted.
        predictions: ``{row id: text}`` (``preference``: ``{row id: (chosen, rejected)}``),
            or the path of a predictions file (JSON Lines, read by ``reader(config)``).
        variant: the corpus's variant (SGD-X's ``v1`` … ``v5``), where one was predicted.
        data_dir: a local copy of the corpus to load the rows from.
        options: the config's own options, as ``load`` takes them (``{"instruction": ...}``).
        load_options: other arguments of every ``load`` (``cache_dir``, ``checksums``,
            ``verify=False``, ...).
        allow_missing: count a row without a prediction as a miss instead of failing.
        **scorer_options: the scorer's own options (``use_fuzzy_match=False``).

    Returns:
        The scorer's dict of metrics.

    Raises:
        ScoringError naming what cannot be scored (an unknown or missing id, a bad line of
        the file); the loader's errors for rows that cannot be loaded.

    Example:
        >>> score("sgd", "dst-chat", "test", "predictions.jsonl", variant="v3")["#ALL_SERVICES"]  # doctest: +SKIP
        {'active_intent_accuracy': 0.93, ..., 'joint_goal_accuracy': 0.71, ...}
    """
    from ..api import load

    function = scorer(config)
    unknown = sorted(set(scorer_options) - set(inspect.signature(function).parameters) - {"load_rows", "config"})
    if unknown:  # before any row is loaded
        raise ScoringError(f"the {config} scorer takes no argument {', '.join(map(repr, unknown))} (its flags: "
                           f"{', '.join(flags(config)) or 'none'}; load's arguments such as checksums or cache_dir "
                           f"go in load_options={{...}})")
    if isinstance(predictions, (str, os.PathLike)):
        predictions = reader(config)(predictions)
    common = dict(load_options or {}, **({"variant": variant} if variant else {}),
                  **({"data_dir": data_dir} if data_dir else {}))

    scored = split

    def load_rows(name, split=split, **more):
        try:
            return load(corpus, name, split=split, **common, **more)
        except ValueError as error:  # datasets' "Unknown split": a partial copy without it
            if "Unknown split" not in str(error) or isinstance(error, ScoringError):
                raise
            where = f"the copy {data_dir}" if data_dir else "the source"
            raise ScoringError(f"scoring {config} of {corpus} {scored} reads the {name} rows of split {split!r}, "
                               f"which {where} has no file of ({error}): add that split's files") from None

    rows = load_rows(config, **(options or {}))
    accepted = inspect.signature(function).parameters
    if "load_rows" in accepted:
        scorer_options["load_rows"] = load_rows
    if "config" in accepted:
        scorer_options["config"] = config
    return function(predictions, rows, allow_missing=allow_missing, **scorer_options)


def flags(config):
    """The scorer flags of a config's scorer: ``{name: default}`` of its keyword-only
    arguments with a bool, int, float or str default (other than ``allow_missing`` and
    ``per_row``, which the command sets)."""
    parameters = inspect.signature(scorer(config)).parameters.values()
    return {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY
            and p.name not in ("allow_missing", "per_row") and isinstance(p.default, (bool, int, float, str))}


def flag_help(config):
    """The scorer flags' descriptions, ``{name: text}``, read from the ``Args:`` entries of
    the scorer's docstring (one description per argument, written once)."""
    doc = inspect.getdoc(scorer(config)) or ""
    args = doc.partition("Args:")[2]
    args = re.split(r"\n(?:Returns|Raises|Example|Examples):", args)[0]
    entries, current = {}, None
    for line in args.splitlines():
        entry = re.match(r"^    ([a-z_][a-z0-9_, ]*):\s*(.*)$", line)
        if entry:
            current = [name.strip() for name in entry.group(1).split(",")]
            for name in current:
                entries[name] = entry.group(2)
        elif current and line.startswith("        "):
            for name in current:
                entries[name] += " " + line.strip()
    return {name: entries.get(name, "").replace("``", "").rstrip(".") for name in flags(config)}


__all__ = ["SCORERS", "ScoringError", "flag_help", "flags", "read_predictions", "reader", "score", "scorer"]
