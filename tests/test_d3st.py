"""The d3st view and its way back: rows equal to the D3ST authors' generator (its outputs
for the fixture dialogues are in tests/fixtures/d3st_upstream), where it goes wrong the right
rows by default, the parser, and the scores of gold targets."""

import copy
import gzip
import itertools
import random
import re
from collections import defaultdict

import msgspec
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from loaders.sgd import format, mapping
from unified_dialogue import views
from unified_dialogue.core.answer import OUTPUT_MARKERS
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.scoring.d3st import score_d3st
from unified_dialogue.scoring.rows import ScoringError
from unified_dialogue.tools.d3st_compare import lines
from unified_dialogue.views import d3st
from unified_dialogue.views.d3st_text import LEVELS, MULTIPLE_CHOICE, Intent, Legend, LegendError, Slot, legend, \
    parse, target

# Properties of pure functions, fast: 3 times the examples of the hypothesis profile
# (HYPOTHESIS_PROFILE: ci by default, thorough for many more).
PURE = settings(max_examples=3 * settings().max_examples)
COMBOS = [(level, data_format, choice, lowercase) for level, data_format, choice, lowercase in itertools.product(
    ("dst", "dst_intent"), ("full_desc", "item_name"), ("none", "a", "1a"), (True, False))]
SPLITS = {"train": "train", "validation": "dev", "test": "test"}
CORPORA = ("sgd", "v1", "v2", "v3", "v4", "v5")


def combo_name(level, data_format, choice, lowercase):
    return f"{level}.{data_format}.{choice}.{'lc' if lowercase else 'cs'}"


def options_of(level, data_format, choice, lowercase, **more):
    return {**d3st.DEFAULTS, "level": level, "data_format": data_format, "multiple_choice": choice,
            "lowercase": lowercase, **more}


_UPSTREAM = {}


def upstream(corpus):
    """(combination, folder) -> the generator's lines for the fixture split."""
    if corpus not in _UPSTREAM:
        found = defaultdict(list)
        with gzip.open(FIXTURES / "d3st_upstream" / f"{corpus}.tsv.gz", "rt", encoding="utf-8") as f:
            for line in f:
                combo, folder, rest = line.rstrip("\n").split("\t", 2)
                found[combo, folder].append(rest)
        _UPSTREAM[corpus] = found
    return _UPSTREAM[corpus]


@pytest.fixture(scope="module")
def unified(build):
    """corpus -> split -> the unified records of the fixtures as a pa.Table."""
    out = {}
    for corpus in CORPORA:
        dataset = build("sgd", "unified", **({} if corpus == "sgd" else {"variant": corpus}))
        out[corpus] = {split: dataset[split].data.table for split in SPLITS}
    return out


def rows_of(table, **options):
    return d3st.table(table, **options).to_pylist()


_ROWS = {}


def fixture_rows(unified, corpus, split, **options):
    """The rows of a fixture split, made once per module for each set of options."""
    key = (corpus, split, tuple(sorted(options.items())))
    if key not in _ROWS:
        _ROWS[key] = rows_of(unified[corpus][split], **options)
    return _ROWS[key]


def two_frame_turns(rows):
    return {(r["dialogue_id"], r["turn_index"]) for r in rows if r["frame_index"] > 0}


# ---------------------------------------------------------------- equal to the generator

@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("combo", COMBOS, ids=lambda c: combo_name(*c) if isinstance(c, tuple) else c)
def test_with_upstream_compat_every_line_is_the_generators(unified, corpus, combo):
    for split, folder in SPLITS.items():
        rows = fixture_rows(unified, corpus, split, **options_of(*combo, upstream_compat=True))
        expected = upstream(corpus)[combo_name(*combo), folder]
        assert list(lines(rows, combo[3], compat=True)) == expected, (corpus, split)


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("combo", COMBOS, ids=lambda c: combo_name(*c) if isinstance(c, tuple) else c)
def test_by_default_lines_differ_only_where_the_generator_goes_wrong(unified, corpus, combo):
    """Where they differ, the turn has two frames (the generator writes the last one for
    both) or the generator's target keeps a value its frame's state no longer has."""
    differ = 0
    for split, folder in SPLITS.items():
        rows = fixture_rows(unified, corpus, split, **options_of(*combo))
        compat = fixture_rows(unified, corpus, split, **options_of(*combo, upstream_compat=True))
        expected = upstream(corpus)[combo_name(*combo), folder]
        assert len(rows) == len(expected)
        twos = two_frame_turns(rows)
        for row, old, line, theirs in zip(rows, compat, lines(rows, combo[3], compat=False), expected):
            if line == theirs:
                continue
            differ += 1
            if (row["dialogue_id"], row["turn_index"]) in twos:
                continue
            assert row["input"] == old["input"]
            mine, carried = set(row["target"].split()), set(old["target"].split())
            assert mine < carried, (row["id"], row["target"], old["target"])
    assert differ > 0  # the fixtures have two-frame turns


