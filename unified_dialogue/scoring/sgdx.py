"""SGD-X's own metric, schema sensitivity (Lee et al., 2022, "SGD-X: A Benchmark for Robust
Generalization in Schema-Guided Dialogue Systems", AAAI): how much a tracker's per-turn
metric varies when only the wording of the schemas changes, across SGD-X's five variants.

For a metric (joint goal accuracy first), each turn has one value per variant, the value the
scorer's per-row function gives it (``--per-row``); the turn's coefficient of variation is
their standard deviation over their mean, and the schema sensitivity is the mean of the
turns' coefficients: 0 for a tracker that gives every turn the same value under every
variant. The standard deviation is the sample one (K − 1 in its denominator, K the number of
variants), and a turn whose mean is 0 (wrong under every variant: its coefficient is
undefined) is left out and counted; docs/scoring.md says where these two choices come from.

A turn's value is its row's for ``dst-chat`` (a turn, its frames averaged) and the mean of
its frames' rows for ``d3st`` (a row per frame), weighted as the per-row records say
(``weights``), so that a turn counts once in either.
"""

import math

from .configs import scored

# The configs with a per-turn DST metric, and the turn of one of their row ids
# (``<corpus>/<split>/<dialogue>/<turn>``, D3ST's with ``/<frame>`` after it).
TURN_OF = {"dst-chat": lambda identifier: identifier, "d3st": lambda identifier: identifier.rsplit("/", 1)[0]}
# The population of the variants' values is the five variants themselves, but the paper's
# coefficient takes them as a sample: the sample standard deviation (see the docstring).
DDOF = 1


def turn_values(records, metric, turn_of):
    """``{turn: value}`` of ``metric`` from per-row records (``rows.row_record``): the
    weighted mean of the turn's records that give it a value (None where none does)."""
    sums = {}
    for record in records:
        value, weight = record.get(metric), record.get("weights", {}).get(metric, record.get("frames", 1))
        total = sums.setdefault(turn_of(record["id"]), [0.0, 0])
        if value is not None and weight:
            total[0] += value * weight
            total[1] += weight
    return {turn: total / count if count else None for turn, (total, count) in sums.items()}


def coefficient_of_variation(values):
    """The standard deviation of ``values`` over their mean (``DDOF``); None where the mean
    is 0, as the coefficient is then undefined.

    Example:
        >>> coefficient_of_variation([1.0, 1.0, 0.0, 1.0, 1.0])
        0.5590169943749475
    """
    mean = sum(values) / len(values)
    if mean == 0:
        return None
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - DDOF)
    return math.sqrt(variance) / mean


def schema_sensitivity(records_by_variant, metric, turn_of):
    """The schema sensitivity of ``metric``: ``{"value", "turns", "turns_mean_zero",
    "turns_without_value"}``.

    Args:
        records_by_variant: ``{variant: per-row records}``, the same rows predicted under
            each variant (a turn is counted where every variant has a record of it).
        metric: a per-row metric (``joint_goal_accuracy``).
        turn_of: the turn of a row id (``TURN_OF``).

    Returns:
        ``value``: the mean over the turns of the coefficient of variation of the turn's
        values (None where no turn has one); ``turns``: the turns averaged; ``turns_mean_zero``:
        turns left out, their mean 0 under every variant; ``turns_without_value``: turns left
        out, the metric without a value under some variant (an average accuracy on a turn
        whose reference fills no slot).
    """
    by_variant = [turn_values(records, metric, turn_of) for records in records_by_variant.values()]
    common = set.intersection(*(set(values) for values in by_variant))
    coefficients, zero, without = [], 0, 0
    for turn in sorted(common):
        values = [values[turn] for values in by_variant]
        if any(value is None for value in values):
            without += 1
            continue
        coefficient = coefficient_of_variation(values)
        if coefficient is None:
            zero += 1
        else:
            coefficients.append(coefficient)
    return {"value": sum(coefficients) / len(coefficients) if coefficients else None, "turns": len(coefficients),
            "turns_mean_zero": zero, "turns_without_value": without}


def score_variants(corpus, config, split, predictions_by_variant, **arguments):
    """The metrics of each variant's predictions, their mean over the variants, and the
    schema sensitivity of each headline metric of ``config``.

    Args:
        corpus: the corpus (``sgd``); its variants (``Corpus.variants``) must each be given.
        config: ``dst-chat`` or ``d3st`` (``TURN_OF``).
        split: the split predicted.
        predictions_by_variant: ``{variant: {id: text} or a predictions file's path}``.
        **arguments: what ``scoring.score`` takes besides (``data_dir``, ``load_options``,
            ``allow_missing``, ``only_predicted``, scorer settings).

    Returns:
        ``{"variants": {variant: metrics}, "mean": {metric: mean over the variants},
        "schema_sensitivity": {metric: schema_sensitivity(...)}}``.

    Raises:
        ConfigError for a config without per-turn metrics or variants the corpus lacks or
        misses; what ``scoring.score`` raises.
    """
    from . import score
    from ..api import corpus_of
    from ..core.errors import ConfigError

    if config not in TURN_OF:
        raise ConfigError(f"schema sensitivity is of a per-turn DST metric: --config {' or '.join(TURN_OF)}, "
                          f"not {config}")
    declared = corpus_of(corpus).variants
    unknown = sorted(set(predictions_by_variant) - set(declared))
    absent = [variant for variant in declared if variant not in predictions_by_variant]
    if unknown or absent or not declared:
        raise ConfigError(f"schema sensitivity is across every variant of {corpus} "
                          f"({', '.join(declared) or 'it has none'}): "
                          + "; ".join(filter(None, (f"no variant {', '.join(unknown)}" if unknown else "",
                                                    f"no predictions of {', '.join(absent)}" if absent else ""))))
    variants, records = {}, {}
    for variant in declared:
        metrics = score(corpus, config, split, predictions_by_variant[variant], variant=variant, per_row=True,
                        **arguments)
        records[variant] = metrics.pop("per_row")
        variants[variant] = metrics
    # the figures a tracker is compared on (not the counts), where every variant gives them
    headline = [metric for metric in scored(config).metrics if metric.higher_is_better
                and all(metric.of(metrics) is not None for metrics in variants.values())]
    means = {metric.name: sum(metric.of(metrics) for metrics in variants.values()) / len(variants)
             for metric in headline}
    return {"variants": variants, "mean": means,
            "schema_sensitivity": {metric.name: schema_sensitivity(records, metric.name, TURN_OF[config])
                                   for metric in headline}}
