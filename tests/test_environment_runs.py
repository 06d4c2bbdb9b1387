"""The evaluation command's runs against stand-in servers started here on 127.0.0.1: tool
calls given as text counted and warned about, retries of 429, 5xx and silent servers, the
settings and reward version that a resume must share, repeated trials with pass^k, a sample
across domains, the summary's table and progress on a pipe."""

import http.server
import json
import socket
import threading

import pytest

from test_environment_mistakes import gold_agent, run as run_on
from unified_dialogue.environment import endpoint, runs, text_calls
from unified_dialogue.testing.server import CALL_SHAPES, StandInServer, Status

@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("runs-cache"))


def run(base_url, out, cache, *flags):
    return run_on(out, cache, *flags, base_url=base_url)


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- tool calls given as text

@pytest.mark.parametrize("shape", CALL_SHAPES)
def test_tool_calls_given_as_text_are_counted_and_warned_about_not_played(tmp_path, cache, capsys, shape):
    with StandInServer(gold_agent(cache), calls_as_text=shape) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--json") == 0
    captured = capsys.readouterr()
    summary, played = json.loads(captured.out), lines(tmp_path / "o.jsonl")
    assert all(r["ended"] == "answer" and r["steps"] == 1 and r["text_tool_calls"] >= 1 for r in played)
    assert summary["text_tool_calls"] == sum(r["text_tool_calls"] for r in played)
    assert summary["with_text_tool_calls"] == 3 and summary["overall"]["reward"] == 0.0
    (warned,) = [line for line in captured.err.splitlines() if line.startswith("warning:")]
    assert f"{summary['text_tool_calls']} tool call(s) of the model came back as text" in warned
    assert text_calls.GENERAL in warned  # the stand-in is no server whose option is known


def test_the_gold_agent_gives_no_tool_call_as_text(tmp_path, cache, capsys):
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["text_tool_calls"] == 0 and "warning" not in captured.err


@pytest.mark.parametrize("content, found", [
    ('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>', {"hermes": 1}),
    ('<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>',
     {"hermes": 2}),
    ('<|python_tag|>{"name": "f", "parameters": {}}', {"llama": 1}),
    ('[TOOL_CALLS][{"name": "f", "arguments": {}}]', {"mistral": 1}),
    ('{"name": "f", "arguments": {"a": 1}}', {"json": 1}),
    ('```json\n[{"name": "f", "parameters": {}}, {"name": "g", "arguments": "{}"}]\n```', {"json": 2}),
    ("Your table is booked.", {}),
    ('{"name": "Ann", "age": 3}', {}),  # JSON, but no call
    ("", {}), (None, {}),
])
def test_text_calls_finds_the_common_shapes(content, found):
    assert text_calls.text_calls(content) == found


@pytest.mark.parametrize("owned_by, option", [
    ("vllm", "--enable-auto-tool-choice --tool-call-parser"), ("sglang", "SGLang parses them when started with "
                                                                          "--tool-call-parser"),
    ("llamacpp", "--jinja"), ("Qwen", text_calls.GENERAL),
    (None, text_calls.GENERAL), ("someone", text_calls.GENERAL),
])
def test_the_warning_names_the_servers_option(owned_by, option):
    line = text_calls.warning(4, 2, owned_by)
    assert line.startswith("warning: 4 tool call(s) of the model came back as text") and "in 2 episode(s)" in line
    assert option in line and (option == text_calls.GENERAL) == (text_calls.GENERAL in line)


# ---------------------------------------------------------------- retries

def test_a_rate_limited_request_is_retried_as_retry_after_says(tmp_path, cache, capsys):
    agent, refused = gold_agent(cache), []

    def answer(request):
        if len(refused) < 4:
            refused.append(request)
            raise Status(429, "rate limited", {"Retry-After": "0"})
        return agent(request)

    with StandInServer(answer) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--json", "--concurrency", "1") == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(refused) == 4 and summary["overall"]["reward"] == 1.0 and summary["ended_with_error"] == 0


