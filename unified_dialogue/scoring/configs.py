"""One declaration per scored config: ``CONFIGS``, a ``Scored`` record for each config a
predictions file can be scored on. Everything that scores is derived from it: the scoring
command (its scorer flags and their help: ``settings``), ``scoring.score``, the reward
functions (``unified_dialogue.rewards``: ``prepare``, ``row_metrics``, ``row_settings``) and
the lm-eval tasks (``unified_dialogue.harness``: ``metrics``, their direction and place in the
scorer's result).

Adding a scored config is one record here (and, for lm-eval, a task file naming its corpus,
config and split). A record says:

- ``name``: the config (``dst-chat``);
- ``scorer``: ``score_<thing>(predictions, rows, *, allow_missing=False, per_row=False,
  **settings)``, the corpus metrics of ``{id: text}`` on the config's rows (one that needs
  rows of other configs takes ``load_rows``, one that serves several configs ``config``);
- ``references``: the config whose rows hold what scoring reads (``dst`` for ``dst-chat``);
- ``metrics``: the corpus metrics a run reports (lm-eval's), each a ``Metric``: its name,
  its place in the scorer's result, whether higher is better, and the column of the
  ``references`` rows it needs where only some corpora have it;
- ``prepare``: what the scorer's per-row function needs of the rows, loaded once
  (``scoring.per_row``); None for a config whose predictions are not a model's texts
  (``preference``: it has no reward and no lm-eval task);
- ``row_metrics``: the per-row metrics a reward can be, the first the default;
- ``settings``: the scorer's settings (``core.options.Option``: name, type, default,
  description), the command's scorer flags; ``row_settings``: those the per-row function
  takes too (the rewards');
- ``read``: how a predictions file is read: ``{"id", "text"}`` lines
  (``rows.read_predictions``), or ``preference``'s scores of both responses
  (``{"id", "chosen", "rejected"}``, ``preference.read_scores``).

Example:
    >>> CONFIGS["dst-chat"].metric("malformed").higher_is_better
    False
    >>> [option.name for option in CONFIGS["d3st"].settings]
    ['use_fuzzy_match', 'joint_acc_across_turn']
"""

from dataclasses import dataclass
from typing import Callable, Optional

from ..core.errors import did_you_mean
from ..core.options import Option
from ..views.faithfulness import POSITIVE
from . import critic, preference
from . import dst as dst_metrics
from .d3st import score_d3st
from .dst_chat import score_dst_chat
from .gem import TOKENIZERS, tokenizer_of
from .generation import score_generation
from .nlu import FRAME_EXACT_MATCH, INTENT_ACCURACY, SLOT_F1, score_nlu
from .per_row import critic_rows, d3st_rows, dst_chat_rows, generation_rows, nlu_chat_rows, tool_call_rows
from .rows import ScoringError, read_predictions
from .tool_calls import score_tool_calls
from .user import ROW_METRICS as USER_ROW_METRICS
from .user import prepare as user_rows
from .user import score_user


@dataclass(frozen=True)
class Metric:
    """A corpus metric of a scorer's result. ``path``: the keys leading to it
    (``("#ALL_SERVICES", "joint_goal_accuracy")``); ``needs``: a column of the references'
    rows that some row must fill for the scorer to give the metric (FaithDial's
    ``knowledge``, SGD's ``intents``), None where every corpus has it."""

    name: str
    path: tuple
    higher_is_better: bool = True
    needs: Optional[str] = None

    def of(self, result):
        """The metric's value in a scorer's ``result`` (None where the result lacks it)."""
        for key in self.path:
            if not isinstance(result, dict) or key not in result:
                return None
            result = result[key]
        return result


@dataclass(frozen=True)
class Scored:
    """How one config is scored (the module's docstring says what each field holds)."""

    name: str
    scorer: Callable
    references: str
    metrics: tuple
    prepare: Callable
    row_metrics: tuple
    settings: tuple = ()
    row_settings: tuple = ()
    read: Callable = read_predictions

    @property
    def predicts_text(self):
        """Whether a prediction is a model's text, which a reward and an lm-eval task score."""
        return self.read is read_predictions

    def metric(self, name):
        return next(metric for metric in self.metrics if metric.name == name)

    def setting(self, name):
        return next(option for option in self.settings if option.name == name)


def _tokenizer_problem(name):
    """Why ``tokenizer`` cannot be used here (Punkt's data not installed), or None."""
    try:
        tokenizer_of(name)
    except ScoringError as error:
        return str(error)
    return None


# The scorer settings, each declared once.
USE_FUZZY_MATCH = Option("use_fuzzy_match", bool, True,
                         "compare non-categorical values as the DSTC8 evaluator's fuzzy match does (its setting); "
                         "exactly when false")
JOINT_ACC_ACROSS_TURN = Option("joint_acc_across_turn", bool, False,
                               "joint accuracies across the services of a turn (MultiWOZ-style)")
UPSTREAM_COMPAT = Option("upstream_compat", bool, False,
                         "SER's seen and unseen turns tagged as the upstream script tags them")
TOKENIZER = Option("tokenizer", str, "fallback",
                   "GEM-metrics' tokeniser: fallback (its own, which it uses offline) or punkt (NLTK's, which "
                   "needs the Punkt data)", choices=TOKENIZERS, problem=_tokenizer_problem)

