"""The simulated user: the evaluation command against two stand-in servers started here on
127.0.0.1, the gold agent and a user that replays the corpus's user turns (the gold
completions of ``user-chat`` rows, which the server finds by the conversation the
simulated user sends: the same messages as the rows' prompts). Together they earn 1.0; a
user that leaves out a constraint makes the report blame the user, not the agent; a user
that never ends fails at its most turns; temperature and seed are sent and recorded; every
mistake on the command line is one line."""

import json

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.chat.user import STOP, reading
from unified_dialogue.environment import gold, report
from unified_dialogue.environment.__main__ import main
from unified_dialogue.testing.server import StandInServer, gold as gold_answers

DATA = ["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd")]
ALARM = "sgd/validation/2_00125"  # the user sets an alarm "for five pm" (new_alarm_time 17:00)
SAID, FORMS = " for five pm", ("17:00", " for 5 pm")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("simulated-cache"))


def loaded(cache, config, **options):
    return load("sgd", config, split="validation", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                cache_dir=cache, **options)


def gold_agent(cache):
    """The gold agent, finding its dialogue by the first user message (the simulated user's
    first turn, which the replaying user says as the corpus's)."""
    chats = {row["dialogue_id"]: row for row in loaded(cache, "agent-chat")}
    episodes = loaded(cache, "episodes", mode="replay")
    return gold.answerer([(row, chats[row["dialogue_id"]]) for row in episodes], "simulated")


def evaluate(agent, user, out, cache, *more):
    return main(["--base-url", agent.base_url, "--model", "agent", "--split", "validation", "--out", str(out),
                 "--json", "--cache-dir", cache, *DATA, "--mode", "simulated", "--user-base-url", user.base_url,
                 "--user-model", "user", *more])


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_gold_agent_and_a_replaying_user_earn_1(tmp_path, cache, capsys):
    rows = loaded(cache, "user-chat")
    with StandInServer(gold_agent(cache)) as agent, StandInServer(gold_answers(rows)) as user:
        assert evaluate(agent, user, tmp_path / "run.jsonl", cache, "--seed", "7", "--user-seed", "3",
                        "--user-temperature", "0.5") == 0
        asked = user.requests
    summary = json.loads(capsys.readouterr().out)
    played = lines(tmp_path / "run.jsonl")
    assert summary["overall"]["episodes"] == 3 and summary["overall"]["reward"] == 1.0
    assert summary["failures"] == {"agent": 0, "user": 0} and summary["ended_at_max_user_turns"] == 0
    assert [r["reward"] for r in played] == [1.0] * 3
    for record in played:
        first = next(r for r in rows if r["dialogue_id"] == record["dialogue_id"])["completion"][0]["content"]
        assert record["user"] == {"model": "user", "temperature": 0.5, "seed": 3, "ended": "stop",
                                  "turns": sum(r["dialogue_id"] == record["dialogue_id"] for r in rows),
                                  "max_turns": 30, "instruction": None, "max_tokens": None, "trial_seed": 3,
                                  "opening": reading(first)[0]}  # the first user message, the prompt's
        assert (record["seed"], record["temperature"], record["mode"]) == (7, 0.0, "simulated")
        assert record["user_stated_goal"] and record["unstated"] == [] and record["failure"] is None
    # the simulated user was asked once per user turn, each time with a user-chat row's prompt
    assert len(asked) == rows.num_rows
    assert {(request["seed"], request["temperature"], "tools" in request) for request in asked} == {(3, 0.5, False)}
    prompts = sorted(json.dumps(row["prompt"]) for row in rows)
    assert sorted(json.dumps(request["messages"]) for request in asked) == prompts


def replaying_user(rows, drop=None):
    """A user saying a dialogue's user turns in order (found by its system message), without
    the words ``drop`` where given."""
    turns = {}
    for row in rows:
        turns.setdefault(row["prompt"][0]["content"], []).append(row["completion"][0]["content"])

    def answer(request):
        said = turns[request["messages"][0]["content"]]
        text = said[sum(m["role"] == "assistant" for m in request["messages"])]
        return {"role": "assistant", "content": text.replace(drop, "") if drop else text}

    return answer


