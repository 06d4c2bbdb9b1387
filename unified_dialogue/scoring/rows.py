"""What every scorer shares: its error, the checks of the rows and records it reads, reading
a predictions file and JSON references, pairing predictions with the rows they answer, and
writing a metrics file.

A predictions file is JSON Lines, one ``{"id": str, "text": str}`` per line: a model's
output for the row of that ``id`` (every view row has one). A scorer pairs them with the
config's rows (``pair``), turns each text back into what it scores, and returns a dict of
metrics that ``write_metrics`` writes.
"""

import dataclasses
import json

from ..core.errors import UnifiedDialogueError, with_article
from ..core.problems import MALFORMED, UNKNOWN_INTENT, UNKNOWN_SERVICE, UNKNOWN_SLOT, UNKNOWN_TOOL, Problem, unreadable
from ..core.sources import argument


class ScoringError(UnifiedDialogueError, ValueError):
    """Predictions, references or schemas that cannot be scored; the message says where."""


# ---------------------------------------------------------------- checks of records

def fail(where, problem):
    """Raise a ScoringError saying ``where`` (a file, a row, a field) and the ``problem``."""
    raise ScoringError(f"{where}: {problem}")


def get(record, key, kind, where):
    """``record[key]``, which must be of type ``kind`` (an int is not a bool here)."""
    if not isinstance(record, dict) or key not in record:
        fail(where, f"no '{key}'")
    value = record[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        fail(where, f"'{key}' is {with_article(type(value).__name__)}, not {with_article(kind.__name__)}")
    return value


def strings(values, where, what):
    """``values``, which must all be strings (``what`` names them in the error)."""
    if not all(isinstance(value, str) for value in values):
        fail(where, f"{what} must all be strings")
    return values


# ---------------------------------------------------------------- files

def load_json(path):
    """The content of a JSON file; a file that cannot be read or parsed is a ScoringError
    naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        raise ScoringError(f"{path}: cannot be read as JSON: {error}") from None


def json_lines(path, error=None):
    """``(where, value)`` of each non-blank line of a JSON Lines file, ``where`` naming the
    file and line; a file that cannot be read, or a line that is not JSON, raises ``error``
    (default ``ScoringError``) naming them."""
    error = error or ScoringError
    try:
        with open(path, encoding="utf-8-sig") as f:  # a byte order mark (some Windows tools write one) skipped
            lines = list(f)
    except (OSError, UnicodeDecodeError) as problem:
        raise error(f"{path}: cannot be read: {problem}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            yield where, json.loads(line.rstrip("\r\n"))
        except json.JSONDecodeError as problem:  # its position in the line, not in a text of one line
            raise error(f"{where}: not JSON: {problem.msg} at column {problem.colno} (JSON Lines: one JSON "
                        f"object a line)") from None


def read_predictions(path):
    """The predictions of a JSON Lines file, ``{id: text}`` in file order.

    Args:
        path: a file with one ``{"id": str, "text": str}`` object per line (blank lines are
            skipped; other keys are ignored).

    Returns:
        A dict from row id to the predicted text.

    Raises:
        ScoringError naming the file and line of a line that is not such an object, or of an
        id given twice. (A ``text`` that is not a string is read as it is: see ``pair``.)

    Example:
        >>> read_predictions("predictions.jsonl")  # doctest: +SKIP
        {'sgd/test/1_00000/0': '[states] 0=Los Angeles', ...}
    """
    predictions = {}
    for where, record in json_lines(path):
        if not isinstance(record, dict):
            fail(where, f"a JSON {type(record).__name__}, not an object {{\"id\", \"text\"}}")
        for key in ("id", "text"):
            if key not in record:
                fail(where, f"no '{key}' (its keys: {shown(record)}){shape_hint(record)}")
        identifier = get(record, "id", str, where)
        if identifier in predictions:
            fail(where, f"id {identifier!r} is given twice")
        # A text that is not a string is kept: ``pair`` refuses it, naming its id, or
        # counts it as malformed (allow_missing).
        predictions[identifier] = record["text"]
    return predictions


# Keys of a sample in an lm-eval samples file (``--log_samples``).
SAMPLE_KEYS = {"doc_id", "doc", "resps", "filtered_resps"}


def shape_hint(record):
    """What a record without ``id`` or ``text`` looks like, where it tells: a sample of an
    lm-eval samples file, or a whole ``{id: text}`` mapping written as one object."""
    if SAMPLE_KEYS <= set(record):
        return ("; an lm-eval samples file: turn it into predictions with python -m unified_dialogue.harness "
                "samples-to-predictions")
    if len(record) > 2 and all(isinstance(value, str) for value in record.values()):
        return "; one {id: text} object for every row: write one {\"id\": ..., \"text\": ...} object a line instead"
    return "; each line is {\"id\": <row id>, \"text\": <model output>}"


def metrics_text(metrics):
    """The metrics as the DSTC8 evaluator writes them: sorted keys, indented by 2, no final
    newline."""
    return json.dumps(metrics, indent=2, separators=(",", ": "), sort_keys=True)


def write_metrics(metrics, path):
    """Write ``metrics_text`` to ``path`` atomically (``cli.write_atomically``): an
    interrupted run leaves no half-written file."""
    from ..cli import write_atomically

    write_atomically(path, metrics_text(metrics))


def write_per_row(records, path):
    """Per-row scores as JSON Lines, one record a line, written atomically
    (``cli.write_atomically``)."""
    from ..cli import write_atomically

    write_atomically(path, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))


# ---------------------------------------------------------------- pairing

class Pairs(list):
    """``(row, text)`` pairs in row order; ``missing``: the ids of the rows without a
    prediction (their text is None), ``malformed``: those of them whose prediction was not a
    string."""

    def __init__(self, pairs, missing, malformed=()):
        super().__init__(pairs)
        self.missing = missing
        self.malformed = list(malformed)

    def __iter__(self):
        # The one loop every scorer runs over its rows: its progress, as datasets shows its
        # own (off where datasets' bars are, or stderr is not a terminal; none under 2 s).
        from datasets.utils import tqdm

        return iter(tqdm(super().__iter__(), total=len(self), desc="Scoring", unit=" rows", disable=None,
                         delay=2, leave=False))

    @property
    def problems(self):
        """``{id: [a malformed Problem]}`` of the rows whose prediction was not a string."""
        return {identifier: [Problem(MALFORMED, "the prediction is not a text")] for identifier in self.malformed}

    @property
    def absent(self):
        """The ids of the rows without any prediction (``missing`` but not ``malformed``)."""
        malformed = set(self.malformed)
        return [identifier for identifier in self.missing if identifier not in malformed]


def _parts(identifier):
    return str(identifier).split("/")


def looks_like(unknown, known):
    """What the ``unknown`` ids look like, compared with the ``known`` ids of the rows scored,
    as far as ids tell (``<corpus>/<split>/<dialogue>/<turn>[/<frame>]``): another corpus,
    another split, or rows of another config of the same dialogues; "" where they tell
    nothing."""
    known = list(known)
    if not known or not unknown:
        return ""
    prefixes = {tuple(_parts(i)[:2]) for i in known}
    corpora, splits = {p[0] for p in prefixes}, {p[1] for p in prefixes if len(p) > 1}
    theirs = [_parts(i) for i in unknown]
    other_corpora = sorted({p[0] for p in theirs if p[0] not in corpora and len(p) > 2})
    if other_corpora:
        return f"they look like ids of the corpus {', '.join(other_corpora)}, not {', '.join(sorted(corpora))}"
    other_splits = sorted({p[1] for p in theirs if len(p) > 2 and p[1] not in splits})
    if other_splits:
        return (f"they look like ids of the split {', '.join(other_splits)}, not {', '.join(sorted(splits))}: "
                f"score them against that split")
    depth = {len(_parts(i)) for i in known}
    if any(len(p) not in depth for p in theirs):
        return ("they have another shape than this config's ids (one per frame, as d3st's, or one per turn): "
                "ids of another config?")
    dialogues = {"/".join(_parts(i)[:3]) for i in known}
    if any("/".join(p[:3]) in dialogues for p in theirs):
        return ("their dialogues are this split's, but this config has no row for their turns: ids of another "
                "config (user turns for dst, nlu and d3st; system turns for nlg and response)?")
    return "no dialogue of this split has their dialogue ids"


def shown(ids, limit=5):
    """At most ``limit`` ids for a message, and how many more there are."""
    ids = list(ids)
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return ", ".join(map(repr, ids[:limit])) + more


def json_type(value):
    """The JSON name of ``value``'s type, for a message: "a list", "null", "an object"."""
    return json_name(type(value))


def json_name(kind):
    """The JSON name of values of type ``kind``: "a string", "a number", "a list", ..."""
    names = {str: "a string", list: "a list", tuple: "a list", dict: "an object", type(None): "null",
             bool: "a boolean", int: "a number", float: "a number"}
    return names.get(kind, with_article(kind.__name__))


def pair(predictions, rows, *, key="id", allow_missing=False, kind=str):
    """Each row with its predicted text.

    Args:
        predictions: ``{id: text}`` (as ``read_predictions`` returns).
        rows: the rows predicted (a ``datasets.Dataset`` or dicts) with a unique string
            column ``key``.
        key: the column holding each row's id.
        allow_missing: pair a row without a prediction, or whose prediction is not a string,
            with None instead of failing: a counted miss.
        kind: the type of a prediction (``str``, a text; ``preference.read_scores`` gives
            tuples); any other is malformed.

    Returns:
        ``Pairs``: a list of ``(row, text or None)`` in row order, whose ``missing`` lists
        the ids of the rows without a (string) prediction and ``malformed`` those of them
        whose prediction was not a string.

    Raises:
        ScoringError naming a predicted id that no row has, a row id given twice, or
        (without ``allow_missing``) a prediction that is not a string and the rows that have
        no prediction.

    Example:
        >>> pairs = pair({"a": "hi", "c": 3}, [{"id": "a"}, {"id": "b"}, {"id": "c"}], allow_missing=True)
        >>> list(pairs), pairs.missing, pairs.malformed
        ([({'id': 'a'}, 'hi'), ({'id': 'b'}, None), ({'id': 'c'}, None)], ['b', 'c'], ['c'])
    """
    if not isinstance(predictions, dict):
        fail("predictions", f"{with_article(type(predictions).__name__)}, not a dict from row id to text")
    pairs, missing, malformed, seen = [], [], [], set()
    for position, row in enumerate(rows):
        identifier = get(row, key, str, f"row #{position}")
        if identifier in seen:
            fail(f"row #{position}", f"{key} {identifier!r} is the id of an earlier row too")
        seen.add(identifier)
        text = predictions.get(identifier)
        if identifier in predictions and not isinstance(text, kind):
            malformed.append(identifier)
            text = None
        if text is None:
            missing.append(identifier)
        pairs.append((row, text))
    unknown = [identifier for identifier in predictions if identifier not in seen]
    if unknown:
        hint = looks_like(unknown, seen)
        raise ScoringError(f"{len(unknown)} predicted id(s) name no row: {shown(unknown)}"
                           + (f" ({hint})" if hint else ""))
    if malformed and not allow_missing:
        more = f" ({len(malformed)} such: {shown(malformed)})" if len(malformed) > 1 else ""
        fail(f"prediction {malformed[0]!r}",
             f"the text is {json_type(predictions[malformed[0]])}, not {json_name(kind)}{more}"
             + (": give the model's output as one string" if kind is str else "")
             + f" (or {argument('allow_missing')} scores such a text as malformed)")
    if missing and not allow_missing:
        raise ScoringError(f"{len(missing)} row(s) have no prediction: {shown(missing)} "
                           f"({argument('only_predicted')} scores the predicted rows alone, as an lm-eval --limit "
                           f"run does; {argument('allow_missing')} counts the others as misses)")
    return Pairs(pairs, missing, malformed)


# ---------------------------------------------------------------- counts of problems

# The count of the rows with each kind of problem (``core.problems.KINDS``), and its key.
COUNTS = {MALFORMED: "malformed", UNKNOWN_SERVICE: "unknown_services", UNKNOWN_SLOT: "unknown_slots",
          UNKNOWN_INTENT: "unknown_intents", UNKNOWN_TOOL: "unknown_tools"}


def counted(problems_of, kinds=(MALFORMED, UNKNOWN_SERVICE, UNKNOWN_SLOT, UNKNOWN_INTENT)):
    """The counts a scorer reports of its rows' problems.

    Args:
        problems_of: ``{row id: the problems of its text}`` (``core.problems.Problem``s), in
            the order the ids are listed.
        kinds: the kinds the scorer reports (``COUNTS``).

    Returns:
        ``{count: n, count_ids: [...]}`` for each of ``kinds``: ``malformed``, the rows whose
        text is unreadable (``core.problems.unreadable``, the test the rewards' 0.0 uses);
        each ``unknown_<what>``, the rows whose text names such a thing, once each.

    Example:
        >>> counted({"a": [Problem(MALFORMED, "no [states]")], "b": []}, (MALFORMED,))
        {'malformed': 1, 'malformed_ids': ['a']}
    """
    metrics = {}
    for kind in kinds:
        if kind == MALFORMED:
            ids = [identifier for identifier, problems in problems_of.items() if unreadable(problems)]
        else:
            ids = [identifier for identifier, problems in problems_of.items() if any(p.kind == kind for p in problems)]
        metrics.update({COUNTS[kind]: len(ids), f"{COUNTS[kind]}_ids": ids})
    return metrics


def row_record(identifier, values, problems=(), missing=False):
    """One per-row record: ``{"id", <values>, "malformed", "missing", "problems"}``, beside
    ``counted``: a row is in a count's ``*_ids`` exactly when its record says so.

    Args:
        identifier: the row's id.
        values: its per-row values.
        problems: the problems of its text (``core.problems.Problem``s; the scorer's
            ``problems_of`` entry: a prediction that is not a text included).
        missing: whether the row had no prediction (``Pairs.absent``).

    Returns:
        The record: ``malformed``, whether the text could not be read
        (``core.problems.unreadable``: a reward gives it 0.0); ``missing``; ``problems``,
        each in its JSON form ``{"kind", "text", "name"}`` (``kind`` one of
        ``core.problems.KINDS``: the counts are ``COUNTS[kind]``; ``name``, what was unknown).

    Example:
        >>> row_record("a/1", {"f1": 0.5}, [Problem(UNKNOWN_SLOT, "unknown slot 'x'", "x")])["problems"]
        [{'kind': 'unknown_slot', 'text': "unknown slot 'x'", 'name': 'x'}]
    """
    return {"id": identifier, **values, "malformed": unreadable(problems), "missing": missing,
            "problems": [dataclasses.asdict(problem) for problem in problems]}
