"""Scoring a subset, said as such: ``--only-predicted`` (``score(..., only_predicted=True)``)
scores the rows that have a prediction and says how many of how many; a run where most rows
have no prediction, or most texts cannot be read, is a warning whatever the flags. On the SGD
fixtures, as a user runs the command."""

import json
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue import scoring
from unified_dialogue.scoring.rows import metrics_text
from unified_dialogue.scoring.suspicious import warnings

SCORING = [sys.executable, "-m", "unified_dialogue.scoring"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def scoring_command(cache, predictions, *flags, config="dst-chat", split="validation"):
    return subprocess.run([*SCORING, "--corpus", "sgd", "--config", config, "--split", split, "--data-dir",
                           str(fixture_dir("sgd")), "--checksums", checksums("sgd"), "--cache-dir", cache,
                           "--predictions", str(predictions), *flags], capture_output=True, text=True, timeout=600)


def gold(build, config="dst-chat", split="validation"):
    rows = build("sgd", config)[split]
    return {row["id"]: row["completion"][0]["content"] for row in rows}


def perturbed(texts):
    """Every other text the next row's: figures below 1 that a wrong subset would change."""
    ids, values = list(texts), list(texts.values())
    return {i: values[(k + 1) % len(ids)] if k % 2 else t for k, (i, t) in enumerate(texts.items())}


@pytest.mark.parametrize("config", ["dst-chat", "d3st", "agent-call-chat", "nlu-chat", "nlg-chat"])
def test_the_predicted_rows_are_scored_alone_and_the_summary_says_how_many_of_how_many(build, cache, tmp_path,
                                                                                       config):
    rows = build("sgd", config)["validation"]
    texts = {row["id"]: row["target"] for row in rows} if config == "d3st" else \
        {row["id"]: scoring_text(row) for row in rows}
    sample = dict(list(perturbed(texts).items())[1:6])
    predictions = write_predictions(tmp_path / "p.jsonl", sample)
    done = scoring_command(cache, predictions, "--only-predicted", config=config)
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)
    assert (metrics["rows_scored"], metrics["rows_total"]) == (5, len(rows))
    assert done.stderr.splitlines()[0] == f"scored 5 of the {len(rows)} rows of sgd {config} validation: those " \
                                          f"with a prediction (--only-predicted)"
    # the scorer on those rows alone, as lm-eval's task scores a --limit run's
    subset = rows.select([k for k, row in enumerate(rows) if row["id"] in sample])
    alone = scoring.score_rows(config, sample, subset, load_rows(cache))
    assert metrics_text({k: v for k, v in metrics.items() if not k.startswith("rows_")}) == metrics_text(alone)


def scoring_text(row):
    from unified_dialogue.scoring.tool_calls import gold_text

    return gold_text(row) if "tools" in row else row["completion"][0]["content"]


def load_rows(cache):
    from unified_dialogue import load

    def load_rows(name, split="validation"):
        return load("sgd", name, split=split, data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                    cache_dir=cache)

    return load_rows


def test_most_rows_missing_is_a_warning_with_allow_missing_too(build, cache, tmp_path):
    sample = dict(list(gold(build).items())[:5])
    predictions = write_predictions(tmp_path / "p.jsonl", sample)
    done = scoring_command(cache, predictions, "--allow-missing")
    assert done.returncode == 0 and done.stderr.startswith("warning: 8 of the 13 rows of sgd dst-chat validation "
                                                           "have no prediction (missing: 8)"), done.stderr
    assert "--only-predicted scores the predicted rows alone" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("unreadable, warned", [(8, True), (6, False)])
def test_most_texts_unreadable_is_a_warning_and_half_is_not(build, cache, tmp_path, unreadable, warned):
    texts = {i: ("}} not ] a = state" if k < unreadable else t) for k, (i, t) in enumerate(gold(build).items())}
    done = scoring_command(cache, write_predictions(tmp_path / "p.jsonl", texts))
    assert done.returncode == 0 and json.loads(done.stdout)["malformed"] == unreadable
    line = f"warning: only {13 - unreadable} of the 13 predicted texts could be read whole (malformed: {unreadable};"
    assert done.stderr.startswith(line) if warned else done.stderr == "", done.stderr


def test_score_says_how_many_rows_it_scored_in_python_too(build, cache):
    sample = dict(list(gold(build).items())[:3])
    metrics = scoring.score("sgd", "dst-chat", "validation", sample, data_dir=str(fixture_dir("sgd")),
                            load_options={"checksums": checksums("sgd"), "cache_dir": cache}, only_predicted=True)
    assert (metrics["rows_scored"], metrics["rows_total"], metrics["missing"]) == (3, 13, 0)
    assert metrics["#ALL_SERVICES"]["joint_goal_accuracy"] == 1.0
