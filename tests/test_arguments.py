"""One function sorts given arguments into load arguments, config options and scorer
settings (``api.sort_arguments``): the same mistake is the same ``ConfigError`` with the same
words from ``load``, ``scoring.score``, the rewards and the scoring command, raised before
anything loads, a misspelt name with its close match."""

import re
import subprocess
import sys

import pytest

from unified_dialogue import load, rewards
from unified_dialogue.api import sort_arguments
from unified_dialogue.core.errors import ConfigError, close_match
from unified_dialogue.scoring import score
from unified_dialogue.scoring.configs import CONFIGS


def surfaces(nothing, **given):
    """The same arguments given to each Python surface, as a function raising what it raises."""
    split = given.pop("split", "validation")
    return {"load": lambda: load("sgd", "dst-chat", split=split, data_dir=nothing, **given),
            "score": lambda: score("sgd", "dst-chat", split, {}, data_dir=nothing, **given),
            "reward": lambda: rewards.reward("sgd", "dst-chat", split, data_dir=nothing, **given)}


@pytest.mark.parametrize("given, words", [
    ({"split": "dev"}, "split 'dev': sgd has the splits train, validation, test"),
    ({"split": "valid"}, "split 'valid': sgd has the splits train, validation, test: did you mean 'validation'?"),
    ({"level": "dst"}, "the dst-chat config of sgd takes no option 'level' (its options: base_url, checksums, verify, "
                       "download_timeout, variant, instruction;"),
    ({"datadir": "x"}, "the dst-chat config of sgd takes no option 'datadir': did you mean 'data_dir'?"),
])
def test_the_same_mistake_is_the_same_error_everywhere_before_anything_loads(tmp_path, given, words):
    nothing = str(tmp_path / "nothing here")
    messages = {}
    for name, call in surfaces(nothing, **given).items():
        with pytest.raises(ConfigError) as refused:
            call()
        messages[name] = str(refused.value)
    assert all(message.startswith(words) for message in messages.values()), messages
    # load names its own arguments; score and the rewards add the scorer's settings they take
    assert len({re.sub("; its scorer settings: [^;]*", "", message) for message in messages.values()}) == 1, messages
    assert not (tmp_path / "nothing here").exists()


def test_a_misspelt_setting_names_its_close_match_and_the_settings_there_are(tmp_path):
    with pytest.raises(ConfigError) as refused:
        rewards.reward("sgd", "d3st", "validation", data_dir=str(tmp_path), use_fuzzy=False)
    message = str(refused.value)
    assert "takes no option 'use_fuzzy': did you mean 'use_fuzzy_match'?" in message
    assert "its scorer settings: use_fuzzy_match;" in message  # d3st's per-row function takes that one only
    with pytest.raises(ConfigError, match="its scorer settings: use_fuzzy_match, joint_acc_across_turn;"):
        score("sgd", "d3st", "validation", {}, data_dir=str(tmp_path), joint_acc_across=True)


def test_arguments_are_sorted_to_who_takes_them_and_their_values_checked():
    given = {"data_dir": "copy", "checksums": "t.tsv", "variant": "v2", "level": "dst", "use_fuzzy_match": False}
    sorted_ = sort_arguments("sgd", "d3st", given, split="test", settings=CONFIGS["d3st"].settings)
    assert sorted_.load == {"data_dir": "copy", "checksums": "t.tsv", "variant": "v2"}
    assert (sorted_.options, sorted_.settings) == ({"level": "dst"}, {"use_fuzzy_match": False})
    with pytest.raises(ConfigError, match="option use_fuzzy_match takes a bool, not 'no'"):
        sort_arguments("sgd", "d3st", {"use_fuzzy_match": "no"}, settings=CONFIGS["d3st"].settings)
    assert sort_arguments("sgd", "dst", {}, split="train[:10%]+validation").config == "dst"


@pytest.mark.parametrize("name, names, match", [
    ("datadir", ["data_dir", "cache_dir"], "data_dir"), ("SGD", ["sgd", "ccpe"], "sgd"),
    ("data-dir", ["data_dir"], "data_dir"), ("use_fuzzy", ["use_fuzzy_match"], "use_fuzzy_match"),
    ("pretrained", ["data_dir", "variant", "split"], None), ("timeout", ["download_timeout"], None),
])
def test_close_matches(name, names, match):
    assert close_match(name, names, cutoff=0.8 if name == "timeout" else 0.6) == match


def test_a_misspelt_flag_of_the_command_names_its_close_match(tmp_path):
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", "dst-chat",
                           "--split", "validation", "--predictions", str(tmp_path / "p.jsonl"), "--no-use-fuzzy"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "unrecognized arguments: --no-use-fuzzy (did you mean --no-use-fuzzy-match?)" in done.stderr
