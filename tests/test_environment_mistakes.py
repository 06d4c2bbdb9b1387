"""A newcomer's mistakes with the environment, each found before long work and said in one
line naming the flag, file, row or column and the fix (exit status 2 from the command),
never a traceback, a hang or a silent run: the evaluation command's flags, a resume file of
another run, an endpoint that is down, refuses a request or is interrupted, a split the copy
lacks, and the TRL binding given another user, a row without its columns or of another
environment, or a database file that is gone."""

import http.server
import json
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.core.errors import ConfigError, MissingSplitError
from unified_dialogue.environment import binding, gold
from unified_dialogue.environment.__main__ import main
from unified_dialogue.testing.server import StandInServer

DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]
DOWN = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mistakes-cache"))


def options(cache):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}


def gold_agent(cache, mode="ticket"):
    episodes = load("sgd", "episodes", split="validation", mode=mode, **options(cache))
    chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split="validation", **options(cache))}
    return gold.answerer([(row, chats[row["dialogue_id"]]) for row in episodes], mode)


def run(out, cache, *flags, base_url=DOWN):
    """The command's exit status (SystemExit's where it stops)."""
    try:
        return main(["--base-url", base_url, "--model", "m", "--split", "validation", "--out", str(out),
                     "--cache-dir", cache, *DATA, *flags])
    except SystemExit as stopped:
        return stopped.code


def one_line(capsys):
    error = capsys.readouterr().err
    assert error.count("\n") == 1, error
    return error


# ---------------------------------------------------------------- the command line

@pytest.mark.parametrize("flags,says", [
    (["--checksums", "nowhere.tsv"], "--checksums nowhere.tsv: cannot be read (No such file or directory)"),
    (["--temperature", "-1"], "--temperature -1.0: give a temperature of at least 0"),
    (["--model", " "], "--model: give the name of a model the endpoint serves"),
    (["--api-key-env", "NO_SUCH_KEY_VARIABLE"], "--api-key-env NO_SUCH_KEY_VARIABLE: no such environment variable"),
    (["--variant", "v9"], "variant 'v9': the environment plays SGD's own names"),
    (["--split", "dev"], "split 'dev': the environment plays one split of SGD at a time"),
    (["--no-verify", "--max-steps", "0"], "--max-steps 0: give a number of at least 1"),  # --no-verify is a flag
    (["--base-ur", "http://127.0.0.1:9/v1"], "unrecognized arguments: --base-ur"),
])
def test_a_flag_mistake_is_one_line_before_the_server_is_asked(tmp_path, cache, capsys, flags, says):
    assert run(tmp_path / "o.jsonl", cache, *flags) == 2
    assert says in one_line(capsys)


def test_a_cache_dir_that_is_a_file_is_refused(tmp_path, cache, capsys):
    (tmp_path / "file").write_text("x")
    assert run(tmp_path / "o.jsonl", cache, "--cache-dir", str(tmp_path / "file")) == 2
    assert f"--cache-dir {tmp_path / 'file'}: a file, not a folder" in one_line(capsys)


def test_a_server_that_is_down_is_found_before_the_split_is_built(tmp_path, capsys):
    fresh = tmp_path / "cache"
    assert run(tmp_path / "o.jsonl", str(fresh)) == 2
    assert f"--base-url {DOWN}: no answer" in one_line(capsys) and not fresh.exists()


