"""Scores of generated text on the rows of the ``nlg`` and ``response`` views and of their
``-chat`` configs: GEM-metrics' lexical metrics (``scoring.gem``), SGD's slot error rate
(``scoring.ser``) and the overlap with FaithDial's knowledge (``scoring.knowledge``), overall
and broken down by any column of the rows. docs/scoring.md says what each number is.

What is scored of a model's output is its reply, the answer (``core.answer``): no reasoning
block, and the content of a code fence around the whole reply. An output whose reasoning
never ends has no reply: it is scored as an empty one and counted ``malformed``.
"""

from ..chat import SUFFIX
from ..core.answer import answer
from ..core.problems import MALFORMED
from .gem import LEXICAL_METRICS, gem_scores, sentence_chrf
from .knowledge import overlap
from .rows import ScoringError, counted, pair, row_record, shown
from .ser import noncategorical_slots, row_service, row_slot_values, seen_tag, ser, slot_error, train_service_names

METRICS = LEXICAL_METRICS + ("ser", "knowledge")
OVERALL = "all"  # the group of every row scored
# Columns that are not columns of every row: "seen" (seen or unseen service) and "split"
# (the split named in the row's dialogue id, as in "faithdial/test_topic/3").
DERIVED_COLUMNS = ("seen", "split")


# ---------------------------------------------------------------- rows

def references_of(row):
    """The reference texts of a row: ``references`` (``nlg``), else ``target``, else
    ``response`` (``response``), else the assistant message of ``completion`` (``-chat``)."""
    if row.get("references") is not None:
        return list(row["references"])
    for column in ("target", "response"):
        if isinstance(row.get(column), str):
            return [row[column]]
    completion = row.get("completion")
    if completion:
        return [completion[-1]["content"]]
    raise ScoringError(f"row {row.get('id')!r} has none of the columns that hold a reference "
                       "(references, target, response, completion)")


def _columns_needed(group_by, metrics):
    needed = {"id", "references", "target", "response", "completion", "dialogue_id"}
    needed.update(column for column in group_by if column not in DERIVED_COLUMNS)
    if "knowledge" in metrics:
        needed.add("knowledge")
    if "ser" in metrics or "seen" in group_by:
        needed.update({"dialog_acts", "service"})
    return needed


def _plain_rows(rows, needed):
    """Rows as a list of dicts holding only the columns scoring reads (a Dataset's other
    columns, such as the contexts, are never decoded)."""
    names = getattr(rows, "column_names", None)
    if names is not None and hasattr(rows, "select_columns"):
        selected = rows.select_columns([name for name in names if name in needed])
        return selected.to_list() if hasattr(selected, "to_list") else list(selected)
    return list(rows)


def _ids(rows):
    return list(rows["id"]) if hasattr(rows, "column_names") else [row.get("id") for row in rows]


def _view_rows(rows, view, view_rows):
    """The rows of ``view`` with the ids of the chat ``rows``, in their order: a chat row
    carries neither the acts nor the knowledge that its view's row of the same id has."""
    ids = _ids(rows)
    position = {identifier: k for k, identifier in enumerate(_ids(view_rows))}
    absent = [identifier for identifier in ids if identifier not in position]
    if absent:
        raise ScoringError(f"{len(absent)} row(s) have no {view} row of the same id: {shown(absent)}")
    positions = [position[identifier] for identifier in ids]
    return view_rows.select(positions) if hasattr(view_rows, "select") else [view_rows[k] for k in positions]


def _loaded(rows, config, load_rows, metrics, group_by, schemas, train_schemas, upstream_compat):
    """``(rows, schemas, train_schemas)`` with what ``load_rows`` gives: for a ``-chat``
    config its view's rows, for SER on ``nlg`` rows the split's schemas, for seen and unseen
    services the train split's."""
    view = config.removesuffix(SUFFIX)
    if view != config:
        rows = _view_rows(rows, view, load_rows(view))
    scores_ser = "ser" in metrics if metrics is not None else (view == "nlg" or schemas is not None)
    if schemas is None and scores_ser:
        schemas = load_rows("schema")
    if train_schemas is None and ("seen" in group_by or (scores_ser and not group_by)) and not upstream_compat:
        train_schemas = load_rows("schema", split="train")
    return rows, schemas, train_schemas


def _group_value(row, column, train_services, upstream_compat):
    if column == "seen" and "seen" not in row:
        service = row_service(row)
        if service is None:
            raise ScoringError(f"row {row.get('id')!r} has no service to tell seen from unseen")
        return seen_tag(service, train_services, upstream_compat)
    if column == "split" and "split" not in row:
        parts = str(row.get("dialogue_id") or row["id"]).split("/")
        return parts[1] if len(parts) > 2 else None
    if column not in row:
        raise ScoringError(f"row {row.get('id')!r} has no column {column!r} to group by")
    return row[column]


def _group_name(column, value):
    return str(value) if column == "seen" else f"{column}={value}"


# ---------------------------------------------------------------- one row

