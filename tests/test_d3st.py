"""The d3st view: rows equal to the D3ST authors' generator (its outputs for the fixture
dialogues are in tests/fixtures/d3st_upstream), where it goes wrong the right rows by
default, its options, and names and values that could collide with the text's marks.
D3ST's text and its parser: tests/test_d3st_text.py; scores: tests/test_scoring_d3st.py."""

import copy
import gzip
import random
import re
from collections import defaultdict

import pyarrow as pa
import pytest

from conftest import FIXTURES
from d3st_cases import (COMBOS, CORPORA, DIALOGUE, SCHEMAS, SPLITS, assert_all_one, combo_name, fixture_rows, food,
                        options_of, rows_of, state, table_of, with_price)
from d3st_cases import unified  # noqa: F401 (a fixture)
from unified_dialogue import views
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.scoring.d3st import score_d3st
from unified_dialogue.tools.d3st_compare import lines
from unified_dialogue.views import d3st
from unified_dialogue.views.d3st_text import MULTIPLE_CHOICE, Legend, parse

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


def test_apply_gives_the_view_of_a_dataset(build):
    dataset = build("sgd", "unified")["validation"]
    rows = views.apply("d3st", dataset, level="dst", seed=random.Random(0).randrange(9))
    assert rows[0]["legend"]["level"] == "dst" and rows.num_rows > 0


# ---------------------------------------------------------------- faults of the generator, on small dialogues

def small_table():
    return table_of(SCHEMAS)


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
