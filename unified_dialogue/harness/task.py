"""The lm-eval task class of every task file in ``TASKS``: its rows loaded with
``unified_dialogue.load``, its prompts from ``prompts``, and each metric computed by the
project's scorer over all the task's ``{id: text}`` outputs at once (lm-eval's
aggregation), so that lm-eval reports what ``python -m unified_dialogue.scoring`` reports
for the same texts. The metrics, their direction and their place in the scorer's result
come from the config's declaration (``scoring.configs``): a task file lists none. Needs
``lm-eval`` (``pip install unified-dialogue[harness]``).

A task file gives its split (lm-eval's ``test_split``) and ``metadata``: ``corpus``,
``config`` and, for SGD-X, ``variant``. lm-eval merges the run's own metadata (``--metadata '{...}'``,
``TaskManager(metadata=...)``) and the model's arguments over it; of these the task takes
what ``load`` and the config take (``api.sort_arguments``), but ``metadata.MODEL_ARGUMENTS``,
after ``metadata.check`` (before anything loads). A value given as a dict is per corpus:
``{"data_dir": {"sgd": ..., "faithdial": ...}}`` for a run of both. A mistake, there or in
loading the rows, ends lm-eval's command with one line (``metadata.refused``).
"""

from lm_eval.api.task import ConfigurableTask

from ..api import load, sort_arguments, taken
from ..core.errors import UnifiedDialogueError
from ..core.sources import called_from
from ..scoring import score_rows
from ..scoring.configs import scored
from . import prompts
from .metadata import MODEL_ARGUMENTS, check, given, refused


def load_arguments(metadata):
    """``(corpus, config, split, common, own)``: what loads a task's rows, the arguments
    every config of the corpus takes (``common``: ``load``'s and the corpus's options) apart
    from the config's own options, sorted by ``api.sort_arguments`` from the run's metadata."""
    corpus, config = metadata["corpus"], metadata["config"]
    split = given(metadata, "split", corpus)
    names = [name for part in taken(corpus, config) for name in part if name not in MODEL_ARGUMENTS]
    values = {name: given(metadata, name, corpus) for name in names}
    sorted_ = sort_arguments(corpus, config, {k: v for k, v in values.items() if v is not None}, split=split)
    return corpus, config, split, sorted_.load, sorted_.options


def rows(**metadata):
    """The task's rows, ``{split: Dataset}`` (lm-eval's ``custom_dataset``); a loader's
    hint names the ``--metadata`` that fixes it."""
    corpus, config, split, common, own = load_arguments(metadata)
    with called_from("lm-eval"):
        return {split: load(corpus, config, split=split, **common, **own)}


def reported(declaration, corpus, split, common):
    """The metrics of a config a task reports: those its declaration lists, but one whose
    column (``Metric.needs``) no row of the corpus's references fills (SGD's responses
    have no knowledge, CCPE-M's turns no intents)."""
    needed = {metric.needs for metric in declaration.metrics if metric.needs}
    filled = set()
    if needed:
        references = load(corpus, declaration.references, split=split, **common)
        filled = {column for column in needed if column in references.column_names
                  and any(value is not None for value in references[column])}
    return [metric for metric in declaration.metrics if metric.needs is None or metric.needs in filled]


class DialogueTask(ConfigurableTask):
    """A ``generate_until`` task on one config of a corpus."""

    rows = staticmethod(rows)
    metrics = staticmethod(reported)

    def __init__(self, config=None):
        config = {key: value for key, value in config.items() if key != "class"}
        try:
            with called_from("lm-eval"):  # a loader's hint names the --metadata that fixes it
                metadata = config["metadata"]
                # the run's split for this task's corpus, else the task file's own
                split = given(metadata, "split", metadata["corpus"]) or config.get("test_split")
                check(metadata, split)  # before anything loads
                config["metadata"] = {**metadata, "split": split}
                corpus, name, split, common, _ = load_arguments(config["metadata"])
                config["test_split"] = split
                # a task file gives no stops: they depend on how the prompt is written (construct_requests)
                config["generation_kwargs"] = {"until": list(prompts.PLAIN_TEXT_STOPS),
                                               **(config.get("generation_kwargs") or {})}
                config["custom_dataset"] = self.rows
                config["process_results"] = self.outputs
                config["metric_list"] = [
                    {"metric": metric.name, "higher_is_better": metric.higher_is_better,
                     "aggregation": self.aggregator(metric)}
                    for metric in self.metrics(scored(name), corpus, split, common)]
                self._scored = None
                super().__init__(config=config)
        except UnifiedDialogueError as error:  # a mistake in the metadata, or rows that cannot be loaded
            refused(config.get("task"), error)

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

    def construct_requests(self, doc, ctx, **kwargs):
        """lm-eval's request for a row; through a chat template, without the plain-text
        stops (``prompts.PLAIN_TEXT_STOPS``) unless the run gave its own ``until``: the
        template's end of turn ends the answer, and a stop would cut a reasoning model's
        thinking before it."""
        request = super().construct_requests(doc, ctx, **kwargs)
        generation = request.arguments[1]
        if kwargs.get("apply_chat_template") and generation.get("until") == list(prompts.PLAIN_TEXT_STOPS):
            generation["until"] = []
        return request

    # ------------------------------------------------------------ metrics

    def outputs(self, doc, results):
        """Each metric's item for one row: ``(id, text)``, scored with all the others."""
        return {metric: (doc["id"], results[0]) for metric in self._metric_fn_list}

    def aggregator(self, metric):
        def corpus_metric(items):
            value = metric.of(self.scores(items))
            return float("nan") if value is None else float(value)  # a metric these rows do not give

        corpus_metric.__name__ = f"scoring_{metric.name}"
        return corpus_metric

    def scores(self, items):
        """The scorer's metrics of the rows answered by ``items`` (``outputs``' items),
        computed once for all the task's metrics."""
        items = tuple(tuple(item) for item in items)
        if self._scored is None or self._scored[0] != items:
            self._scored = (items, self.score(items))
        return self._scored[1]

    def score(self, items):
        """``scoring``'s metrics of the outputs (``(id, text)`` pairs) on the rows they answer,
        the other configs it needs loaded as the task's rows were: the scoring command's
        ``--only-predicted`` path (``scoring.score_rows``), so that a ``--limit`` run
        rescored from its samples gives the same figures."""
        corpus, config, split, common, _ = load_arguments(self.config.metadata)

        def load_rows(name, split=split):
            return load(corpus, name, split=split, **common)

        with called_from("lm-eval"):
            return score_rows(config, dict(items), self.eval_docs, load_rows, only_predicted=True)
