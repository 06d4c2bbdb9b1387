"""The docs' runnable examples, taken from the docs (and the corpora's cards) and run as
written, so that they cannot rot: each code block after a ``<!-- example: NAME -->`` line, on
the fixtures' copy of SGD or FaithDial (with its checksum table) where the page says
``path/to/sgd`` or ``path/to/FaithDial``, in a fresh folder. Each
example runs in the environment that has what it needs (``make test-rl``, ``make
test-harness``, ``make test-harness-hf``) and is skipped elsewhere; that every marked
example has its test runs everywhere."""

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TESTS, checksums, fixture_dir

ROOT = TESTS.parent
# The pages with examples: the docs and the corpora's cards.
PAGES = sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "loaders").glob("*/card.md")])
MARK = re.compile(r"<!-- example: ([\w-]+) -->\n```(\w+)\n(.*?)```", re.S)
SGD, TABLE = str(fixture_dir("sgd")), checksums("sgd")
FAITHDIAL, FAITHDIAL_TABLE = str(fixture_dir("faithdial")), checksums("faithdial")
# What each example says for a copy of a corpus, and what the test puts there: the fixtures
# are an excerpt, verified against their own checksum table.
COPY = {
    "--data-dir path/to/sgd": f"--data-dir {SGD} --checksums {TABLE}",
    '{"data_dir": "path/to/sgd"}': json.dumps({"data_dir": SGD, "checksums": TABLE}),
    '{"data_dir": {"sgd": "path/to/sgd"}}': json.dumps({"data_dir": {"sgd": SGD}, "checksums": {"sgd": TABLE}}),
    "--data-dir path/to/FaithDial": f"--data-dir {FAITHDIAL} --checksums {FAITHDIAL_TABLE}",
    '{"data_dir": "path/to/FaithDial"}': json.dumps({"data_dir": FAITHDIAL, "checksums": FAITHDIAL_TABLE}),
}
# Each example: the page it is on (from the repository's root) and the modules it needs.
EXAMPLES = {
    "rl-grpo": ("docs/rl.md", ["trl", "torch"]),
    "rl-preference": ("docs/rl.md", ["trl", "torch"]),
    "card-faithdial": ("loaders/faithdial/card.md", ["trl", "torch"]),
    "harness-hf": ("docs/harness.md", ["lm_eval", "torch", "transformers", "accelerate"]),
    "harness-server": ("docs/harness.md", ["lm_eval", "aiohttp", "tenacity"]),
    "environment-grpo": ("docs/environment.md", ["trl", "torch"]),
    "environment-evaluate": ("docs/environment.md", []),
    "environment-simulated": ("docs/environment.md", []),
}


def blocks(name):
    """``[(language, code)]`` of the example's blocks, in the order of its page."""
    page, _ = EXAMPLES[name]
    return [(language, code) for found, language, code in MARK.findall((ROOT / page).read_text(encoding="utf-8"))
            if found == name]


def on_fixtures(code):
    """``code`` with each copy of SGD it names replaced by the fixtures'; at least one."""
    replaced = code
    for written, fixtures in COPY.items():
        replaced = replaced.replace(written, fixtures)
    assert replaced != code and "path/to/" not in replaced, code
    return replaced


def needs(name):
    for module in EXAMPLES[name][1]:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the example's environment: {EXAMPLES[name][0]})")


