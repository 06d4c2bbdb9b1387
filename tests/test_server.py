"""The stand-in OpenAI-compatible server (unified_dialogue.testing.server) through plain HTTP:
every chat config's rows answered with their gold completion or prediction, whichever way a
client writes the conversation; OpenAI's shapes (tool calls, finish reasons, streaming,
usage); errors; concurrency; the command. The official client and lm-eval's server
backends are in tests/test_server_clients.py."""

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest
from conftest import TESTS, checksums, fixture_dir, write_predictions
from hypothesis import given
from hypothesis import strategies as st

from unified_dialogue.chat.agent import loaded
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.harness import prompts
from unified_dialogue.testing.server import StandInServer, from_predictions, gold
from unified_dialogue.testing.strategies import text

# Every chat config of the fixtures with a prompt (and d3st, whose prompt is its input).
CONFIGS = [("sgd", "agent-call-chat", "test"), ("sgd", "dst-chat", "test"), ("sgd", "d3st", "test"),
           ("sgd", "nlg-chat", "test"), ("sgd", "nlu-chat", "test"), ("sgd", "response-chat", "test"),
           ("ccpe", "nlu-chat", "train"), ("faithdial", "response-chat", "test")]


def post(url, body, raw=None):
    """``(status, parsed body)`` of a POST of ``body`` as JSON (or of the bytes ``raw``)."""
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    if text.startswith("data: "):
        return status, [line[6:] for line in text.split("\n\n") if line]
    return status, json.loads(text)


def rows_of(build, corpus, config, split="test"):
    return build(corpus, config)[split]


@pytest.fixture(scope="module")
def agent_rows(build):
    return rows_of(build, "sgd", "agent-call-chat")


def native(row):
    """The request the OpenAI client sends for a row: its messages and tools as they are."""
    body = {"model": "m", "messages": row.get("prompt") or [{"role": "user", "content": row["input"]}]}
    return {**body, "tools": row["tools"]} if row.get("tools") else body


@pytest.mark.parametrize("corpus, config, split", CONFIGS)
def test_every_row_is_answered_with_its_gold_text_as_lm_eval_and_the_openai_client_send_it(build, corpus, config,
                                                                                            split):
    rows = rows_of(build, corpus, config, split)
    with StandInServer(gold(rows)) as server:
        for row in rows:
            status, body = post(server.base_url + "/chat/completions",
                                {"model": "m", "messages": prompts.messages(row)})
            assert status == 200 and body["choices"][0]["message"]["content"] == prompts.doc_to_target(row)
            status, body = post(server.base_url + "/completions", {"model": "m", "prompt": prompts.doc_to_text(row)})
            assert status == 200 and body["choices"][0]["text"] == prompts.doc_to_target(row)
            status, body = post(server.base_url + "/chat/completions", native(row))
            assert status == 200, body
            message = body["choices"][0]["message"]
            if row.get("tools"):  # a call, as OpenAI writes one
                (call,) = message["tool_calls"]
                (gold_call,) = row["completion"][0]["tool_calls"]
                assert call["type"] == "function" and call["id"] and message["content"] is None
                assert call["function"]["name"] == gold_call["function"]["name"]
                assert json.loads(call["function"]["arguments"]) == loaded(gold_call["function"]["arguments"])
                assert body["choices"][0]["finish_reason"] == "tool_calls"
            else:
                assert message["content"] == prompts.doc_to_target(row)
                assert body["choices"][0]["finish_reason"] == "stop"
        assert len(server.requests) == 3 * len(rows)