def test_an_episode_still_failing_after_the_retries_is_left_out_and_played_by_a_rerun(tmp_path, cache, capsys,
                                                                                      monkeypatch):
    monkeypatch.setattr(endpoint, "BACKOFF", 0.0)
    agent, healthy = gold_agent(cache), threading.Event()

    def answer(request):
        first = next(m["content"] for m in request["messages"] if m["role"] == "user")
        if healthy.is_set() or first == answer.first.setdefault("text", first):
            return agent(request)
        raise Status(503, "overloaded")

    answer.first = {}
    out = tmp_path / "o.jsonl"
    with StandInServer(answer) as server:
        assert run(server.base_url, out, cache, "--json", "--concurrency", "1") == 0
        captured = capsys.readouterr()
        summary = json.loads(captured.out)
        assert summary["unplayed"] == 2 and summary["overall"]["episodes"] == 1 == len(lines(out))
        assert summary["overall"]["reward"] == 1.0  # the two left out count in no mean
        assert "warning: 2 episode trial(s) not played" in captured.err and "(after 5 retries)" in captured.err
        healthy.set()
        assert run(server.base_url, out, cache, "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["unplayed"] == 0 and summary["overall"]["episodes"] == 3 == len(lines(out))


def test_a_request_not_answered_in_time_is_tried_again(tmp_path, cache, capsys, monkeypatch):
    import time

    monkeypatch.setattr(endpoint, "BACKOFF", 0.0)
    agent, asked = gold_agent(cache), []

    def answer(request):
        asked.append(request)
        if len(asked) == 2:  # once the endpoint has answered: a request it is slow to answer
            time.sleep(1.5)
        return agent(request)

    with StandInServer(answer) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--json", "--concurrency", "1",
                   "--timeout", "0.5") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["overall"]["reward"] == 1.0 and summary["unplayed"] == 0
    assert json.dumps(asked[1]) == json.dumps(asked[2])  # the same request, sent again


@pytest.mark.parametrize("header, attempt, wait", [
    (None, 0, 1.0), (None, 3, 8.0), (None, 10, 60.0), ("2", 0, 2.0), ("0", 4, 0.0), ("999", 0, 60.0),
    ("Thu, 01 Jan 1970 00:00:30 GMT", 0, 20.0), ("soon", 1, 2.0),
])
def test_the_wait_before_a_retry(header, attempt, wait):
    assert endpoint.wait_of(header, attempt, now=10.0) == wait


def test_a_server_that_never_answers_is_said_so(tmp_path, cache, capsys):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections are accepted by the kernel; nothing is ever read or answered
    try:
        status = run(f"http://127.0.0.1:{silent.getsockname()[1]}/v1", tmp_path / "o.jsonl", cache,
                     "--timeout", "0.5")
    finally:
        silent.close()
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1 and "answered nothing within --timeout 0.5 s" in error


class HtmlPages(http.server.BaseHTTPRequestHandler):
    def reply(self):
        page = b"<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>"
        self.send_response(200 if self.path.endswith("/models") else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    do_GET = do_POST = reply

    def log_message(self, *args):
        pass


def test_an_html_error_page_is_no_openai_compatible_endpoint(tmp_path, cache, capsys):
    pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HtmlPages)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    try:
        status = run(f"http://127.0.0.1:{pages.server_address[1]}", tmp_path / "o.jsonl", cache)
    finally:
        pages.shutdown()
        pages.server_close()
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1
    assert "answered 404 with an HTML page, not an OpenAI-compatible endpoint's error" in error


# ---------------------------------------------------------------- what a resume must share

def test_max_tokens_is_sent_and_recorded(tmp_path, cache, capsys):
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--max-tokens", "64", "--limit", "1") == 0
        assert {request.get("max_tokens") for request in server.requests} == {64}
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--limit", "1") == 2
    assert "is an episode of another run (max_tokens 64, not None)" in capsys.readouterr().err


def test_lines_of_another_reward_version_are_refused(tmp_path, cache, capsys):
    from unified_dialogue.environment.reward import REWARD_VERSION

    out = tmp_path / "o.jsonl"
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, out, cache, "--limit", "1") == 0
        assert lines(out)[0]["reward_version"] == REWARD_VERSION
        out.write_text(out.read_text(encoding="utf-8").replace(f'"reward_version": "{REWARD_VERSION}"',
                                                               '"reward_version": "0"'), encoding="utf-8")
        capsys.readouterr()
        assert run(server.base_url, out, cache, "--limit", "1") == 2
    assert f"line 1 is an episode of another run (reward_version '0', not '{REWARD_VERSION}')" in capsys.readouterr().err


def test_the_simulated_users_settings_are_recorded_and_a_resume_must_share_them():
    class Model:
        model, temperature, seed, max_tokens = "user", 0.0, None, None

    from unified_dialogue.environment.user import UserModel

    agent = endpoint.Endpoint("http://127.0.0.1:9/v1", "m")
    header = runs.run_header(agent, "validation", "simulated", 30, None, UserModel(Model(), 30, "Be brief. {stop}"))
    assert header["user"]["max_turns"] == 30 and header["user"]["instruction"] == runs.digest("Be brief. {stop}")
    line = {"id": "x", "trial": 0, **header}
    for other, says in ((UserModel(Model(), 12, "Be brief. {stop}"), "user max_turns 30, not 12"),
                        (UserModel(Model(), 30, None), "user instruction 'sha256:")):
        now = runs.run_of(runs.run_header(agent, "validation", "simulated", 30, None, other))
        assert any(says in difference for difference in runs.differences(line, now))
    assert runs.differences(line, runs.run_of(header)) == []


# ---------------------------------------------------------------- trials, sample, summary

