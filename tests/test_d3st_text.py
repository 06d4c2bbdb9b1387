"""D3ST's text and its way back (``views.d3st_text``): the parser on model text, the legend
and what it refuses, ``encode`` against the view's rows, every gold target of the fixtures
read back to its frame's state, and round trips of any state under any options
(hypothesis)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3st_cases import COMBOS, CORPORA, LEGEND, SPLITS, fixture_rows, options_of, state
from d3st_cases import unified  # noqa: F401 (a fixture)
from unified_dialogue.core.answer import OUTPUT_MARKERS
from unified_dialogue.views.d3st_text import LEVELS, MULTIPLE_CHOICE, Intent, Legend, LegendError, Slot, legend, \
    parse, target

# Properties of pure functions, fast: 3 times the examples of the hypothesis profile
# (HYPOTHESIS_PROFILE: ci by default, thorough for many more).
PURE = settings(max_examples=3 * settings().max_examples)


def test_parse_reads_letters_case_dontcare_several_values_intents_and_requests():
    assert state("[states] 0=sf | san francisco 1=1b 2=2 [intents] i1 [req_slots] 0 2") == (
        {"city": ["sf", "san francisco"], "price": ["Moderate"], "party": ["2"]}, "Book", ["city", "party"], [])
    assert state("[states] 1=cheap [intents] [req_slots]")[0] == {"price": ["Cheap"]}
    assert state("[states] 1=dontcare 0=x=y [intents] i0 [req_slots]")[:2] == (
        {"price": ["dontcare"], "city": ["x=y"]}, "Find")
    assert state("[STATES] 1 = b [intents] i0")[0] == {"price": ["Moderate"]}


@pytest.mark.parametrize("text, problem", [
    ("", "no [states]"),
    ("nothing like a state", "no [states]"),
    ("[states] x 0=a [intents] [req_slots]", "unreadable"),
    ("[states] 1=1z [intents] [req_slots]", "past the 2 options"),
    ('[states] 0="open [intents] [req_slots]', "opens no JSON string"),
    ('[states] 0="a"b [intents] [req_slots]', "after a quoted value"),
    ("[states] 0=a 0=b [intents] [req_slots]", "given twice"),
    ("[states] [intents] ix [req_slots] 5 x", "not an intent id"),
    ("[states] [intents] i0 i1 [req_slots]", "2 intents"),
    ("[states] 0=", "no value"),
    (None, "not a text"),
])
def test_parse_never_raises_on_model_text_and_names_its_problems(text, problem):
    (frame,), problems = parse(text, LEGEND)
    assert frame["service"] == "Food_1"
    assert any(problem in str(p) for p in problems), problems


@pytest.mark.parametrize("change, problem", [
    (dict(slots=(Slot("a", 0, False, (), False), Slot("b", 0, False, (), False))), "slot ids"),
    (dict(intents=(Intent("a", 1),)), "intent ids"),
    (dict(slots=(Slot("a", 0, True, (), True),)), "multiple choice with 0 options"),
    (dict(level="dst_intent_act"), "level"),
    (dict(delimiter=" "), "delimiter"),
])
def test_a_bad_legend_is_an_error_naming_it(change, problem):
    fields = {"service": "S", "slots": (), "intents": (), **change}
    with pytest.raises(LegendError, match=problem):
        Legend(**fields)
    with pytest.raises(LegendError, match="not a legend"):
        Legend.from_row({"service": "S"})


@pytest.mark.parametrize("state_kwargs, problem", [
    (dict(slot_values={"town": ["x"]}), "state slot 'town' is not a slot"),
    (dict(slot_values={}, active_intent="Order"), "active intent 'Order' is not an intent"),
    (dict(slot_values={}, requested_slots=["town"]), "requested slot 'town' is not a slot"),
])
def test_a_state_the_legend_cannot_write_is_an_error_naming_it(state_kwargs, problem):
    from unified_dialogue.views.d3st_text import target

    assert target(LEGEND, {"city": ["sf"]}, "Find", ["party"]) == "[states] 0=sf [intents] i0 [req_slots] 2"
    with pytest.raises(LegendError, match=f"legend of 'Food_1': {problem}"):
        target(LEGEND, **state_kwargs)


def test_encode_gives_the_view_rows_of_single_frame_turns(build):
    from unified_dialogue.views import d3st_text

    records = {r["dialogue_id"]: r for r in build("sgd")["validation"]}
    checked = 0
    for row in build("sgd", "d3st")["validation"]:
        record = records[row["dialogue_id"]]
        turns = record["dialog"][:row["turn_index"] + 1]
        if len(turns[-1]["frames"]) != 1:
            continue  # a two-frame turn's first frame: see the generator's faults
        schema = next(s for s in record["knowledge"]["value"]["schema"] if s["service_name"] == row["service"])
        state = row["frame"]["state"]
        made = d3st_text.encode(d3st_text.legend(schema), d3st_text.descriptions(schema, "full_desc"),
                                [("/".join(t["roles"]), t["utterance"]) for t in turns],
                                {e["slot"]: e["values"] for e in state["slot_values"]}, state["active_intent"],
                                state["requested_slots"])
        assert made == (row["input"], row["target"]), row["id"]
        checked += 1
    assert checked > 10


def norm_state(frame_state, categorical):
    return {sv["slot"]: [v if sv["slot"] in categorical else " ".join(v.lower().split()) for v in sv["values"]]
            for sv in frame_state["slot_values"]}


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_gold_target_parses_back_to_its_frames_state(unified, corpus):
    for combo in COMBOS:
        for split in SPLITS:
            for row in fixture_rows(unified, corpus, split, **options_of(*combo)):
                legend = Legend.from_row(row["legend"])
                (frame,), problems = parse(row["target"], legend)
                assert problems == []
                categorical = {s.name for s in legend.slots if s.categorical}
                ref = row["frame"]["state"]
                assert norm_state(frame["state"], categorical) == norm_state(ref, categorical), row["id"]
                if combo[0] != "dst":
                    assert frame["state"]["active_intent"] == ref["active_intent"]
                    assert frame["state"]["requested_slots"] == ref["requested_slots"]


# ---------------------------------------------------------------- round trips of any state

SPECIAL = ["", " ", "  x ", "a | b", "|", "| a", "a |", "a|b", ";", "a; b", "=", "5=x", "x 5=y", "4:15 pm", ":=",
           '"', '"quoted"', "\\", "\\n", "[states]", "[ intents ]", "[req_slots] 0", "]", "b", "1b", "b)", "1a)",
           "dontcare", "DontCare", "NONE", "line\nbreak", "tab\there", "\r\n", "\u2028", "\x00", "é", "İstanbul",
           "ǅ", "ß", "東京", "🙂", "x" * 3000, *OUTPUT_MARKERS, "a</think>b", "x<|return|>"]
VALUES = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=12),
                   st.lists(st.sampled_from(SPECIAL[:30]), min_size=1, max_size=4).map(" ".join))
DELIMITERS = ["=", ":", ":=", "->", "=>", "~", "/", "#", "_", "-", "@@", "¦", "→", ";", ","]


@st.composite
def schemas_and_states(draw):
    """A service schema with adversarial names, options and values, a state of it, and options."""
    names = draw(st.lists(st.one_of(st.sampled_from(SPECIAL), st.text(max_size=8)), min_size=1, max_size=5,
                          unique=True))
    slots = []
    for name in names:
        categorical = draw(st.booleans())
        options = draw(st.lists(VALUES, max_size=5, unique=True)) if categorical else []
        slots.append({"name": name, "description": draw(VALUES), "is_categorical": categorical,
                      "possible_values": options})
    intents = [{"name": name, "description": draw(VALUES)}
               for name in draw(st.lists(st.text(max_size=6), min_size=1, max_size=3, unique=True))]
    schema = {"service_name": draw(st.text(max_size=10)), "slots": slots, "intents": intents}
    slot_values = {}
    for slot in slots:
        if draw(st.booleans()):
            continue
        options = slot["possible_values"]
        one = st.sampled_from(options + ["dontcare"]) if options else VALUES
        slot_values[slot["name"]] = draw(st.lists(one, max_size=3))
    state = (slot_values, draw(st.sampled_from([i["name"] for i in intents] + ["NONE"])),
             draw(st.lists(st.sampled_from(names), unique=True)))
    options = {"level": draw(st.sampled_from(LEVELS)), "multiple_choice": draw(st.sampled_from(MULTIPLE_CHOICE)),
               "lowercase": draw(st.booleans()), "delimiter": draw(st.sampled_from(DELIMITERS))}
    return schema, state, options, draw(st.one_of(st.none(), st.integers(0, 9)))


def expected_values(legend, slot_values):
    """What parse gives back: every slot with values, lowercased with ``lowercase`` except
    categorical values, which come back in the schema's spelling."""
    slots = {s.name: s for s in legend.slots}
    out = {}
    for name, values in slot_values.items():
        if values:
            slot = slots[name]
            out[name] = [v if slot.categorical and (v in slot.values or v == "dontcare") or not legend.lowercase
                         else v.lower() for v in values]
    return out


