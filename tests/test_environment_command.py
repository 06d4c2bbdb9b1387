"""The evaluation command against the stand-in OpenAI-compatible server (started here on
127.0.0.1): the gold agent earns 1.0 and a wrong one less, an interrupted run resumes
without rewriting finished episodes, and every user mistake is one line and exit status 2."""

import json

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.environment import gold
from unified_dialogue.environment.__main__ import main
from unified_dialogue.testing.server import StandInServer

DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("command-cache"))


def answer_of(cache, mode, wrong=False):
    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}
    episodes = load("sgd", "episodes", split="validation", mode=mode, **options)
    chats = {row["dialogue_id"]: row for row in load("sgd", "agent-chat", split="validation", **options)}
    return gold.answerer([(row, chats[row["dialogue_id"]]) for row in episodes], mode, wrong=wrong)


def evaluate(server, out, cache, *more):
    return main(["--base-url", server.base_url, "--model", "stand-in", "--split", "validation", "--out", str(out),
                 "--json",
                 "--cache-dir", cache, *DATA, *more])


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mode", ["ticket", "replay"])
def test_the_gold_agent_earns_1_and_a_wrong_one_less(tmp_path, cache, capsys, mode):
    with StandInServer(answer_of(cache, mode)) as server:
        assert evaluate(server, tmp_path / "gold.jsonl", cache, "--mode", mode, "--summary",
                        str(tmp_path / "s.json")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == json.loads((tmp_path / "s.json").read_text())
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["reward"] == 1.0
    played = lines(tmp_path / "gold.jsonl")
    assert [r["reward"] for r in played] == [1.0] * 3 and {r["ended"] for r in played} == {"answer"}
    assert all(m["role"] == "tool" for r in played for m in r["messages"][1:-1:2])
    # per domain (Media_2 and Music_1 in one dialogue: it counts in both), and the services the
    # train split lacks, read from its schema here
    assert {name: group["episodes"] for name, group in summary["per_domain"].items()} == \
        {"Alarm": 1, "Media": 1, "Movies": 1, "Music": 1}
    trained = set(load("sgd", "schema", split="train", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                       cache_dir=cache)["service_name"])
    assert [r["unseen_services"] for r in played] == [[s for s in r["services"] if s not in trained] for r in played]
    assert any(r["unseen_services"] for r in played)
    assert summary["unseen"]["episodes"] == sum(bool(r["unseen_services"]) for r in played) == \
        3 - summary["seen"]["episodes"]
    with StandInServer(answer_of(cache, mode, wrong=True)) as server:
        evaluate(server, tmp_path / "wrong.jsonl", cache, "--mode", mode)
    wrong = json.loads(capsys.readouterr().out)
    assert wrong["overall"]["reward"] < 1.0 and wrong["with_transactions"]["transaction_recall"] == 0.0


def test_an_interrupted_run_resumes_and_keeps_finished_episodes(tmp_path, cache, capsys):
    out = tmp_path / "run.jsonl"
    with StandInServer(answer_of(cache, "ticket")) as server:
        evaluate(server, out, cache, "--limit", "2", "--concurrency", "1")
        first = out.read_text(encoding="utf-8")
        out.write_text(first + first.splitlines()[0][:40], encoding="utf-8")  # a line cut by the interruption
        asked = len(server.requests)
        evaluate(server, out, cache)
        replayed = len(server.requests) - asked
    assert out.read_text(encoding="utf-8").startswith(first)
    assert [r["id"] for r in lines(out)][:2] == [r["id"] for r in lines(tmp_path / "run.jsonl")][:2]
    assert len(lines(out)) == 3
    assert replayed == lines(out)[2]["steps"]  # only the third episode was played again
    with pytest.raises(SystemExit) as stopped:
        evaluate(server, out, cache, "--mode", "replay")
    assert stopped.value.code == 2 and "is an episode of another run (mode 'ticket', not 'replay')" in capsys.readouterr().err


@pytest.mark.parametrize("flags,says", [
    (["--base-url", "ftp://x"], "--base-url 'ftp://x': give an http(s) URL"),
    (["--limit", "-1"], "--limit -1: give a number of at least 0"),
    (["--concurrency", "0"], "--concurrency 0: give a number of at least 1"),
    (["--split", "dev"], "split 'dev': the environment plays one split of SGD at a time"),
    (["--variant", "v9"], "variant 'v9': the environment plays SGD's own names (no variant) or an SGD-X variant's, one of v1, v2, v3, v4, v5"),
    (["--mode", "chat"], "argument --mode: invalid choice"),
    (["--base-url", "http://127.0.0.1:9/v1"], "no answer"),
])
def test_a_mistake_is_one_line_and_status_2(tmp_path, cache, capsys, flags, says):
    base = {"--base-url": "http://127.0.0.1:9/v1", "--split": "validation"}
    given = dict(zip(flags[::2], flags[1::2]))
    argv = [item for flag, value in {**base, **given}.items() for item in (flag, value)]
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--model", "m", "--out", str(tmp_path / "o.jsonl"), "--cache-dir", cache, *DATA])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1 and says in error, error


def test_an_output_that_is_a_folder_or_an_input_is_refused(tmp_path, cache, capsys):
    for out in (tmp_path, fixture_dir("sgd") / "dev" / "schema.json"):
        with pytest.raises(SystemExit) as stopped:
            main(["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--split", "validation", "--out", str(out),
                  "--cache-dir", cache, *DATA])
        assert stopped.value.code == 2 and capsys.readouterr().err.startswith("python -m unified_dialogue.environment")


def test_an_endpoint_refusing_the_request_stops_the_run_in_one_line(tmp_path, cache, capsys):
    with StandInServer(lambda request: (_ for _ in ()).throw(ValueError("no such model"))) as server:
        with pytest.raises(SystemExit) as stopped:
            evaluate(server, tmp_path / "o.jsonl", cache)
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and "answered 400" in error and error.count("\n") == 1


def test_odd_answers_of_a_model_are_messages_it_reads_never_a_crash(tmp_path, cache, capsys):
    answers = iter([
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {
            "name": "Alarm_1__AddAlarm", "arguments": "{not json"}}]},
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {
            "name": "send_message_to_user", "arguments": {"message": "hi"}}}]},  # not a tool in ticket mode
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {
            "name": "Alarm_1__AddAlarm", "arguments": {"new_alarm_time": "25:00", "x": 1}}}]},
    ])

    def answer(request):
        return next(answers, {"role": "assistant", "content": "Done."})

    with StandInServer(answer) as server:
        assert evaluate(server, tmp_path / "o.jsonl", cache, "--limit", "1", "--concurrency", "1") == 0
    (record,) = lines(tmp_path / "o.jsonl")
    errors = [json.loads(m["content"])["error"] for m in record["messages"] if m["role"] == "tool"]
    expected = ["the arguments are not JSON", "there is no tool 'send_message_to_user'",
                "Alarm_1__AddAlarm has no argument 'x'"]
    assert len(errors) == 3 and all(error.startswith(start) for error, start in zip(errors, expected)), errors
    assert record["final_answer"] == "Done." and record["ended"] == "answer" and record["reward"] == 0.0


def test_a_content_in_parts_is_read_as_its_text():
    from unified_dialogue.core.answer import content_text

    assert content_text([{"type": "text", "text": "Your "}, {"type": "image"}, {"type": "text", "text": "table."},
                         {"type": "thinking", "text": "draft"}]) == "Your table."
    assert (content_text(None), content_text("x"), content_text(3)) == ("", "x", "")
