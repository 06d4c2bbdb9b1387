"""Dialogue state tracking scores for SGD, computed as the DSTC8 evaluator computes them.

The DSTC8 evaluator (``schema_guided_dst/evaluate.py`` and ``metrics.py`` in the
google-research repository) needs TensorFlow and SGD-format files. This module gives the same
numbers without either, through one implementation with two entry points:

- ``score_dst(predictions, references, schemas, train_schemas)``: rows shaped like the ``dst``
  view's, the split's ``dst`` rows and the ``schema`` config's rows;
- ``python -m unified_dialogue.scoring.dst`` (``__main__``): the evaluator's command line, on
  SGD-format files (read by ``files.score_dst_files``), writing the same metrics JSON.

Non-categorical values are compared as the evaluator's fuzzy match compares them
(``fuzzy.token_sort_ratio``).

Every frame of every USER turn is scored against the predicted frame of its service, and each
score is averaged over the frames of each group: ``#ALL_SERVICES``, the service, its domain
(the service name before ``_``), and ``#SEEN_SERVICES`` or ``#UNSEEN_SERVICES`` (whether the
train schema has the service). docs/scoring.md says what each metric is.
"""

import collections
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..rows import ScoringError, fail, get, strings
from .fuzzy import token_sort_ratio

ALL_SERVICES = "#ALL_SERVICES"
SEEN_SERVICES = "#SEEN_SERVICES"
UNSEEN_SERVICES = "#UNSEEN_SERVICES"

ACTIVE_INTENT_ACCURACY = "active_intent_accuracy"
SLOT_TAGGING_F1 = "slot_tagging_f1"
SLOT_TAGGING_PRECISION = "slot_tagging_precision"
SLOT_TAGGING_RECALL = "slot_tagging_recall"
REQUESTED_SLOTS_F1 = "requested_slots_f1"
REQUESTED_SLOTS_PRECISION = "requested_slots_precision"
REQUESTED_SLOTS_RECALL = "requested_slots_recall"
AVERAGE_GOAL_ACCURACY = "average_goal_accuracy"
AVERAGE_CAT_ACCURACY = "average_cat_accuracy"
AVERAGE_NONCAT_ACCURACY = "average_noncat_accuracy"
JOINT_GOAL_ACCURACY = "joint_goal_accuracy"
JOINT_CAT_ACCURACY = "joint_cat_accuracy"
JOINT_NONCAT_ACCURACY = "joint_noncat_accuracy"
JOINT_METRICS = (JOINT_GOAL_ACCURACY, JOINT_CAT_ACCURACY, JOINT_NONCAT_ACCURACY)


# ---------------------------------------------------------------- reading frames

@dataclass(frozen=True)
class Frame:
    """A frame of a user turn, as scoring needs it."""

    service: str
    active_intent: str
    requested_slots: tuple
    slot_values: dict  # slot name -> its values, in the source's order
    spans: Optional[tuple]  # ((slot, start, exclusive_end), ...); None where the frame has no "slots"


@dataclass(frozen=True)
class Turn:
    """A user turn to score: the reference frames and the predicted ones."""

    dialogue_id: str
    turn_index: int
    utterance: str
    reference: tuple
    prediction: tuple

    @property
    def where(self):
        return f"dialogue {self.dialogue_id}, turn {self.turn_index}"


def _slot_values(state, where):
    """``slot_values`` as a dict: SGD files have a dict, ``dst`` rows a list of
    ``{slot, values}`` records in the same order."""
    if isinstance(state.get("slot_values"), list):
        pairs = [(get(record, "slot", str, where), get(record, "values", list, where))
                 for record in state["slot_values"]]
    else:
        pairs = list(get(state, "slot_values", dict, where).items())
    for slot, values in pairs:
        if not isinstance(values, list):
            fail(where, f"the values of slot '{slot}' must be a list")
        strings(values, where, f"the values of slot '{slot}'")
    return dict(pairs)