# ---------------------------------------------------------------- rows

def test_row_ids_columns_and_the_first_row(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids)
    first = rows[0]
    assert first["id"] == f"{first['dialogue_id']}/{first['turn_index']}/{first['frame_index']}"
    assert list(first) == list(d3st.FEATURES)
    assert first["input"].endswith(first["input"].split("[user] ")[-1])
    assert first["target"].startswith("[states]") and "[intents]" in first["target"]
    legend = Legend.from_row(first["legend"])
    assert legend.service == first["service"] == first["frame"]["service"]


def test_two_frames_each_get_their_own_row(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    pair = [r for r in rows if r["original_id"] == "10_00091" and r["turn_index"] == 2]
    assert [r["service"] for r in pair] == ["Music_1", "Media_2"]
    assert [r["frame_index"] for r in pair] == [0, 1]
    assert pair[0]["input"] != pair[1]["input"]
    compat = [r for r in rows_of(unified["sgd"]["validation"], **{**d3st.DEFAULTS, "upstream_compat": True})
              if r["original_id"] == "10_00091" and r["turn_index"] == 2]
    assert [r["service"] for r in compat] == ["Media_2", "Media_2"]
    assert [r["frame"]["service"] for r in compat] == ["Music_1", "Media_2"]  # the references stay true
    assert compat[0]["input"] == compat[1]["input"] == pair[1]["input"]


def test_a_variant_shows_the_variants_names_and_descriptions(unified):
    plain = rows_of(unified["sgd"]["validation"], **{**d3st.DEFAULTS, "data_format": "item_name"})
    v1 = rows_of(unified["v1"]["validation"], **{**d3st.DEFAULTS, "data_format": "item_name"})
    assert [r["id"] for r in plain] == [r["id"] for r in v1]
    assert plain[0]["service"] != v1[0]["service"]
    assert v1[0]["service"].lower() + "-" in v1[0]["input"]


def test_rows_use_nothing_after_their_turn(unified):
    table = unified["sgd"]["train"]
    whole = rows_of(table, **d3st.DEFAULTS)
    record = table.slice(0, 1).to_pylist()[0]
    for cut in range(1, len(record["dialog"]) + 1):
        short = pa.Table.from_pylist([{**record, "dialog": record["dialog"][:cut]}], schema=table.schema)
        for row in rows_of(short, **d3st.DEFAULTS):
            assert row == next(r for r in whole if r["id"] == row["id"])


def test_randomized_items_are_drawn_from_the_seed_and_read_back(unified):
    table = unified["sgd"]["validation"]
    options = {**d3st.DEFAULTS, "randomize_items": True, "seed": 7}
    once, again = rows_of(table, **options), rows_of(table, **options)
    assert once == again
    other = rows_of(table, **{**options, "seed": 8})
    assert [r["input"] for r in once] != [r["input"] for r in other]
    assert [r["input"] for r in once] != [r["input"] for r in rows_of(table, **d3st.DEFAULTS)]
    metrics = score_d3st({r["id"]: r["target"] for r in once}, once)
    assert_all_one(metrics)
    # A batch of one dialogue gives the same rows as the whole table.
    second = table.column("dialogue_id")[1].as_py()
    assert rows_of(table.slice(1, 1), **options) == [r for r in once if r["dialogue_id"] == second]


def test_rand_name_shuffles_each_name_the_same_way_everywhere(unified):
    options = {**d3st.DEFAULTS, "data_format": "rand_name", "seed": 3, "lowercase": False}
    rows = rows_of(unified["sgd"]["validation"], **options)
    assert rows == rows_of(unified["sgd"]["validation"], **options)
    first = rows[0]["input"].split(" i0=")[0]
    assert "0=" in first and rows[0]["input"] != rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)[0]["input"]