def listening_agent(cache):
    """The gold agent, but one that acts only on what it heard: until the user has said the
    alarm's time, it leaves the time out of its calls and its messages."""
    agent = gold_agent(cache)

    def answer(request):
        step = agent(request)
        heard = any(SAID.strip() in (m.get("content") or "") for m in request["messages"] if m["role"] != "system")
        if heard:
            return step
        calls = []
        for call in step.get("tool_calls") or []:
            arguments = json.loads(call["function"]["arguments"])
            arguments = {k: forget(v) for k, v in arguments.items() if v not in FORMS}
            calls.append({**call, "function": {**call["function"], "arguments": json.dumps(arguments)}})
        return {**step, "content": forget(step.get("content") or ""), "tool_calls": calls}

    return answer


def forget(text):
    for form in FORMS:
        text = text.replace(form, "")
    return text


def test_a_user_that_leaves_out_a_constraint_is_blamed_not_the_agent(tmp_path, cache, capsys):
    rows = loaded(cache, "user-chat")
    assert sum(SAID in row["completion"][0]["content"] for row in rows) == 1
    with StandInServer(listening_agent(cache)) as agent, StandInServer(replaying_user(rows)) as user:
        evaluate(agent, user, tmp_path / "whole.jsonl", cache)
    assert json.loads(capsys.readouterr().out)["overall"]["reward"] == 1.0  # told everything, it does it all
    with StandInServer(listening_agent(cache)) as agent, StandInServer(replaying_user(rows, SAID)) as user:
        evaluate(agent, user, tmp_path / "omitted.jsonl", cache, "--summary", str(tmp_path / "summary.json"))
    summary = json.loads(capsys.readouterr().out)
    played = {r["dialogue_id"]: r for r in lines(tmp_path / "omitted.jsonl")}
    alarm = played.pop(ALARM)
    assert alarm["reward"] == 0.0 and alarm["failure"] == "user" and not alarm["user_stated_goal"]
    assert alarm["unstated"] == [{"service": "Alarm_1", "intent": "AddAlarm", "slot": "new_alarm_time",
                                  "value": "17:00"}]
    assert all(r["reward"] == 1.0 and r["failure"] is None for r in played.values())
    assert summary["failures"] == {"agent": 0, "user": 1}
    assert summary["without_user_failures"]["reward"] == 1.0 and summary["overall"]["reward"] == 2 / 3


def test_an_agent_that_does_nothing_is_blamed_not_the_user(tmp_path, cache, capsys):
    rows = loaded(cache, "user-chat")
    with StandInServer(lambda request: {"role": "assistant", "content": "Done."}) as agent, \
            StandInServer(gold_answers(rows)) as user:
        evaluate(agent, user, tmp_path / "run.jsonl", cache)
    summary = json.loads(capsys.readouterr().out)
    played = lines(tmp_path / "run.jsonl")
    # the user said its first turn only, and had more to say: the agent cut it short
    assert summary["failures"] == {"agent": 3, "user": 0} and summary["overall"]["reward"] == 0.0
    assert all(r["user"]["turns"] == 1 and r["user"]["ended"] is None for r in played)
    assert any(r["unstated"] for r in played)


def test_a_user_that_reaches_its_most_turns_fails_the_episode(tmp_path, cache, capsys):
    rows = loaded(cache, "user-chat")
    with StandInServer(gold_agent(cache)) as agent, StandInServer(gold_answers(rows)) as user:
        evaluate(agent, user, tmp_path / "run.jsonl", cache, "--max-user-turns", "2")
    summary = json.loads(capsys.readouterr().out)
    played = lines(tmp_path / "run.jsonl")
    assert {(r["ended"], r["reward"], r["user"]["ended"], r["user"]["turns"]) for r in played} == \
        {("max_user_turns", 0.0, "max_user_turns", 2)}
    assert summary["ended_at_max_user_turns"] == 3 and summary["overall"]["reward"] == 0.0


