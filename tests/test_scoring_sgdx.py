"""SGD-X's schema sensitivity (``scoring.sgdx``, the command's ``--variant-predictions``): the
mean over the frames of the user turns of the coefficient of variation of a frame's value
across the five variants, for all frames and for the seen and the unseen services' alone;
the public implementations' figures on the same predictions to the last digit
(tests/fixtures/sgdx_reference), and ``statistics``' on hand-made records, on generated ones
and on the command's own per-row files."""

import json
import math
import statistics
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from conftest import FIXTURES, checksums, fixture_dir, write_predictions
from unified_dialogue.scoring.sgdx import coefficients_of_variation, schema_sensitivity, score_variants

VARIANTS = ("v1", "v2", "v3", "v4", "v5")
JGA = "joint_goal_accuracy"
REFERENCE = FIXTURES / "sgdx_reference"


@pytest.mark.parametrize("values", [[1.0, 1.0, 0.0, 1.0, 1.0], [0.2, 0.4, 0.4, 0.9, 1.0], [0.5] * 5])
def test_the_coefficient_of_variation_is_the_sample_deviation_over_the_mean(values):
    (coefficient,) = coefficients_of_variation([[value] for value in values])  # variants x one frame
    assert coefficient == pytest.approx(statistics.stdev(values) / statistics.mean(values), rel=1e-12, abs=1e-15)
    assert math.isnan(coefficients_of_variation([[0.0]] * 5)[0])  # undefined: the frame is left out


def records(frames_by_row, metric=JGA):
    """Per-row records of one variant: ``{row id: [(value, seen), ...]}``, a frame each."""
    return [{"id": identifier, "per_frame": [{"service": "S_1", "seen": seen, metric: value} for value, seen in frames]}
            for identifier, frames in frames_by_row.items()]


def cv(values):
    return statistics.stdev(values) / statistics.mean(values)


def test_each_frame_counts_and_frames_with_mean_zero_or_without_a_value_are_left_out_and_counted():
    first, second = [1.0, 1.0, 0.0, 1.0, 1.0], [0.5, 1.0, 1.0, 1.0, 1.0]
    by_variant = {variant: records({"t/1": [(first[k], True), (second[k], False)], "t/2": [(0.0, True)],
                                    "t/3": [(1.0 if k else None, False)]})
                  for k, variant in enumerate(VARIANTS)}
    result = schema_sensitivity(by_variant, JGA)
    assert result == {"value": pytest.approx(statistics.mean([cv(first), cv(second)]), rel=1e-12), "frames": 2,
                      "frames_mean_zero": 1, "frames_without_value": 1,
                      "seen": {"value": pytest.approx(cv(first), rel=1e-12), "frames": 1, "frames_mean_zero": 1},
                      "unseen": {"value": pytest.approx(cv(second), rel=1e-12), "frames": 1, "frames_mean_zero": 0}}


def test_seen_and_unseen_are_given_where_the_frames_have_both_and_a_frame_needs_every_variant():
    by_variant = {variant: records({"t/1": [(1.0, True)], "t/2": [([1.0, 0.0, 1.0, 1.0, 1.0][k], True)]})
                  for k, variant in enumerate(VARIANTS)}
    by_variant["v5"].append(records({"t/9": [(0.0, False)]})[0])  # one variant's row only: not counted
    assert schema_sensitivity(by_variant, JGA) == {"value": pytest.approx(cv([1.0, 0.0, 1.0, 1.0, 1.0]) / 2),
                                                   "frames": 2, "frames_mean_zero": 0, "frames_without_value": 0}
    assert schema_sensitivity({v: records({}) for v in VARIANTS}, JGA)["value"] is None


VALUE = st.one_of(st.none(), st.integers(0, 100).map(lambda k: k / 100))  # fuzzy scores are hundredths


@given(st.lists(st.tuples(st.lists(VALUE, min_size=5, max_size=5), st.booleans()), max_size=25))
def test_the_figure_is_the_mean_of_the_frames_coefficients_whatever_the_values(frames):
    by_variant = {variant: records({f"r/{n}": [(values[k], seen)] for n, (values, seen) in enumerate(frames)})
                  for k, variant in enumerate(VARIANTS)}
    result = schema_sensitivity(by_variant, JGA)
    given_ = [(values, seen) for values, seen in frames if None not in values]
    kept = [values for values, _ in given_ if sum(values) > 0]
    assert (result["frames"], result["frames_mean_zero"], result["frames_without_value"]) == \
        (len(kept), len(given_) - len(kept), len(frames) - len(given_))
    assert result["value"] == (pytest.approx(statistics.mean(map(cv, kept)), rel=1e-9) if kept else None)
    assert ("seen" in result) == (len({seen for _, seen in given_}) == 2)


