"""What each scored config's per-row function needs of the rows, loaded once: a
``prepare(load, config, split, options, metrics, settings)`` per kind of config (named in its
declaration, ``scoring.configs``), giving ``({row id: what scoring the row needs}, score)``
where ``score(text, item)`` is ``(per-row values, problems)``, the scorer's own per-row
function applied. The rewards (``unified_dialogue.rewards``) call them; so can anything that
scores one text at a time.

``load(config, split, **options)`` loads the rows of another config of the same corpus and
variant (``split`` None: every split, each with its own schemas where they matter).
"""

from ..chat import SUFFIX
from ..chat.state import Schemas
from ..core.errors import ConfigError
from . import critic, d3st, dst_chat, generation, nlu, tool_calls
from .dst import service_slots
from .gem import chrf_references
from .rows import ScoringError
from .ser import noncategorical_slots


def plain_rows(load, config, split, options=None, columns=None):
    """The rows of a config as plain dicts, of one split or of every split (ids are unique
    across splits), with only those of ``columns`` they have (the prompts are never read)."""
    loaded = load(config, split, **(options or {}))
    parts = loaded.values() if hasattr(loaded, "keys") else [loaded]
    if columns is not None:
        parts = [part.select_columns([name for name in part.column_names if name in columns]) for part in parts]
    return [row for part in parts for row in part.to_list()]


def by_split(load, config, split, columns):
    """``{split: rows}`` of a config, only ``columns`` of them."""
    loaded = load(config, split)
    parts = loaded if hasattr(loaded, "keys") else {split: loaded}
    return {name: part.select_columns(columns).to_list() for name, part in parts.items()}


def dst_chat_rows(load, config, split, options, metrics, settings):
    """dst-chat: the ``dst`` rows (no context: a text has no spans) with their split's schemas."""
    schemas = by_split(load, "schema", split, ["service_name", "intents", "slots"])
    references = by_split(load, "dst", split, ["id", "dialogue_id", "turn_index", "frames"])
    index = {}
    for name, rows in references.items():
        known, slots_of = Schemas.of(schemas[name]), service_slots(schemas[name])
        index.update((row["id"], (dst_chat.reference_turn(row), known, slots_of)) for row in rows)

    def score(text, item):
        reference, known, slots_of = item
        return dst_chat.row_scores(text, reference, known, slots_of, **settings)

    return index, score


def nlu_chat_rows(load, config, split, options, metrics, settings):
    """nlu-chat: the ``nlu`` rows with their split's schemas, where the corpus has them."""
    references = by_split(load, "nlu", split, ["id", "intents", "spans"])
    try:
        schemas = by_split(load, "schema", split, ["service_name", "intents", "slots"])
    except ConfigError:  # a corpus without schemas (CCPE-M): no name is unknown
        schemas = {}
    index = {}
    for name, rows in references.items():
        known = Schemas.of(schemas[name]) if name in schemas else None
        index.update((row["id"], (row, known)) for row in rows)

    def score(text, item):
        return nlu.score_row(text, *item)

    return index, score


def own_rows(row_scores, read=None, columns=None):
    """A ``prepare`` for a scorer whose per-row function scores a text against a row of the
    config itself: ``row_scores(text, read(row), **settings)`` -> ``(values, problems)``.
    ``read``: what of a row is kept, read once; ``columns``: the columns it needs."""
    def prepare(load, config, split, options, metrics, settings):
        rows = plain_rows(load, config, split, options, columns)
        index = {row["id"]: read(row) if read else row for row in rows}

        def score(text, item):
            return row_scores(text, item, **settings)

        return index, score

    return prepare


d3st_rows = own_rows(d3st.row_scores, d3st.Reference.of, ("id", "legend", "frame"))
tool_call_rows = own_rows(tool_calls.row_scores, tool_calls.gold_of, ("id", "completion", "tools"))
critic_rows = own_rows(critic.row_scores, critic.gold_of, ("id", "label", "completion"))


def generation_rows(load, config, split, options, metrics, settings):
    """nlg, response and their chat configs: the view's rows (references, acts, knowledge),
    the schemas of every split where the slot accuracy is asked for. A metric the rows
    cannot give is refused now, not when the first text is scored."""
    view = config.removesuffix(SUFFIX)
    rows = plain_rows(load, view, split, options if view == config else None,
                      ("id", "references", "target", "response", "completion", "dialog_acts", "service", "knowledge"))
    scored = [name for name, keys in generation.ROW_METRICS.items() if any(key in metrics for key in keys)]
    if "knowledge" in scored and not all(isinstance(row.get("knowledge"), str) for row in rows):
        raise ScoringError(f"{config}: the knowledge scores need a knowledge sentence on every row (FaithDial's "
                           "rows have one); these rows do not")
    noncategorical = None
    if "ser" in scored:
        try:
            noncategorical = noncategorical_slots(plain_rows(load, "schema", split))
        except ConfigError:  # a corpus without schemas
            raise ScoringError(f"{config}: slot_accuracy needs the acts and schemas of SGD; this corpus has no "
                               "schema config") from None
    index = {row["id"]: [row, None] for row in rows}

    def score(text, item):
        row, references = item
        if references is None and "chrf" in scored:  # the references' n-grams, once per row
            references = item[1] = chrf_references(generation.references_of(row))
        return generation.row_scores(text, row, scored, noncategorical, references)

    return index, score