def test_trials_with_a_simulated_user_send_it_a_seed_each_and_resume(tmp_path, cache, capsys):
    rows, out = loaded(cache, "user-chat"), tmp_path / "run.jsonl"
    with StandInServer(gold_agent(cache)) as agent, StandInServer(gold_answers(rows)) as user:
        assert evaluate(agent, user, out, cache, "--limit", "1", "--user-seed", "3", "--trials", "2") == 0
        assert evaluate(agent, user, out, cache, "--limit", "1", "--user-seed", "3", "--trials", "2") == 0
        seeds = [request["seed"] for request in user.requests]
    played = sorted(lines(out), key=lambda r: r["trial"])
    assert [(r["trial"], r["user"]["seed"], r["user"]["trial_seed"]) for r in played] == [(0, 3, 3), (1, 3, 4)]
    assert set(seeds) == {3, 4}  # and the second run played nothing


@pytest.mark.parametrize("flags, says", [
    (["--max-user-turns", "12"], "user max_turns 30, not 12"),
    (["--user-instruction", "Play the user. {stop}"], "user instruction None, not 'sha256:"),
    (["--user-max-tokens", "64"], "user max_tokens None, not 64"),
])
def test_a_resume_with_other_settings_of_the_user_is_refused(tmp_path, cache, capsys, flags, says):
    rows, out = loaded(cache, "user-chat"), tmp_path / "run.jsonl"
    with StandInServer(gold_agent(cache)) as agent, StandInServer(gold_answers(rows)) as user:
        assert evaluate(agent, user, out, cache, "--limit", "1") == 0
        played = out.read_text(encoding="utf-8")
        capsys.readouterr()
        with pytest.raises(SystemExit) as stopped:
            evaluate(agent, user, out, cache, "--limit", "1", *flags)
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and f"line 1 is an episode of another run ({says}" in error, error
    assert out.read_text(encoding="utf-8") == played


@pytest.mark.parametrize("flags,says", [
    (["--mode", "simulated"], "--mode simulated: give the user's model with --user-base-url and --user-model"),
    (["--mode", "simulated", "--user-model", "u"], "--mode simulated: give the user's model"),
    (["--user-model", "u"], "--user-model: a user model plays only in --mode simulated"),
    (["--user-max-tokens", "9"], "--user-max-tokens: a user model plays only in --mode simulated"),
    (["--max-user-turns", "4"], "--max-user-turns: a user model plays only in --mode simulated"),
    (["--mode", "simulated", "--user-model", "u", "--user-base-url", "ftp://x"], "--user-base-url 'ftp://x'"),
    (["--mode", "simulated", "--user-model", "u", "--user-base-url", "http://127.0.0.1:9/v1",
      "--max-user-turns", "0"], "--max-user-turns 0: give a number of at least 1"),
])
def test_a_mistake_is_one_line_and_status_2(tmp_path, cache, capsys, flags, says):
    with pytest.raises(SystemExit) as stopped:
        main(["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--split", "validation", "--out",
              str(tmp_path / "o.jsonl"), "--cache-dir", cache, *DATA, *flags])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1 and says in error, error


# ---------------------------------------------------------------- the report's rules

def test_a_time_or_a_date_is_found_as_people_say_it():
    assert report.mentioned("17:00", "an alarm for 5 pm please") and report.mentioned("17:00", "at 5:00pm")
    assert report.mentioned("2019-03-05", "on march 5th") and report.mentioned("2019-03-05", "the 5th of march")
    assert report.mentioned("12:00", "at noon") and not report.mentioned("17:00", "at 15 pm")
    assert not report.mentioned("San Jose", "in san joseph") and report.mentioned("San Jose", "(san jose)")
    assert report.failure(1.0, [{"slot": "x"}], True) is None and report.failure(0.0, [], True) == "agent"
    assert report.failure(0.0, [{"slot": "x"}], True) == "user" and report.failure(0.0, [{"slot": "x"}], False) == \
        "agent"
    assert reading(f"Bye. {STOP}") == ("Bye.", True, [])


