"""The lm-eval task of a config on every variant of its corpus at once (SGD-X's five schema
wordings), so that SGD-X's own metric, schema sensitivity (``scoring.sgdx``), is in a run's
results: lm-eval's group aggregation only averages one number per task, and schema
sensitivity needs each frame's value under every variant.

Each row is there once per variant (a ``variant`` column added), a turn's variants next to
one another, so that ``--limit N`` takes whole turns. The outputs are scored as the scoring
command's ``--variant-predictions`` scores them (``scoring.sgdx.score_variants``, on the
rows answered): for each headline metric its mean over the variants and its schema
sensitivity, joint goal accuracy's schema sensitivity on the seen and the unseen services
and its value under each variant, and the unreadable answers of all.
"""

from dataclasses import dataclass

from datasets import concatenate_datasets

from ..api import corpus_of, load
from ..core.errors import ConfigError
from ..core.sources import called_from
from ..scoring.configs import Metric
from ..scoring.sgdx import GROUPS, score_variants
from .task import DialogueTask, load_arguments, reported

# The metric given under each variant, and its schema sensitivity on the seen and on the
# unseen services too (as the reference implementations report joint goal accuracy's).
PER_VARIANT = "joint_goal_accuracy"


def variants_of(corpus):
    declared = corpus_of(corpus).variants
    if not declared:
        raise ConfigError(f"a task on every variant needs a corpus with variants; {corpus} has none")
    return declared


def rows(**metadata):
    """Every variant's rows, a turn's variants next to one another (lm-eval's ``custom_dataset``)."""
    corpus, config, split, common, own = load_arguments(metadata)
    if common.pop("variant", None) is not None:
        raise ConfigError("--metadata key 'variant': this task runs every variant; "
                          "leave it out of --metadata, or run the task of one variant (sgd_dst_chat_v1, ...)")
    with called_from("lm-eval"):
        loaded = [load(corpus, config, split=split, variant=variant, **common, **own) for variant in variants_of(corpus)]
    tagged = [dataset.add_column("variant", [variant] * len(dataset)).add_column("position", range(len(dataset)))
              for variant, dataset in zip(variants_of(corpus), loaded)]
    return {split: concatenate_datasets(tagged).sort(["position", "variant"]).remove_columns("position")}


@dataclass(frozen=True)
class Malformed:
    """The unreadable answers under every variant, summed."""

    name: str = "malformed"
    higher_is_better: bool = False

    def of(self, result):
        return sum(metrics.get("malformed") or 0 for metrics in result["variants"].values())


def metrics(declaration, corpus, split, common):
    """What the task reports: for each headline metric its mean over the variants
    (``<metric>``) and its schema sensitivity on all frames (``schema_sensitivity_<metric>``,
    lower is better); joint goal accuracy's schema sensitivity on the seen and on the
    unseen services' frames (``schema_sensitivity_joint_goal_accuracy_seen``, ``_unseen``:
    nan where the rows scored lack either) and under each variant
    (``joint_goal_accuracy_<variant>``); and ``malformed``."""
    headline = [metric for metric in reported(declaration, corpus, split, common) if metric.higher_is_better]
    return ([Metric(metric.name, ("mean", metric.name)) for metric in headline]
            + [Metric(f"schema_sensitivity_{metric.name}", ("schema_sensitivity", metric.name, "value"), False)
               for metric in headline]
            + [Metric(f"schema_sensitivity_{PER_VARIANT}_{group}", ("schema_sensitivity", PER_VARIANT, group, "value"),
                      False) for group in GROUPS]
            + [Metric(f"{PER_VARIANT}_{variant}", ("variants", variant) + declaration.metric(PER_VARIANT).path)
               for variant in variants_of(corpus)]
            + [Malformed()])


class VariantsTask(DialogueTask):
    """A ``generate_until`` task on one config of a corpus under each of its variants."""

    rows = staticmethod(rows)
    metrics = staticmethod(metrics)

    def outputs(self, doc, results):
        return {metric: (doc["variant"], doc["id"], results[0]) for metric in self._metric_fn_list}

    def score(self, items):
        """``scoring.sgdx.score_variants`` of the outputs, on the rows answered."""
        corpus, config, split, common, own = load_arguments(self.config.metadata)
        by_variant = {variant: {} for variant in variants_of(corpus)}
        for variant, identifier, text in items:
            by_variant[variant][identifier] = text
        with called_from("lm-eval"):
            return score_variants(corpus, config, split, by_variant, only_predicted=True, **common, **own)