def test_the_ways_clients_write_a_conversation_all_find_its_row(agent_rows):
    row = agent_rows[-1]  # one with an earlier call and its results in its prompt
    assert any(m["role"] == "tool" for m in row["prompt"])
    expected = row["completion"][0]["tool_calls"][0]["function"]["name"]
    parts = [{**m, "content": [{"type": "text", "text": m["content"]}] if m["content"] else None}
             for m in row["prompt"]]  # content as a list of parts; None for a call's empty content
    dicts = [{**m, "tool_calls": [{"id": "call_1", **c, "function": {**c["function"], "arguments": loaded(
        c["function"]["arguments"])}} for c in m["tool_calls"]]} if m.get("tool_calls") else m for m in row["prompt"]]
    texts_of_calls = [{**m, "tool_calls": [{**c, "function": {**c["function"], "arguments": json.dumps(loaded(
        c["function"]["arguments"]), sort_keys=True, indent=2)}} for c in m["tool_calls"]]} if m.get("tool_calls")
        else m for m in row["prompt"]]
    developer = [{**row["prompt"][0], "role": "developer"}] + list(row["prompt"][1:])
    texts = [{**t, "function": {**t["function"], "parameters": json.dumps(
        loaded(t["function"]["parameters"]), sort_keys=True, indent=1)}} for t in row["tools"]]
    with StandInServer(gold(agent_rows)) as server:
        for messages, tools in ((parts, row["tools"]), (dicts, row["tools"]), (texts_of_calls, row["tools"]),
                                (developer, row["tools"]),
                                (row["prompt"], texts), (row["prompt"], list(reversed(row["tools"])))):
            status, body = post(server.base_url + "/chat/completions", {"messages": messages, "tools": tools})
            assert status == 200, body
            assert body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == expected
        instruction = prompts.messages(row, "Answer at once.")  # lm-eval's --system_instruction
        status, body = post(server.base_url + "/chat/completions", {"messages": instruction})
        assert status == 200 and body["choices"][0]["message"]["content"] == prompts.doc_to_target(row)
        status, body = post(server.base_url + "/completions", {"prompt": prompts.plain_text(instruction)})
        assert status == 200 and body["choices"][0]["text"] == prompts.doc_to_target(row)


def test_a_conversation_no_row_has_is_a_400_saying_so(agent_rows):
    row = agent_rows[0]
    changed = [*row["prompt"][:-1], {**row["prompt"][-1], "content": row["prompt"][-1]["content"] + "!"}]
    with StandInServer(gold(agent_rows)) as server:
        for body in ({"messages": changed, "tools": row["tools"]},
                     {"messages": row["prompt"]},  # its tools left out: not the row's prompt
                     {"messages": row["prompt"], "tools": row["tools"][:1]}):
            status, answer = post(server.base_url + "/chat/completions", body)
            assert status == 400 and "no row of the 6 served has this conversation" in answer["error"]["message"]
            assert f"(ids such as {agent_rows[0]['id']!r}); a task of another config or split needs a server of " \
                   "its own (--config, --split)" in answer["error"]["message"]
        status, answer = post(server.base_url + "/completions", {"prompt": "User: hello\n\nAssistant:"})
        assert status == 400 and "'User: hello\\n\\nAssistant:'" in answer["error"]["message"]


def test_predictions_are_answered_and_a_call_in_a_text_becomes_tool_calls(agent_rows, build):
    first, second = agent_rows[0], agent_rows[1]
    predictions = {first["id"]: 'Sure. <tool_call>{"name": "Alarm_1__GetAlarms", "arguments": {}}</tool_call>',
                   second["id"]: "I cannot call anything."}
    with StandInServer(from_predictions(agent_rows, predictions)) as server:
        status, body = post(server.base_url + "/chat/completions", native(first))
        call = body["choices"][0]["message"]["tool_calls"][0]
        assert call["function"] == {"name": "Alarm_1__GetAlarms", "arguments": "{}"}
        status, body = post(server.base_url + "/chat/completions", {"messages": prompts.messages(first)})
        assert body["choices"][0]["message"]["content"] == predictions[first["id"]]  # text asked, text given
        status, body = post(server.base_url + "/chat/completions", native(second))
        assert body["choices"][0]["message"] == {"role": "assistant", "content": "I cannot call anything."}
        assert body["choices"][0]["finish_reason"] == "stop"
        status, body = post(server.base_url + "/chat/completions", native(agent_rows[2]))
        assert status == 400 and f"row {agent_rows[2]['id']!r} has no prediction" in body["error"]["message"]
    with pytest.raises(ConfigError, match="1 prediction id\\(s\\) name no row: 'nope'"):
        from_predictions(agent_rows, {"nope": "x"})
    with pytest.raises(ConfigError, match="has no 'prompt' messages"):
        from_predictions(build("sgd", "dst")["test"], None)