def test_the_user_check_command_passes_on_the_fixtures(tmp_path, capsys):
    from unified_dialogue.tools import user_check

    status = user_check.main(["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                              "--cache-dir", str(tmp_path), "--split", "train", "--split", "validation"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0
    assert {split: (r["rows"], r["dialogues"], r["gold_1"], r["simulated_reward_1"], r["user_stated_goal"],
                    r["informed_not_in_goal"], r["unmatched_user_requests"], r["failures"])
            for split, r in result.items()} == {"train": (21, 5, 21, 5, 5, 0, 0, {}),
                                                "validation": (13, 3, 13, 3, 3, 0, 0, {})}
    assert (result["train"]["informed_values"], result["validation"]["informed_values"]) == (7, 5)


def test_the_trl_binding_plays_against_a_simulated_user(tmp_path, cache):
    import inspect
    import pickle

    from unified_dialogue.core.errors import ConfigError
    from unified_dialogue.environment import binding
    from unified_dialogue.environment.endpoint import Endpoint
    from unified_dialogue.environment.user import UserModel

    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}
    chats = {row["dialogue_id"]: row["messages"] for row in loaded(cache, "agent-chat")}
    replayed = {row["dialogue_id"]: row["user_turns"] for row in loaded(cache, "episodes", mode="replay")}
    with StandInServer(gold_answers(loaded(cache, "user-chat"))) as user:
        rows, factories = binding.trl("validation", mode="simulated", get_reward=True,
                                      user=UserModel(Endpoint(user.base_url, "u")),
                                      **options)
        factories = pickle.loads(pickle.dumps(factories))
        for row in rows:
            assert row["prompt"][-1] == {"role": "user", "content": ""}
            environment = factories[row["environment"]]()
            assert environment.reset(**row) == replayed[row["dialogue_id"]][0]  # TRL appends it to the prompt
            tools = {name: getattr(environment, name) for name, _ in
                     inspect.getmembers(type(environment), predicate=inspect.isfunction)
                     if name not in ("reset", "get_reward") and not name.startswith("_")}
            gold.play(None, gold.actions(chats[row["dialogue_id"]], "simulated"),
                      call=lambda name, arguments: tools[name](**arguments))
            assert environment._episode.user.ended == "stop" and environment.get_reward() == 1.0
            assert pickle.loads(pickle.dumps(environment)).get_reward() == 1.0
    with pytest.raises(ConfigError, match="give user=UserModel"):
        binding.trl("validation", mode="simulated", **options)
    with pytest.raises(ConfigError, match="only in mode 'simulated'"):
        binding.trl("validation", mode="replay", user=UserModel(Endpoint("http://127.0.0.1:9/v1", "u")), **options)


def test_the_simulated_user_is_shown_its_words_as_user_chat_rows_show_a_users_turns():
    from unified_dialogue.chat.text import OPENING
    from unified_dialogue.environment.user import SimulatedUser

    class Said:
        texts = iter(["I need a table in SF. ", f"<think>done</think>Thanks. {STOP}"])

        def answer(self, messages, tools):
            assert tools is None
            return {"role": "assistant", "content": next(self.texts)}

    user = SimulatedUser(Said(), "Play the user.", 5)
    assert user.opening() == "I need a table in SF." and user.ended is None  # its answer, read as every answer
    assert user.reply("Which day?") == "Thanks." and user.ended == "stop"
    assert user.messages == [{"role": "system", "content": "Play the user."}, {"role": "user", "content": OPENING},
                             {"role": "assistant", "content": "I need a table in SF."},
                             {"role": "user", "content": "Which day?"}, {"role": "assistant", "content": "Thanks."}]