@pytest.mark.parametrize("options, problem", [
    ({"level": "dst_intent_act"}, "no level 'dst_intent_act'"),
    ({"multiple_choice": "b"}, "multiple_choice"),
    ({"delimiter": "a"}, "delimiter"),
    ({"delimiter": ""}, "delimiter"),
    ({"seed": "1"}, "seed"),
])
def test_bad_options_are_errors_naming_them(unified, options, problem):
    with pytest.raises(ConfigError, match=problem):
        d3st.table(unified["sgd"]["validation"], **{**d3st.DEFAULTS, **options})


def test_the_config_takes_the_options_at_load_time(build):
    rows = build("sgd", "d3st", level="dst", multiple_choice="none", lowercase=False)["validation"]
    assert "[intents]" not in rows[0]["target"] and rows[0]["legend"]["level"] == "dst"
    v3 = build("sgd", "d3st", variant="v3")["validation"]
    assert v3[0]["legend"]["lowercase"] is True and v3[0]["service"].endswith("3")


# ---------------------------------------------------------------- faults of the generator, on small dialogues

def act(name, slot="", values=()):
    return {"act": name, "slot": slot, "values": list(values), "canonical_values": list(values)}


def user(utterance, *frames):
    return {"speaker": "USER", "utterance": utterance,
            "frames": [{"service": s, "slots": [], "actions": [act("INFORM")],
                        "state": {"active_intent": i, "requested_slots": r, "slot_values": v}} for s, i, r, v in frames]}


def system(utterance, service):
    return {"speaker": "SYSTEM", "utterance": utterance,
            "frames": [{"service": service, "slots": [], "actions": [act("REQ_MORE")]}]}


SCHEMAS = {
    "Food_1": {"service_name": "Food_1", "description": "food", "slots": [
        {"name": "city", "description": "City", "is_categorical": False, "possible_values": []},
        {"name": "price", "description": "Price", "is_categorical": True,
         "possible_values": ["Cheap", "Moderate", "Pricey"]},
        {"name": "party", "description": "Party size", "is_categorical": True, "possible_values": ["1", "2"]}],
        "intents": [{"name": "Find", "description": "Find food", "is_transactional": False,
                     "required_slots": [], "optional_slots": {}, "result_slots": []}]},
    "Film_1": {"service_name": "Film_1", "description": "films", "slots": [
        {"name": "title", "description": "Title", "is_categorical": False, "possible_values": []}],
        "intents": [{"name": "Watch", "description": "Watch a film", "is_transactional": True,
                     "required_slots": [], "optional_slots": {}, "result_slots": []}]},
}
DIALOGUE = {"dialogue_id": "9_00001", "services": ["Food_1", "Film_1"], "turns": [
    user("Cheap food in Ginza | Tokyo", ("Food_1", "Find", [], {"city": ["Ginza | Tokyo"], "price": ["Cheap"]})),
    system("Any price?", "Food_1"),
    user("Any price, and a film", ("Food_1", "Find", ["city"], {"city": ["Ginza | Tokyo"], "price": ["dontcare"]}),
         ("Film_1", "Watch", [], {"title": ["Up"]})),
    system("Sure.", "Food_1"),
    user("Forget the city, in SF", ("Food_1", "NONE", [], {"price": ["dontcare"], "party": ["2"]})),
]}


def small_table():
    dialogue = msgspec.convert(DIALOGUE, format.Dialogue)
    schemas = {name: mapping.service_to_row(msgspec.convert(s, format.Service)) for name, s in SCHEMAS.items()}
    return mapping.dialogues_to_table([dialogue], "test", schemas, {"Food_1"}, "f.json")


def targets(**options):
    return [r["target"] for r in rows_of(small_table(), **{**d3st.DEFAULTS, **options})]