def read_frame(raw, where):
    """A frame of an SGD file or of a ``dst`` row as a Frame. ``slots`` missing or None means
    the frame gives no spans, and slot tagging is then not scored for it."""
    service = get(raw, "service", str, where)
    where = f"{where}, frame of {service}"
    state = get(raw, "state", dict, where)
    requested = strings(get(state, "requested_slots", list, where), where, "requested_slots")
    spans = raw.get("slots")
    if spans is not None:
        if not isinstance(spans, list):
            fail(where, "'slots' must be a list of {slot, start, exclusive_end}")
        spans = tuple((get(span, "slot", str, where), get(span, "start", int, where),
                       get(span, "exclusive_end", int, where)) for span in spans)
    return Frame(service, get(state, "active_intent", str, where), tuple(requested),
                 _slot_values(state, where), spans)


def read_frames(turn, where):
    frames = get(turn, "frames", list, where)
    return tuple(read_frame(frame, where) for frame in frames)


def service_slots(schemas):
    """Service name -> its slots as ``((name, is_categorical), ...)`` in schema order, from
    ``schema.json`` entries or ``schema`` rows. Slots come from the schema only, so SGD-X
    variants, which rename them, are scored like SGD."""
    slots = {}
    for service in schemas:
        name = get(service, "service_name", str, "schema")
        where = f"schema of {name}"
        slots[name] = tuple((get(slot, "name", str, where), get(slot, "is_categorical", bool, where))
                            for slot in get(service, "slots", list, where))
    return slots


def service_names(schemas):
    """The names of services given as schema entries or rows, or as names."""
    return frozenset(s if isinstance(s, str) else get(s, "service_name", str, "train schema") for s in schemas)


# ---------------------------------------------------------------- one frame's scores

def f1_scores(reference, prediction):
    """(f1, precision, recall) of a predicted multiset against the reference one. Precision of
    an empty prediction and recall of an empty reference are 1, so two empty lists score 1."""
    true, positive = collections.Counter(reference), collections.Counter(prediction)
    true_positive = sum((true & positive).values())
    precision = true_positive / sum(positive.values()) if positive else 1.0
    recall = true_positive / sum(true.values()) if true else 1.0
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall > 0.0 else 0.0
    return f1, precision, recall


def slot_tagging_scores(reference, prediction, utterance, noncategorical, where):
    """F1 of the predicted spans of non-categorical slots, compared as (slot, text in the
    reference utterance); None where the prediction gives no spans."""
    if prediction.spans is None:
        return None
    if reference.spans is None:
        fail(where, "the reference frame has no 'slots' to compare the predicted spans with")

    def tagged(spans):
        return [(slot, utterance[start:end]) for slot, start, end in spans if slot in noncategorical]

    return f1_scores(tagged(reference.spans), tagged(prediction.spans))


def _first(values, where, slot):
    if not values:
        fail(where, f"slot '{slot}' has no value")
    return values[0]


def slot_scores(reference, prediction, slots, use_fuzzy_match, where):
    """One score per schema slot, as (score, the reference fills the slot, categorical).

    A slot the reference fills: categorical, 1 if the first predicted value is the first
    reference value; non-categorical, the best match of the first predicted value with any
    reference value (fuzzy, or exact without fuzzy matching). A slot the reference leaves
    empty: 1 if the prediction leaves it empty too. A slot the prediction leaves empty: 0.
    """
    scores = []
    for name, categorical in slots:
        filled, predicted_any = name in reference.slot_values, name in prediction.slot_values
        if not filled:
            score = 0.0 if predicted_any else 1.0
        elif not predicted_any:
            score = 0.0
        else:
            predicted = _first(prediction.slot_values[name], f"{where}, predicted frame", name)
            references = reference.slot_values[name]
            if categorical:
                score = float(_first(references, f"{where}, reference frame", name) == predicted)
            else:
                score = 0.0
                for value in references:
                    match = token_sort_ratio(value, predicted) / 100.0 if use_fuzzy_match else float(value == predicted)
                    score = max(score, match)
        scores.append((score, filled, categorical))
    return scores


