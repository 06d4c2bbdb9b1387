"""The evaluation command against a real server nobody here wrote: ``transformers serve``
(started here on 127.0.0.1, offline) serving the tool model (``testing.tool_model``), a tiny
Qwen2 trained here until greedy decoding gives the fixtures' ``agent-call-chat`` calls. The
server takes the requests, the tool schemas and the tools' results, parses the calls the
model writes, and the command writes every episode and the summary, in ticket and simulated
modes (the user a stand-in server saying the corpus's user turns). Run by ``make
test-serve`` (requirements/serve.txt)."""

import json

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.environment.__main__ import main as evaluate
from unified_dialogue.testing import server as stand_in, tool_model
from unified_dialogue.testing.transformers_server import TransformersServer

pytest.importorskip("fastapi", reason="transformers serve needs transformers[serving]: make test-serve")
DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]
# Short runs: the model knows its calls by heart, not when to stop calling.
FLAGS = ["--split", "validation", "--concurrency", "1", "--max-steps", "3", "--timeout", "600"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The tool model, built and served: ``(server, what the build gave, the cache)``."""
    folder = tmp_path_factory.mktemp("tool-model")
    cache = str(folder / "cache")
    rows = load("sgd", "agent-call-chat", split="train", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                cache_dir=cache)
    built = tool_model.build(folder / "model", rows)
    with TransformersServer(folder / "model") as server:
        yield server, built, cache


def test_greedy_decoding_gives_the_calls_it_was_trained_on(served):
    _, built, _ = served
    assert built["completed"] == built["rows"] == 7, built


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mode", ["ticket", "simulated"])
def test_the_command_plays_every_episode_against_the_server(served, tmp_path, capsys, mode):
    server, _, cache = served
    out, summary = tmp_path / "episodes.jsonl", tmp_path / "summary.json"
    user = stand_in.gold(load("sgd", "user-chat", split="validation", data_dir=str(fixture_dir("sgd")),
                              checksums=checksums("sgd"), cache_dir=cache))
    with stand_in.StandInServer(user) as replaying:
        flags = ["--user-base-url", replaying.base_url, "--user-model", "user"] if mode == "simulated" else []
        status = evaluate(["--base-url", server.base_url, "--model", server.model, "--mode", mode, "--out", str(out),
                           "--summary", str(summary), "--cache-dir", cache, *DATA, *FLAGS, *flags])
    assert status == 0, server.tail()
    printed = capsys.readouterr()
    played = lines(out)
    assert len(played) == 3 and json.loads(summary.read_text()) == json.loads(printed.out)
    # every request was taken: no episode ended at an error of the server, no warning
    assert printed.err == "" and "error" not in {line["ended"] for line in played}, (printed.err, server.tail())
    # the server parsed the calls the model wrote (the ids are the server's), arguments as JSON objects ...
    calls = [call for line in played for message in line["messages"] if message["role"] == "assistant"
             for call in message.get("tool_calls") or []]
    assert calls, [line["messages"] for line in played]
    assert all(call["id"].rsplit("_tool_call_", 1)[-1].isdigit() and call["type"] == "function"
               and isinstance(json.loads(call["function"]["arguments"]), dict) for call in calls)
    # ... and answered the requests that carried their results back
    answered_after_result = [line for line in played for position, message in enumerate(line["messages"])
                             if message["role"] == "tool" and position + 1 < len(line["messages"])]
    assert answered_after_result, [line["messages"] for line in played]
    if mode == "simulated":
        assert all(line["user"]["turns"] >= 1 for line in played)
