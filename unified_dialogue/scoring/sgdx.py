"""SGD-X's own metric, schema sensitivity (Lee et al., 2022, "SGD-X: A Benchmark for Robust
Generalization in Schema-Guided Dialogue Systems", AAAI): how much a tracker's metric on a
frame varies when only the wording of the schemas changes, across SGD-X's five variants.

It is computed as the public implementations of it compute it (``compute_sgd_x_metrics.py``
of ``alexcoca/robust-dst-v2`` and of ``apple-aiml-research/ml-pytod``; docs/scoring.md says
what was checked, and to which digit). The unit is a frame of a user turn, a turn's frame of
one service, with the metric's value the DSTC8 evaluator writes into that frame (the
per-row records' ``per_frame``, ``scoring.dst.score_dst``): a ``dst-chat`` row gives its
turn's frames, a ``d3st`` row its one frame. A frame's coefficient of variation is the
standard deviation of its values under the K variants over their mean, the sample one (K − 1
in its denominator); the schema sensitivity is the mean of the frames' coefficients, a frame
whose mean is 0 (wrong under every variant: 0 / 0) left out. It is given for all frames and,
where the frames scored have both, for the seen and the unseen services' alone (a service of
the train schema or not). Numpy computes it in the references' order of operations, so that
the figures are theirs to the last digit. ``grouped_sensitivity`` computes it over any unit
valued under each variant: ``environment.compare`` gives an agent's over its episodes.
"""

import numpy as np

from .configs import scored

# The configs with per-frame DST metrics (their per-row records give ``per_frame``).
CONFIGS = ("dst-chat", "d3st")
# The variants' values are taken as a sample: the standard deviation's denominator is K - 1.
DDOF = 1
# The groups of frames given besides all of them: the train schema has their service or not.
GROUPS = {"seen": True, "unseen": False}


def frame_values(records, metric):
    """``{(row id, position): (value, seen)}`` of ``metric`` for each frame of per-row
    records (their ``per_frame``), in the records' order; the value None where the metric
    has none on the frame (an average accuracy on a frame whose reference fills no slot)."""
    return {(record["id"], position): (frame.get(metric), frame["seen"])
            for record in records for position, frame in enumerate(record["per_frame"])}


def coefficients_of_variation(values):
    """Each frame's coefficient of variation: ``values``, variants × frames, gives a
    frame's values in its column; NaN where the frame's mean is 0.

    Example:
        >>> coefficients_of_variation([[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0]]).tolist()
        [0.5590169943749473, nan]
    """
    values = np.asarray(values, dtype=float)
    mean = np.mean(values, axis=0)
    deviation = np.sqrt(np.sum((values - mean) ** 2, axis=0) / (values.shape[0] - DDOF))
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0 is the frame left out
        return deviation / mean


def sensitivity(values, unit="frames"):
    """``{"value", unit, f"{unit}_mean_zero"}`` of variants × units ``values`` (a unit: a
    frame here, an episode in ``environment.compare``): the mean of the units' coefficients
    of variation (None where no unit has one), the units it averages and those left out,
    their mean 0."""
    coefficients = coefficients_of_variation(values) if len(values[0]) else np.array([])
    undefined = int(np.isnan(coefficients).sum())
    counted = len(coefficients) - undefined
    return {"value": float(np.nanmean(coefficients)) if counted else None, unit: counted,
            f"{unit}_mean_zero": undefined}


def grouped_sensitivity(by_variant, unit="frames"):
    """The schema sensitivity of units valued under each variant, for all of them and, where
    they have both, for the seen and the unseen services' alone.

    Args:
        by_variant: one ``{unit key: (value, seen)}`` per variant (``frame_values``'s shape);
            a unit counts where every variant has it, and has a value (not None) under each.
        unit: what the counts are named after (``frames``, ``episodes``).

    Returns:
        ``sensitivity`` of all units with ``f"{unit}_without_value"``, the units left out as
        some variant has no value on them; where the units have both seen and unseen
        services, ``seen`` and ``unseen``: ``sensitivity`` of theirs alone.

    Example:
        >>> grouped_sensitivity([{"a": (x, True)} for x in [1.0, 1.0, 0.0, 1.0, 1.0]], "episodes")
        {'value': 0.5590169943749473, 'episodes': 1, 'episodes_mean_zero': 0, 'episodes_without_value': 0}
    """
    common = [key for key in by_variant[0] if all(key in values for values in by_variant[1:])]
    given = [key for key in common if all(values[key][0] is not None for values in by_variant)]
    seen = {key: by_variant[0][key][1] for key in given}

    def of(keys):
        return sensitivity([[values[key][0] for key in keys] for values in by_variant], unit)

    result = {**of(given), f"{unit}_without_value": len(common) - len(given)}
    if len(set(seen.values())) == 2:
        result.update({group: of([key for key in given if seen[key] == flag]) for group, flag in GROUPS.items()})
    return result


def schema_sensitivity(records_by_variant, metric):
    """The schema sensitivity of ``metric`` on the frames of the same rows predicted under
    each variant.

    Args:
        records_by_variant: ``{variant: per-row records}`` (each record's ``per_frame``); a
            frame counts where every variant has a record of its row.
        metric: a per-frame metric (``joint_goal_accuracy``).

    Returns:
        ``sensitivity`` of all frames (``value``, ``frames``, ``frames_mean_zero``) with
        ``frames_without_value``, the frames left out as the metric has no value on them
        under some variant; where the frames have both seen and unseen services, ``seen``
        and ``unseen``: ``sensitivity`` of theirs alone.

    Example:
        >>> records = {v: [{"id": "a", "per_frame": [{"seen": True, "jga": x}]}, {"id": "b", "per_frame": [
        ...     {"seen": False, "jga": 1.0}]}] for v, x in zip("12345", [1.0, 1.0, 0.0, 1.0, 1.0])}
        >>> schema_sensitivity(records, "jga")["seen"]
        {'value': 0.5590169943749473, 'frames': 1, 'frames_mean_zero': 0}
    """
    return grouped_sensitivity([frame_values(records, metric) for records in records_by_variant.values()])


def score_variants(corpus, config, split, predictions_by_variant, **arguments):
    """The metrics of each variant's predictions, their mean over the variants, and the
    schema sensitivity of each headline metric of ``config``.

    Args:
        corpus: the corpus (``sgd``); its variants (``Corpus.variants``) must each be given.
        config: ``dst-chat`` or ``d3st`` (``CONFIGS``).
        split: the split predicted.
        predictions_by_variant: ``{variant: {id: text} or a predictions file's path}``.
        **arguments: what ``scoring.score`` takes besides (``data_dir``, ``load_options``,
            ``allow_missing``, ``only_predicted``, scorer settings).

    Returns:
        ``{"variants": {variant: metrics}, "mean": {metric: mean over the variants},
        "schema_sensitivity": {metric: schema_sensitivity(...)}}``.

    Raises:
        ConfigError for a config without per-frame metrics or variants the corpus lacks or
        misses; what ``scoring.score`` raises.
    """
    from . import score
    from ..api import corpus_of
    from ..core.errors import ConfigError

    if config not in CONFIGS:
        raise ConfigError(f"schema sensitivity is of a per-frame DST metric: --config {' or '.join(CONFIGS)}, "
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
            "schema_sensitivity": {metric.name: schema_sensitivity(records, metric.name) for metric in headline}}