def test_three_trials_of_the_gold_agent_give_pass_1_and_pass_3_of_1(tmp_path, cache, capsys):
    out = tmp_path / "o.jsonl"
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, out, cache, "--json", "--seed", "5") == 0
        first = out.read_text(encoding="utf-8")
        capsys.readouterr()
        asked = len(server.requests)
        assert run(server.base_url, out, cache, "--json", "--seed", "5", "--trials", "3") == 0
        seeds = {request["seed"] for request in server.requests[asked:]}
    summary = json.loads(capsys.readouterr().out)
    assert out.read_text(encoding="utf-8").startswith(first)  # the first trials kept, not played again
    assert seeds == {6, 7}
    played = lines(out)
    assert sorted((r["id"], r["trial"], r["trial_seed"]) for r in played) == sorted(
        (key, trial, 5 + trial) for key in {r["id"] for r in played} for trial in range(3))
    assert summary["overall"]["pass^k"] == {"1": 1.0, "2": 1.0, "3": 1.0} and summary["run"]["trials"] == 3
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["lines"] == 9
    assert all(group["pass^k"]["3"] == 1.0 for group in summary["per_domain"].values())


def test_an_agent_that_fails_some_trials_gets_the_estimator_s_pass_k(tmp_path, cache, capsys):
    agent = gold_agent(cache)

    def answer(request):
        if request.get("seed") == 2 and "Alarm" in json.dumps(request.get("tools")):  # its third trial fails
            return {"role": "assistant", "content": "Done."}
        return agent(request)

    with StandInServer(answer) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--json", "--trials", "3") == 0
    summary = json.loads(capsys.readouterr().out)
    # one episode of three with 2 successes of 3: pass^1 = (1 + 1 + 2/3) / 3, pass^2 = (1 + 1 + 1/3) / 3,
    # pass^3 = (1 + 1 + 0) / 3
    assert summary["overall"]["pass^k"] == pytest.approx({"1": 8 / 9, "2": 7 / 9, "3": 2 / 3})
    assert summary["per_domain"]["Alarm"]["pass^k"] == pytest.approx({"1": 2 / 3, "2": 1 / 3, "3": 0.0})


def test_a_sample_is_drawn_across_domains():
    services = [["A_1"], ["A_1", "B_1"], ["A_2"], ["A_1"], ["B_1"], ["C_1"], ["C_2"]]
    drawn = runs.sample(services, 3, seed=4)
    assert sorted(runs.domain(services[i][0]) for i in drawn) == ["A", "B", "C"]
    assert drawn == sorted(drawn) == runs.sample(services, 3, seed=4)
    assert {tuple(runs.sample(services, 3, seed)) for seed in range(20)} != {tuple(drawn)}  # the seed draws
    assert runs.sample(services, 99, 0) == list(range(7))
    counts = [runs.domain(services[i][0]) for i in runs.sample(services, 5, 1)]
    assert sorted(counts.count(name) for name in "ABC") == [1, 2, 2]  # as even as the sizes allow


def test_the_command_plays_a_sample_and_names_it_in_its_table(tmp_path, cache, capsys):
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--sample", "2", "--sample-seed", "3") == 0
    printed = capsys.readouterr().out
    assert len(lines(tmp_path / "o.jsonl")) == 2
    assert printed.startswith("run: split validation, mode ticket, model m, sample 2, sample_seed 3, trials 1\n")
    assert "tool calls given as text 0" in printed and "left to a rerun 0" in printed
    table = printed.split("\n\n", 1)[1].splitlines()
    assert table[0].split() == ["group", "episodes", "reward", "pass^1", "recall", "found", "told", "confirmed"]
    assert [row.split()[0] for row in table[1:4]] == ["overall", "seen", "unseen"]
    assert table[1].split()[1:4] == ["2", "1.000", "1.000"]


def test_progress_shows_on_a_pipe(tmp_path, cache, capsys, monkeypatch):
    from unified_dialogue.environment import __main__ as command

    monkeypatch.setattr(command, "PROGRESS_EVERY", 0.0)
    with StandInServer(gold_agent(cache)) as server:
        assert run(server.base_url, tmp_path / "o.jsonl", cache, "--concurrency", "1") == 0
    assert capsys.readouterr().err.splitlines() == ["1/3 episodes", "2/3 episodes", "3/3 episodes"]


@pytest.mark.parametrize("flags, says", [
    (["--out", "newdir/"], "--out newdir/: a folder; give the path of a file to write"),
    (["--limit", "2", "--sample", "2"], "--limit and --sample: give one"),
    (["--trials", "0"], "--trials 0: give a number of at least 1"),
    (["--sample", "0"], "--sample 0: give a number of at least 1"),
    (["--max-tokens", "0"], "--max-tokens 0: give a number of at least 1"),
])
def test_a_mistake_with_the_new_flags_is_one_line(tmp_path, cache, capsys, monkeypatch, flags, says):
    monkeypatch.chdir(tmp_path)
    assert run("http://127.0.0.1:9/v1", tmp_path / "o.jsonl", cache, *flags) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and says in error, error