def test_a_partial_copy_is_played_with_no_verify_and_lacks_its_missing_split(tmp_path, cache, capsys):
    copy = tmp_path / "sgd"
    for folder in ("train", "dev"):
        shutil.copytree(fixture_dir("sgd") / folder, copy / folder)
    with pytest.raises(MissingSplitError, match=f"data_dir {copy} has no file of the split 'test' "
                                                r"\(it gives the splits train, validation\)"):
        load("sgd", "episodes", split="test", data_dir=str(copy), verify=False, cache_dir=cache)
    with StandInServer(gold_agent(cache)) as server:
        assert main(["--base-url", server.base_url, "--model", "m", "--split", "validation", "--out",
                     str(tmp_path / "o.jsonl"), "--data-dir", str(copy), "--no-verify", "--cache-dir", cache,
                     "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["overall"]["reward"] == 1.0
        status = run(tmp_path / "t.jsonl", cache, "--split", "test", "--data-dir", str(copy), "--no-verify",
                     base_url=server.base_url)
    assert status == 2 and f"data_dir {copy} has no file of the split 'test'" in one_line(capsys)


# ---------------------------------------------------------------- the endpoints

class Refusing(http.server.BaseHTTPRequestHandler):
    """Every request answered with the status of the server's ``status`` attribute."""

    def answer(self):
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": {"message": "refused"}}')

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


@pytest.fixture
def refusing():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("status,says", [
    (401, "the endpoint answered 401: {\"error\": {\"message\": \"refused\"}}; give the endpoint's key in the "
          "environment variable named by --api-key-env"),
    (404, "(--model m): the endpoint answered 404: {\"error\": {\"message\": \"refused\"}}; give the base URL under "
          "which /chat/completions lies (often ending in /v1) and a --model it serves"),
])
def test_a_refusing_endpoint_is_said_with_what_to_check(tmp_path, cache, capsys, refusing, status, says):
    refusing.status = status
    assert run(tmp_path / "o.jsonl", cache, base_url=f"http://127.0.0.1:{refusing.server_port}/v1") == 2
    assert says in one_line(capsys)


def test_the_users_endpoint_is_named_by_the_user_flags(tmp_path, cache, capsys):
    def refuse(request):
        raise ValueError("no such model")

    simulated = ["--mode", "simulated", "--user-model", "u"]
    with StandInServer(gold_agent(cache, "simulated")) as agent, StandInServer(refuse) as user:
        assert run(tmp_path / "a.jsonl", cache, *simulated, "--user-base-url", DOWN, base_url=agent.base_url) == 2
        assert f"--user-base-url {DOWN}: no answer" in one_line(capsys)
        assert run(tmp_path / "b.jsonl", cache, *simulated, "--user-base-url", user.base_url,
                   base_url=agent.base_url) == 2
    assert f"--user-base-url {user.base_url} (--user-model u): the endpoint answered 400" in one_line(capsys)


def test_a_user_instruction_without_the_stop_marker_is_a_warning(tmp_path, cache, capsys):
    assert run(tmp_path / "o.jsonl", cache, "--mode", "simulated", "--user-model", "u", "--user-base-url", DOWN,
               "--user-instruction", "Play the user {kindly}.") == 2
    warning, error = capsys.readouterr().err.splitlines()
    assert warning.startswith("warning: --user-instruction has neither {stop} nor ###STOP###") and "no answer" in error


def test_a_request_refused_after_the_endpoint_answered_ends_only_its_episode(tmp_path, cache, capsys):
    agent, first_users = gold_agent(cache), []

    def answer(request):
        first = next(m["content"] for m in request["messages"] if m["role"] == "user")
        first_users.append(first)
        if first == first_users[0] or len(request["messages"]) < 4:
            return agent(request)
        raise ValueError("This model's maximum context length is 4096 tokens")  # vLLM's 400

    out = tmp_path / "o.jsonl"
    with StandInServer(answer) as server:
        assert run(out, cache, "--concurrency", "1", "--json", base_url=server.base_url) == 0
        captured = capsys.readouterr()
        asked = len(server.requests)
        assert run(out, cache, base_url=server.base_url) == 0 and len(server.requests) == asked  # nothing replayed
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    errors = [line for line in lines if line["ended"] == "error"]
    assert len(lines) == 3 and errors and all("maximum context length" in line["error"] for line in errors)
    assert json.loads(captured.out)["ended_with_error"] == len(errors)
    warnings = [line for line in captured.err.splitlines() if line != "3/3 episodes"]  # the progress on a pipe
    assert len(warnings) == len(errors) and all(w.startswith("warning: episode sgd/validation/") for w in warnings)


def test_an_interrupted_run_stops_at_once_though_a_request_waits(tmp_path, cache):
    release = threading.Event()

    def answer(request):
        release.wait(120)
        return {"role": "assistant", "content": "Done."}

    with StandInServer(answer) as server:
        command = [sys.executable, "-m", "unified_dialogue.environment", "--base-url", server.base_url, "--model",
                   "m", "--split", "validation", "--out", str(tmp_path / "o.jsonl"), "--cache-dir", cache, *DATA]
        running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(600):  # the requests are waiting for an answer
                if server.requests or running.poll() is not None:
                    break
                time.sleep(0.1)
            running.send_signal(signal.SIGINT)
            _, error = running.communicate(timeout=30)  # not the 120 s of the waiting requests
        finally:
            release.set()
            running.kill()
    assert running.returncode == 130 and "interrupted: the episodes written are kept" in error


# ---------------------------------------------------------------- a resume file

@pytest.fixture(scope="module")
def played(tmp_path_factory, cache):
    """A file of one finished episode, played by the gold agent as model ``m``."""
    out = tmp_path_factory.mktemp("played") / "o.jsonl"
    with StandInServer(gold_agent(cache)) as server:
        assert run(out, cache, "--limit", "1", base_url=server.base_url) == 0
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("flags,says", [
    (["--model", "other"], "model 'm', not 'other'"),
    (["--temperature", "0.7"], "temperature 0.0, not 0.7"),
    (["--seed", "3"], "seed None, not 3"),
    (["--max-steps", "5"], "max_steps 30, not 5"),
    (["--split", "test"], "split 'validation', not 'test'"),
])
def test_a_resume_file_of_another_run_is_refused_before_the_server_is_asked(tmp_path, cache, capsys, played, flags,
                                                                          says):
    out = tmp_path / "o.jsonl"
    out.write_text(played, encoding="utf-8")
    assert run(out, cache, *flags) == 2
    assert f"--out {out}: line 1 is an episode of another run ({says}); give a new file" in one_line(capsys)
    assert out.read_text(encoding="utf-8") == played


@pytest.mark.parametrize("content", [b"\x00\xff\xfe\n", b'{"id": "sgd/validation/2_00125"}\n', b"[1, 2]\n"])
def test_a_resume_file_that_holds_no_episodes_line_is_refused(tmp_path, cache, capsys, content):
    out = tmp_path / "o.jsonl"
    out.write_bytes(content)
    assert run(out, cache) == 2
    assert f"--out {out}: line 1 is not an episode's line" in one_line(capsys) and out.read_bytes() == content


# ---------------------------------------------------------------- the TRL binding

@pytest.fixture(scope="module")
def bound(cache):
    return binding.trl("validation", **options(cache))


def test_a_user_that_is_no_user_model_is_refused(cache):
    with pytest.raises(ConfigError, match="user=: give the user's model as UserModel"):
        binding.trl("validation", mode="simulated", user="http://127.0.0.1:8001/v1", **options(cache))


def test_reset_refuses_a_row_without_its_columns_or_of_another_environment(bound):
    rows, factories = bound
    first, other = rows[0], next(row for row in rows if row["environment"] != rows[0]["environment"])
    environment = factories[first["environment"]]()
    with pytest.raises(ConfigError, match=r"reset\(\): the row has no dialogue_id, services, mode, user_turns, goal, "
                                          "outcome: give the trainer the rows"):
        environment.reset(prompt=first["prompt"], id=first["id"])
    with pytest.raises(ConfigError, match=f"the row {other['dialogue_id']} is an episode of .* pass the whole dict"):
        environment.reset(**{key: value for key, value in other.items() if key != "environment"})


def test_a_database_file_that_is_gone_is_said_at_reset_not_by_each_tool(bound, tmp_path):
    rows, factories = bound
    factory = factories[rows[0]["environment"]]
    gone = binding.Factory(factory.schemas_text, factory.mode, str(tmp_path / "gone.sqlite"))()
    with pytest.raises(ConfigError, match=f"the database file {tmp_path / 'gone.sqlite'} is not there"):
        gone.reset(**{key: value for key, value in rows[0].items() if key != "environment"})


def test_reset_refuses_a_row_of_another_split(bound):
    import dataclasses

    rows, factories = bound
    factory = factories[rows[0]["environment"]]
    assert factory.split == "validation"
    row = {key: value for key, value in rows[0].items() if key != "environment"}
    factory()._check(row)  # its own split's row passes
    trained = dataclasses.replace(factory, split="train")()  # the train split's environment of the same services
    with pytest.raises(ConfigError, match=f"reset\\(\\): the row {row['dialogue_id']} is no episode of the train "
                                          "split, whose database this environment plays"):
        trained.reset(**row)


def test_rows_cut_with_select_columns_are_said_so_where_trl_looks_for_their_environment(bound):
    rows, factories = bound
    with pytest.raises(ConfigError, match="a row has no 'environment' column \\(cut with select_columns\\?\\)"):
        None in factories  # TRL's check of each row's environment
    assert rows[0]["environment"] in factories and "no such environment" not in factories


def test_the_reward_function_given_to_trl_uncalled_answers_trls_call(bound):
    from unified_dialogue import environment

    rows, factories = bound
    row = {key: value for key, value in rows[0].items() if key != "environment"}
    played = factories[rows[0]["environment"]]()
    played.reset(**row)
    called = environment.reward_function(prompts=[row["prompt"]], completions=["Done."], environments=[played])
    assert called == environment.reward_function()(prompts=[row["prompt"]], completions=["Done."],
                                                   environments=[played]) == [0.0]
    with pytest.raises(TypeError, match="give the reward parts only"):
        environment.reward_function("items_found", completions=["Done."], environments=[played])
