"""DSTC8 scores of D3ST outputs: each text of a ``d3st`` row read back to a frame with the row's
legend (``views.d3st_text.parse``), the frames of a turn put together, and scored with
``scoring.dst.score_dst`` against the rows' reference frames, as the DSTC8 evaluator scores
SGD-format predictions of the same states."""

from dataclasses import dataclass

from ..core.problems import MALFORMED, UNKNOWN_INTENT, UNKNOWN_SLOT
from ..views.d3st_text import Legend, LegendError, parse
from ..views.dst import empty_frame
from .dst import ACTIVE_INTENT_ACCURACY, REQUESTED_SLOTS_F1, REQUESTED_SLOTS_PRECISION, REQUESTED_SLOTS_RECALL, \
    Turn, read_frames, row_values, score_dst, service_slots, turn_scores
from .rows import ScoringError, counted, fail, get, pair, row_record

# What level ``dst`` does not predict, left out of its metrics.
INTENT_METRICS = (ACTIVE_INTENT_ACCURACY, REQUESTED_SLOTS_F1, REQUESTED_SLOTS_PRECISION, REQUESTED_SLOTS_RECALL)


@dataclass(frozen=True)
class Reference:
    """What scoring a ``d3st`` row needs of it, read once (``Reference.of(row)``)."""

    legend: Legend
    frames: tuple  # the row's reference frame, as scoring.dst.Frame
    slots: dict  # service_slots of the legend's service
    where: str

    @classmethod
    def of(cls, row):
        where = f"row {get(row, 'id', str, 'd3st row')}"
        try:
            legend = Legend.from_row(get(row, "legend", dict, where))
        except LegendError as error:
            fail(where, str(error))
        reference = get(row, "frame", dict, where)
        frames = read_frames({"frames": [{"service": get(reference, "service", str, where), "slots": None,
                                          "state": get(reference, "state", dict, where)}]}, where)
        slots = service_slots([{"service_name": legend.service,
                                "slots": [{"name": s.name, "is_categorical": s.categorical} for s in legend.slots]}])
        return cls(legend, frames, slots, where)


def row_scores(text, row, *, use_fuzzy_match=True):
    """The per-row scores of one D3ST text: ``(scores, problems)``. A ``d3st`` row is one
    frame of a turn, so its scores are that frame's (``frames``: 1), read with the row's
    legend, as ``score_d3st`` scores it (without the intent and requested-slot metrics for
    level ``dst``); a text of None (no prediction) is an empty frame. ``row``: the row, or
    its ``Reference``."""
    reference = row if isinstance(row, Reference) else Reference.of(row)
    legend = reference.legend
    frames, problems = parse(text, legend) if text is not None else ([empty_frame(legend.service)], [])
    turn = Turn("", 0, "", reference.frames, read_frames({"frames": frames}, reference.where))
    values = row_values(turn_scores(turn, reference.slots, use_fuzzy_match))
    if legend.level == "dst":
        values = {metric: value for metric, value in values.items() if metric not in INTENT_METRICS}
    return values, problems


