"""Results that are almost surely a mistake: the ``warning:`` lines the scoring command
writes to stderr (it still exits 0, with the metrics).

Each warns of a majority (more than half), whatever the run's flags: a run with
``--allow-missing`` that scored 30 rows of 24,863 says so. They are read from the counts
every scorer reports (docs/scoring.md): ``missing`` (or
``misses``), rows without a prediction; ``malformed``, texts that could not be read; and
``unknown_<what>`` (``unknown_services``, ``unknown_slots``, ``unknown_intents``,
``unknown_tools``), readable texts naming something the split's schema does not have. A
count is an int, or a ``{"count": n, ...}`` record; a scorer without one of them is
simply not warned about it.
"""

from ..core.sources import argument

UNKNOWN = "unknown_"


def count(metrics, key):
    """The count ``key`` of a result (an int or a ``{"count": n}`` record), or None."""
    value = metrics.get(key)
    if isinstance(value, dict):
        value = value.get("count")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def warnings(metrics, predicted, *, what="the predictions"):
    """The ``warning: ...`` lines for a result, each with its count and likely cause: more
    than half the rows without a prediction, more than half the predicted texts unreadable,
    more than half naming what the split's schema lacks; whatever the flags the run had.

    Args:
        metrics: a scorer's result.
        predicted: how many predictions were read (every one names a row: the others are
            an error before any score).
        what: the scored set, for the messages (``sgd dst-chat validation``).

    Returns:
        A list of lines, empty for a run that looks sound (a gold run).

    Example:
        >>> warnings({"malformed": 3, "missing": 0}, 3, what="sgd dst-chat validation")
        ['warning: none of the 3 predicted texts could be read whole (malformed: 3; what could be read is ...']
    """
    missing = count(metrics, "missing")
    missing = count(metrics, "misses") if missing is None else missing
    rows = predicted + (missing or 0)
    lines = []
    if rows and not predicted:
        lines.append(f"warning: none of the {rows} rows of {what} has a prediction (missing: {rows}): every row "
                     f"is scored as a miss; is the predictions file for this config and split?")
        return lines
    if missing and missing > rows / 2:
        lines.append(f"warning: {missing} of the {rows} rows of {what} have no prediction (missing: {missing}): the "
                     f"figures are not the split's; a sample or an lm-eval --limit run? {argument('only_predicted')} "
                     f"scores the predicted rows alone, and says so")
    malformed = count(metrics, "malformed")
    if predicted and malformed and malformed > predicted / 2:
        share = "none" if malformed >= predicted else f"only {predicted - malformed}"
        lines.append(f"warning: {share} of the {predicted} predicted texts could be read whole (malformed: "
                     f"{malformed}; what could be read is scored): texts of another config or variant, or wrapped "
                     f"in other text?")
    for key in sorted(k for k in metrics if k.startswith(UNKNOWN) and not k.endswith("_ids")):
        unknown = count(metrics, key)
        if unknown is not None and predicted and unknown > predicted / 2:
            named = key[len(UNKNOWN):]
            lines.append(f"warning: {key} is {unknown} for {predicted} predictions: most name {named} that "
                         f"{what} does not have; predictions for another split or variant (whose schema has "
                         f"other {named})?")
    return lines
