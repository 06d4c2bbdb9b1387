"""Scoring a model's outputs on any config: ``CONFIGS`` (``configs``) declares each
scored config, and ``score`` (or ``python -m unified_dialogue.scoring``) loads the rows a
predictions file answers and scores it.

A predictions file is JSON Lines, one ``{"id": <row id>, "text": <model output>}`` per line
(``rows.read_predictions``), or what the config's declaration reads (``Scored.read``:
``preference``'s, a model's scores of both responses of each row, ``{"id", "chosen",
"rejected"}``, ``preference.read_scores``). A scorer is a function ``score_<thing>(predictions, rows,
*, allow_missing=False, ...)`` of ``{id: text}`` and the config's rows, returning a
JSON-serialisable dict of metrics; one that needs rows of other configs of the same corpus
(the ``dst`` references, the ``schema``) takes ``load_rows`` too, a function
``load_rows(config, split=None)`` that ``score`` gives it, and one that serves several
configs takes ``config``, the name of the config scored. Its settings, declared in its
config's record, are the command's scorer flags.

Modules: ``configs``, the declaration of each scored config; ``per_row``, what each
config's per-row function needs of the rows, loaded once; ``rows``, what every scorer
shares (its error, reading predictions, pairing them with rows by id, writing metrics); ``dst``, the DSTC8 metrics (``score_dst``, and the
official evaluator's command line, ``python -m unified_dialogue.scoring.dst``);
``dst_chat``, ``dst-chat`` texts read back and scored with them; ``nlu``, ``nlu-chat``
texts read back and scored as intents and spans; ``d3st``, D3ST texts read
back with each row's legend and scored with them; ``tool_calls``, the tool calls of
``agent-call-chat`` rows; ``generation``, generated text (``nlg``, ``response`` and their
chat configs) with GEM-metrics' lexical metrics (``gem``), SGD's slot error rate (``ser``)
and the overlap with FaithDial's knowledge (``knowledge``); ``user``, ``user-chat`` texts
(a model playing the user) with the same lexical metrics, the share of the informed values
said (SER's rule) and the end of the conversation where the user's is; ``critic``, a
faithfulness critic's labels (``critic``, ``critic-chat``); ``preference``, a model's scores
of the ``preference`` rows' responses; ``sgdx``, SGD-X's
schema sensitivity across the variants' predictions; ``suspicious``, the warnings of a result that
is almost surely a mistake.
"""

import inspect
import os

from ..core.errors import ConfigError, MissingSplitError
from .configs import CONFIGS, scored
from .rows import ScoringError, read_predictions

# Config name -> scorer (``CONFIGS`` declares each).
SCORERS = {name: declaration.scorer for name, declaration in CONFIGS.items()}


def scorer(config):
    """The scorer of ``config``; a ScoringError naming the configs with one for another."""
    return scored(config).scorer


