"""The evaluation command against a real server nobody here wrote: ``transformers serve``
(started here on 127.0.0.1, offline) serving the tool model (``testing.tool_model``), a tiny
Qwen2 trained here until greedy decoding gives the fixtures' ``agent-call-chat`` calls and
the gold agent's turns on the episode played (recorded from the stand-in server playing it,
``tool_model.recorder``). The server takes the requests, the tool schemas and the tools'
results and parses the calls the model writes; the command writes the episode and the
summary, in ticket and simulated modes (the user a stand-in server saying the corpus's user
turns); and the model, so trained, plays the gold agent's conversation through the real
server, reward 1.0. Run by ``make test-serve`` (requirements/serve.txt)."""

import json

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.environment import gold
from unified_dialogue.environment.__main__ import main as evaluate
from unified_dialogue.testing import server as stand_in, tool_model
from unified_dialogue.testing.transformers_server import TransformersServer

pytest.importorskip("fastapi", reason="transformers serve needs transformers[serving]: make test-serve")
DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]
# One episode: a model this small learns a few turns in a minute, not a split's.
FLAGS = ["--split", "validation", "--limit", "1", "--concurrency", "1", "--timeout", "600"]
MODES = ("ticket", "simulated")


def run(agent, model, mode, out, cache, user):
    """The evaluation command's exit status, ``user`` the replaying user's endpoint."""
    flags = ["--user-base-url", user.base_url, "--user-model", "user"] if mode == "simulated" else []
    return evaluate(["--base-url", agent.base_url, "--model", model, "--mode", mode, "--out", str(out), "--summary",
                     str(out.with_suffix(".summary.json")), "--json", "--cache-dir", cache, *DATA, *FLAGS, *flags])


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The tool model, trained on the fixtures' agent-call-chat rows and the gold agent's
    turns in both modes, and served: ``(server, what the build gave, the cache, the replaying
    user's answer function, the folder holding the gold agent's runs)``."""
    folder = tmp_path_factory.mktemp("tool-model")
    cache = str(folder / "cache")
    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}
    chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split="validation", **options)}
    user = stand_in.gold(load("sgd", "user-chat", split="validation", **options))
    recorded = []
    for mode in MODES:  # the gold agent finds a simulated episode by its first user message, the corpus's
        episodes = load("sgd", "episodes", split="validation", mode="replay" if mode == "simulated" else mode, **options)
        answer = gold.answerer([(row, chats[row["dialogue_id"]]) for row in episodes], mode)
        with stand_in.StandInServer(tool_model.recorder(answer, recorded)) as agent, \
                stand_in.StandInServer(user) as replaying:
            assert run(agent, "gold", mode, folder / f"gold-{mode}.jsonl", cache, replaying) == 0
    rows = list(load("sgd", "agent-call-chat", split="train", **options)) + recorded
    built = tool_model.build(folder / "model", rows)
    with TransformersServer(folder / "model") as server:
        yield server, built, cache, user, folder


def test_greedy_decoding_gives_every_turn_it_was_trained_on(served):
    _, built, _, _, _ = served
    assert built["completed"] == built["rows"] > 7, built


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mode", MODES)
def test_the_model_plays_the_gold_agents_conversation_through_the_server(served, tmp_path, capsys, mode):
    server, _, cache, user, folder = served
    out = tmp_path / "episodes.jsonl"
    with stand_in.StandInServer(user) as replaying:
        assert run(server, server.model, mode, out, cache, replaying) == 0, server.tail()
    printed = capsys.readouterr()
    (played,) = lines(out)
    assert json.loads(out.with_suffix(".summary.json").read_text()) == json.loads(printed.out)
    assert "warning:" not in printed.err and "error" not in printed.err, printed.err
    # the server parsed each call the model wrote (the ids are the server's) and took the
    # requests carrying the calls' results back
    calls = [call for message in played["messages"] if message["role"] == "assistant"
             for call in message.get("tool_calls") or []]
    assert len(calls) >= 2 and all(call["id"].rsplit("_tool_call_", 1)[-1].isdigit() for call in calls), calls
    assert played["ended"] == "answer" and played["reward"] == 1.0, (played["messages"], server.tail())
    # the gold agent's conversation, behind the stand-in server, word for word
    (recorded,) = lines(folder / f"gold-{mode}.jsonl")
    assert played["final_answer"] == recorded["final_answer"]
    assert [m.get("content") for m in played["messages"] if m["role"] == "tool"] == \
        [m.get("content") for m in recorded["messages"] if m["role"] == "tool"]
