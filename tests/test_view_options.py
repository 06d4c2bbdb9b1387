"""Options a user gives a view at load time: declared in the view's record, given as plain
keyword arguments to ``load`` and ``load_dataset``, kept in the cache fingerprint, handed
to the view's rows; an option nobody takes is an error naming the accepted ones; a
command line's ``NAME=VALUE`` becomes a value of the declared type."""

import datasets
import pytest

from conftest import checksums, fixture_dir
from shout_view import OPTIONS, SHOUT, ShoutTiny
from unified_dialogue import load, registry, views
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.core.options import Option, parse_assignments, resolve
from unified_dialogue.testing import ONLY_DATASETS_3

pytestmark = pytest.mark.both_lines


@pytest.fixture
def shout(monkeypatch, tmp_path):
    """``load`` of the tiny corpus with the shout view among its configs."""
    monkeypatch.setattr(registry, "builder_class", lambda corpus: ShoutTiny)

    def _load(config="shout", cache="cache", **options):
        return load("tiny", config, data_dir=str(fixture_dir("tiny")), checksums=checksums("tiny"),
                    cache_dir=str(tmp_path / cache), **options)

    return _load


def utterances(dataset_dict):
    return [row["utterance"] for row in dataset_dict["train"]]


def test_the_record_declares_name_description_key_and_options():
    assert (SHOUT.name, SHOUT.key, SHOUT.options) == ("shout", ("dialogue_id", "turn_index"), OPTIONS)
    assert SHOUT.description == "One row per turn of a speaker, the utterance shouted: a view with options a user sets."
    assert views.VIEWS["nlg"].description.startswith("One row per system turn in GEM's format")
    assert views.VIEWS["dst"].options == ()


def test_options_given_to_load_reach_the_rows(shout):
    assert utterances(shout()) == ["hi there!", "ready?!", "go!"]
    assert utterances(shout(upper=True, repeat=2, mark="?")) == ["HI THERE??", "READY???", "GO??"]
    streamed = shout(upper=True, streaming=True)
    assert [row["utterance"] for row in streamed["train"]] == ["HI THERE!", "READY?!", "GO!"]
    assert utterances(shout(cache="two", upper=True, num_proc=2)) == ["HI THERE!", "READY?!", "GO!"]


def test_options_enter_the_cache_fingerprint_and_defaults_leave_it_alone(tmp_path):
    def cache_dir(**options):
        return ShoutTiny(config_name="shout", data_dir=str(fixture_dir("tiny")), cache_dir=str(tmp_path),
                         **options).cache_dir

    assert cache_dir() != cache_dir(upper=True) != cache_dir(upper=True, repeat=2)
    assert cache_dir(upper=True, repeat=2) == cache_dir(repeat=2, upper=True) == \
        cache_dir(view_options={"repeat": 2, "upper": True})
    plain = ShoutTiny(config_name="shout", data_dir=str(fixture_dir("tiny")), cache_dir=str(tmp_path))
    assert plain.config.view_options is None and plain.view_options == {"upper": False, "mark": "!", "repeat": 1}


@pytest.mark.parametrize("config, options, message", [
    ("shout", {"loud": True}, r"tiny takes no option 'loud' \(its options: base_url, .*, upper, mark, repeat"),
    ("unified", {"upper": True}, r"tiny takes no option 'upper' \(its options: base_url, checksums, verify, "
                                 r"download_timeout; and load's own arguments: data_dir, .*\); upper is an option of shout$"),
    ("shout", {"repeat": "2"}, r"option repeat takes an int, not '2'"),
    ("shout", {"mark": "."}, r"option mark takes one of '!', '\?', '', not '\.'"),
])
def test_an_option_nobody_takes_or_a_wrong_value_is_named(shout, config, options, message):
    with pytest.raises(ConfigError, match=message):
        shout(config, **options)


@pytest.mark.parametrize("config, options, message", [
    ("shout", {"loud": True}, r"the shout config of tiny takes no option 'loud' \(its options: base_url, "
                              r"checksums, verify, download_timeout, upper, mark, repeat\)"),
    ("unified", {"upper": True}, r"the unified config of tiny takes no option 'upper' \(its options: base_url, "
                                 r"checksums, verify, download_timeout; upper is an option of shout\)"),
])
def test_the_builder_itself_names_them_as_load_dataset_calls_it(tmp_path, config, options, message):
    with pytest.raises(ConfigError, match=message):
        ShoutTiny(config_name=config, cache_dir=str(tmp_path), **options)


def test_apply_takes_the_users_options_beside_the_corpuss(shout):
    unified = shout("unified")["train"]
    assert views.apply(SHOUT, unified, speaker="B", upper=True).to_list() == shout(upper=True)["train"].to_list()
    with pytest.raises(ConfigError, match=r"missing: speaker; set at load time: upper, mark, repeat"):
        views.apply(SHOUT, unified, upper=True)


def test_name_value_text_becomes_the_declared_type():
    assert parse_assignments(["upper=true", "repeat=3", "mark=?"], OPTIONS) == {"upper": True, "repeat": 3,
                                                                                  "mark": "?"}
    assert parse_assignments(["mark="], OPTIONS) == {"mark": ""}
    seed = Option("seed", int, None, "Shuffle with this seed; None keeps the schema's order.")
    ratio = Option("ratio", float, 0.5, "A share.")
    assert parse_assignments(["seed=none", "ratio=1"], (seed, ratio)) == {"seed": None, "ratio": 1.0}
    assert resolve({"ratio": 1}, (seed, ratio), "here") == {"seed": None, "ratio": 1.0}
    for assignment, message in [("upper=maybe", "option upper takes true or false, not 'maybe'"),
                                ("repeat=x", "option repeat takes an int, not 'x'"),
                                ("loud=1", r"takes no option 'loud' \(its options: upper, mark, repeat\)"),
                                ("upper", "'upper' is not NAME=VALUE")]:
        with pytest.raises(ConfigError, match=message):
            parse_assignments([assignment], OPTIONS)


@ONLY_DATASETS_3
def test_load_dataset_takes_them_as_keyword_arguments_too(shout, tmp_path):
    script = tmp_path / "shout_tiny" / "shout_tiny.py"
    script.parent.mkdir()
    script.write_text("from shout_view import ShoutTiny\n\n\nclass Shout(ShoutTiny):\n    pass\n")
    loaded = datasets.load_dataset(str(script.parent), "shout", data_dir=str(fixture_dir("tiny")),
                                   checksums=checksums("tiny"), cache_dir=str(tmp_path / "c"),
                                   trust_remote_code=True, upper=True, mark="?")
    assert utterances(loaded) == ["HI THERE?", "READY??", "GO?"]
    with pytest.raises(ConfigError, match="the shout config of tiny takes no option 'loud'"):
        datasets.load_dataset(str(script.parent), "shout", cache_dir=str(tmp_path / "c"), trust_remote_code=True,
                              loud=True)