# The per-row metrics (``row_scores``), each in [0, 1], and the corpus metric each serves.
ROW_METRICS = {"chrf": ("sentence_chrf",), "ser": ("slot_accuracy",),
               "knowledge": ("knowledge_precision", "knowledge_recall", "knowledge_f1")}


def row_scores(text, row, metrics, noncategorical=None, references=None):
    """``(scores, problems)`` of one model output: ``reply_scores`` of its reply (the
    answer, ``core.answer``), and ``[]`` or the ``malformed`` problem of an output without
    one (a reasoning block that never ends: scored as an empty reply)."""
    reply, problems = answer(text)
    return reply_scores(reply, row, metrics, noncategorical, references), problems


def reply_scores(text, row, metrics, noncategorical=None, references=None):
    """The per-row scores of one generated reply: for each of ``metrics`` (names of
    ``ROW_METRICS``), ``sentence_chrf`` (sacrebleu's sentence chrF / 100, ``gem.sentence_chrf``),
    ``slot_accuracy`` (1.0 where the text has every value of the turn's non-categorical
    slots, the rule of ``ser.slot_error``: the corpus SER is 100 × (1 − their mean)) and
    ``knowledge_precision`` / ``_recall`` / ``_f1`` (``knowledge.overlap``: the corpus values
    are their means). ``noncategorical``: as ``ser.noncategorical_slots`` gives it, for
    ``ser``; ``references``: the row's references (or ``gem.chrf_references`` of them)
    where already at hand."""
    values = {}
    if "chrf" in metrics:
        values["sentence_chrf"] = sentence_chrf(text, references if references is not None else references_of(row))
    if "ser" in metrics:
        if "dialog_acts" not in row:
            raise ScoringError(f"row {row.get('id')!r} has no dialog_acts: the slot error rate is scored on nlg "
                               "(or response) rows, with the same ids as the chat rows")
        values["slot_accuracy"] = float(not slot_error(row_slot_values(row), text, noncategorical))
    if "knowledge" in metrics:
        if not isinstance(row.get("knowledge"), str):
            raise ScoringError(f"row {row.get('id')!r} has no knowledge sentence to score against")
        values.update(zip(ROW_METRICS["knowledge"], overlap(text, row["knowledge"])))
    return values


# ---------------------------------------------------------------- scoring

def _metrics_of(pairs, metrics, tokenizer, noncategorical):
    predictions = [text for _, text in pairs]
    rows = [row for row, _ in pairs]
    values = {"N": len(pairs)}
    lexical = [name for name in metrics if name in LEXICAL_METRICS]
    if lexical:
        values.update(gem_scores(predictions, [references_of(row) for row in rows], metrics=lexical,
                                 tokenizer=tokenizer))
    per_row = [name for name in ("ser", "knowledge") if name in metrics]
    if per_row and pairs:  # the means of the rows' own scores
        records = [reply_scores(text, row, per_row, noncategorical) for row, text in pairs]
        if "ser" in per_row:
            values["ser"] = ser([record["slot_accuracy"] == 0.0 for record in records])
        if "knowledge" in per_row:
            values.update({name: sum(record[name] for record in records) / len(records)
                           for name in ROW_METRICS["knowledge"]})
    return values


def _default_metrics(rows, schemas):
    """The lexical metrics; SER with schemas; the knowledge overlap where every row has a
    knowledge sentence (FaithDial's, not SGD's rows, also when concatenated)."""
    metrics = list(LEXICAL_METRICS)
    if schemas is not None:
        metrics.append("ser")
    if rows and all(isinstance(row.get("knowledge"), str) for row in rows):
        metrics.append("knowledge")
    return metrics


