"""Scoring ``dst-chat`` predictions: each text read back into frames (``chat.state.parse``)
and scored with the DSTC8 metrics (``scoring.dst.score_dst``), the numbers the official
evaluator gives for the same states.

A text that cannot be read wholly is not an error: what it says of each service is scored,
and every reference frame whose service it does not give is scored against a frame with
no state (no intent, no requested slot, no value). Such texts are counted and named in the
metrics (``malformed``, ``malformed_ids``); so are readable texts naming a service, slot or
intent the split's schema does not have (``unknown_services``, ``unknown_slots``,
``unknown_intents``, each with its ``*_ids``), the reference frames without a predicted
one (``frames_not_predicted``) and, with ``allow_missing``, the rows without a prediction
(``missing``, ``missing_ids``), scored as empty texts.
"""

from dataclasses import replace

from ..chat.state import Schemas, parse
from ..views.dst import empty_frame
from .dst import Turn, read_frames, row_values, score_dst, turn_scores
from .rows import ScoringError, counted, get, pair, row_record


def predicted_frames(text, reference_frames, schemas):
    """``(frames, problems, not predicted)`` of one prediction: the frames its text gives,
    plus a frame with no state for each reference service it does not give."""
    frames, problems = parse(text, schemas) if text is not None else ([], [])
    given = {frame["service"] for frame in frames}
    absent = [frame["service"] for frame in reference_frames if frame["service"] not in given]
    return frames + [empty_frame(service) for service in absent], problems, len(absent)


def reference_turn(reference):
    """A ``dst`` row as the Turn ``row_scores`` scores a text against (no prediction yet),
    read once. The utterance only serves slot tagging, which a text (no spans) never has: a
    row without its context is read the same."""
    where = f"dialogue {reference['dialogue_id']}, turn {reference['turn_index']}"
    utterance = reference["context"][-1]["utterance"] if reference.get("context") else ""
    return Turn(reference["dialogue_id"], reference["turn_index"], utterance,
                read_frames(reference, f"{where} (reference)"), ())


def row_scores(text, reference, schemas, slots_of, *, use_fuzzy_match=True, joint_acc_across_turn=False):
    """The per-row scores of one ``dst-chat`` text: ``(scores, problems)``.

    Args:
        text: the predicted state text (None: no prediction, scored as an empty text).
        reference: the turn's ``dst`` row, or its ``reference_turn``.
        schemas: ``chat.state.Schemas`` of the split's schemas (what ``parse`` reads with).
        slots_of: ``scoring.dst.service_slots`` of the split's schemas.
        use_fuzzy_match, joint_acc_across_turn: as for ``score_dst_chat``.

    Returns:
        ``scoring.dst.row_values`` of the turn (each metric averaged over its frames,
        ``frames``, ``weights``), and the problems of reading the text (malformed where any).
        ``score_dst_chat(per_row=True)`` gives the same values through the same functions.
    """
    turn = reference if isinstance(reference, Turn) else reference_turn(reference)
    frames, problems, _ = predicted_frames(text, [{"service": frame.service} for frame in turn.reference], schemas)
    turn = replace(turn, prediction=read_frames({"frames": frames}, turn.where))
    return row_values(turn_scores(turn, slots_of, use_fuzzy_match), joint_acc_across_turn), problems


