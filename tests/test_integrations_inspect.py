"""inspect-ai's tasks of the environment (unified_dialogue.integrations.inspect) against the
evaluation command, on the fixtures' episodes: the gold agent and an imperfect scripted one (a
booking never made, a wrong argument, a requested value never told), served by the stand-in
server through inspect's openai-api provider and played by its mockllm model, earn in inspect
the reward and every part the command gives them, digit for digit, and the command's summary
as the metrics; epochs give pass^k with the command's estimator (``make test-inspect``)."""

import itertools
import json

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ChatCompletionChoice, ModelOutput, ModelUsage, get_model  # noqa: E402

from conftest import checksums, fixture_dir  # noqa: E402
from unified_dialogue import load  # noqa: E402
from unified_dialogue.environment import gold, play, reward  # noqa: E402
from unified_dialogue.environment.__main__ import main  # noqa: E402
from unified_dialogue.environment.trials import pass_hat_k  # noqa: E402
from unified_dialogue.integrations.inspect import sgd_replay, sgd_simulated, sgd_ticket  # noqa: E402
from unified_dialogue.integrations.inspect.bridge import chat_message  # noqa: E402
from unified_dialogue.integrations.inspect.scores import flat  # noqa: E402
from unified_dialogue.testing.server import StandInServer  # noqa: E402
from unified_dialogue.testing.server import gold as replaying  # noqa: E402

TASKS = {"ticket": sgd_ticket, "replay": sgd_replay, "simulated": sgd_simulated}
SCORER = "environment_reward"
SERVED = itertools.count()


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
            "cache_dir": str(tmp_path_factory.mktemp("inspect-cache"))}


def rows_of(copy, mode):
    episodes = load("sgd", "episodes", split="validation", mode="replay" if mode == "simulated" else mode, **copy)
    chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split="validation", **copy)}
    return [(row, chats[row["dialogue_id"]]) for row in episodes]


def imperfect(rows, mode):
    """The gold agent, but: in the first dialogue with a transaction its bookings are called
    without their arguments (refused: never made), in the next dialogue the first call's first
    argument is wrong, and in the third the final answer tells nothing."""
    answer = gold.answerer(rows, mode)
    ordered = sorted(rows, key=lambda pair: not pair[0]["outcome"]["transactions"])
    booking, wrong, silent = (row["prompt"][-1]["content"] for row, _ in ordered[:3])
    assert ordered[0][0]["outcome"]["transactions"]  # the fixtures hold each case
    booked = {(c["service"], c["intent"]) for row, _ in rows for c in row["outcome"]["transactions"]}

    def changed(request):
        message = json.loads(json.dumps(answer(request)))
        first_user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        calls = message.get("tool_calls") or []
        done = sum(m["role"] == "assistant" for m in request["messages"])
        for call in calls:
            service, _, intent = call["function"]["name"].partition("__")
            if first_user == booking and (service, intent) in booked:
                call["function"]["arguments"] = "{}"
        if first_user == wrong and calls and done == 0:
            arguments = json.loads(calls[0]["function"]["arguments"])
            if arguments:
                arguments[next(iter(arguments))] = "Nowhere at all"
            calls[0]["function"]["arguments"] = json.dumps(arguments)
        if first_user == silent and not calls:
            message["content"] = "Done."
        return message

    return changed


AGENTS = {"gold": gold.answerer, "imperfect": imperfect}