def test_a_state_that_drops_a_slot_drops_it_from_the_target():
    assert targets()[-1] == "[states] 1=dontcare 2=2 [intents] [req_slots]"
    assert targets(upstream_compat=True)[-1] == "[states] 0=ginza | tokyo 1=dontcare 2=2 [intents] [req_slots]"


def test_a_value_holding_the_separator_of_values_is_quoted_and_reads_back_whole():
    assert targets()[0] == '[states] 0="ginza | tokyo" 1=1a [intents] i0 [req_slots]'
    assert targets(upstream_compat=True)[0] == "[states] 0=ginza | tokyo 1=1a [intents] i0 [req_slots]"
    rows = rows_of(small_table(), **d3st.DEFAULTS)
    assert state(rows[0]["target"], Legend.from_row(rows[0]["legend"]))[0]["city"] == ["ginza | tokyo"]


def test_a_longer_delimiter_leaves_intent_ids_whole():
    assert targets(delimiter=":=")[0] == '[states] 0:="ginza | tokyo" 1:=1a [intents] i0 [req_slots]'
    assert targets(delimiter=":=", upstream_compat=True)[0].endswith("[intents] i0: [req_slots]")
    rows = rows_of(small_table(), **{**d3st.DEFAULTS, "delimiter": ":="})
    assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))
    legend = Legend.from_row(rows[0]["legend"])
    for text in ("[states] 0:=x [intents] i0 [req_slots]", "[states] 0:=x [intents] i0: [req_slots]"):
        assert parse(text, legend)[0][0]["state"]["active_intent"] == "Find"


def test_multiple_choice_letters_numbers_and_case():
    rows = rows_of(small_table(), **{**d3st.DEFAULTS, "multiple_choice": "a", "lowercase": False})
    assert "1=Price a) Cheap b) Moderate c) Pricey 2=Party size i0=Find food" in rows[0]["input"]
    assert rows[0]["target"] == '[states] 0="Ginza | Tokyo" 1=1a [intents] i0 [req_slots]'
    assert rows[-1]["target"] == "[states] 1=dontcare 2=2 [intents] [req_slots]"


def test_the_small_dialogue_round_trips():
    rows = rows_of(small_table(), **d3st.DEFAULTS)
    assert [r["service"] for r in rows] == ["Food_1", "Food_1", "Film_1", "Food_1"]
    assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))


# ---------------------------------------------------------------- the way back

LEGEND = Legend("Food_1", (Slot("city", 0, False, (), False), Slot("price", 1, True, ("Cheap", "Moderate"), True),
                           Slot("party", 2, True, ("1", "2"), False)),
                (Intent("Find", 0), Intent("Book", 1)))


def state(text, legend=LEGEND):
    (frame,), problems = parse(text, legend)
    values = {sv["slot"]: sv["values"] for sv in frame["state"]["slot_values"]}
    return values, frame["state"]["active_intent"], frame["state"]["requested_slots"], problems


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


# ---------------------------------------------------------------- scores

def assert_all_one(metrics):
    scores = {group: values for group, values in metrics.items() if isinstance(values, dict)
              and group != "malformed_problems"}
    assert scores and all(v == 1.0 for values in scores.values() for v in values.values()), scores
    assert metrics["malformed"] == metrics["missing"] == metrics["frames_not_predicted"] == 0


@pytest.mark.parametrize("corpus", ["sgd", "v2"])
@pytest.mark.parametrize("combo", [("dst_intent", "full_desc", "1a", True), ("dst", "item_name", "a", False)])
def test_gold_targets_score_1_on_every_metric(unified, corpus, combo):
    for split in SPLITS:
        rows = fixture_rows(unified, corpus, split, **options_of(*combo))
        metrics = score_d3st({r["id"]: r["target"] for r in rows}, rows)
        assert_all_one(metrics)
        assert ("active_intent_accuracy" in metrics["#ALL_SERVICES"]) == (combo[0] != "dst")


