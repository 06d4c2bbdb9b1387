"""vf-eval and vf-validate on the taskset (make test-verifiers), against the stand-in server on
127.0.0.1, in verifiers' subprocess runtime, nothing pushed: in each mode, the gold agent and a
deliberately imperfect one (a missed booking, a wrong argument, an unanswered question) get
from vf-eval the reward and parts the evaluation command gives them, episode by episode, digit
for digit, and the same summary; several rollouts give pass^k by the command's estimator; the
gold is certified on every episode. verifiers' tool loop installs its chat program's packages
from PyPI with uv at its first rollout (cached after)."""

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import checksums, fixture_dir

pytest.importorskip("verifiers.v1", reason="verifiers is installed in make env-verifiers")

from test_environment_user import replaying_user  # noqa: E402

from unified_dialogue import load  # noqa: E402
from unified_dialogue.environment import gold, reward, trials  # noqa: E402
from unified_dialogue.environment.__main__ import main as evaluation  # noqa: E402
from unified_dialogue.environment.results import summary as command_summary  # noqa: E402
from unified_dialogue.integrations.verifiers.summary import lines_of, summary  # noqa: E402
from unified_dialogue.testing.server import StandInServer  # noqa: E402

ID = "unified-dialogue-sgd"
BIN = Path(sys.executable).parent
DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]
# The imperfect agent's mistakes, one per episode of the fixtures.
MISSED, WRONG, UNANSWERED = "sgd/validation/2_00125", "sgd/validation/10_00091", "sgd/validation/5_00103"
# What else of a rollout's line equals the command's: how it ended, the episode's groups, and
# with a simulated user, the user's turns and whose failure.
KEPT = ("id", "ended", "services", "unseen_services", "transactions")
SIMULATED = ("unstated", "user_stated_goal", "failure")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("vf-eval-cache"))


def loaded(cache, config, **options):
    return load("sgd", config, split="validation", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                cache_dir=cache, **options)


def transactional(episode):
    return {f"{call['service']}__{call['intent']}" for call in episode["outcome"]["transactions"]}


def mistaken(episode, steps):
    """``steps`` of the gold agent with the imperfect agent's mistake in ``episode``."""
    names = transactional(episode)
    if episode["dialogue_id"] == MISSED:  # the booking never made
        return [s for s in steps if not any(c["function"]["name"] in names for c in s.get("tool_calls") or ())]
    changed = []
    for step in steps:
        calls = []
        for call in step.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"])
            if episode["dialogue_id"] == WRONG and call["function"]["name"] in names:
                first = next(iter(arguments))
                arguments[first] = f"not {arguments[first]}"
            if episode["dialogue_id"] == UNANSWERED and call["function"]["name"] == gold.SEND:
                arguments["message"] = "Done."
            calls.append({**call, "function": {**call["function"], "arguments": json.dumps(arguments)}})
        content = "Done." if episode["dialogue_id"] == UNANSWERED and not calls else step["content"]
        changed.append({**step, "content": content, "tool_calls": calls})
    return changed


def agent(cache, mode, imperfect=False):
    """The gold agent (or the imperfect one) for the stand-in server, finding its episode by
    the first user message, as ``environment.gold.answerer`` does."""
    episodes = loaded(cache, "episodes", mode="replay" if mode == "simulated" else mode)
    chats = {row["dialogue_id"]: row for row in loaded(cache, "agent-chat")}
    plays = {}
    for episode in episodes:
        steps = gold.actions(chats[episode["dialogue_id"]]["messages"], mode)
        plays[episode["prompt"][-1]["content"]] = mistaken(episode, steps) if imperfect else steps

    def answer(request):
        first = next(m["content"] for m in request["messages"] if m["role"] == "user")
        steps = plays[first.split("\n\n(")[0]]
        return steps[min(sum(m["role"] == "assistant" for m in request["messages"]), len(steps) - 1)]

    return answer


def environment():
    """This environment's commands (vf-eval, uv) first on PATH; nothing fetched by datasets."""
    return {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ["PATH"]]), "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1"}