# ---------------------------------------------------------------- against the reference implementations

@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize("config", ["dst-chat", "d3st"])
@pytest.mark.parametrize("split", ["test", "validation"])
def test_the_figures_are_the_reference_implementations_to_the_last_digit(cache, config, split):
    predictions = {variant: str(REFERENCE / "predictions" / config / split / f"{variant}.jsonl")
                   for variant in VARIANTS}
    result = score_variants("sgd", config, split, predictions, data_dir=str(fixture_dir("sgd")),
                            load_options={"checksums": checksums("sgd"), "cache_dir": cache})["schema_sensitivity"]
    figures = json.loads((REFERENCE / "figures.json").read_text())
    compared = []
    for implementation, by_config in figures["schema_sensitivity"].items():
        for metric, reference in by_config[config][split].items():
            ours = {"all": result[metric]["value"], **{group: result[metric][group]["value"]
                                                       for group in ("seen", "unseen")}}
            assert ours == reference, (implementation, metric)  # floats read from JSON: every digit
            compared.append((implementation, metric))
    assert len(compared) == 7  # robust-dst-v2's three and ml-pytod's four metrics


# ---------------------------------------------------------------- the command

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
    assert metrics["schema_sensitivity"][JGA]["value"] == 0.0  # the same on every frame under every variant
    spoilt = variant_files(build, tmp_path, config, spoil="v3")
    done = command(cache, *[f"--variant-predictions={v}={p}" for v, p in spoilt.items()], config=config)
    result = json.loads(done.stdout)["schema_sensitivity"][JGA]
    # the same from each variant's own --per-row file (its frames), computed here with statistics
    frames = {}
    for variant, path in spoilt.items():
        per_row = tmp_path / f"rows-{variant}.jsonl"
        assert command(cache, "--variant", variant, "--predictions", str(path), "--per-row", str(per_row),
                       "--output", str(tmp_path / "m.json"), config=config).returncode == 0
        for record in map(json.loads, per_row.read_text().splitlines()):
            for position, frame in enumerate(record["per_frame"]):
                frames.setdefault((record["id"], position), []).append(frame[JGA])
    kept = [values for values in frames.values() if statistics.mean(values) > 0]
    assert result["frames"] == len(kept) and result["frames_mean_zero"] == len(frames) - len(kept)
    assert result["value"] == pytest.approx(statistics.mean(map(cv, kept)), rel=1e-12)
    assert {"seen", "unseen"} <= set(result)  # the fixture split has both
    assert result["value"] > 0


@pytest.mark.parametrize("flags, words", [
    (["--variant-predictions=v1=P"], "schema sensitivity is across every variant of sgd (v1, v2, v3, v4, v5): no "
                                     "predictions of v2, v3, v4, v5"),
    (["--variant-predictions=v9=P"], "no variant v9"),
    (["--variant-predictions=v1"], "--variant-predictions 'v1': not VARIANT=PATH"),
    (["--variant-predictions=v1=P", "--variant-predictions=v1=P"], "variant v1 is given twice"),
    (["--variant-predictions=v1=P", "--variant", "v1"], "--variant goes with --predictions"),
    (["--variant-predictions=v1=P", "--predictions", "P"],
     "--predictions and --variant-predictions together: give one"),
    ([], "give the predictions"),
    (["--variant-predictions=v1=P", "--config", "nlg-chat"], "schema sensitivity is of a per-frame DST metric"),
])
def test_a_mistake_is_one_line_before_anything_loads(tmp_path, flags, words):
    path = write_predictions(tmp_path / "p.jsonl", {"sgd/validation/1_00000/0": ""})
    flags = [flag.replace("P", str(path)) if flag.endswith("P") else flag for flag in flags]
    fresh = tmp_path / "cache"
    done = command(str(fresh), *flags)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert not fresh.exists()