def test_malformed_and_missing_outputs_are_counted_with_their_ids(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    predictions = {r["id"]: r["target"] for r in rows}
    bad, gone = rows[0]["id"], rows[1]["id"]
    predictions[bad] = "I think the user wants food"
    del predictions[gone]
    with pytest.raises(ScoringError, match="no prediction"):
        score_d3st(predictions, rows)
    metrics = score_d3st(predictions, rows, allow_missing=True)
    assert metrics["malformed_ids"] == [bad] and metrics["missing_ids"] == [gone]
    assert metrics["malformed_problems"][bad] == ["no [states]"]
    assert metrics["#ALL_SERVICES"]["joint_goal_accuracy"] < 1.0
    with pytest.raises(ScoringError, match="name no row"):
        score_d3st({**predictions, "sgd/validation/nope/0/0": "[states]"}, rows, allow_missing=True)


def test_apply_gives_the_view_of_a_dataset(build):
    dataset = build("sgd", "unified")["validation"]
    rows = views.apply("d3st", dataset, level="dst", seed=random.Random(0).randrange(9))
    assert rows[0]["legend"]["level"] == "dst" and rows.num_rows > 0


def test_the_scoring_command_scores_d3st_outputs_with_the_rows_options(build, tmp_path):
    from conftest import checksums, fixture_dir
    from unified_dialogue.scoring.__main__ import main
    from unified_dialogue.scoring.rows import load_json

    rows = build("sgd", "d3st", variant="v2", level="dst", multiple_choice="a")["validation"]
    predictions = tmp_path / "p.jsonl"
    texts = {r["id"]: r["target"] for r in rows}
    texts[rows[0]["id"]] = "[states] nonsense"
    predictions.write_text("".join(f'{{"id": "{i}", "text": "{t}"}}\n' for i, t in texts.items()), encoding="utf-8")
    output = tmp_path / "metrics.json"
    main(["--corpus", "sgd", "--config", "d3st", "--split", "validation", "--variant", "v2",
          "--option", "level=dst", "--option", "multiple_choice=a", "--data-dir", str(fixture_dir("sgd")),
          "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "cache"), "--predictions", str(predictions),
          "--output", str(output), "--no-use-fuzzy-match"])
    metrics = load_json(output)
    assert metrics["malformed_ids"] == [rows[0]["id"]] and metrics["missing"] == 0
    assert "active_intent_accuracy" not in metrics["#ALL_SERVICES"]
    assert metrics == score_d3st(texts, rows, use_fuzzy_match=False)


# ---------------------------------------------------------------- options and values that could collide

def test_a_colon_delimiter_reads_times_back_and_gold_scores_1(unified):
    """A time holds digits, then the delimiter, at a word start (``at 1:30``, and 1 is a slot
    id): quoted, it reads back whole."""
    dialogue = copy.deepcopy(DIALOGUE)
    dialogue["turns"][0]["frames"][0]["state"]["slot_values"]["city"] = ["at 1:30 pm", "2 : 3"]
    rows = rows_of(table_of(SCHEMAS, dialogue), **{**d3st.DEFAULTS, "delimiter": ":"})
    assert rows[0]["target"].startswith('[states] 0:"at 1:30 pm" | "2 : 3" 1:1a')
    assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))
    for split in SPLITS:
        rows = fixture_rows(unified, "sgd", split, **{**d3st.DEFAULTS, "delimiter": ":"})
        assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))


@pytest.mark.parametrize("delimiter, held", [("|", "|"), ("=|", "|"), ('"', '"'), ("[", "["), ("]=", "]"), (")", ")"),
                                             ("\\", "\\"), ("Ⓐ", "Ⓐ")])
def test_a_delimiter_the_format_uses_is_refused_before_the_build_naming_it(delimiter, held):
    with pytest.raises(ConfigError, match=re.escape(f"d3st option delimiter={delimiter!r}: it holds {held!r}")):
        d3st.check_options(**{**d3st.DEFAULTS, "delimiter": delimiter})


def food(**slot):
    """SCHEMAS with the price slot changed."""
    schemas = copy.deepcopy(SCHEMAS)
    schemas["Food_1"]["slots"][1].update(slot)
    return schemas


def table_of(schemas, dialogue=DIALOGUE):
    dialogue = msgspec.convert(dialogue, format.Dialogue)
    services = {name: mapping.service_to_row(msgspec.convert(s, format.Service)) for name, s in schemas.items()}
    return mapping.dialogues_to_table([dialogue], "test", services, {"Food_1"}, "f.json")