def score_dst_chat(predictions, rows, *, references=None, schemas=None, train_schemas=None, load_rows=None,
                   allow_missing=False, use_fuzzy_match=True, joint_acc_across_turn=False, per_row=False):
    """The DSTC8 metrics of ``dst-chat`` predictions, read back from their text.

    Args:
        predictions: ``{row id: text}`` (``rows.read_predictions``), each text a dialogue
            state in the ``dst-chat`` completion's form (``chat.state``).
        rows: the split's ``dst-chat`` rows (or any rows with their ``id``s).
        references: the split's ``dst`` rows (default: ``load_rows("dst")``).
        schemas: the split's ``schema`` rows (default: ``load_rows("schema")``).
        train_schemas: the train split's ``schema`` rows, or their service names (default:
            ``load_rows("schema", "train")``).
        load_rows: ``load_rows(config, split=None)``, the rows of another config of the same
            corpus and options (as ``scoring.score`` gives it), for what is not given.
        allow_missing: score a row without a prediction as an empty text instead of failing.
        use_fuzzy_match: compare non-categorical values as the evaluator's fuzzy match does
            (the DSTC8 setting); exactly when False.
        joint_acc_across_turn: joint accuracies across the services of a turn (MultiWOZ-style).
        per_row: add ``"per_row"``: each row's scores in the rows' order, ``{"id", <metric>:
            value, ..., "frames", "malformed", "missing", "problems"}`` (``row_scores``,
            ``rows.row_record``; a row without a prediction is scored as an empty text).

    Returns:
        ``score_dst``'s ``{group: {metric: value}}`` (slot tagging is not scored: a text
        gives no spans), plus ``malformed`` and ``malformed_ids`` (texts with a part that
        could not be read), ``unknown_services``, ``unknown_slots`` and ``unknown_intents``
        with their ``*_ids`` (rows whose readable text names what the schema lacks),
        ``frames_not_predicted`` (reference frames whose service a text does not give) and
        ``missing`` and ``missing_ids``.

    Raises:
        ScoringError naming a predicted id no row has, a row without a prediction (unless
        ``allow_missing``) or a row without a reference.

    Example:
        >>> rows = load("sgd", "dst-chat", split="test")  # doctest: +SKIP
        >>> texts = {row["id"]: my_model(row["prompt"]) for row in rows}  # doctest: +SKIP
        >>> score_dst_chat(texts, rows, load_rows=...)["#ALL_SERVICES"]["joint_goal_accuracy"]  # doctest: +SKIP
        0.71
    """
    if any(given is None for given in (references, schemas, train_schemas)) and load_rows is None:
        raise ScoringError("dst-chat scoring needs the references, the split's schemas and the train schemas "
                           "(or load_rows to load them)")
    references = load_rows("dst") if references is None else references
    schemas = load_rows("schema") if schemas is None else schemas
    train_schemas = load_rows("schema", split="train") if train_schemas is None else train_schemas
    if hasattr(rows, "select_columns"):
        rows = rows.select_columns(["id"])  # only the ids are needed: not the prompts
    pairs = pair(predictions, rows, allow_missing=allow_missing)
    by_id = {get(row, "id", str, "reference row"): row for row in references}
    known = Schemas.of(schemas)
    scored, problems_of, not_predicted = [], pairs.problems, 0
    for row, text in pairs:
        reference = by_id.get(row["id"])
        if reference is None:
            raise ScoringError(f"row {row['id']!r}: no dst reference row has this id")
        frames, problems, absent = predicted_frames(text, reference["frames"], known)
        if problems:
            problems_of[row["id"]] = problems
        not_predicted += absent
        scored.append({"dialogue_id": reference["dialogue_id"], "turn_index": reference["turn_index"],
                       "frames": frames})
    metrics = score_dst(scored, references, schemas, train_schemas, use_fuzzy_match=use_fuzzy_match,
                        joint_acc_across_turn=joint_acc_across_turn, per_row=per_row)
    if per_row:  # score_dst's records (one per turn, in scoring order) in the rows' order, by row id
        by_turn = {(record.pop("dialogue_id"), record.pop("turn_index")): record for record in metrics.pop("per_row")}
        absent = set(pairs.absent)
        metrics["per_row"] = [row_record(row["id"], by_turn[turn["dialogue_id"], turn["turn_index"]],
                                         problems_of.get(row["id"], []), row["id"] in absent)
                              for (row, _), turn in zip(pairs, scored)]
    metrics.update(counted(problems_of), frames_not_predicted=not_predicted, missing=len(pairs.absent),
                   missing_ids=pairs.absent)
    return metrics
