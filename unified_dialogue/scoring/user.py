"""Scores of a model playing the user (``user-chat``), each text read as the simulated user's
turns are (``chat.user.reading``: its words, and whether it ends the conversation):

- the generation metrics of the words against the user's turn, as ``response-chat`` has
  them (GEM-metrics' lexical metrics, ``scoring.gem``); per row ``turn_chrf``, sacrebleu's
  sentence chrF with its own default, the effective order, rather than the epsilon
  smoothing of ``gem.sentence_chrf`` (GEM-metrics' corpus setting), which scores a short
  turn against itself below 1 ("Yes" for "Yes": 0.5, for the character 4- to 6-grams it
  cannot have), and users often say "Yes";
- ``informed_values_said``: the share of the values the turn informs that the words say,
  by SER's rule (``scoring.ser``: a value of a non-categorical slot as a substring of the
  text, case aside) on the user's ``INFORM`` acts; a value counts in either of its
  spellings (as said, canonical: the goal the model plays holds the canonical one), and
  ``dontcare`` never (it is said in words, not as the value); 1.0 where the turn informs
  none. Case is set aside by case folding, which, unlike SER's lowercasing, gives a text
  the same letters wherever a value stands in it (a final Greek sigma);
- ``stop_accuracy``: 1.0 where the text ends the conversation (the stop marker) exactly
  where the user's turn does.

Per row first (``row_scores``, which the rewards call); the corpus values of the last two
are their means. The acts come from the ``unified`` records of the split, the
non-categorical slots from its ``schema`` rows.
"""

import functools

import numpy as np
import pyarrow as pa

from ..core.features import DONTCARE, INFORM
from ..chat.user import reading
from ..views.goals import canonical
from ..views.turns import Turns, row_ids
from .gem import LEXICAL_METRICS
from .generation import score_generation
from .rows import ScoringError, row_record
from .ser import noncategorical_slots

# The per-row metrics, each in [0, 1]; the first is a reward's default.
ROW_METRICS = ("turn_chrf", "informed_values_said", "stop_accuracy")
MEANS = ROW_METRICS[1:]


def informed_values(acts, noncategorical):
    """The values a user turn's ``INFORM`` acts give non-categorical slots (SER's), each as
    its spellings, ``dontcare`` left out.

    Args:
        acts: the turn's unified acts (``{act, domain, slot_value_table}``).
        noncategorical: ``{service: its non-categorical slot names}`` (``ser.noncategorical_slots``).

    Returns:
        A list of tuples of spellings (as said, then canonical where it differs).

    Example:
        >>> informed_values([{"act": "INFORM", "domain": "Media_1", "slot_value_table": [{"slot": "title",
        ...     "values": [{"value": "The birds movie", "cononical_value": "Suburban Birds"}]}]}],
        ...     {"Media_1": {"title"}})
        [('The birds movie', 'Suburban Birds')]
    """
    found = []
    for act in acts or ():
        if act["act"] != INFORM:
            continue
        for pair in act["slot_value_table"] or ():
            if pair["slot"] not in noncategorical.get(act["domain"], ()):
                continue
            for value in pair["values"] or ():
                if value["value"].casefold() != DONTCARE:
                    found.append(tuple(dict.fromkeys((value["value"], canonical(value)))))
    return found


def informed_said(text, informed):
    """The share of ``informed`` (``informed_values``) that ``text`` says: a value is said
    when one of its spellings, without white space around it (as a model's answer is read),
    is in the text, both case folded (SER's rule); 1.0 without values."""
    text = text.casefold()
    said = [any(spelling.strip().casefold() in text for spelling in spellings) for spellings in informed]
    return sum(said) / len(said) if said else 1.0


def turn_chrf(words, reference):
    """sacrebleu's sentence chrF / 100 of ``words`` against ``reference`` (character
    n-grams, β = 2, the effective order: 1.0 for a text equal to its reference). A turn
    without characters (empty, or spaces: SGD has empty utterances) has no n-grams, which
    sacrebleu scores 0.0 against anything: here a text without characters matches it (1.0)
    and any other does not (0.0)."""
    if not "".join(reference.split()):
        return float(not "".join(words.split()))
    return _turn_metric().sentence_score(words, [reference]).score / 100


@functools.lru_cache(maxsize=None)
def _turn_metric():
    from sacrebleu.metrics import CHRF

    return CHRF(word_order=0)


def reference(completion, acts, noncategorical):
    """What a row is scored against: ``{"words", "ends", "informed"}`` of its gold completion
    (a ``user-chat`` completion's text) and its turn's acts."""
    words, ends, _ = reading(completion)  # a gold text is its own answer
    return {"words": words, "ends": ends, "informed": informed_values(acts, noncategorical)}


def row_scores(text, reference):
    """The per-row scores of one text a model wrote as the user, and its problems.

    Args:
        text: the model's text (the stop marker at its end, where it ends the conversation).
        reference: the row's ``reference``.

    Returns:
        ``(scores, problems)``: ``{"turn_chrf", "informed_values_said", "stop_accuracy"}``,
        each in [0, 1], and ``[]``, or the ``malformed`` problem of a text whose reasoning
        never ends (scored as a turn without words that does not end the conversation).

    Example:
        >>> row_scores("Yes. ###STOP###", {"words": "Yes.", "ends": True, "informed": []})
        ({'turn_chrf': 1.0, 'informed_values_said': 1.0, 'stop_accuracy': 1.0}, [])
    """
    words, ends, problems = reading(text)
    return {"turn_chrf": turn_chrf(words, reference["words"]),
            "informed_values_said": informed_said(words, reference["informed"]),
            "stop_accuracy": float(ends == reference["ends"])}, problems


