"""Scoring preference models on ``preference`` rows: a model's score of both responses of
each row, and how often it scores the chosen response above the rejected one, as TRL
counts its reward accuracy (``RewardTrainer``'s ``accuracy`` and ``margin``,
``DPOTrainer``'s ``rewards/accuracies`` and ``rewards/margins``):

- ``accuracy``: the share of rows whose chosen score is strictly greater than the rejected
  one (a tie is wrong, as ``chosen > rejected`` is false);
- ``margin``: the mean of chosen − rejected over the rows scored.

A score is any number that orders the two responses: a reward model's output, a
sequence's log-probability under a policy, or DPO's implicit reward (β times the
log-probability ratio to the reference model, what ``DPOTrainer`` logs). A scores file is
JSON Lines, one ``{"id": <row id>, "chosen": <number>, "rejected": <number>}`` per line
(``read_scores``); the scoring command reads a ``preference`` predictions file so.
``row_scores`` scores one row.
"""

import math

from .rows import ScoringError, fail, get, json_lines, pair, row_record

ACCURACY, MARGIN = "accuracy", "margin"
SIDES = ("chosen", "rejected")
# The values of a row without scores (allow_missing): wrong, with no margin.
MISSED = {ACCURACY: 0.0, MARGIN: None}


def scores_of(record, where):
    """``(chosen, rejected)`` of a scores record: two numbers (int or float, not a bool;
    not NaN). Anything else is a ScoringError naming ``where`` and the key."""
    if not isinstance(record, dict):
        fail(where, f"a JSON {type(record).__name__}, not an object {{\"id\", \"chosen\", \"rejected\"}}")
    values = []
    for side in SIDES:
        if side not in record:
            fail(where, f"no '{side}' (a scores record is {{\"id\", \"chosen\", \"rejected\"}}: the model's score of "
                        f"each response)")
        value = record[side]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(where, f"'{side}' is {value!r}, not a number")
        if math.isnan(value):
            fail(where, f"'{side}' is NaN, not a score")
        values.append(float(value))
    return tuple(values)


def read_scores(path):
    """The scores of a JSON Lines file, ``{id: (chosen, rejected)}`` in file order.

    Args:
        path: a file with one ``{"id": str, "chosen": number, "rejected": number}`` object
            per line (blank lines are skipped; other keys are ignored).

    Returns:
        A dict from row id to its two scores.

    Raises:
        ScoringError naming the file and line of a line that is not such an object, or of an
        id given twice.

    Example:
        >>> read_scores("scores.jsonl")  # doctest: +SKIP
        {'faithdial/test/0/1': (-12.5, -20.25), ...}
    """
    scores = {}
    for where, record in json_lines(path):
        pair_of_scores = scores_of(record, where)
        identifier = get(record, "id", str, where)
        if identifier in scores:
            fail(where, f"id {identifier!r} is given twice")
        scores[identifier] = pair_of_scores
    return scores


def row_scores(chosen, rejected):
    """One row's ``accuracy`` (1.0 where ``chosen > rejected``, else 0.0) and ``margin``
    (``chosen - rejected``).

    Example:
        >>> row_scores(-3.0, -5.5), row_scores(1.0, 1.0)
        ({'accuracy': 1.0, 'margin': 2.5}, {'accuracy': 0.0, 'margin': 0.0})
    """
    return {ACCURACY: float(chosen > rejected), MARGIN: chosen - rejected}


def score_preference(predictions, rows, *, allow_missing=False, per_row=False):
    """Preference accuracy and mean margin of a model's scores of ``preference`` rows.

    Args:
        predictions: ``{row id: (chosen, rejected)}`` (``read_scores``), or ``{row id:
            {"chosen": ..., "rejected": ...}}``.
        rows: the ``preference`` rows scored (their ``id``s).
        allow_missing: count a row without scores as wrong (in ``missing``, and not in the
            margin) instead of failing.
        per_row: add ``per_row``, each row's ``row_scores`` with its ``id`` and ``missing``
            (``rows.row_record``; ``MISSED`` for a row without scores), in the rows' order.

    Returns:
        ``accuracy``, ``margin`` (None where no row is scored), ``rows`` (the rows
        scored), ``missing`` and ``missing_ids``; ``per_row`` where asked.

    Raises:
        ScoringError naming a predicted id no row has, scores that are not two numbers, or
        a row without scores (unless ``allow_missing``).

    Example:
        >>> rows = load("faithdial", "preference", split="test")  # doctest: +SKIP
        >>> score_preference({r["id"]: (logp(r, "chosen"), logp(r, "rejected")) for r in rows}, rows)  # doctest: +SKIP
        {'accuracy': 0.71, 'margin': 3.2, 'rows': 1412, 'missing': 0, 'missing_ids': []}
    """
    if not isinstance(predictions, dict):
        raise ScoringError(f"predictions: a {type(predictions).__name__}, not a dict from row id to scores")
    predictions = {identifier: value if isinstance(value, tuple) else scores_of(value, f"prediction {identifier!r}")
                   for identifier, value in predictions.items()}
    if hasattr(rows, "select_columns"):
        rows = rows.select_columns(["id"])
    pairs = pair(predictions, rows, allow_missing=allow_missing, kind=tuple)
    each = [(row["id"], row_scores(*scores) if scores is not None else MISSED) for row, scores in pairs]
    margins = [values[MARGIN] for _, values in each if values[MARGIN] is not None]
    metrics = {
        ACCURACY: sum(values[ACCURACY] for _, values in each) / len(each) if each else None,
        MARGIN: sum(margins) / len(margins) if margins else None,
        "rows": len(margins),
        "missing": len(pairs.missing),
        "missing_ids": pairs.missing,
    }
    if per_row:
        absent, problems_of = set(pairs.absent), pairs.problems
        metrics["per_row"] = [row_record(identifier, values, problems_of.get(identifier, []), identifier in absent)
                              for identifier, values in each]
    return metrics