def score_generation(predictions, rows, *, metrics=None, group_by=None, allow_missing=False, tokenizer="fallback",
                     schemas=None, train_schemas=None, upstream_compat=False, config=None, load_rows=None,
                     per_row=False):
    """Score generated texts against the rows they answer.

    Args:
        predictions: ``{row id: generated text}``.
        rows: the rows scored (a ``datasets.Dataset`` or a list of dicts) of the ``nlg`` or
            ``response`` view or of its ``-chat`` config, each with its ``id``; the
            references are ``references`` (``nlg``), ``response`` (``response``) or the
            assistant message of ``completion`` (``-chat``).
        metrics: names among ``METRICS``: GEM-metrics' lexical metrics (``"bleu"``, ``"rouge"``,
            ``"chrf"``, ``"ter"``, ``"nist"``, ``"local_recall"``, ``"msttr"``, ``"ttr"``,
            ``"yules_i"``, ``"ngrams"``), ``"ser"`` (SGD; needs ``schemas``) and ``"knowledge"``
            (needs a ``knowledge`` column: FaithDial's ``response`` rows). By default all the
            lexical ones, ``"ser"`` when ``schemas`` is given and ``"knowledge"`` when the rows
            have knowledge.
        group_by: a column name or a list of them; every metric is also computed on the rows
            of each value of each column, in the group ``"<column>=<value>"``. ``"seen"`` groups
            SGD turns into ``"seen"`` and ``"unseen"`` services (by ``train_schemas``) and is the
            default when ``"ser"`` is computed; ``"split"`` is the split in the row's dialogue
            id (FaithDial's ``test_random`` and ``test_topic`` rows scored in one call).
        allow_missing: score the rows that have a string prediction and count the others
            (``"misses"``, ``"malformed"``) instead of raising ``ScoringError`` (``rows.pair``).
        tokenizer: ``"fallback"`` (GEM-metrics' own tokeniser, which it uses offline),
            ``"punkt"`` (NLTK's, which it uses where the Punkt data is installed) or a function.
        schemas: SGD's schemas of every split (``schema.json`` entries or ``schema`` rows), for
            the non-categorical slots SER checks.
        train_schemas: the train split's schemas or service names, for ``"seen"``.
        upstream_compat: SER's seen and unseen turns as the upstream script tags them.
        config: the config of the rows (``nlg-chat``, ...), with ``load_rows`` (as
            ``scoring.score`` gives them): the rows of a ``-chat`` config are scored as its
            view's rows of the same ids (references, acts, knowledge), and what is not given
            is loaded: the split's ``schema`` rows for SER (computed by default on ``nlg``),
            the train split's for seen and unseen services.
        load_rows: ``load_rows(config, split=None)``, the rows of another config of the same
            corpus, split and variant.
        per_row: add ``"per_row"``: each scored row's ``{"id", "sentence_chrf", ...}``
            (``row_scores``: ``sentence_chrf`` always, ``slot_accuracy`` with ``"ser"``, the
            knowledge scores with ``"knowledge"``; ``malformed``, ``missing``, ``problems``:
            ``rows.row_record``), in the rows' order; rows without a prediction (``misses``)
            are not scored, so not listed.

    Returns:
        ``{group: {metric: value}}`` with the group ``"all"``, under GEM-metrics' key names
        (``"N"``: the number of predictions scored) plus ``"ser"`` (percent) and
        ``"knowledge_precision"``, ``"knowledge_recall"``, ``"knowledge_f1"``; and
        ``"misses"`` and ``"malformed"``: ``{"count": n, "ids": [...]}`` (``malformed``: a
        prediction that is not a text, not scored, and an output whose reasoning never
        ends, scored as an empty reply).

    Example:
        >>> rows = [{"id": "sgd/test/1_00000/1", "references": ["Which city are you in?"]}]
        >>> score_generation({"sgd/test/1_00000/1": "Which city are you in?"}, rows, metrics=["bleu", "ttr"])["all"]
        {'N': 1, 'ttr': 1.0, 'bleu': 100.0}
    """
    group_by = [group_by] if isinstance(group_by, str) else list(group_by or [])
    if metrics is not None:
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [name for name in metrics if name not in METRICS]
        if unknown:
            raise ScoringError(f"unknown metric(s) {', '.join(map(repr, unknown))}; the metrics are {', '.join(METRICS)}")
    if config is not None and load_rows is not None:
        rows, schemas, train_schemas = _loaded(rows, config, load_rows, metrics, group_by, schemas, train_schemas,
                                               upstream_compat)
    rows = _plain_rows(rows, _columns_needed(group_by, metrics or METRICS))
    if metrics is None:
        metrics = _default_metrics(rows, schemas)
    if "ser" in metrics and schemas is None:
        raise ScoringError("the slot error rate needs SGD's schemas (schemas=...: the schema rows of every split)")
    if "ser" in metrics and not group_by:
        group_by = ["seen"]
    noncategorical = noncategorical_slots(schemas) if schemas is not None else {}
    train_services = train_service_names(train_schemas)
    paired = pair(predictions, rows, allow_missing=allow_missing)
    pairs, problems_of = [], paired.problems
    for row, text in paired:
        if text is not None:
            reply, problems = answer(text)
            if problems:
                problems_of[row["id"]] = problems
            pairs.append((row, reply))

    groups = {OVERALL: pairs}
    for column in group_by:
        by_value = {}
        for row, text in pairs:
            by_value.setdefault(_group_value(row, column, train_services, upstream_compat), []).append((row, text))
        for value in sorted(by_value, key=lambda value: (value is None, str(value))):
            groups[_group_name(column, value)] = by_value[value]
    result = {name: _metrics_of(members, metrics, tokenizer, noncategorical) for name, members in groups.items()}
    if per_row:
        scored = ["chrf"] + [name for name in ("ser", "knowledge") if name in metrics]
        result["per_row"] = [row_record(row["id"], reply_scores(text, row, scored, noncategorical),
                                        problems_of.get(row["id"], [])) for row, text in pairs]
    malformed = counted(problems_of, (MALFORMED,))
    result["misses"] = {"count": len(paired.absent), "ids": paired.absent}
    result["malformed"] = {"count": malformed["malformed"], "ids": malformed["malformed_ids"]}
    return result