# ---------------------------------------------------------------- references of a split

def turn_acts(unified, ids):
    """``{row id: the turn's acts}`` for the row ids (``<dialogue_id>/<turn_index>``) of a
    ``unified`` table (a pa.Table or a ``datasets.Dataset``) that ``ids`` hold."""
    table = unified.data.table if hasattr(unified, "data") else unified
    turns = Turns(table.select(["dialogue_id", "dialog"]))
    every = row_ids(turns.of_dialogue("dialogue_id", np.arange(len(turns))), turns.position).to_pylist()
    wanted = [k for k, identifier in enumerate(every) if identifier in ids]
    acts = turns.field("dialog_acts").take(pa.array(wanted, pa.int64())).to_pylist()
    return {every[k]: turn for k, turn in zip(wanted, acts)}


def references_of(rows, unified, schemas):
    """``{row id: reference}`` of ``user-chat`` rows (dicts with ``id`` and ``completion``),
    their turns' acts read in ``unified`` (a table or Dataset of the same split), the
    non-categorical slots in ``schemas`` (``schema`` rows)."""
    noncategorical = noncategorical_slots(schemas)
    acts = turn_acts(unified, {row["id"] for row in rows})
    absent = [row["id"] for row in rows if row["id"] not in acts]
    if absent:
        raise ScoringError(f"{len(absent)} row(s) have no turn in the unified records: {absent[:5]}")
    return {row["id"]: reference(row["completion"][-1]["content"], acts[row["id"]], noncategorical) for row in rows}


def by_split(loaded):
    """A load's parts: ``{split: Dataset}`` (one split: under None)."""
    return dict(loaded) if hasattr(loaded, "keys") else {None: loaded}


def prepare(load, config, split, options, metrics, settings):
    """What the per-row function needs of the rows (its declaration's ``prepare``,
    ``scoring.configs``): ``({row id: reference}, score)``, the references of a split (None:
    every split, each with its own records and schemas); ``score(text, reference)`` is
    ``row_scores``'."""
    rows = by_split(load(config, split, **(options or {})))
    unified, schemas = by_split(load("unified", split)), by_split(load("schema", split))
    index = {}
    for name, part in rows.items():
        index.update(references_of(part.select_columns(["id", "completion"]).to_list(), unified[name], schemas[name]))

    return index, row_scores


# ---------------------------------------------------------------- scoring

def score_user(predictions, rows, *, allow_missing=False, tokenizer="fallback", load_rows=None, per_row=False):
    """Score texts a model wrote as the user against the ``user-chat`` rows they answer.

    Args:
        predictions: ``{row id: text}``.
        rows: the ``user-chat`` rows scored (a ``datasets.Dataset`` or dicts with ``id`` and
            ``completion``).
        allow_missing: score the rows that have a string prediction and count the others
            (``"misses"``, ``"malformed"``) instead of raising ``ScoringError``.
        tokenizer: GEM-metrics' tokeniser, as ``score_generation`` takes it.
        load_rows: ``load_rows(config, split=None)``, the rows of another config of the same
            corpus, split and variant (as ``scoring.score`` gives it): the ``unified``
            records and the ``schema`` rows.
        per_row: add ``"per_row"``: each scored row's ``{"id", "turn_chrf",
            "informed_values_said", "stop_accuracy", "malformed", "missing", "problems"}``
            (``row_scores``, ``rows.row_record``), in the rows' order.

    Returns:
        ``{"all": {"N", <GEM-metrics' lexical metrics>, "informed_values_said",
        "stop_accuracy"}, "misses", "malformed"}`` as ``score_generation`` has them.

    Raises:
        ScoringError, as ``score_generation``; also without ``load_rows``.

    Example:
        >>> score_user({"sgd/test/1_00000/0": "I want a table."}, rows, load_rows=load_rows)["all"]["stop_accuracy"]
        1.0
    """
    if load_rows is None:
        raise ScoringError("user-chat is scored against the user's acts: give load_rows (scoring.score does)")
    rows = rows.select_columns(["id", "completion"]).to_list() if hasattr(rows, "select_columns") else list(rows)
    references = references_of(rows, load_rows("unified"), load_rows("schema"))
    # The words of each text to score_generation, which reads them as their own answer; a
    # text without an answer as it is, which it counts malformed and scores as no reply.
    read = {identifier: reading(text) for identifier, text in predictions.items() if isinstance(text, str)}
    words = {identifier: text if identifier not in read or read[identifier][2] else read[identifier][0]
             for identifier, text in predictions.items()}
    result = score_generation(words, [{"id": row["id"], "response": references[row["id"]]["words"]} for row in rows],
                              metrics=list(LEXICAL_METRICS), allow_missing=allow_missing, tokenizer=tokenizer)
    scored = [(identifier, *row_scores(predictions[identifier], references[identifier]))
              for identifier in references if identifier in read]
    for name in MEANS:
        result["all"][name] = sum(values[name] for _, values, _ in scored) / len(scored) if scored else None
    if per_row:
        result["per_row"] = [row_record(identifier, values, problems) for identifier, values, problems in scored]
    return result


__all__ = ["ROW_METRICS", "informed_said", "informed_values", "prepare", "reference", "row_scores", "score_user"]