def command(server, mode, copy, out, user_server=None):
    """The evaluation command's lines by id, and its summary."""
    user = ["--user-base-url", user_server.base_url, "--user-model", "corpus"] if user_server else []
    assert main(["--base-url", server.base_url, "--model", "stand-in", "--split", "validation", "--mode", mode,
                 "--out", str(out), "--summary", str(out) + ".summary", *user,
                 *(f"--{name.replace('_', '-')}={value}" for name, value in copy.items())]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {line["id"]: line for line in lines}, json.loads((out.parent / (out.name + ".summary")).read_text())


def inspect_run(mode, copy, model, log_dir, **options):
    (log,) = inspect_eval(TASKS[mode], task_args={"split": "validation", **copy}, model=model, log_dir=str(log_dir),
                          display="none", max_retries=0, timeout=60, **options)  # an error fails at once
    assert log.status == "success", log.error
    return log


def per_sample(log):
    return {sample.id: sample.scores[SCORER] for sample in log.samples}


def metrics(log):
    (scores,) = [s for s in log.results.scores if s.name == SCORER]  # the summary, its keys flat
    return {name: m.value for name, m in scores.metrics.items()}


def assert_same(log, lines, summary):
    scores = per_sample(log)
    assert set(scores) == set(lines)
    for key, line in lines.items():
        assert scores[key].value == {part: line[part] for part in reward.PARTS}, key
        for field in ("services", "unseen_services", "transactions", "ended", "failure", "unstated"):
            assert scores[key].metadata.get(field) == line.get(field), (key, field)
    # the command's summary of its lines (what it adds of the split, such as the episodes left
    # out, is no metric of the samples), as inspect's metrics give it
    summarised = flat(play.summary(list(lines.values())))
    assert summarised.items() <= flat(summary).items()
    shown = metrics(log)
    for name, value in summarised.items():
        assert shown[name] == value, name


@pytest.fixture
def stand_in(monkeypatch):
    """Serve an answer function on 127.0.0.1 as inspect's ``openai-api/<name>/stand-in``, a
    name of its own (inspect keeps a model by name: a later test would reach a stopped server)."""
    servers = []

    def serve(answer, role="agent"):
        server = StandInServer(answer).start()
        servers.append(server)
        name = f"{role}{next(SERVED)}"
        monkeypatch.setenv(f"{name.upper()}_BASE_URL", server.base_url)
        monkeypatch.setenv(f"{name.upper()}_API_KEY", "none")
        return server, f"openai-api/{name}/stand-in"

    yield serve
    for server in servers:
        server.stop()


@pytest.mark.parametrize("agent", list(AGENTS))
@pytest.mark.parametrize("mode", ["ticket", "replay"])
def test_the_stand_in_server_through_openai_api_gives_the_commands_numbers(copy, tmp_path, stand_in, mode, agent):
    server, model = stand_in(AGENTS[agent](rows_of(copy, mode), mode))
    lines, summary = command(server, mode, copy, tmp_path / "command.jsonl")
    asked = len(server.requests)
    log = inspect_run(mode, copy, model, tmp_path / "logs")
    assert_same(log, lines, summary)
    # each episode's own tools, as the command sends them (names, descriptions, enums, defaults),
    # but for the "strict" mark inspect's openai-api provider adds (-M strict_tools=false: none)
    def tools(requests):
        return {json.dumps([{**tool, "function": {key: value for key, value in tool["function"].items()
                                                  if key != "strict"}} for tool in request["tools"]], sort_keys=True)
                for request in requests}
    assert tools(server.requests[asked:]) == tools(server.requests[:asked]) and len(tools(server.requests)) == 3
    assert {tool["function"].get("strict") for r in server.requests[asked:] for tool in r["tools"]} == {True}
    rewards = [line["reward"] for line in lines.values()]
    assert rewards == [1.0] * 3 if agent == "gold" else sum(rewards) < 3


def mock_agent(answer):
    """mockllm's outputs: the answer function's message for the conversation so far, each
    with its usage (else inspect counts tokens with a tokenizer it would download)."""
    def output(messages, tools, tool_choice, config):
        request = {"messages": [{"role": m.role, "content": m.text} for m in messages]}
        message = chat_message(answer(request))
        stop = "tool_calls" if message.tool_calls else "stop"
        return ModelOutput(model="model", choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
                           usage=ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2))

    return output


@pytest.mark.parametrize("agent", list(AGENTS))
def test_mockllm_gives_the_commands_numbers(copy, tmp_path, stand_in, agent):
    answer = AGENTS[agent](rows_of(copy, "ticket"), "ticket")
    server, _ = stand_in(answer)
    lines, summary = command(server, "ticket", copy, tmp_path / "command.jsonl")
    log = inspect_run("ticket", copy, get_model("mockllm/model", custom_outputs=mock_agent(answer)), tmp_path / "l")
    assert_same(log, lines, summary)


@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_simulated_user_as_a_model_role_gives_the_commands_numbers_and_blame(copy, tmp_path, stand_in, agent):
    agent_server, model = stand_in(AGENTS[agent](rows_of(copy, "simulated"), "simulated"))
    user_server, user = stand_in(replaying(load("sgd", "user-chat", split="validation", **copy)), "user")
    lines, summary = command(agent_server, "simulated", copy, tmp_path / "command.jsonl", user_server)
    log = inspect_run("simulated", copy, model, tmp_path / "logs", model_roles={"user": user})
    assert_same(log, lines, summary)
    assert {score.metadata["user"]["ended"] for score in per_sample(log).values()} == {"stop"}
    assert "failures/agent" in metrics(log) and "failures/user" in metrics(log)


def test_epochs_give_pass_hat_k_with_the_commands_estimator(copy, tmp_path, stand_in):
    rows = rows_of(copy, "ticket")
    right, wrong = gold.answerer(rows, "ticket"), gold.answerer(rows, "ticket", wrong=True)
    played = []

    def flaky(request):  # the gold agent in the first epoch of each sample, a wrong one after
        first_user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        if not any(m["role"] == "assistant" for m in request["messages"]):
            played.append(first_user)
        return (right if played.count(first_user) == 1 else wrong)(request)

    model = get_model("mockllm/model", custom_outputs=mock_agent(flaky))
    log = inspect_run("ticket", copy, model, tmp_path / "logs", epochs=3, max_samples=1)
    reduced = {s.sample_id: s.value for reduction in log.reductions for s in reduction.samples}
    by_sample = {}
    for sample in log.samples:
        by_sample.setdefault(sample.id, []).append(sample.scores[SCORER].value["reward"])
    assert set(reduced) == set(by_sample) and all(len(v) == 3 for v in by_sample.values())
    for key, rewards in by_sample.items():
        successes = sum(r == 1.0 for r in rewards)
        assert successes == 1
        assert [reduced[key][f"pass^{k}"] for k in (1, 2, 3)] == [pass_hat_k(3, successes, k) for k in (1, 2, 3)]
        assert reduced[key]["reward"] == sum(rewards) / 3
    shown = metrics(log)
    assert shown["overall/pass^1"] == pytest.approx(1 / 3) and shown["overall/pass^3"] == 0.0