def score(corpus, config, split, predictions, *, variant=None, data_dir=None, options=None, load_options=None,
          allow_missing=False, only_predicted=False, per_row=False, **arguments):
    """The metrics of predictions for one split of a corpus's config.

    Args:
        corpus: the corpus's name (``sgd``).
        config: the config predicted (``dst-chat``); ``CONFIGS`` says which have a scorer.
        split: the split predicted.
        predictions: ``{row id: text}`` (``preference``: ``{row id: (chosen, rejected)}``),
            or the path of a predictions file (JSON Lines, read by the declaration's ``read``).
        variant: the corpus's variant (SGD-X's ``v1`` … ``v5``), where one was predicted.
        data_dir: a local copy of the corpus to load the rows from.
        options: the config's own options, as ``load`` takes them (``{"instruction": ...}``).
        load_options: other arguments of every ``load`` (``cache_dir``, ``checksums``,
            ``verify=False``, ...).
        allow_missing: count a row without a prediction as a miss instead of failing.
        only_predicted: score the rows that have a prediction, and only them (an lm-eval
            ``--limit`` run, a sample): the result says how many of how many rows
            (``rows_scored``, ``rows_total``).
        per_row: add each row's own scores (``"per_row"``).
        **arguments: the scorer's settings (``use_fuzzy_match=False``); a load argument or
            a config option given here is taken as well (``api.sort_arguments`` sorts them).

    Returns:
        The scorer's dict of metrics.

    Raises:
        ConfigError, before any row is loaded, naming a split the corpus lacks (or none given) or an argument
        nobody takes (with its close match); ScoringError naming what cannot be scored (an
        unknown or missing id, a bad line of the file); the loader's errors for rows that
        cannot be loaded.

    Example:
        >>> score("sgd", "dst-chat", "test", "predictions.jsonl", variant="v3")["#ALL_SERVICES"]  # doctest: +SKIP
        {'active_intent_accuracy': 0.93, ..., 'joint_goal_accuracy': 0.71, ...}
    """
    from ..api import corpus_of, load, sort_arguments

    declaration = scored(config)
    if split is None:  # load's "every split": a dict of splits, which no scorer reads
        raise ConfigError(f"split=None: a predictions file answers the rows of one split; name it "
                          f"({corpus} has the splits {', '.join(corpus_of(corpus).splits)})")
    given = {**(load_options or {}), **(options or {}), **arguments,
             **({"variant": variant} if variant else {}), **({"data_dir": data_dir} if data_dir else {})}
    sorted_ = sort_arguments(corpus, config, given, split=split, settings=declaration.settings, whole=True)
    if isinstance(predictions, (str, os.PathLike)):
        predictions = declaration.read(predictions)
    predicted = split

    def load_rows(name, split=split, **more):
        try:
            return load(corpus, name, split=split, **sorted_.load, **more)
        except MissingSplitError as error:  # a partial copy: say why that split is read
            if split == predicted:
                raise ScoringError(f"scoring {config} of {corpus} {predicted}: {error}") from None
            raise ScoringError(f"scoring {config} of {corpus} {predicted} reads the {name} rows of split {split!r}, "
                               f"which {error.source} has no file of (it gives the splits {', '.join(error.given)}): "
                               f"add that split's files") from None

    rows = load_rows(config, **sorted_.options)
    return score_rows(config, predictions, rows, load_rows, allow_missing=allow_missing,
                      only_predicted=only_predicted, per_row=per_row, **sorted_.settings)


def predicted_rows(rows, predictions):
    """The rows (a Dataset or dicts) whose id ``predictions`` has, in their order."""
    ids = rows["id"] if hasattr(rows, "column_names") else [row.get("id") for row in rows]
    keep = [position for position, identifier in enumerate(ids) if identifier in predictions]
    if len(keep) == len(ids):
        return rows
    return rows.select(keep) if hasattr(rows, "select") else [rows[position] for position in keep]


def score_rows(config, predictions, rows, load_rows=None, *, allow_missing=False, only_predicted=False,
               per_row=False, **settings):
    """The metrics of ``predictions`` (``{id: text}``) on loaded ``rows`` of ``config``: the
    one call of a config's scorer, for ``score`` and the lm-eval tasks alike (which score
    the rows a run answered: ``only_predicted``).

    Args:
        config: the config scored (``CONFIGS``).
        predictions: ``{row id: text}``.
        rows: the config's rows (a Dataset or dicts).
        load_rows: ``load_rows(config, split=None)``, the rows of another config of the
            same corpus and split, for a scorer that needs them.
        allow_missing, only_predicted, per_row: as for ``score``.
        **settings: the scorer's settings (already checked).

    Returns:
        The scorer's dict of metrics; with ``only_predicted``, ``rows_scored`` and
        ``rows_total`` too.
    """
    function = scored(config).scorer
    accepted = inspect.signature(function).parameters
    context = {name: value for name, value in (("load_rows", load_rows), ("config", config)) if name in accepted}
    total = len(rows)
    if only_predicted:
        rows = predicted_rows(rows, predictions)
    metrics = function(predictions, rows, allow_missing=allow_missing, **({"per_row": True} if per_row else {}),
                       **context, **settings)
    if only_predicted:
        metrics.update(rows_scored=len(rows), rows_total=total)
    return metrics


def flags(config):
    """The scorer flags of a config: ``{name: default}`` of its declared settings
    (``configs.CONFIGS[config].settings``)."""
    return {option.name: option.default for option in scored(config).settings}


def flag_help(config):
    """The scorer flags' descriptions, ``{name: text}``, as the declaration gives them."""
    return {option.name: option.description for option in scored(config).settings}


__all__ = ["CONFIGS", "SCORERS", "ScoringError", "flag_help", "flags", "read_predictions", "score", "score_rows",
           "scorer"]