def goal_accuracies(scores):
    """Average accuracies (over the slots the reference fills) and joint ones (the product over
    every slot), of all slots and of categorical and non-categorical ones alone; None where
    there is no slot to average (the evaluator's "NA")."""
    def mean(values):
        return np.mean(values) if values else None

    def product(values):
        return np.prod(values) if values else None

    return {
        AVERAGE_GOAL_ACCURACY: mean([s for s, filled, _ in scores if filled]),
        AVERAGE_CAT_ACCURACY: mean([s for s, filled, cat in scores if filled and cat]),
        AVERAGE_NONCAT_ACCURACY: mean([s for s, filled, cat in scores if filled and not cat]),
        JOINT_GOAL_ACCURACY: product([s for s, _, _ in scores]),
        JOINT_CAT_ACCURACY: product([s for s, _, cat in scores if cat]),
        JOINT_NONCAT_ACCURACY: product([s for s, _, cat in scores if not cat]),
    }


def frame_scores(reference, prediction, utterance, slots, use_fuzzy_match, where):
    """Every metric of one frame: metric -> value, or None where the metric has no value."""
    f1, precision, recall = f1_scores(reference.requested_slots, prediction.requested_slots)
    scores = {
        ACTIVE_INTENT_ACCURACY: float(reference.active_intent == prediction.active_intent),
        REQUESTED_SLOTS_F1: f1,
        REQUESTED_SLOTS_PRECISION: precision,
        REQUESTED_SLOTS_RECALL: recall,
    }
    noncategorical = {name for name, categorical in slots if not categorical}
    tagging = slot_tagging_scores(reference, prediction, utterance, noncategorical, where)
    if tagging is not None:
        scores[SLOT_TAGGING_F1], scores[SLOT_TAGGING_PRECISION], scores[SLOT_TAGGING_RECALL] = tagging
    scores.update(goal_accuracies(slot_scores(reference, prediction, slots, use_fuzzy_match, where)))
    return scores


# ---------------------------------------------------------------- averaging

def groups_of(service, seen):
    """The groups a frame's scores count in. A service name without "_" is its own domain,
    and its frames then count twice in that group, as in the evaluator."""
    return (ALL_SERVICES, service, service.split("_")[0], SEEN_SERVICES if seen else UNSEEN_SERVICES)


def turn_scores(turn, slots_of, use_fuzzy_match=True):
    """``((service, scores), ...)``: every metric of each reference frame of a turn (as
    ``frame_scores``), in the reference's frame order. The one scoring of a turn: corpus
    metrics average these, per-row ones (``row_values``) too."""
    predicted = {frame.service: frame for frame in turn.prediction}  # the last one of a service counts
    scored = []
    for reference in turn.reference:
        if reference.service not in predicted:
            fail(turn.where, f"no predicted frame for service {reference.service}")
        if reference.service not in slots_of:
            fail(turn.where, f"service {reference.service} is not in the schema")
        scored.append((reference.service, frame_scores(reference, predicted[reference.service], turn.utterance,
                                                       slots_of[reference.service], use_fuzzy_match, turn.where)))
    return tuple(scored)


def row_values(scored, joint_acc_across_turn=False):
    """A turn's per-row scores from its ``turn_scores``: each metric averaged over the
    frames that give it a value (None where none does), ``frames`` (the number of reference
    frames) and, for a metric that fewer frames give a value to, ``weights``: ``{metric:
    count}``. Averaging the rows' values, each weighted by ``weights.get(metric, frames)``,
    gives the corpus metric of ``#ALL_SERVICES``. With ``joint_acc_across_turn`` the joint
    accuracies are the product over the frames, weighted 1 (a turn counts once)."""
    values, weights = {}, {}
    metrics = sorted({metric for _, scores in scored for metric in scores})
    for metric in metrics:
        given = [scores[metric] for _, scores in scored if scores.get(metric) is not None]
        across = joint_acc_across_turn and metric in JOINT_METRICS
        # plain Python, not numpy: a turn has a few frames, and numpy's call costs more than
        # the sum (rewards score thousands of turns a step)
        if across:
            values[metric] = float(math.prod(given)) if given else None
        else:
            values[metric] = sum(given) / len(given) if given else None
        count = (1 if given else 0) if across else len(given)
        if count != len(scored):
            weights[metric] = count
    values["frames"] = len(scored)
    if weights:
        values["weights"] = weights
    return values


