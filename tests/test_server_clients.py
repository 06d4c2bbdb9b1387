"""The stand-in server (unified_dialogue.testing.server) with the official OpenAI client: a
row's prompt sent as it is (its tools, earlier calls and results) gets the row's gold call
back in the client's own types, streamed or not; an unknown conversation is the client's
BadRequestError with the server's words. Runs where ``openai`` is installed (``make
env-harness``; lm-eval's server backends are run in tests/test_harness.py)."""

import json

import pytest

openai = pytest.importorskip("openai")

from unified_dialogue.testing.server import StandInServer, gold  # noqa: E402


@pytest.fixture(scope="module")
def rows(build):
    return build("sgd", "agent-call-chat")["test"]


@pytest.fixture(scope="module")
def client(rows):
    with StandInServer(gold(rows)) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0), server


def arguments_of(call):
    arguments = call["function"]["arguments"]
    return json.loads(arguments) if isinstance(arguments, str) else arguments


def test_each_rows_gold_call_comes_back_in_the_clients_types(client, rows):
    openai_client, server = client
    for row in rows:
        response = openai_client.chat.completions.create(model="stand-in", messages=row["prompt"], tools=row["tools"])
        (choice,) = response.choices
        (gold_call,) = row["completion"][0]["tool_calls"]
        (call,) = choice.message.tool_calls
        assert choice.finish_reason == "tool_calls" and call.type == "function" and call.id
        assert call.function.name == gold_call["function"]["name"]
        assert json.loads(call.function.arguments) == arguments_of(gold_call)
        assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens > 0
    assert server.requests[-1]["tools"] == json.loads(json.dumps(rows[-1]["tools"]))


def test_a_streamed_answer_is_put_together_by_the_client(client, rows):
    openai_client, _ = client
    row = rows[0]
    with openai_client.chat.completions.stream(model="stand-in", messages=row["prompt"], tools=row["tools"]) as stream:
        completion = stream.get_final_completion()
    (call,) = completion.choices[0].message.tool_calls
    assert call.function.name == row["completion"][0]["tool_calls"][0]["function"]["name"]
    assert json.loads(call.function.arguments) == arguments_of(row["completion"][0]["tool_calls"][0])


def test_models_are_listed_and_an_unknown_conversation_is_a_bad_request(client):
    openai_client, _ = client
    assert [model.id for model in openai_client.models.list()] == ["stand-in"]
    with pytest.raises(openai.BadRequestError, match="no row of the 6 served has this conversation"):
        openai_client.chat.completions.create(model="stand-in", messages=[{"role": "user", "content": "Hello?"}])
