"""The lm-eval task class of every task file in ``TASKS``: its rows loaded with
``unified_dialogue.load``, its prompts from ``prompts``, and each metric computed by the
project's scorer over all the task's ``{id: text}`` outputs at once (lm-eval's
aggregation), so that lm-eval reports what ``python -m unified_dialogue.scoring`` reports
for the same texts. Needs ``lm-eval`` (``pip install unified-dialogue[harness]``).

A task file gives ``metadata``: ``corpus``, ``config``, ``split`` and, for SGD-X,
``variant``. lm-eval merges the run's own metadata (``--metadata '{...}'``,
``TaskManager(metadata=...)``) and the model's arguments over it; of these the task takes
``LOAD_ARGUMENTS``, the corpus's options and the config's own, but those named in
``NOT_FROM_METADATA``. A value given as a dict is per corpus:
``{"data_dir": {"sgd": ..., "faithdial": ...}}`` for a run of both.
"""

import inspect

from lm_eval.api.task import ConfigurableTask

from .. import registry
from ..api import load
from ..core.sources import called_from
from ..scoring import scorer
from . import prompts

# Arguments of ``load`` a run's metadata may set, besides the corpus's and config's options.
LOAD_ARGUMENTS = ("data_dir", "cache_dir", "verification_mode")
# Options a run's metadata does not set: lm-eval merges the model's arguments into it, and
# servers' take a base_url, vLLM's and servers' a seed (D3ST's option of that name keeps its default).
NOT_FROM_METADATA = ("base_url", "seed")
# Where each metric is in the scorer's result.
PATHS = {
    **{name: ("#ALL_SERVICES", name) for name in (
        "joint_goal_accuracy", "average_goal_accuracy", "active_intent_accuracy", "requested_slots_f1")},
    **{name: (name,) for name in ("call_accuracy", "joint_accuracy", "argument_f1", "malformed")},
    **{name: ("all", name) for name in ("bleu", "chrf", "ser", "knowledge_f1")},
    "rougeL": ("all", "rougeL", "fmeasure"),
    "accuracy": ("accuracy",),
    "macro_f1": ("macro", "f1"),
    "hallucination_f1": ("labels", "Hallucination", "f1"),
}
LOWER_IS_BETTER = {"malformed", "ser"}


def given(metadata, name, corpus):
    """The value of ``name`` in the run's metadata for ``corpus`` (None where not given)."""
    value = metadata.get(name)
    return value.get(corpus) if isinstance(value, dict) else value


def load_arguments(metadata):
    """``(corpus, config, split, common, own)``: what loads a task's rows, the arguments
    every config of the corpus takes (``common``) apart from the config's own options."""
    corpus, config = metadata["corpus"], metadata["config"]
    builder = registry.builder_class(registry.get(corpus))
    own_names = [o.name for o in builder.config_options(config) if o.name not in NOT_FROM_METADATA]
    common_names = [name for name in LOAD_ARGUMENTS + tuple(builder.corpus_options()) if name not in NOT_FROM_METADATA]
    common, own = ({name: given(metadata, name, corpus) for name in names} for names in (common_names, own_names))
    return (corpus, config, metadata["split"], {k: v for k, v in common.items() if v is not None},
            {k: v for k, v in own.items() if v is not None})


def rows(**metadata):
    """The task's rows, ``{split: Dataset}`` (lm-eval's ``custom_dataset``); an error's hint
    names the ``--metadata`` that fixes it."""
    corpus, config, split, common, own = load_arguments(metadata)
    with called_from("lm-eval"):
        return {split: load(corpus, config, split=split, **common, **own)}


def dig(metrics, path):
    for key in path:
        metrics = metrics[key]
    return float(metrics)


class DialogueTask(ConfigurableTask):
    """A ``generate_until`` task on one config of a corpus."""

    def __init__(self, config=None):
        config = {key: value for key, value in config.items() if key != "class"}
        config["test_split"] = config["metadata"]["split"]
        config["custom_dataset"] = rows
        config["process_results"] = self.outputs
        config["metric_list"] = [
            {"metric": entry["metric"], "higher_is_better": entry["metric"] not in LOWER_IS_BETTER,
             "aggregation": self.aggregator(entry["metric"])}
            for entry in config["metric_list"]]
        self._scored = None
        super().__init__(config=config)

    # ------------------------------------------------------------ prompts

    def fewshot_context(self, doc, num_fewshot, system_instruction=None, apply_chat_template=False,
                        fewshot_as_multiturn=False, chat_template=None, gen_prefix=None):
        """The row's own messages, through the model's chat template where one is applied,
        else as plain text. Few-shot is not offered: every prompt is a whole conversation
        with its instruction and grounding."""
        if num_fewshot:
            raise ValueError(f"{self.config.task}: few-shot examples are not offered (every prompt is a whole "
                             f"conversation with its instruction): run with --num_fewshot 0")
        messages = prompts.messages(doc, system_instruction)
        if apply_chat_template and chat_template is not None:
            return chat_template(messages, add_generation_prompt=True)
        return prompts.plain_text(messages)

    # ------------------------------------------------------------ metrics

    def outputs(self, doc, results):
        """Each metric's item for one row: ``(id, text)``, scored with all the others."""
        return {metric: (doc["id"], results[0]) for metric in self._metric_fn_list}

    def aggregator(self, metric):
        def corpus_metric(items):
            return dig(self.scores(items), PATHS[metric])

        corpus_metric.__name__ = f"scoring_{metric}"
        return corpus_metric

    def scores(self, items):
        """The scorer's metrics of the rows answered by ``items`` (``(id, text)`` pairs),
        computed once for all the task's metrics."""
        items = tuple((identifier, text) for identifier, text in items)
        if self._scored is None or self._scored[0] != items:
            self._scored = (items, self.score(dict(items)))
        return self._scored[1]

    def score(self, predictions):
        """``scoring``'s metrics of ``predictions`` (``{id: text}``) on the rows they answer,
        the other configs it needs loaded as the task's rows were (as ``scoring.score``
        loads them for a whole split)."""
        corpus, config, split, common, _ = load_arguments(self.config.metadata)
        docs = self.eval_docs
        answered = [index for index, identifier in enumerate(docs["id"]) if identifier in predictions]
        answered_rows = docs if len(answered) == len(docs) else docs.select(answered)

        def load_rows(name, split=split):
            return load(corpus, name, split=split, **common)

        function = scorer(config)
        accepted = inspect.signature(function).parameters
        extra = {name: value for name, value in (("load_rows", load_rows), ("config", config)) if name in accepted}
        with called_from("lm-eval"):
            return function(predictions, answered_rows, **extra)