def aggregate(turns, slots_of, seen_services, use_fuzzy_match=True, joint_acc_across_turn=False, scored_turns=None):
    """Each metric averaged over the frames of each group: ``{group: {metric: value}}``. A
    metric without a value for any frame of a group is left out of it.

    With ``joint_acc_across_turn`` a turn counts once per group for the joint accuracies: the
    product of its frames' (MultiWOZ-style joint accuracy across services). Values are kept in
    turn and frame order and averaged with numpy, as in the evaluator, so that the sums are the
    same to the last bit. ``scored_turns``, a list, receives ``(turn, turn_scores)`` of each
    turn (for per-row scores).
    """
    values = collections.defaultdict(lambda: collections.defaultdict(list))
    for turn in turns:
        turn_joint = collections.defaultdict(dict)
        scored = turn_scores(turn, slots_of, use_fuzzy_match)
        if scored_turns is not None:
            scored_turns.append((turn, scored))
        for service, scores in scored:
            for group in groups_of(service, service in seen_services):
                for metric, value in scores.items():
                    if value is None:
                        continue
                    if joint_acc_across_turn and metric in JOINT_METRICS:
                        turn_joint[group][metric] = turn_joint[group].get(metric, 1.0) * value
                    else:
                        values[group][metric].append(value)
        for group, joint in turn_joint.items():
            for metric, value in joint.items():
                values[group][metric].append(value)
    if not values:
        raise ScoringError("nothing to score: no predicted user turn has a reference frame")
    return {group: {metric: float(np.mean(scores)) for metric, scores in sorted(metrics.items())}
            for group, metrics in sorted(values.items())}


# ---------------------------------------------------------------- rows of the dst view

def _reference_index(references):
    """(dialogue_id, turn_index) -> reference row, and original_id -> dialogue_id (None for an
    original id that names dialogues of several splits)."""
    rows, originals = {}, {}
    for row in references:
        dialogue_id = get(row, "dialogue_id", str, "reference row")
        where = f"reference dialogue {dialogue_id}"
        key = (dialogue_id, get(row, "turn_index", int, where))
        if key in rows:
            fail(f"{where}, turn {key[1]}", "two reference rows")
        get(row, "context", list, where)
        rows[key] = row
        original = get(row, "original_id", str, where)
        originals[original] = dialogue_id if originals.get(original, dialogue_id) == dialogue_id else None
    return rows, originals


def _dialogue_id(row, originals, position):
    if row.get("dialogue_id") is not None:
        return get(row, "dialogue_id", str, f"prediction #{position}")
    original = get(row, "original_id", str, f"prediction #{position} (it has no dialogue_id)")
    if original not in originals:
        fail(f"prediction #{position}", f"dialogue {original} is not in the references")
    if originals[original] is None:
        fail(f"prediction #{position}", f"original_id {original} names dialogues of several splits: "
                                         "give dialogue_id, or the references of one split")
    return originals[original]


def _check_context(predicted, reference, where):
    """A prediction's context, where it has one, must be the reference's: the same roles, and
    the same utterances of the user (the evaluator compares the same)."""
    if len(predicted) != len(reference):
        fail(where, f"the context has {len(predicted)} turns, the reference {len(reference)}")
    user = reference[-1]["role"]
    for index, (mine, theirs) in enumerate(zip(predicted, reference)):
        if get(mine, "role", str, where) != theirs["role"]:
            fail(where, f"context turn {index}: role {mine['role']!r}, the reference's is {theirs['role']!r}")
        if theirs["role"] == user and get(mine, "utterance", str, where) != theirs["utterance"]:
            fail(where, f"context turn {index}: the utterance differs from the reference's")