def with_price(value):
    dialogue = copy.deepcopy(DIALOGUE)
    dialogue["turns"][0]["frames"][0]["state"]["slot_values"]["price"] = [value]
    return dialogue


@pytest.mark.parametrize("option", ["Cheap | Fast", "Cheap; Fast", "Cheap;Fast", "1=x", '"Cheap"', "[states] b)"])
@pytest.mark.parametrize("choice", MULTIPLE_CHOICE)
def test_a_categorical_value_holding_separators_reads_back_in_gold_targets(option, choice):
    table = table_of(food(possible_values=[option, "Moderate", "Pricey"]), with_price(option))
    for lowercase in (True, False):
        rows = rows_of(table, **{**d3st.DEFAULTS, "multiple_choice": choice, "lowercase": lowercase})
        (frame,), problems = parse(rows[0]["target"], Legend.from_row(rows[0]["legend"]))
        assert problems == [] and frame["state"]["slot_values"][1] == {"slot": "price", "values": [option]}
        assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))


def test_options_that_lowercase_makes_one_are_refused_when_the_legend_is_built():
    table = table_of(food(possible_values=["Cheap", "cheap", "Pricey"]), with_price("cheap"))
    with pytest.raises(ConfigError, match=r"lowercase=True makes the values 'Cheap' and 'cheap' of slot 'price'"):
        rows_of(table, **{**d3st.DEFAULTS, "multiple_choice": "none"})
    for options in ({"multiple_choice": "none", "lowercase": False}, {}):  # kept apart by case, or by letters
        rows = rows_of(table, **{**d3st.DEFAULTS, **options})
        assert_all_one(score_d3st({r["id"]: r["target"] for r in rows}, rows))


def test_ids_the_legend_lacks_are_counted_unknown_not_malformed(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    predictions = {r["id"]: r["target"] for r in rows}
    slot, intent, broken = rows[0]["id"], rows[1]["id"], rows[2]["id"]
    predictions[slot] = rows[0]["target"].replace("[states]", "[states] 99=x")
    predictions[intent] = rows[1]["target"].replace("[intents]", "[intents] i99")
    predictions[broken] = rows[2]["target"].replace("[states]", '[states] 0="open')
    metrics = score_d3st(predictions, rows)
    assert metrics["unknown_slots_ids"] == [slot] and metrics["unknown_slots"] == 1
    assert metrics["unknown_intents_ids"] == [intent] and metrics["unknown_intents"] == 1
    assert metrics["malformed_ids"] == [broken]
    assert metrics["malformed_problems"][slot] == ["[states]: slot id 99 is not in the legend"]
    _, (problem,) = parse(predictions[slot], Legend.from_row(rows[0]["legend"]))
    assert (problem.kind, problem.name) == ("unknown_slot", "99")


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


def test_an_input_text_a_reader_could_misread_is_quoted():
    schemas = copy.deepcopy(SCHEMAS)
    schemas["Food_1"]["slots"][0]["description"] = "City 1=one"
    schemas["Food_1"]["slots"][1]["possible_values"] = ["Cheap b) x", "Moderate", "[user] y"]
    schemas["Food_1"]["intents"][0]["description"] = ""
    rows = rows_of(table_of(schemas, with_price("Moderate")), **{**d3st.DEFAULTS, "lowercase": False})
    assert rows[0]["input"].startswith('0="City 1=one" 1=Price 1a) "Cheap b) x" 1b) Moderate 1c) "[user] y" '
                                       '2=Party size i0="" [user] ')
    compat = rows_of(table_of(schemas, with_price("Moderate")), **{**d3st.DEFAULTS, "lowercase": False,
                                                                   "upstream_compat": True})
    assert compat[0]["input"].startswith("0=City 1=one 1=Price 1a) Cheap b) x 1b) Moderate 1c) [user] y 2=Party "
                                         "size i0= [user] ")


def test_load_refuses_a_delimiter_before_the_build(tmp_path):
    from conftest import checksums, fixture_dir
    from unified_dialogue import load

    with pytest.raises(ConfigError, match=re.escape("option delimiter='|': it holds '|', which the format itself")):
        load("sgd", "d3st", delimiter="|", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
             cache_dir=str(tmp_path / "cache"))
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.arrow"))
