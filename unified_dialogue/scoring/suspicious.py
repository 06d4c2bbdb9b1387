"""Results that are almost surely a mistake: the ``warning:`` lines the scoring command
writes to stderr (it still exits 0, with the metrics).

They are read from the counts every scorer reports (docs/scoring.md): ``missing`` (or
``misses``), rows without a prediction; ``malformed``, texts that could not be read; and
``unknown_<what>`` (``unknown_services``, ``unknown_slots``, ``unknown_intents``,
``unknown_tools``), readable texts naming something the split's schema does not have. A
count is an int, or a ``{"count": n, ...}`` record; a scorer without one of them is
simply not warned about it.
"""

UNKNOWN = "unknown_"


def count(metrics, key):
    """The count ``key`` of a result (an int or a ``{"count": n}`` record), or None."""
    value = metrics.get(key)
    if isinstance(value, dict):
        value = value.get("count")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def warnings(metrics, predicted, *, what="the predictions"):
    """The ``warning: ...`` lines for a result, each with its count and likely cause.

    Args:
        metrics: a scorer's result.
        predicted: how many predictions were read (every one names a row: the others are
            an error before any score).
        what: the scored set, for the messages (``sgd dst-chat validation``).

    Returns:
        A list of lines, empty for a run that looks sound (a gold run).

    Example:
        >>> warnings({"malformed": 3, "missing": 0}, 3, what="sgd dst-chat validation")
        ['warning: none of the 3 predicted texts could be read whole (malformed: 3): texts of another config or ...']
    """
    missing = count(metrics, "missing")
    missing = count(metrics, "misses") if missing is None else missing
    rows = predicted + (missing or 0)
    lines = []
    if rows and not predicted:
        lines.append(f"warning: none of the {rows} rows of {what} has a prediction (missing: {rows}): every row "
                     f"is scored as a miss; is the predictions file for this config and split?")
        return lines
    malformed = count(metrics, "malformed")
    if predicted and malformed is not None and malformed >= predicted:
        lines.append(f"warning: none of the {predicted} predicted texts could be read whole (malformed: {malformed}; "
                     f"what could be read is scored): texts of another config or variant, or wrapped in other "
                     f"text?")
    for key in sorted(k for k in metrics if k.startswith(UNKNOWN) and not k.endswith("_ids")):
        unknown = count(metrics, key)
        if unknown is not None and predicted and unknown > predicted / 2:
            named = key[len(UNKNOWN):]
            lines.append(f"warning: {key} is {unknown} for {predicted} predictions: most name {named} that "
                         f"{what} does not have; predictions for another split or variant (whose schema has "
                         f"other {named})?")
    return lines