def score_d3st(predictions, rows, *, use_fuzzy_match=True, joint_acc_across_turn=False, allow_missing=False,
               per_row=False):
    """The DSTC8 metrics of D3ST outputs for ``d3st`` rows.

    Args:
        predictions: ``{row id: text}``, a model's output for each row (``rows.read_predictions``).
        rows: the ``d3st`` rows predicted (a ``datasets.Dataset`` or dicts), with their
            ``legend`` and reference ``frame``; every frame of a predicted turn must be a row.
        use_fuzzy_match: compare non-categorical values as the DSTC8 evaluator does by
            default (fuzzy); exact matching otherwise (lowercased rows then miss every
            non-categorical value that has capitals).
        joint_acc_across_turn: joint accuracies across the services of a turn.
        allow_missing: score a row without a prediction as an empty frame instead of failing.
        per_row: add ``"per_row"``: each row's scores (``row_scores``) in the rows' order,
            ``{"id", <metric>: value, ..., "frames": 1, "per_frame", "malformed", "missing",
            "problems"}`` (``rows.row_record``, ``with_frame``); not with ``joint_acc_across_turn``,
            whose joint accuracies belong to a turn, not to one of its frames.

    Returns:
        ``{group: {metric: value}}`` as ``score_dst`` returns it (without the intent and
        requested-slot metrics for rows of level ``dst``, which do not predict them), plus
        ``malformed`` and ``malformed_ids`` (texts that could not be read whole: what could
        be read is scored), ``unknown_slots`` / ``unknown_slots_ids`` and
        ``unknown_intents`` / ``unknown_intents_ids`` (readable texts naming a slot or intent
        id the row's legend lacks: that entry is left out, the rest scored; not malformed
        for it), ``malformed_problems`` (the problems of each text that has any), and
        ``frames_not_predicted`` (reference frames whose service no text of the turn gives,
        scored as empty frames), and ``missing`` and ``missing_ids``.

    Raises:
        ScoringError naming an unknown or missing prediction id, or a row without a usable
        legend or reference frame.

    Example:
        >>> rows = load("sgd", "d3st", split="validation")  # doctest: +SKIP
        >>> score_d3st({row["id"]: row["target"] for row in rows}, rows)["#ALL_SERVICES"]  # doctest: +SKIP
        {'active_intent_accuracy': 1.0, 'average_cat_accuracy': 1.0, ...}
    """
    if per_row and joint_acc_across_turn:
        raise ScoringError("per_row scores a d3st row, one frame of a turn: it does not apply with "
                           "joint_acc_across_turn (a joint accuracy across the frames of a turn)")
    pairs = pair(predictions, rows, allow_missing=allow_missing)
    turns, references, slots_of, seen, levels = {}, {}, {}, set(), set()
    problems_of = pairs.problems
    for row, text in pairs:
        identifier = row["id"]
        where = f"row {identifier}"
        try:
            legend = Legend.from_row(get(row, "legend", dict, where))
        except LegendError as error:
            fail(where, str(error))
        levels.add(legend.level)
        slots_of.setdefault(legend.service, [{"name": s.name, "is_categorical": s.categorical} for s in legend.slots])
        reference = get(row, "frame", dict, where)
        service = get(reference, "service", str, where)
        if row.get("unseen") is False:
            seen.add(service)
        key = (get(row, "dialogue_id", str, where), get(row, "turn_index", int, where))
        if key not in turns:
            turns[key] = {"dialogue_id": key[0], "turn_index": key[1], "frames": []}
            references[key] = {"dialogue_id": key[0], "original_id": row.get("original_id") or key[0],
                               "turn_index": key[1], "context": [{"role": "USER", "utterance": ""}], "frames": []}
        references[key]["frames"].append({"service": service, "slots": None, "state": reference["state"]})
        if text is None:  # scored as an empty frame below, as a frame no text predicts
            frames = []
        else:
            frames, problems = parse(text, legend)
            if problems:
                problems_of[identifier] = problems
        turns[key]["frames"].extend(frames)
    not_predicted = 0
    for key, turn in turns.items():
        # A reference frame whose service no text of the turn predicts is scored as empty.
        predicted = {frame["service"] for frame in turn["frames"]}
        empty = [empty_frame(frame["service"]) for frame in references[key]["frames"]
                 if frame["service"] not in predicted]
        not_predicted += len(empty)
        turn["frames"].extend(empty)
    missing = [s for key in references for s in (f["service"] for f in references[key]["frames"])
               if s not in slots_of]
    if missing:
        raise ScoringError(f"no row gives the slots of service {missing[0]!r} (a reference frame's service)")
    schemas = [{"service_name": name, "slots": slots} for name, slots in slots_of.items()]
    metrics = score_dst(list(turns.values()), list(references.values()), schemas, seen,
                        use_fuzzy_match=use_fuzzy_match, joint_acc_across_turn=joint_acc_across_turn)
    if levels == {"dst"}:
        metrics = {group: {m: v for m, v in values.items() if m not in INTENT_METRICS}
                   for group, values in metrics.items()}
    metrics.update(counted(problems_of, (MALFORMED, UNKNOWN_SLOT, UNKNOWN_INTENT)),
                   malformed_problems={identifier: list(map(str, problems))
                                       for identifier, problems in problems_of.items()},
                   frames_not_predicted=not_predicted, missing=len(pairs.absent), missing_ids=pairs.absent)
    if per_row:
        absent = set(pairs.absent)
        metrics["per_row"] = [
            row_record(row["id"], with_frame(row_scores(text, row, use_fuzzy_match=use_fuzzy_match)[0],
                                             row["frame"]["service"], row.get("unseen") is False),
                       problems_of.get(row["id"], []), row["id"] in absent)
            for row, text in pairs]
    return metrics


def with_frame(values, service, seen):
    """A row's per-row ``values`` with ``per_frame``, its one frame's scores with the frame's
    service and whether the train schema has it, as ``score_dst``'s records give each frame
    of a turn (what ``scoring.sgdx`` reads of either)."""
    scores = {metric: value for metric, value in values.items() if metric not in ("frames", "weights")}
    return {**values, "per_frame": [{"service": service, "seen": seen, **scores}]}
