"""Scoring ``nlu-chat`` predictions: each text read back (``chat.nlu_text.parse``) into the
turn's intents and spans, and compared with the ``nlu`` row's, as joint intent detection
and slot filling is reported (Goo et al., 2018, "Slot-Gated Modeling for Joint Slot Filling
and Intent Prediction", NAACL; on SGD, e.g. Coope et al., 2020, "Span-ConveRT"):

- ``intent_accuracy``: the share of turns whose set of active intents is predicted exactly
  (over the turns whose corpus annotates intents; SGD's user turns);
- ``slot_precision``, ``slot_recall``, ``slot_f1``: span-level micro precision, recall and
  F1 over all turns, as CoNLL's ``conlleval`` counts them: a predicted span is correct when
  a reference span of the turn has the same ``(domain, label, type, text)``, each reference
  span matched once. Texts stand for offsets: a span is right when its text is exactly the
  reference's, as a chunk is right in ``conlleval`` when its boundaries are;
- ``frame_exact_match``: the share of turns whose intents (where annotated) and spans are
  all right (Goo et al.'s "sentence accuracy", also called overall or semantic frame
  accuracy).

``score_row`` scores one turn; the corpus metrics are made from its values: the
accuracies are their means, the slot metrics come from the summed span counts.
"""

from collections import Counter

from ..chat.nlu_text import parse
from ..chat.state import Schemas
from ..core.errors import ConfigError
from .rows import ScoringError, counted, get, pair, row_record

FRAME_EXACT_MATCH, INTENT_ACCURACY = "frame_exact_match", "intent_accuracy"
SLOT_PRECISION, SLOT_RECALL, SLOT_F1 = "slot_precision", "slot_recall", "slot_f1"
# A row's span counts, summed into the corpus's micro precision, recall and F1.
CORRECT, PREDICTED, REFERENCE = "spans_correct", "spans_predicted", "spans_reference"


def span_key(span):
    return span.get("domain"), span["label"], span.get("type"), span["text"]


def prf(correct, predicted, reference):
    """Precision, recall and F1 from span counts; a ratio with nothing to count is 1.0
    (nothing predicted: nothing wrong; nothing to find: nothing missed)."""
    precision = correct / predicted if predicted else 1.0
    recall = correct / reference if reference else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def score_row(text, reference, schemas=None):
    """``(scores, problems)`` of one turn: ``text``, its predicted ``nlu-chat`` text (None
    for none); ``reference``, its ``nlu`` row (``intents``, ``spans``); ``schemas``, a
    ``chat.state.Schemas`` where the corpus has one. ``scores``: ``frame_exact_match``,
    ``slot_f1``, the span counts, and ``intent_accuracy`` where the turn's intents are
    annotated, each 0.0 … 1.0 (counts as ints); ``problems``: ``parse``'s."""
    record, problems = parse(text, schemas)
    found, wanted = Counter(map(span_key, record["spans"])), Counter(map(span_key, reference["spans"] or []))
    correct, predicted, expected = sum((found & wanted).values()), sum(found.values()), sum(wanted.values())
    scores = {SLOT_F1: prf(correct, predicted, expected)[2], CORRECT: correct, PREDICTED: predicted,
              REFERENCE: expected}
    exact = found == wanted
    if reference.get("intents") is not None:
        right = record["intents"] is not None and set(record["intents"]) == set(reference["intents"])
        scores[INTENT_ACCURACY] = float(right)
        exact = exact and right
    scores[FRAME_EXACT_MATCH] = float(exact)
    return scores, problems


def score_nlu(predictions, rows, *, references=None, schemas=None, load_rows=None, allow_missing=False,
              per_row=False):
    """Intent accuracy, slot precision, recall and F1, and frame exact match of ``nlu-chat``
    predictions.

    Args:
        predictions: ``{row id: text}`` (``rows.read_predictions``), each text in the
            ``nlu-chat`` completion's form (``chat.nlu_text``).
        rows: the split's ``nlu-chat`` rows (or any rows with their ``id``s).
        references: the split's ``nlu`` rows (default: ``load_rows("nlu")``).
        schemas: the split's ``schema`` rows, to count unknown names (default:
            ``load_rows("schema")`` where the corpus has that config; none otherwise).
        load_rows: ``load_rows(config, split=None)`` (as ``scoring.score`` gives it).
        allow_missing: score a row without a prediction as an empty text instead of failing.
        per_row: add ``per_row``, each row's ``score_row`` values with its ``id``,
            ``malformed``, ``missing`` and ``problems`` (``rows.row_record``), in the rows' order.

    Returns:
        ``intent_accuracy`` (None where no turn has intents annotated), ``slot_precision``,
        ``slot_recall``, ``slot_f1``, ``frame_exact_match``; the counts ``malformed``,
        ``unknown_services``, ``unknown_slots``, ``unknown_intents`` and ``missing``, each
        with its ``*_ids``; ``per_row`` where asked.

    Raises:
        ScoringError naming a predicted id no row has, a row without a prediction (unless
        ``allow_missing``) or a row without a reference.

    Example:
        >>> rows = load("sgd", "nlu-chat", split="test")  # doctest: +SKIP
        >>> texts = {row["id"]: my_model(row["prompt"]) for row in rows}  # doctest: +SKIP
        >>> score_nlu(texts, rows, load_rows=...)["slot_f1"]  # doctest: +SKIP
        0.93
    """
    if references is None and load_rows is None:
        raise ScoringError("nlu-chat scoring needs the nlu references (or load_rows to load them)")
    references = load_rows("nlu") if references is None else references
    if schemas is None and load_rows is not None:
        try:
            schemas = load_rows("schema")
        except ConfigError:  # a corpus without schemas (CCPE-M): no name is unknown
            schemas = None
    known = None if schemas is None else Schemas.of(schemas)
    if hasattr(rows, "select_columns"):
        rows = rows.select_columns(["id"])
    pairs = pair(predictions, rows, allow_missing=allow_missing)
    by_id = {get(row, "id", str, "reference row"): row for row in references}
    problems_of, each = pairs.problems, []
    for row, text in pairs:
        reference = by_id.get(row["id"])
        if reference is None:
            raise ScoringError(f"row {row['id']!r}: no nlu reference row has this id")
        scores, problems = score_row("" if text is None else text, reference, known)
        if problems:
            problems_of[row["id"]] = problems
        each.append({"id": row["id"], **scores})
    metrics = corpus_scores(each)
    metrics.update(counted(problems_of), missing=len(pairs.absent), missing_ids=pairs.absent)
    if per_row:
        absent = set(pairs.absent)
        metrics["per_row"] = [row_record(record["id"], {k: v for k, v in record.items() if k != "id"},
                                         problems_of.get(record["id"], []), record["id"] in absent)
                              for record in each]
    return metrics


def corpus_scores(each):
    """The corpus metrics from the rows' ``score_row`` values: accuracies as their means,
    slot precision, recall and F1 from the summed span counts (micro)."""
    def mean(metric):
        values = [row[metric] for row in each if metric in row]
        return sum(values) / len(values) if values else None

    precision, recall, f1 = prf(*(sum(row[count] for row in each) for count in (CORRECT, PREDICTED, REFERENCE)))
    return {INTENT_ACCURACY: mean(INTENT_ACCURACY), SLOT_PRECISION: precision, SLOT_RECALL: recall, SLOT_F1: f1,
            FRAME_EXACT_MATCH: mean(FRAME_EXACT_MATCH)}
