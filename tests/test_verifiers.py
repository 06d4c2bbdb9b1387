"""The verifiers taskset in process (make test-verifiers): a task per judged episode, in turns
over the domains, with the evaluation command's tools; the gold agent certified in each mode
(and a broken gold not); the JSON record rebuilding the episode it was made from, a
simulated user's turns included, without asking its model again; each mistake one line
before any rollout. tests/test_verifiers_eval.py runs vf-eval and vf-validate."""

import asyncio
import json
import shutil

import pytest
from conftest import checksums, fixture_dir

pytest.importorskip("verifiers.v1", reason="verifiers is installed in make env-verifiers")

from pydantic import ValidationError  # noqa: E402

from unified_dialogue import load  # noqa: E402
from unified_dialogue.environment import gold, reward, splits, trials  # noqa: E402
from unified_dialogue.environment.episode import Episode  # noqa: E402
from unified_dialogue.environment.play import tools_of  # noqa: E402
from unified_dialogue.integrations.verifiers import record, summary  # noqa: E402
from unified_dialogue.integrations.verifiers.reward import gold_parts  # noqa: E402
from unified_dialogue.environment.leftout import judged  # noqa: E402
from unified_dialogue.environment.runs import across_domains  # noqa: E402
from unified_dialogue.integrations.verifiers.taskset import SgdConfig, SgdTaskset  # noqa: E402
from unified_dialogue.testing.server import gold as replaying  # noqa: E402

USER = {"user_base_url": "http://127.0.0.1:9/v1", "user_model": "user"}


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
            "cache_dir": str(tmp_path_factory.mktemp("verifiers-cache"))}


def tasks(copy, mode="ticket", **more):
    return list(SgdTaskset(SgdConfig(split="validation", mode=mode, **copy, **more)))


def test_across_domains_takes_each_domain_in_turn():
    rows = [{"id": i, "services": [s]} for i, s in enumerate(["Music_1", "Alarm_1", "Music_2", "Alarm_1", "Hotels_3"])]
    assert [row["id"] for row in across_domains(rows)] == [1, 4, 0, 3, 2]
    assert across_domains([]) == []


def test_the_episodes_left_out_are_no_tasks():
    assert [judged(row) for row in ({}, {"left_out": ""}, {"left_out": "no outcome"})] == [True, True, False]


@pytest.mark.parametrize("mode", ["ticket", "replay"])
def test_a_task_per_judged_episode_with_the_commands_tools(copy, mode):
    made = tasks(copy, mode)
    ready = splits.prepare("validation", mode=mode, **copy)
    assert [t.data.id for t in made] == [row["id"] for row in across_domains(ready.episodes)]
    assert [t.data.idx for t in made] == list(range(len(ready.episodes)))
    for task in made:
        data = task.data
        assert data.tools == tools_of(ready, data.episode["services"], mode)
        assert ("send_message_to_user" in {tool["function"]["name"] for tool in data.tools}) == (mode == "replay")
        assert [m.model_dump(exclude_none=True) for m in data.prompt] == data.episode["prompt"]
        assert type(data).model_validate_json(data.model_dump_json()) == data  # all of it JSON
        assert task.key == data.id


@pytest.mark.parametrize("mode", ["ticket", "replay", "simulated"])
def test_the_gold_agent_earns_1_in_every_episode_and_a_broken_one_does_not(copy, mode):
    made = tasks(copy, mode, **(USER if mode == "simulated" else {}))
    assert [gold_parts(task.data)["reward"] for task in made] == [1.0] * len(made)
    booking = next(task for task in made if task.data.episode["outcome"]["transactions"])
    transactional = {f"{c['service']}__{c['intent']}" for c in booking.data.episode["outcome"]["transactions"]}
    steps = [s for s in booking.data.gold if not any(c["function"]["name"] in transactional
                                                       for c in s.get("tool_calls") or ())]
    broken = booking.with_data(gold=steps)
    assert gold_parts(broken.data)["transaction_recall"] == 0.0
    assert asyncio.run(booking.validate(None)) is True and asyncio.run(broken.validate(None)) is False  # vf-validate's check


def calls_of(steps):
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for s in steps for c in s.get("tool_calls") or ()]


@pytest.mark.parametrize("mode", ["ticket", "replay"])
def test_the_record_rebuilds_the_episode_it_was_made_from(copy, mode):
    for task in tasks(copy, mode):
        data, made, answers = task.data, {}, []
        for name, arguments in calls_of(data.gold):
            answer, made = record.call(data, made, name, arguments)
            answers.append(answer)
        made = json.loads(json.dumps(made))
        rebuilt = record.episode_of(data, made)
        assert [c["answer"] for c in rebuilt.calls] == answers
        final = data.gold[-1]["content"]
        direct = Episode(rebuilt.services, data.database, data.episode)
        assert reward.parts(rebuilt, final) == reward.parts(direct, gold.play(direct, data.gold)) == \
            {part: 1.0 for part in reward.PARTS}
        assert made["messages"] == rebuilt.messages == direct.messages


