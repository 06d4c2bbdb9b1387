"""Scoring faithfulness critics on ``critic`` and ``critic-chat`` rows: each text read as a
label, ``Hallucination`` or ``Entailment`` (FaithCritic's), and compared with the row's,
with the metrics FaithCritic is evaluated with (the FaithDial repository's
``models/critic.py``: torchmetrics' ``Accuracy``, and ``Precision``, ``Recall`` and
``F1Score`` averaged over the classes):

- ``accuracy``: the share of rows whose text reads as the row's label;
- ``labels``: for each label, ``precision`` (of the rows read as that label, the share that
  have it), ``recall`` (of the rows that have it, the share read as it), ``f1`` (their
  harmonic mean) and ``support`` (the rows that have it). A label never predicted has
  precision 0, as in torchmetrics and scikit-learn; a label no row has and no text gives
  has none (None);
- ``macro``: ``precision``, ``recall`` and ``f1``, each the mean of the labels' values over
  the labels that have them (torchmetrics' ``average="macro"``, which leaves out a class
  with neither a row nor a prediction).

``Hallucination`` is the positive class (``positive``): what a critic detects. A text is
read leniently (``read_label``): its answer, as every scorer reads it (``core.answer``:
reasoning blocks before it and a code fence around it dropped), then without spaces,
quotes, backticks, asterisks and a final period around the word, in any case. A text that
is not one label (or whose reasoning never ends) is ``malformed``: counted, and scored as
no label (wrong: a miss of the row's label, a prediction of none).
``row_scores`` scores one row; the corpus metrics are made from its values.
"""

from ..core.answer import answer
from ..core.problems import MALFORMED, Problem, cut
from ..views.faithfulness import CRITIC_LABELS, POSITIVE
from .rows import ScoringError, counted, get, pair, row_record

ACCURACY, PRECISION, RECALL, F1, SUPPORT = "accuracy", "precision", "recall", "f1", "support"
# What a predicted label may be wrapped in (Markdown emphasis, quotes, a sentence's period).
WRAPPING = " \t\r\n\"'`*"
_LABELS = {label.casefold(): label for label in CRITIC_LABELS}


def read_label(text):
    """``(label, problems)``: the label a model's text gives (None where it gives no one
    label), and the problems of reading its answer (``core.answer``).

    Example:
        >>> read_label("**Hallucination.**")[0], read_label("<think>A date.</think> entailment")[0]
        ('Hallucination', 'Entailment')
        >>> read_label("Maybe")
        (None, [])
    """
    word, problems = answer(text)
    word = word.strip(WRAPPING)
    word = word[:-1].strip(WRAPPING) if word.endswith(".") else word
    return _LABELS.get(word.casefold()), problems


def gold_of(row):
    """A row's label: the ``critic`` row's ``label``, or the ``critic-chat`` row's completion."""
    if "label" in row:
        return row["label"]
    return row["completion"][0]["content"]


def row_scores(text, gold):
    """``(values, problems)`` of one row: ``text``, the predicted text (None for none);
    ``gold``, the row's label. ``values``: ``accuracy`` (1.0 or 0.0), ``label`` (the
    gold), ``predicted`` (the label read, None where none); ``problems``: a ``malformed``
    problem where a text gives no label."""
    predicted, problems = (None, []) if text is None else read_label(text)
    if text is not None and predicted is None and not problems:
        problems = [Problem(MALFORMED, f"not one of {', '.join(CRITIC_LABELS)}: {cut(text)!r}")]
    return {ACCURACY: float(predicted == gold), "label": gold, "predicted": predicted}, problems


def label_scores(records):
    """``{label: {precision, recall, f1, support}}`` from the rows' ``row_scores`` values,
    for FaithCritic's labels and any other a row has."""
    labels = list(CRITIC_LABELS) + sorted({r["label"] for r in records} - set(CRITIC_LABELS))
    out = {}
    for label in labels:
        right = sum(r["label"] == label and r["predicted"] == label for r in records)
        predicted = sum(r["predicted"] == label for r in records)
        support = sum(r["label"] == label for r in records)
        if not predicted and not support:
            out[label] = {PRECISION: None, RECALL: None, F1: None, SUPPORT: 0}
            continue
        precision = right / predicted if predicted else 0.0
        recall = right / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[label] = {PRECISION: precision, RECALL: recall, F1: f1, SUPPORT: support}
    return out


def corpus_scores(records):
    """``accuracy``, ``labels`` and ``macro`` from the rows' ``row_scores`` values."""
    labels = label_scores(records)
    present = [values for values in labels.values() if values[F1] is not None]
    macro = {name: sum(v[name] for v in present) / len(present) if present else None
             for name in (PRECISION, RECALL, F1)}
    accuracy = sum(r[ACCURACY] for r in records) / len(records) if records else None
    return {ACCURACY: accuracy, "labels": labels, "macro": macro, "positive": POSITIVE}


def score_critic(predictions, rows, *, allow_missing=False, per_row=False):
    """Accuracy, and precision, recall and F1 per label and macro-averaged, of a critic's
    labels for ``critic`` or ``critic-chat`` rows.

    Args:
        predictions: ``{row id: text}`` (``rows.read_predictions``), each text a label.
        rows: the rows predicted (``critic`` rows with their ``label``, or ``critic-chat``
            rows with their completion).
        allow_missing: score a row without a prediction as wrong (counted in ``missing``)
            instead of failing.
        per_row: add ``per_row``, each row's ``row_scores`` values with its ``id``,
            ``malformed``, ``missing`` and ``problems`` (``rows.row_record``), in the rows' order.

    Returns:
        ``accuracy``, ``labels``, ``macro``, ``positive``; the counts ``malformed`` and
        ``missing`` with their ``*_ids``; ``per_row`` where asked.

    Raises:
        ScoringError naming a predicted id no row has, or a row without a prediction
        (unless ``allow_missing``).

    Example:
        >>> rows = load("faithdial", "critic-chat", split="test")  # doctest: +SKIP
        >>> score_critic({r["id"]: my_critic(r["prompt"]) for r in rows}, rows)["macro"]["f1"]  # doctest: +SKIP
        0.81
    """
    if hasattr(rows, "select_columns"):
        rows = rows.select_columns([c for c in ("id", "label", "completion") if c in rows.column_names])
    pairs = pair(predictions, rows, allow_missing=allow_missing)
    each, problems_of = [], pairs.problems
    for row, text in pairs:
        gold = gold_of(row)
        if not isinstance(gold, str):
            raise ScoringError(f"row {get(row, 'id', str, 'row')!r}: no label to score against")
        values, problems = row_scores(text, gold)
        if problems:
            problems_of[row["id"]] = problems
        each.append((row["id"], values))
    metrics = corpus_scores([values for _, values in each])
    metrics.update(counted(problems_of, (MALFORMED,)), missing=len(pairs.absent), missing_ids=pairs.absent)
    if per_row:
        absent = set(pairs.absent)
        metrics["per_row"] = [row_record(identifier, values, problems_of.get(identifier, []), identifier in absent)
                              for identifier, values in each]
    return metrics