MALFORMED = Metric("malformed", ("malformed",), higher_is_better=False)
DST_METRICS = tuple(Metric(name, (dst_metrics.ALL_SERVICES, name)) for name in (
    dst_metrics.JOINT_GOAL_ACCURACY, dst_metrics.AVERAGE_GOAL_ACCURACY, dst_metrics.ACTIVE_INTENT_ACCURACY,
    dst_metrics.REQUESTED_SLOTS_F1))
DST_ROW_METRICS = (dst_metrics.JOINT_GOAL_ACCURACY, dst_metrics.AVERAGE_GOAL_ACCURACY,
                   dst_metrics.ACTIVE_INTENT_ACCURACY, dst_metrics.REQUESTED_SLOTS_F1,
                   dst_metrics.REQUESTED_SLOTS_PRECISION, dst_metrics.REQUESTED_SLOTS_RECALL,
                   dst_metrics.JOINT_CAT_ACCURACY, dst_metrics.JOINT_NONCAT_ACCURACY,
                   dst_metrics.AVERAGE_CAT_ACCURACY, dst_metrics.AVERAGE_NONCAT_ACCURACY)
LEXICAL_METRICS = (Metric("bleu", ("all", "bleu")), Metric("chrf", ("all", "chrf")),
                   Metric("rougeL", ("all", "rougeL", "fmeasure")))
GENERATION_ROW_METRICS = ("sentence_chrf", "slot_accuracy", "knowledge_f1", "knowledge_precision", "knowledge_recall")
GENERATION_SETTINGS = (UPSTREAM_COMPAT, TOKENIZER)


def _generation(name, view):
    """The record of a generated-text config: SER on SGD's ``nlg`` rows, the knowledge
    overlap where the rows have knowledge (FaithDial)."""
    extra = Metric("ser", ("all", "ser"), higher_is_better=False) if view == "nlg" else \
        Metric("knowledge_f1", ("all", "knowledge_f1"), needs="knowledge")
    return Scored(name, score_generation, view, LEXICAL_METRICS + (extra,), generation_rows, GENERATION_ROW_METRICS,
                  GENERATION_SETTINGS)


CRITIC_METRICS = (Metric(critic.ACCURACY, (critic.ACCURACY,)),
                  *(Metric(f"macro_{name}", ("macro", name)) for name in (critic.PRECISION, critic.RECALL, critic.F1)),
                  *(Metric(f"{POSITIVE.lower()}_{name}", ("labels", POSITIVE, name))
                    for name in (critic.PRECISION, critic.RECALL, critic.F1)),
                  MALFORMED)

CONFIGS = {scored.name: scored for scored in (
    Scored("dst-chat", score_dst_chat, "dst", DST_METRICS + (MALFORMED,), dst_chat_rows, DST_ROW_METRICS,
           (USE_FUZZY_MATCH, JOINT_ACC_ACROSS_TURN), ("use_fuzzy_match", "joint_acc_across_turn")),
    Scored("d3st", score_d3st, "d3st", DST_METRICS + (MALFORMED,), d3st_rows, DST_ROW_METRICS,
           (USE_FUZZY_MATCH, JOINT_ACC_ACROSS_TURN), ("use_fuzzy_match",)),
    Scored("agent-call-chat", score_tool_calls, "agent-call-chat",
           (Metric("call_accuracy", ("call_accuracy",)), Metric("joint_accuracy", ("joint_accuracy",)),
            Metric("argument_f1", ("argument_f1",)), MALFORMED),
           tool_call_rows, ("joint_accuracy", "call_accuracy", "argument_f1")),
    Scored("nlu-chat", score_nlu, "nlu",
           (Metric(FRAME_EXACT_MATCH, (FRAME_EXACT_MATCH,)),
            Metric(INTENT_ACCURACY, (INTENT_ACCURACY,), needs="intents"), Metric(SLOT_F1, (SLOT_F1,)), MALFORMED),
           nlu_chat_rows, (FRAME_EXACT_MATCH, INTENT_ACCURACY, SLOT_F1)),
    _generation("nlg", "nlg"),
    _generation("nlg-chat", "nlg"),
    _generation("response", "response"),
    _generation("response-chat", "response"),
    Scored("user-chat", score_user, "user-chat",
           LEXICAL_METRICS + (Metric("informed_values_said", ("all", "informed_values_said")),
                              Metric("stop_accuracy", ("all", "stop_accuracy"))),
           user_rows, USER_ROW_METRICS, (TOKENIZER,)),
    *(Scored(name, critic.score_critic, "critic", CRITIC_METRICS, critic_rows, (critic.ACCURACY,))
      for name in ("critic", "critic-chat")),
    Scored("preference", preference.score_preference, "preference",
           (Metric(preference.ACCURACY, (preference.ACCURACY,)), Metric(preference.MARGIN, (preference.MARGIN,))),
           None, (), read=preference.read_scores),
)}


def scored(config):
    """The declaration of ``config``; a ScoringError naming those there are for another."""
    if config not in CONFIGS:
        raise ScoringError(f"no scorer for config {config!r}{did_you_mean([config], CONFIGS, cutoff=0.9)} "
                           f"(there is one for {', '.join(sorted(CONFIGS))})")
    return CONFIGS[config]


__all__ = ["CONFIGS", "Metric", "Scored", "scored"]