def row_turns(predictions, references):
    """The predicted turns as Turns, in the order of the predictions' dialogues (each where it
    first appears) and, within a dialogue, of turn_index: the order in which the evaluator
    reads SGD files written in that order."""
    index, originals = _reference_index(references)
    dialogues = {}
    for position, row in enumerate(predictions):
        dialogue_id = _dialogue_id(row, originals, position)
        turn_index = get(row, "turn_index", int, f"prediction #{position} (dialogue {dialogue_id})")
        where = f"dialogue {dialogue_id}, turn {turn_index}"
        if (dialogue_id, turn_index) not in index:
            fail(where, "not a user turn of the references")
        turns = dialogues.setdefault(dialogue_id, {})
        if turn_index in turns:
            fail(where, "predicted twice")
        turns[turn_index] = row
    for dialogue_id, turns in dialogues.items():
        for turn_index in sorted(turns):
            prediction, reference = turns[turn_index], index[dialogue_id, turn_index]
            where = f"dialogue {dialogue_id}, turn {turn_index}"
            if prediction.get("context") is not None:
                _check_context(get(prediction, "context", list, where), reference["context"], where)
            yield Turn(dialogue_id, turn_index, get(reference["context"][-1], "utterance", str, where),
                       read_frames(reference, f"{where} (reference)"), read_frames(prediction, where))


def score_dst(predictions, references, schemas, train_schemas, *, use_fuzzy_match=True,
              joint_acc_across_turn=False, per_row=False):
    """The DSTC8 metrics of predicted ``dst`` rows.

    Only the predicted turns are scored. Frames are averaged in the order of the
    predictions' dialogues, then turns, as the evaluator averages files written in that
    order (a different order can change the last digit).

    Args:
        predictions: rows (dicts, or a Dataset) with ``dialogue_id`` (or ``original_id``),
            ``turn_index`` and ``frames`` shaped like the ``dst`` view's; ``context``, where
            given, must be the reference's.
        references: the split's ``dst`` rows.
        schemas: the split's ``schema`` rows.
        train_schemas: the train split's ``schema`` rows, or their service names (a frame
            is seen when the train schema has its service).
        use_fuzzy_match: compare non-categorical values as the evaluator's fuzzy match does
            (the DSTC8 setting); exactly when False.
        joint_acc_across_turn: joint accuracies across the services of a turn
            (MultiWOZ-style).
        per_row: add ``"per_row"``: one record per predicted turn, in scoring order, with
            its ``dialogue_id``, ``turn_index`` and the reference row's ``id`` (where it has
            one), then ``row_values`` and ``per_frame``: each reference frame's own scores,
            ``{"service", "seen", <metric>: value or None}`` (``frame_scores``; what the
            evaluator writes into each frame), in the reference's frame order.

    Returns:
        ``{group: {metric: value}}``, the dict the command writes as JSON; the groups are
        ``#ALL_SERVICES``, each service and domain, ``#SEEN_SERVICES`` and
        ``#UNSEEN_SERVICES``.

    Raises:
        ScoringError naming the dialogue, turn and field of a prediction or reference that
        cannot be scored.

    Example:
        >>> rows, schemas = load("sgd", "dst", split="test"), load("sgd", "schema")  # doctest: +SKIP
        >>> predictions = [{"dialogue_id": r["dialogue_id"], "turn_index": r["turn_index"],
        ...                 "frames": my_tracker(r["context"])} for r in rows]  # doctest: +SKIP
        >>> score_dst(predictions, rows, schemas["test"], schemas["train"])["#ALL_SERVICES"]  # doctest: +SKIP
        {'active_intent_accuracy': 0.93, ..., 'joint_goal_accuracy': 0.71, ...}
    """
    references = list(references) if per_row else references
    scored, seen = [] if per_row else None, service_names(train_schemas)
    metrics = aggregate(row_turns(predictions, references), service_slots(schemas), seen, use_fuzzy_match,
                        joint_acc_across_turn, scored)
    if per_row:
        ids = {(row["dialogue_id"], row["turn_index"]): row.get("id") for row in references}
        metrics["per_row"] = records = []
        for turn, frames in scored:
            key = (turn.dialogue_id, turn.turn_index)
            record = {"id": ids[key]} if ids.get(key) is not None else {}
            record.update(dialogue_id=key[0], turn_index=key[1], **row_values(frames, joint_acc_across_turn),
                          per_frame=[{"service": service, "seen": service in seen, **scores}
                                     for service, scores in frames])
            records.append(record)
    return metrics
