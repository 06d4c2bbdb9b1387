"""The text forms read back are total: any state (``dst-chat``) and any intents and spans
(``nlu-chat``) with any names and values, keywords, separators, quotes, spaces at either
end, empty or very long texts, non-ASCII, names differing only in case, are written
alike by the Python and the Arrow writer and read back exactly. Property-based
(hypothesis; ``HYPOTHESIS_PROFILE=thorough`` runs many more examples)."""

import pyarrow as pa
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402

from unified_dialogue import chat  # noqa: E402
from unified_dialogue.chat import nlu_text, state, text  # noqa: E402
from unified_dialogue.core.answer import OUTPUT_MARKERS, answer  # noqa: E402
from unified_dialogue.core.features import NO_INTENT  # noqa: E402
from unified_dialogue.core.problems import Problem  # noqa: E402

# Texts the forms give a meaning to, and texts near them.
ADVERSARIAL = ["intent", "requested", "none", "None", "NONE", "Intent", "REQUESTED", "intents", "spans", "", " ",
               ";", "|", "=", ":", ",", ".", "/", "[", "]", "[]", '""', "''", '"', "'", "\\", '\\"', "\n", "\r\n",
               "\t", " a ", "a.b", "a b", "a  b", "a/b", "a=b", "a: b", "é", "Città", "日本", "\u2028", "\xa0x\xa0",
               "x\x1f", "a | b", "a; b", '8 o"clock', "'x'", "x" * 3000, "Restaurants_1", "city", "NONE ",
               *OUTPUT_MARKERS, "a</think>b", "x<|return|>"]
CHARACTERS = st.characters(codec="utf-8")
TEXTS = st.one_of(st.sampled_from(ADVERSARIAL), st.text(CHARACTERS, max_size=12),
                  st.text(st.sampled_from(';|=:,.[]"\'\\ \n/aA'), max_size=8))


def unique(strategy, **sizes):
    return st.lists(strategy, unique=True, **sizes)


# ---------------------------------------------------------------- dst-chat

@st.composite
def frames(draw):
    """A turn's frames, in the dst view's shape: distinct services, each with an active
    intent, distinct requested and filled slots."""
    made = []
    for service in draw(unique(TEXTS, max_size=3)):
        intent = draw(st.one_of(st.just(NO_INTENT), TEXTS.filter(lambda t: t not in ("", NO_INTENT))))
        slots = draw(unique(TEXTS, max_size=4))
        made.append({"service": service, "slots": None, "state": {
            "active_intent": intent,
            "requested_slots": draw(unique(TEXTS, max_size=3)),
            "slot_values": [{"slot": slot, "values": draw(st.lists(TEXTS, max_size=3))} for slot in slots]}})
    return made


def schemas_of(turn, categorical):
    """Schema rows holding every name of ``turn``, and decoys differing only in case
    (which the reader must not take for the names written)."""
    rows = []
    for frame in turn:
        found = frame["state"]
        slots = [e["slot"] for e in found["slot_values"]] + found["requested_slots"]
        slots += [s.upper() for s in slots if s.upper() not in slots]
        values = {e["slot"]: e["values"] for e in found["slot_values"]}
        rows.append({"service_name": frame["service"], "intents": [{"name": found["active_intent"]}], "slots": [
            {"name": slot, "is_categorical": categorical,
             "possible_values": sorted({*values.get(slot, []), *(v.swapcase() for v in values.get(slot, []))})}
            for slot in dict.fromkeys(slots)]})
    names = {row["service_name"] for row in rows}
    rows += [{"service_name": n.swapcase(), "intents": [], "slots": []} for n in names if n.swapcase() not in names]
    return rows


def canonical(turn):
    """What the reader gives for ``turn``: requested and filled slots in the writer's order."""
    return [{"service": f["service"], "slots": None, "state": {
        "active_intent": f["state"]["active_intent"],
        "requested_slots": sorted(f["state"]["requested_slots"]),
        "slot_values": sorted(f["state"]["slot_values"], key=lambda e: e["slot"])}} for f in turn]


def frames_table(*rows):
    from unified_dialogue.views import dst as dst_view

    return pa.table({"frames": pa.array(rows, dst_view.SCHEMA.field("frames").type)})


@given(frames(), st.booleans())
def test_any_state_is_written_alike_by_both_writers_and_read_back_exactly(turn, categorical):
    written = state.state_text(turn)
    assert chat.MODULES["dst"].targets(frames_table(turn)).to_pylist() == [written]
    frames_read, problems = state.parse(written, schemas_of(turn, categorical))
    assert problems == []
    assert frames_read == canonical(turn)
    assert answer(written) == (written, [])  # what models wrap an answer in is never part of a gold text
    wrapped = f"<think>\nThe user wants a table.\n</think>\n\n```text\n{written}\n```"
    assert state.parse(wrapped, schemas_of(turn, categorical)) == (frames_read, [])


@given(st.lists(frames(), max_size=4))
def test_the_arrow_writer_gives_each_rows_state_text(rows):
    assert chat.MODULES["dst"].targets(frames_table(*rows)).to_pylist() == [state.state_text(r) for r in rows]