def test_openai_shapes_stop_n_usage_streaming_and_models(agent_rows):
    row = agent_rows[0]
    with StandInServer(lambda request: {"role": "assistant", "content": "one two\n\nthree"}) as server:
        status, body = post(server.base_url + "/chat/completions",
                            {"model": "mine", "messages": [{"role": "user", "content": "a b c"}], "n": 2,
                             "stop": ["\n\n", "\nUser:"]})
        assert status == 200 and body["object"] == "chat.completion" and body["model"] == "mine"
        assert [c["message"]["content"] for c in body["choices"]] == ["one two", "one two"]
        assert [c["index"] for c in body["choices"]] == [0, 1]
        assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
        status, events = post(server.base_url + "/chat/completions",
                              {"messages": [{"role": "user", "content": "x"}], "stream": True,
                               "stream_options": {"include_usage": True}})
        assert events[-1] == "[DONE]"
        chunks = [json.loads(e) for e in events[:-1]]
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)
        assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == \
            "one two\n\nthree"
        assert chunks[-2]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["usage"]["completion_tokens"] == 3
        with urllib.request.urlopen(server.base_url + "/models", timeout=10) as response:
            assert json.loads(response.read())["data"][0]["object"] == "model"
    with StandInServer(gold(agent_rows)) as server:
        status, events = post(server.base_url + "/chat/completions", {**native(row), "stream": True})
        chunks = [json.loads(e) for e in events[:-1]]
        (call,) = chunks[0]["choices"][0]["delta"]["tool_calls"]
        assert call["index"] == 0 and call["type"] == "function" and isinstance(call["function"]["arguments"], str)
        assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_bad_requests_and_a_failing_answerer_are_said_and_the_server_goes_on():
    def answer(request):
        if request["messages"][0]["content"] == "boom":
            raise RuntimeError("the answerer broke")
        return {"role": "assistant", "content": "fine", "tool_calls": [
            {"function": {"name": "f", "arguments": {"x": "é"}}}]}

    with StandInServer(answer) as server:
        assert post(server.base_url + "/chat/completions", None, raw=b"{not json")[0] == 400
        assert post(server.base_url + "/chat/completions", [1])[0] == 400
        status, body = post(server.base_url + "/chat/completions", {"model": "m"})
        assert status == 400 and "'messages'" in body["error"]["message"]
        status, body = post(server.base_url + "/embeddings", {})
        assert status == 404 and "/v1/chat/completions" in body["error"]["message"]
        status, body = post(server.base_url + "/chat/completions", {"messages": [{"role": "user", "content": "boom"}]})
        assert status == 500 and body["error"]["message"] == "RuntimeError: the answerer broke"
        status, body = post(server.base_url + "/chat/completions", {"messages": [{"role": "user", "content": "hi"}]})
        message = body["choices"][0]["message"]  # a dict of arguments becomes JSON text
        assert message["content"] == "fine" and message["tool_calls"][0]["function"]["arguments"] == '{"x": "é"}'
        assert body["choices"][0]["finish_reason"] == "tool_calls"


def test_concurrent_clients_each_get_their_rows_answer(build):
    rows = rows_of(build, "sgd", "dst-chat")
    answers, errors = {}, []
    with StandInServer(gold(rows)) as server:
        def ask(row):
            try:
                status, body = post(server.base_url + "/chat/completions", native(row))
                answers[row["id"]] = body["choices"][0]["message"]["content"]
            except Exception as error:  # noqa: BLE001  (reported below)
                errors.append(error)

        threads = [threading.Thread(target=ask, args=(row,)) for row in list(rows) * 4]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors and len(server.requests) == 4 * len(rows)
    assert answers == {row["id"]: row["completion"][0]["content"] for row in rows}