class Corpus:
    """A user model replaying the corpus's user turns, counting the requests it answers."""

    def __init__(self, rows):
        self.answer_of, self.asked = replaying(rows), 0

    def answer(self, messages, tools):
        self.asked += 1
        return self.answer_of({"messages": messages})


def test_a_simulated_users_record_replays_without_asking_its_model(copy):
    user = Corpus(load("sgd", "user-chat", split="validation", **copy))
    for task in tasks(copy, "simulated", **USER):
        data = task.data
        opening = record.simulated_user(data, (), user)
        made = {"user_answers": list(opening.endpoint.answers)}
        for name, arguments in calls_of(data.gold):
            _, made = record.call(data, made, name, arguments, live=user)
        asked = user.asked
        rebuilt = record.episode_of(data, json.loads(json.dumps(made)))
        assert user.asked == asked and rebuilt.user.ended == "stop"
        assert rebuilt.user.said[0] == data.episode["user_turns"][0]
        assert reward.parts(rebuilt, data.gold[-1]["content"])["reward"] == 1.0
        with pytest.raises(ValueError, match="ends before the episode does"):
            record.episode_of(data, {**made, "user_answers": made["user_answers"][:1], "calls": made["calls"]})


@pytest.mark.parametrize("given, says", [
    ({"mode": "chat"}, "mode 'chat': give one of ticket, replay, simulated (--env.taskset.mode)"),
    ({"split": "dev"}, "split 'dev': the environment plays one split of SGD at a time"),
    ({"variant": "v9"}, "variant 'v9': the environment plays SGD's own names (no variant) or an SGD-X variant's"),
    ({"mode": "simulated"}, "mode 'simulated': give the user's model with --env.taskset.user-base-url and "
                            "--env.taskset.user-model"),
    ({"user_model": "user"}, "--env.taskset.user-model: a user model plays only in mode 'simulated'"),
])
def test_a_configuration_mistake_names_its_fix(given, says):
    with pytest.raises(ValidationError) as refused:
        SgdConfig(**given)
    assert says in str(refused.value)


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    made = tmp_path_factory.mktemp("partial") / "sgd"
    shutil.copytree(fixture_dir("sgd"), made)
    (made / "test" / "dialogues_001.json").unlink()
    return made


@pytest.mark.parametrize("split, verify, says", [
    ("validation", True, "lacks 1 file(s) of the checksum table: test/dialogues_001.json. To load a partial copy, "
                         "pass verify=False"),
    ("test", False, "has no file of the split 'test' (it gives the splits train, validation): add that split's "
                    "files, or choose one it gives (split='validation')"),
])
def test_a_mistake_of_the_copy_is_one_line_before_any_task(partial, tmp_path, split, verify, says):
    with pytest.raises(SystemExit) as refused:
        SgdTaskset(SgdConfig(split=split, data_dir=str(partial), checksums=checksums("sgd"), cache_dir=str(tmp_path),
                             verify=verify))
    assert says in refused.value.code and "\n" not in refused.value.code


def test_the_summary_is_the_commands_with_pass_hat_k(tmp_path):
    def line(key, value):
        return {"id": key, "services": ["Alarm_1"], "unseen_services": [], "transactions": 1, "ended": "answer",
                **{part: value for part in reward.PARTS}}

    lines = [line("a", 1.0), line("a", 1.0), line("a", 0.0), line("b", 1.0), line("b", 0.0), line("b", 0.0)]
    made = summary.summary(lines)
    assert made["overall"]["reward"] == 0.5 and made["per_domain"]["Alarm"]["episodes"] == 2
    assert made["per_domain"]["Alarm"]["lines"] == 6
    assert made["pass_hat_k"] == {str(k): trials.pass_hat([(3, 2), (3, 1)], k) for k in (1, 2, 3)}
    assert made["pass_hat_k"]["2"] == (1 / 3 + 0) / 2
    assert "pass_hat_k" not in summary.summary(lines[:1])
    (tmp_path / "traces.jsonl").write_text(json.dumps({"traces": [{"info": {}}]}) + "\n", encoding="utf-8")
    with pytest.raises(Exception, match="line 1 is no scored rollout of this taskset"):
        summary.lines_of(str(tmp_path))