@PURE
@given(schemas_and_states())
def test_parse_gives_back_the_state_every_target_is_written_from(drawn):
    schema, (slot_values, intent, requested), options, seed = drawn
    try:
        made = legend(schema, rng=None if seed is None else random.Random(seed), **options)
    except LegendError as error:  # two options that lowercasing makes one: refused, never misread
        assert options["lowercase"] and "lowercase=True makes the values" in str(error)
        return
    text = target(made, slot_values, intent, requested)
    (frame,), problems = parse(text, made)
    assert problems == []
    assert {e["slot"]: e["values"] for e in frame["state"]["slot_values"]} == expected_values(made, slot_values)
    if options["level"] == "dst_intent":
        assert (frame["state"]["active_intent"], frame["state"]["requested_slots"]) == (intent, requested)
    again, _ = parse(text, Legend.from_row(made.to_row()))  # the legend as the rows store it
    assert again == [frame]


@PURE
@given(st.lists(VALUES, min_size=1, max_size=4), st.sampled_from(DELIMITERS), st.booleans())
def test_the_escape_rule_writes_values_that_read_back(values, delimiter, lettered):
    from unified_dialogue.views.d3st_syntax import read_values, written_values

    text = written_values(values, delimiter, lettered and len(values) == 1)
    problems = []
    read, end = read_values(text, 0, lambda t, pos: len(t), problems, "slot 0")
    assert problems == [] and end == len(text)
    assert [value for value, _ in read] == values
