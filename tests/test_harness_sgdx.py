"""The group ``unified_dialogue_sgd_x`` reports SGD-X's schema sensitivity: its one task runs
each row under the five variants, and its figures are the scoring command's
``--variant-predictions`` figures of the same texts, to the last digit, a ``--limit`` run's
too. Skipped without lm-eval (``make test-harness``)."""

import json
import subprocess
import sys

import pytest

lm_eval = pytest.importorskip("lm_eval")

import harness_oracle  # noqa: E402  (registers the model; needs lm-eval)
from conftest import checksums, fixture_dir  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from unified_dialogue.core.errors import ConfigError  # noqa: E402
from unified_dialogue.harness import TASKS  # noqa: E402

TASK = "sgd_dst_chat_sgd_x"
VARIANTS = ("v1", "v2", "v3", "v4", "v5")
HEADLINE = ("joint_goal_accuracy", "average_goal_accuracy", "active_intent_accuracy", "requested_slots_f1")


@pytest.fixture(scope="module")
def metadata(tmp_path_factory):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
            "cache_dir": str(tmp_path_factory.mktemp("cache"))}


def evaluate(metadata, **kwargs):
    return lm_eval.simple_evaluate(model=harness_oracle.NAME, model_args={"perturb": True},
                                   tasks=["unified_dialogue_sgd_x"], apply_chat_template=True, log_samples=True,
                                   task_manager=TaskManager(include_path=TASKS, metadata=metadata), **kwargs)


def run(*arguments):
    return subprocess.run([sys.executable, "-m", *arguments], capture_output=True, text=True, timeout=600)


def samples_file(samples, tmp_path):
    """The samples as lm-eval's --log_samples writes them."""
    path = tmp_path / f"samples_{TASK}.jsonl"
    path.write_text("".join(json.dumps(sample, default=str) + "\n" for sample in samples))
    return path


def rescored(metadata, samples, tmp_path, *flags):
    """The scoring command's figures of the samples' texts: a predictions file per variant
    (samples-to-predictions --variant), then --variant-predictions."""
    samples, paths = samples_file(samples, tmp_path), {variant: tmp_path / f"{variant}.jsonl" for variant in VARIANTS}
    for variant, path in paths.items():
        done = run("unified_dialogue.harness", "samples-to-predictions", str(samples), "--variant", variant,
                   "--output", str(path))
        assert done.returncode == 0, done.stderr
    output = tmp_path / "metrics.json"
    done = run("unified_dialogue.scoring", "--corpus", "sgd", "--config", "dst-chat", "--split", "test",
               "--data-dir", metadata["data_dir"], "--checksums", metadata["checksums"],
               "--cache-dir", metadata["cache_dir"], "--output", str(output), *flags,
               *(argument for variant, path in paths.items() for argument in ("--variant-predictions", f"{variant}={path}")))
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text())


def expected(scored):
    figures = {metric: scored["mean"][metric] for metric in HEADLINE}
    figures |= {f"schema_sensitivity_{metric}": scored["schema_sensitivity"][metric]["value"] for metric in HEADLINE}
    jga = scored["schema_sensitivity"]["joint_goal_accuracy"]
    figures |= {f"schema_sensitivity_joint_goal_accuracy_{group}": jga.get(group, {}).get("value")
                for group in ("seen", "unseen")}  # given where the rows scored have both
    figures |= {f"joint_goal_accuracy_{v}": scored["variants"][v]["#ALL_SERVICES"]["joint_goal_accuracy"]
                for v in VARIANTS}
    figures["malformed"] = sum(scored["variants"][v]["malformed"] for v in VARIANTS)
    # lm-eval's nan for a metric the rows do not give (no frame with a value under every variant)
    return {name: repr(float("nan") if value is None else float(value)) for name, value in figures.items()}


def reported(results):
    return {key.split(",")[0]: repr(value) for key, value in results["results"][TASK].items()
            if key.endswith(",none") and "_stderr" not in key}  # repr: every digit


def test_the_groups_task_reports_the_scoring_commands_schema_sensitivity_to_the_last_digit(metadata, tmp_path):
    results = evaluate(metadata)
    samples = results["samples"][TASK]
    assert sorted((s["doc"]["variant"], s["doc"]["id"]) for s in samples) == \
        sorted((v, i) for v in VARIANTS for i in {s["doc"]["id"] for s in samples})  # each row under each variant
    figures = reported(results)
    assert figures == expected(rescored(metadata, samples, tmp_path))
    assert float(figures["schema_sensitivity_joint_goal_accuracy"]) > 0  # texts perturbed differently under each variant
    assert all(float(figures[f"schema_sensitivity_joint_goal_accuracy_{group}"]) >= 0 for group in ("seen", "unseen"))
    assert results["higher_is_better"][TASK]["schema_sensitivity_joint_goal_accuracy"] is False


def test_a_limit_run_takes_whole_turns_and_is_rescored_with_only_predicted(metadata, tmp_path):
    results = evaluate(metadata, limit=15)
    samples = results["samples"][TASK]
    turns = {s["doc"]["id"] for s in samples}
    assert len(turns) == 3 and len(samples) == 15  # a turn's five variants next to one another
    assert reported(results) == expected(rescored(metadata, samples, tmp_path, "--only-predicted"))


def test_a_variant_in_the_metadata_is_refused_naming_the_key(metadata):
    with pytest.raises(ConfigError, match="--metadata key 'variant': this task runs every variant"):
        TaskManager(include_path=TASKS, metadata={**metadata, "variant": "v1"}).load([TASK])


def test_samples_of_every_variant_need_one_chosen(metadata, tmp_path):
    samples = samples_file(evaluate(metadata, limit=5)["samples"][TASK], tmp_path)
    done = run("unified_dialogue.harness", "samples-to-predictions", str(samples))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "samples of every variant (v1, v2, v3, v4, v5): choose one with --variant" in done.stderr
    done = run("unified_dialogue.harness", "samples-to-predictions", str(samples), "--variant", "v6")
    assert done.returncode == 2 and "no sample of variant 'v6' (variants: v1, v2, v3, v4, v5)" in done.stderr