def vf(command, *arguments, timeout=900):
    done = subprocess.run([str(BIN / command), ID, *arguments], env=environment(), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def vf_eval(server, tmp_path, cache, mode, name, user=None, *more):
    taskset = ["--env.taskset.split", "validation", "--env.taskset.mode", mode, "--env.taskset.data-dir",
               str(fixture_dir("sgd")), "--env.taskset.checksums", checksums("sgd"), "--env.taskset.cache-dir", cache]
    if user is not None:
        taskset += ["--env.taskset.user-base-url", user.base_url, "--env.taskset.user-model", "user"]
    vf("vf-eval", *taskset, "-m", "agent", "--client.base-url", server.base_url, "--client.api-key-var",
       "STAND_IN_KEY", "--no-push", "--no-rich", "-o", str(tmp_path), "--run.name", name, *more)
    return lines_of(str(tmp_path / name))


def command(server, tmp_path, cache, mode, name, user=None):
    out = tmp_path / f"{name}.jsonl"
    user_flags = [] if user is None else ["--user-base-url", user.base_url, "--user-model", "user"]
    assert evaluation(["--base-url", server.base_url, "--model", "agent", "--split", "validation", "--mode", mode,
                       "--out", str(out), "--cache-dir", cache, *DATA, *user_flags]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def numbers(lines):
    return {line["id"]: {part: line[part] for part in reward.PARTS} for line in lines}


@pytest.mark.parametrize("mode", ["ticket", "replay", "simulated"])
def test_vf_eval_gives_the_evaluation_commands_numbers(tmp_path, cache, capsys, mode):
    user_rows = loaded(cache, "user-chat") if mode == "simulated" else None
    found = {}
    for imperfect in (False, True):
        name = "imperfect" if imperfect else "gold"
        more = ["-r", "2"] if imperfect and mode == "ticket" else []
        users = StandInServer(replaying_user(user_rows)) if user_rows else contextlib.nullcontext()
        with StandInServer(agent(cache, mode, imperfect)) as server, users as user:
            expected = command(server, tmp_path, cache, mode, name, user)
            capsys.readouterr()
            got = vf_eval(server, tmp_path, cache, mode, name, user, *more)
        found[name] = got
        rounds = 2 if more else 1
        assert len(got) == rounds * len(expected) == rounds * 3
        assert numbers(got) == numbers(expected)  # digit for digit, each rollout (the last of an episode here)
        assert sorted(json.dumps(numbers([line])) for line in got) == \
            sorted(json.dumps(numbers([line])) for line in expected * rounds)
        kept = KEPT + (SIMULATED if mode == "simulated" else ())
        assert sorted(json.dumps({k: line[k] for k in kept}) for line in got) == \
            sorted(json.dumps({k: line[k] for k in kept}) for line in expected * rounds)
        made = summary(got)
        made.pop("pass_hat_k", None)
        assert made == command_summary(expected * rounds, trials=rounds)
    assert {line["reward"] for line in found["gold"]} == {1.0}
    wrong = numbers(found["imperfect"])
    assert wrong[MISSED]["transaction_recall"] == 0.0 and wrong[WRONG]["transaction_precision"] == 0.0
    assert wrong[UNANSWERED]["requested_values_given"] == 0.0 and {v["reward"] for v in wrong.values()} == {0.0}
    if mode == "ticket":  # two rollouts of each episode: pass^k by the command's estimator
        pairs = [(2, 2 * int(v["reward"])) for v in wrong.values()]
        assert summary(found["imperfect"])["pass_hat_k"] == {str(k): trials.pass_hat(pairs, k) for k in (1, 2)}


def test_vf_validate_certifies_the_gold_on_every_episode(tmp_path, cache):
    vf("vf-validate", "--taskset.split", "validation", "--taskset.data-dir", str(fixture_dir("sgd")),
       "--taskset.checksums", checksums("sgd"), "--taskset.cache-dir", cache, "--runtime.type", "subprocess",
       "-o", str(tmp_path))
    (found,) = tmp_path.rglob("summary.json")
    made = json.loads(found.read_text())
    assert made["checks"]["gold"]["valid"] == made["total"] == 3 and made["valid_rate"] == 1.0
    assert made["checks"]["noop"]["valid"] == 3  # an agent that does nothing earns less than 1.0