def test_rows_with_one_prompt_and_different_answers_are_answered_in_turn():
    prompt = [{"role": "system", "content": "S"}, {"role": "user", "content": "Can you find me a bus?"}]
    rows = [{"id": i, "prompt": prompt, "completion": [{"role": "assistant", "content": t}]}
            for i, t in (("a", "FindBus"), ("b", "BuyBusTicket"), ("c", "FindBus"))]
    answer = gold(rows)
    assert answer.ambiguous() == [["a", "b", "c"]]
    assert [answer({"messages": prompt})["content"] for _ in range(4)] == ["FindBus", "BuyBusTicket", "FindBus",
                                                                          "FindBus"]
    assert gold(rows[::2]).ambiguous() == []


@given(st.lists(st.tuples(text.values(), text.values(), text.values()), min_size=1, max_size=4, unique_by=lambda t: t[1]))
def test_any_text_is_matched_to_its_row_in_every_form(contents):
    rows = [{"id": str(n), "prompt": [{"role": "system", "content": system, "tool_calls": None, "name": None},
                                      {"role": "user", "content": user, "tool_calls": None, "name": None}],
             "completion": [{"role": "assistant", "content": target, "tool_calls": None, "name": None}]}
            for n, (system, user, target) in enumerate(contents)]
    answer = gold(rows)
    for row, (system, user, target) in zip(rows, contents):
        for request in ({"messages": prompts.messages(row)}, {"prompt": prompts.doc_to_text(row)},
                        {"messages": [{"role": "system", "content": [{"type": "text", "text": system}]},
                                      {"role": "user", "content": user}]}):
            assert answer(request)["content"] == target


# ---------------------------------------------------------------- the command

def command(*arguments):
    return [sys.executable, "-m", "unified_dialogue.testing.server", *arguments]


def fixture_arguments(tmp_path, corpus="sgd", config="agent-call-chat"):
    return ["--corpus", corpus, "--config", config, "--split", "test", "--data-dir", str(fixture_dir(corpus)),
            "--checksums", checksums(corpus), "--cache-dir", str(tmp_path / "cache")]


def test_the_command_prints_its_base_url_and_serves_the_predictions_file(tmp_path, agent_rows):
    predictions = write_predictions(tmp_path / "p.jsonl", {agent_rows[0]["id"]: "no call"})
    process = subprocess.Popen(command(*fixture_arguments(tmp_path), "--predictions", str(predictions)),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=TESTS.parent)
    try:
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        status, body = post(base_url + "/chat/completions", native(agent_rows[0]))
        assert body["choices"][0]["message"]["content"] == "no call"
        assert post(base_url + "/chat/completions", native(agent_rows[1]))[0] == 400
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "warning: " + str(predictions) + " answers 1 of the 6 rows" in err


@pytest.mark.parametrize("extra, words", [
    (["--config", "dst"], "--config dst: its rows have no prompt messages"),
    (["--config", "nlg"], "--config nlg: its rows have no prompt messages"),
    (["--config", "episodes"], "--config episodes: its rows have no completion to answer with"),
    (["--config", "nope"], "no config 'nope'"),
    (["--predictions", "missing.jsonl"], "--predictions missing.jsonl: no such file"),
    (["--port", "70000"], "--port 70000: a port is 0 (any free one) to 65535"),
    (["--data-dir", "nowhere"], "--data-dir nowhere: no such folder"),
    (["--colour"], "unrecognized arguments: --colour"),
])
def test_a_mistake_is_one_line_and_status_2(tmp_path, extra, words):
    done = subprocess.run(command(*fixture_arguments(tmp_path), *extra), capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr
    assert done.stdout == ""


def test_predictions_naming_no_row_and_a_taken_port_are_refused(tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", {"sgd/test/nope/0": "x"})
    done = subprocess.run(command(*fixture_arguments(tmp_path), "--predictions", str(predictions)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and f"--predictions {predictions}: 1 prediction id(s) name no row" in done.stderr
    with StandInServer(lambda request: {}) as taken:
        done = subprocess.run(command(*fixture_arguments(tmp_path), "--port", str(taken.port)),
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and f"--port {taken.port}: cannot listen on 127.0.0.1:{taken.port}" in done.stderr
    assert len(done.stderr.splitlines()) == 1