def environment():
    """The commands of this environment first on PATH (python, lm_eval)."""
    return {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
            "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def shell(code, cwd, timeout=900):
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=cwd, env=environment(), capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (code, done.stderr[-4000:])
    return done


def results(folder):
    (path,) = Path(folder).rglob("results_*.json")
    return json.loads(path.read_text())["results"]


def test_every_marked_example_has_a_test_and_every_test_its_blocks():
    marked = {name for page in PAGES for name, _, _ in MARK.findall(page.read_text(encoding="utf-8"))}
    assert marked == set(EXAMPLES)
    assert all(blocks(name) for name in EXAMPLES)


def test_the_grpo_example_runs_one_step_on_the_tiny_model(tmp_path):
    needs("rl-grpo")
    (sh, build), (python, train) = blocks("rl-grpo")
    assert (sh, python) == ("sh", "python") and "max_steps=1" in train
    shell(on_fixtures(build), tmp_path)
    check = "\nassert trainer.state.global_step == 1\nprint(json.dumps(trainer.state.log_history))\n"
    done = subprocess.run([sys.executable, "-c", "import json\n" + on_fixtures(train) + check], cwd=tmp_path,
                          env=environment(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    logged = {key for entry in json.loads(done.stdout.splitlines()[-1]) for key in entry}
    assert {"rewards/dst-chat_joint_goal_accuracy/mean", "rewards/dst-chat_requested_slots_f1/mean"} <= logged


@pytest.mark.parametrize("name", ["rl-preference", "card-faithdial"])
def test_the_preference_examples_run_one_step_each_on_the_tiny_model(tmp_path, name):
    needs(name)
    (sh, build), *trainings = blocks(name)
    assert sh == "sh" and trainings and all(language == "python" for language, _ in trainings)
    shell(on_fixtures(build), tmp_path)
    for _, train in trainings:
        assert "max_steps=1" in train
        check = "\nassert trainer.state.global_step == 1\n"
        done = subprocess.run([sys.executable, "-c", on_fixtures(train) + check], cwd=tmp_path, env=environment(),
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-4000:]
    trainers = {re.search(r"(\w+Trainer)\(", train).group(1) for _, train in trainings}
    assert trainers == ({"DPOTrainer", "KTOTrainer", "RewardTrainer"} if name == "rl-preference"
                        else {"DPOTrainer", "KTOTrainer"})
    if name == "rl-preference":  # the reward model's scores of both responses of every test row, scored
        scores = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
        assert scores and all(set(score) == {"id", "chosen", "rejected"} for score in scores)


def test_the_hf_example_evaluates_the_tiny_model(tmp_path):
    needs("harness-hf")
    ((language, code),) = blocks("harness-hf")
    assert language == "sh"
    shell(on_fixtures(code), tmp_path)
    reported = results(tmp_path / "results")["sgd_agent_call"]
    assert {"call_accuracy,none", "joint_accuracy,none", "argument_f1,none", "malformed,none"} <= set(reported)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def test_the_server_example_reports_the_gold_figures(tmp_path):
    needs("harness-server")
    (_, serve), (_, evaluate) = blocks("harness-server")
    port = free_port()
    assert "--port 8000" in serve and "127.0.0.1:8000/" in evaluate
    server = subprocess.Popen(["bash", "-c", "exec " + on_fixtures(serve).replace("8000", port)], cwd=tmp_path,
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == f"http://127.0.0.1:{port}/v1", server.stderr.read()
        shell(on_fixtures(evaluate).replace("8000", port), tmp_path)
    finally:
        server.terminate()
        server.communicate(timeout=60)
    reported = results(tmp_path / "results")["sgd_agent_call"]
    assert (reported["call_accuracy,none"], reported["joint_accuracy,none"], reported["argument_f1,none"],
            reported["malformed,none"]) == (1.0, 1.0, 1.0, 0.0)


def test_the_environment_grpo_example_runs_one_step_with_the_environment_on_the_tiny_model(tmp_path):
    needs("environment-grpo")
    (sh, build), (python, train) = blocks("environment-grpo")
    assert (sh, python) == ("sh", "python") and "max_steps=1" in train and "environment_factory=" in train
    shell(on_fixtures(build), tmp_path)
    check = "\nassert trainer.state.global_step == 1\nprint(json.dumps(trainer.state.log_history))\n"
    done = subprocess.run([sys.executable, "-c", "import json\n" + on_fixtures(train) + check], cwd=tmp_path,
                          env=environment(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    logged = {key: value for entry in json.loads(done.stdout.splitlines()[-1]) for key, value in entry.items()}
    for name in ("environment_reward", "environment_transaction_recall"):
        assert 0.0 <= logged[f"rewards/{name}/mean"] <= 1.0
    assert "tools/call_frequency" in logged


def test_the_environment_evaluation_example_gives_the_gold_agent_1(tmp_path):
    ((language, code),) = blocks("environment-evaluate")
    assert language == "python"
    done = subprocess.run([sys.executable, "-c", on_fixtures(code)], cwd=tmp_path, env=environment(),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["reward"] == 1.0


def test_the_simulated_user_example_gives_the_gold_agent_and_the_corpuss_user_1(tmp_path):
    ((language, code),) = blocks("environment-simulated")
    assert language == "python" and "--mode simulated" in code
    done = subprocess.run([sys.executable, "-c", on_fixtures(code)], cwd=tmp_path, env=environment(),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["reward"] == 1.0
    assert summary["failures"] == {"agent": 0, "user": 0}
