"""A ``--limit`` run of lm-eval's command line, rescored from its samples by the scoring
command with ``--only-predicted``, gives lm-eval's figures to the last digit: both score the
rows the run answered through one path (``scoring.score_rows``). Skipped without lm-eval
(``make test-harness`` installs it)."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("lm_eval")

import harness_oracle  # noqa: E402  (registers the model; needs lm-eval)
from conftest import TESTS, checksums, fixture_dir  # noqa: E402
from unified_dialogue.harness import TASKS  # noqa: E402
from unified_dialogue.scoring.configs import CONFIGS  # noqa: E402


def run(*arguments):
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, timeout=900)


def lm_eval(*arguments):
    """lm-eval's own command line, with the test model registered first."""
    start = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import harness_oracle; " \
            "from lm_eval.__main__ import cli_evaluate; sys.argv[0] = 'lm_eval'; cli_evaluate()"
    return run("-c", start, "run", "--model", harness_oracle.NAME, "--include_path", TASKS, *arguments)


@pytest.mark.parametrize("limit", [5, 30])  # 30: more than the fixtures' 12 test rows, as a real --limit 30 run
def test_a_limit_run_rescored_with_only_predicted_gives_lm_evals_figures_to_the_last_digit(tmp_path, limit):
    cache = str(tmp_path / "cache")
    metadata = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}
    out = tmp_path / "out"
    done = lm_eval("--model_args", "perturb=true", "--tasks", "sgd_dst_chat", "--limit", str(limit),
                   "--metadata", json.dumps(metadata), "--output_path", str(out), "--log_samples")
    assert done.returncode == 0, done.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    (samples,) = out.rglob("samples_sgd_dst_chat_*.jsonl")
    reported = json.loads(results.read_text())["results"]["sgd_dst_chat"]
    predictions = tmp_path / "p.jsonl"
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(samples), "--output", str(predictions))
    assert done.returncode == 0, done.stderr
    metrics = tmp_path / "m.json"
    done = run("-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", "dst-chat", "--split", "test",
               "--data-dir", metadata["data_dir"], "--checksums", metadata["checksums"], "--cache-dir", cache,
               "--predictions", str(predictions), "--output", str(metrics), "--only-predicted")
    assert done.returncode == 0, done.stderr
    scored = json.loads(metrics.read_text())
    answered = min(limit, 12)
    assert (scored["rows_scored"], scored["rows_total"]) == (answered, 12)
    assert done.stderr.startswith(f"scored {answered} of the 12 rows of sgd dst-chat test")
    for metric in CONFIGS["dst-chat"].metrics:
        assert reported[f"{metric.name},none"] == metric.of(scored), metric.name  # the same float, every digit
    assert reported["joint_goal_accuracy,none"] < 1.0  # perturbed texts: the figures are not constants
