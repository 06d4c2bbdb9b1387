"""SGD-X's schema sensitivity (``scoring.sgdx``, the command's ``--variant-predictions``): the
mean over turns of the coefficient of variation of a turn's per-row value across the five
variants, checked against ``statistics`` on hand-made records and on the command's own
per-row files of each variant, on the SGD fixtures."""

import json
import statistics
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue.scoring.sgdx import TURN_OF, coefficient_of_variation, schema_sensitivity

VARIANTS = ("v1", "v2", "v3", "v4", "v5")
JGA = "joint_goal_accuracy"


@pytest.mark.parametrize("values", [[1.0, 1.0, 0.0, 1.0, 1.0], [0.2, 0.4, 0.4, 0.9, 1.0], [0.5] * 5])
def test_the_coefficient_of_variation_is_the_sample_deviation_over_the_mean(values):
    assert coefficient_of_variation(values) == pytest.approx(statistics.stdev(values) / statistics.mean(values),
                                                             rel=1e-12, abs=1e-15)
    assert coefficient_of_variation([0.0] * 5) is None  # undefined: the turn is left out


def records(values_by_turn, metric=JGA, frames=None):
    """Per-row records of one variant, ``{id: value}``."""
    return [{"id": identifier, metric: value, "frames": 1} for identifier, value in values_by_turn.items()]


def test_turns_with_mean_zero_or_without_a_value_are_left_out_and_counted():
    by_variant = {
        variant: records({"t/1": [1.0, 1.0, 0.0, 1.0, 1.0][k], "t/2": 0.0, "t/3": 1.0 if k else None,
                          "t/4": [0.5, 1.0, 1.0, 1.0, 1.0][k]})
        for k, variant in enumerate(VARIANTS)}
    result = schema_sensitivity(by_variant, JGA, TURN_OF["dst-chat"])
    turn_1, turn_4 = [1.0, 1.0, 0.0, 1.0, 1.0], [0.5, 1.0, 1.0, 1.0, 1.0]
    expected = statistics.mean(statistics.stdev(v) / statistics.mean(v) for v in (turn_1, turn_4))
    assert result == {"value": pytest.approx(expected, rel=1e-12), "turns": 2, "turns_mean_zero": 1,
                      "turns_without_value": 1}


def test_d3st_frames_make_one_turn_each():
    by_variant = {variant: records({"d/0/0": 1.0, "d/0/1": [1.0, 0.0, 1.0, 1.0, 1.0][k]})
                  for k, variant in enumerate(VARIANTS)}
    result = schema_sensitivity(by_variant, JGA, TURN_OF["d3st"])
    turn = [1.0, 0.5, 1.0, 1.0, 1.0]  # the turn's frames averaged under each variant
    assert result["turns"] == 1 and result["value"] == pytest.approx(statistics.stdev(turn) / statistics.mean(turn))


# ---------------------------------------------------------------- the command

@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def command(cache, *flags, config="dst-chat"):
    return subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", config,
                           "--split", "test", "--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                           "--cache-dir", cache, *flags], capture_output=True, text=True, timeout=900)


def variant_files(build, tmp_path, config, spoil=None):
    """A predictions file per variant: the variant's gold texts, those of ``spoil`` cut short."""
    files = {}
    for variant in VARIANTS:
        rows = build("sgd", config, variant=variant)["test"]
        texts = {row["id"]: row["target"] if config == "d3st" else row["completion"][0]["content"] for row in rows}
        if variant == spoil:
            texts = {i: t[: len(t) // 2] if k % 2 else t for k, (i, t) in enumerate(texts.items())}
        files[variant] = write_predictions(tmp_path / f"{config}-{variant}.jsonl", texts)
    return files


@pytest.mark.parametrize("config", ["dst-chat", "d3st"])
def test_the_command_gives_each_variant_their_mean_and_the_schema_sensitivity(build, cache, tmp_path, config):
    gold = variant_files(build, tmp_path, config)
    done = command(cache, *[f"--variant-predictions={v}={p}" for v, p in gold.items()], config=config)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    metrics = json.loads(done.stdout)
    assert set(metrics["variants"]) == set(VARIANTS) and metrics["mean"][JGA] == 1.0
    assert metrics["schema_sensitivity"][JGA]["value"] == 0.0  # the same on every turn under every variant
    spoilt = variant_files(build, tmp_path, config, spoil="v3")
    done = command(cache, *[f"--variant-predictions={v}={p}" for v, p in spoilt.items()], config=config)
    result = json.loads(done.stdout)["schema_sensitivity"][JGA]
    # the same from each variant's own --per-row file, computed here with statistics
    turns = {}
    for variant, path in spoilt.items():
        per_row = tmp_path / f"rows-{variant}.jsonl"
        assert command(cache, "--variant", variant, "--predictions", str(path), "--per-row", str(per_row),
                       "--output", str(tmp_path / "m.json"), config=config).returncode == 0
        for record in map(json.loads, per_row.read_text().splitlines()):
            turns.setdefault(TURN_OF[config](record["id"]), {}).setdefault(variant, []).append(record[JGA])
    values = [[statistics.mean(by_variant[v]) for v in VARIANTS] for by_variant in turns.values()]
    kept = [v for v in values if statistics.mean(v) > 0]
    assert result["turns"] == len(kept) and result["turns_mean_zero"] == len(values) - len(kept)
    assert result["value"] == pytest.approx(statistics.mean(statistics.stdev(v) / statistics.mean(v) for v in kept),
                                            rel=1e-12)
    assert result["value"] > 0


@pytest.mark.parametrize("flags, words", [
    (["--variant-predictions=v1=P"], "schema sensitivity is across every variant of sgd (v1, v2, v3, v4, v5): no "
                                     "predictions of v2, v3, v4, v5"),
    (["--variant-predictions=v9=P"], "no variant v9"),
    (["--variant-predictions=v1"], "--variant-predictions 'v1': not VARIANT=PATH"),
    (["--variant-predictions=v1=P", "--variant-predictions=v1=P"], "variant v1 is given twice"),
    (["--variant-predictions=v1=P", "--variant", "v1"], "--variant goes with --predictions"),
    (["--variant-predictions=v1=P", "--predictions", "P"], "give the predictions: --predictions PATH, or"),
    ([], "give the predictions"),
    (["--variant-predictions=v1=P", "--config", "nlg-chat"], "schema sensitivity is of a per-turn DST metric"),
])
def test_a_mistake_is_one_line_before_anything_loads(tmp_path, flags, words):
    path = write_predictions(tmp_path / "p.jsonl", {})
    flags = [flag.replace("P", str(path)) if flag.endswith("P") else flag for flag in flags]
    fresh = tmp_path / "cache"
    done = command(str(fresh), *flags)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert not fresh.exists()