def test_names_equal_to_keywords_are_quoted_and_keywords_stay_bare():
    turn = [{"service": "Homes 2", "slots": None, "state": {
        "active_intent": "none", "requested_slots": ["requested"],
        "slot_values": [{"slot": "intent", "values": ["rent"]}, {"slot": "Intent", "values": []}]}}]
    written = state.state_text(turn)
    assert written == '"Homes 2": intent="none"; requested=["requested"]; "Intent"=[]; "intent"=rent'
    schema = schemas_of(turn, False)
    assert state.parse(written, schema) == (canonical(turn), [])
    # a model's bare keyword is still a keyword, in any case
    lenient, _ = state.parse('homes 2: INTENT=None; Requested=[intent]', [{"service_name": "Homes 2", "intents": [],
                                                                            "slots": [{"name": "intent"}]}])
    assert lenient == []  # an unquoted name with a space is no service name: nothing read
    lenient, _ = state.parse('"homes 2": INTENT=None; Requested=[intent]', [{"service_name": "Homes 2", "intents": [],
                                                                              "slots": [{"name": "intent"}]}])
    assert lenient[0]["state"] == {"active_intent": NO_INTENT, "requested_slots": ["intent"], "slot_values": []}


# ---------------------------------------------------------------- nlu-chat

SPANS = st.fixed_dictionaries({"domain": st.none() | TEXTS, "label": TEXTS, "type": st.none() | TEXTS, "text": TEXTS,
                               "start": st.none(), "end": st.none()})
RECORDS = st.fixed_dictionaries({"intents": st.none() | st.lists(TEXTS, max_size=3),
                                 "spans": st.lists(SPANS, max_size=4)})


def nlu_table(rows):
    from unified_dialogue.views import nlu as nlu_view

    schema = nlu_view.SCHEMA
    return pa.table({name: pa.array([row[name] for row in rows], schema.field(name).type)
                     for name in ("spans", "intents")})


def read(record):
    return {"intents": record["intents"],
            "spans": [{k: span[k] for k in ("domain", "label", "type", "text")} for span in record["spans"]]}


@given(RECORDS)
def test_any_nlu_record_is_written_alike_by_both_writers_and_read_back_exactly(record):
    module = chat.MODULES["nlu"]
    written = module.target(record)
    assert module.targets(nlu_table([record])).to_pylist() == [written]
    assert nlu_text.parse(written) == (read(record), [])
    assert nlu_text.parse(f"```\n{written}\n```") == (read(record), [])
    # with a schema holding its services and slots (and decoys differing in case): the same
    services = {}
    for span in record["spans"]:
        if span["domain"] is not None:
            services.setdefault(span["domain"], set()).update({span["label"], span["label"].swapcase()})
    schema = [{"service_name": s, "intents": [], "slots": [{"name": n} for n in sorted(slots)]}
              for s, slots in services.items()]
    intents = record["intents"] or []
    schema.append({"service_name": "\0holder", "slots": [],
                   "intents": [{"name": i} for i in {*intents, *(i.swapcase() for i in intents)}]})
    assert nlu_text.parse(written, schema) == (read(record), [])


@given(st.lists(RECORDS, max_size=4))
def test_the_arrow_writer_gives_each_rows_nlu_text(rows):
    module = chat.MODULES["nlu"]
    assert module.targets(nlu_table(rows)).to_pylist() == [module.target(row) for row in rows]


@given(st.text(CHARACTERS, max_size=60) | st.sampled_from(ADVERSARIAL))
def test_the_readers_never_raise_on_any_text(written):
    schema = [{"service_name": "Restaurants_1", "intents": [{"name": "FindRestaurants"}],
               "slots": [{"name": "city"}, {"name": "price", "is_categorical": True, "possible_values": ["cheap"]}]}]
    for parse in (state.parse, nlu_text.parse):
        found, problems = parse(written, schema)
        assert all(isinstance(p, Problem) and p.kind for p in problems)


def test_the_nlu_reader_is_lenient_and_says_what_it_cannot_take():
    schema = [{"service_name": "Restaurants_1", "intents": [{"name": "FindRestaurants"}], "slots": [{"name": "city"}]}]
    record, problems = nlu_text.parse("SPANS : restaurants_1.CITY = 'San Jose'\nIntents: findrestaurants", schema)
    assert record == {"intents": ["FindRestaurants"],
                      "spans": [{"domain": "Restaurants_1", "label": "city", "type": None, "text": "San Jose"}]}
    assert problems == []
    record, problems = nlu_text.parse('intents: Book\nspans: Hotels_1.city=X; Restaurants_1.area=Y; oops\nhello',
                                      schema)
    assert [p.kind for p in problems] == ["unknown_intent", "unknown_service", "unknown_slot", "malformed",
                                          "malformed"]
    assert len(record["spans"]) == 2  # kept as written: scored wrong, not dropped
    assert nlu_text.parse('spans: L="cut', None)[0]["spans"][0]["text"] == "cut"
    assert nlu_text.parse(None) == ({"intents": None, "spans": []}, [Problem("malformed", "no text")])


def test_each_name_of_the_text_forms_words_means_one_thing():
    """A name the text forms' modules give a word, a marker or a list of them is the same
    value wherever it is bound (``INTENTS`` was ``intents`` in one and ``[intents]`` in
    another)."""
    from unified_dialogue.core import answer as answer_module, problems
    from unified_dialogue.testing.strategies import text as adversarial
    from unified_dialogue.views import d3st_syntax, d3st_text

    values = {}
    for module in (text, state, nlu_text, d3st_syntax, d3st_text, answer_module, problems, adversarial):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, (str, tuple)):
                values.setdefault(name, {}).setdefault(value, []).append(module.__name__)
    assert {name: meanings for name, meanings in values.items() if len(meanings) > 1} == {}
