"""The environment on SGD's fixtures: the database answers each gold call with its
recorded rows, the gold agent earns 1.0 in both modes (and under an SGD-X variant), an
agent that does nothing or changes one argument earns 0.0, every bad call is a message,
goals keep a changed value in order, and the check command over a whole copy."""

import json
import sqlite3

import pyarrow as pa
import pytest

from conftest import checksums, fixture_dir
from test_agent import minimal_record
from unified_dialogue import UNIFIED_FEATURES, load
from unified_dialogue.chat.agent import REFUSED
from unified_dialogue.chat.ticket import ticket
from unified_dialogue.core.errors import ConfigError, SourceFormatError
from unified_dialogue.environment import calls, database, gold, reward, splits, tickets
from unified_dialogue.environment.episode import Episode
from unified_dialogue.environment.services import Services
from unified_dialogue.tools import environment_check
from unified_dialogue.views import goals

SPLITS = ("train", "validation", "test")
MODES = ("ticket", "replay")


@pytest.fixture(scope="session")
def ready(tmp_path_factory):
    made, cache = {}, tmp_path_factory.mktemp("environment")

    def _ready(split, mode="ticket", variant=None):
        key = (split, mode, variant)
        if key not in made:
            options = options_of(cache)
            made[key] = (splits.prepare(split, mode=mode, variant=variant, **options),
                         {row["dialogue_id"]: row["messages"] for row in
                          load("sgd", "agent-chat", split=split, **({"variant": variant} if variant else {}),
                               **options)})
        return made[key]

    return _ready


def options_of(cache):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": str(cache)}


def episode_of(ready_split, row):
    return Episode(ready_split.services(row["services"]), ready_split.path, row)


def row_of(ready_split, dialogue_id):
    return next(row for row in ready_split.episodes if row["dialogue_id"] == dialogue_id)


# ---------------------------------------------------------------- the gold agent

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("split", SPLITS)
def test_the_gold_agent_earns_1_and_each_call_gets_its_recorded_rows(ready, split, mode):
    ready_split, chats = ready(split, mode)
    recorded = {}
    for row in load("sgd", "database", split=split, **options_of_path(ready_split)):
        recorded.setdefault(row["dialogue_id"], []).append(row)
    for row in ready_split.episodes:
        episode = episode_of(ready_split, row)
        final = gold.play(episode, gold.actions(chats[row["dialogue_id"]], mode, row["outcome"]))
        assert reward.parts(episode, final) == dict.fromkeys(reward.PARTS, 1.0), row["dialogue_id"]
        assert environment_check.recorded_answers(episode, recorded[row["dialogue_id"]]), row["dialogue_id"]


def options_of_path(ready_split):
    """The load options a prepared split was built with (its cache beside its database)."""
    cache = ready_split.path.split("/sgd/database")[0]
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": cache}


@pytest.mark.parametrize("mode", MODES)
def test_the_gold_agent_earns_1_under_a_variant_with_the_variants_names(ready, mode):
    ready_split, chats = ready("validation", mode, "v3")
    original, _ = ready("validation", mode)
    assert set(ready_split.schemas).isdisjoint(original.schemas)
    for row in ready_split.episodes:
        episode = episode_of(ready_split, row)
        assert reward.parts(episode, gold.play(episode, gold.actions(chats[row["dialogue_id"]], mode, row["outcome"])))["reward"] == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_no_call_and_a_changed_argument_earn_0_where_there_is_a_transaction(ready, mode):
    ready_split, chats = ready("train", mode)
    with_transaction = [row for row in ready_split.episodes if row["outcome"]["transactions"]]
    assert with_transaction
    for row in with_transaction:
        services = ready_split.services(row["services"])
        assert reward.parts(episode_of(ready_split, row), "Done.")["reward"] == 0.0
        changed = environment_check.changed_steps(gold.actions(chats[row["dialogue_id"]], mode, row["outcome"]), services)
        episode = episode_of(ready_split, row)
        parts = reward.parts(episode, gold.play(episode, changed))
        assert parts["reward"] == 0.0 and parts["transaction_recall"] < 1.0, row["dialogue_id"]


def test_an_extra_booking_fails_and_lowers_precision(ready):
    ready_split, chats = ready("train")
    row = row_of(ready_split, "sgd/train/2_00089")  # plays one movie
    steps = gold.actions(chats[row["dialogue_id"]], "ticket", row["outcome"])
    episode = episode_of(ready_split, row)
    episode.call("Media_1__PlayMovie", {"title": "Another Movie"})
    parts = reward.parts(episode, gold.play(episode, steps))
    assert (parts["reward"], parts["transaction_precision"], parts["transaction_recall"]) == (0.0, 0.5, 1.0)


def test_the_same_booking_made_twice_fails_as_the_transactions_are_a_multiset(ready):
    ready_split, chats = ready("train")
    row = row_of(ready_split, "sgd/train/2_00089")  # plays one movie, once
    steps = gold.actions(chats[row["dialogue_id"]], "ticket", row["outcome"])
    episode = episode_of(ready_split, row)
    final = gold.play(episode, steps)
    booking = next(call for call in episode.calls if call["tool"] == "Media_1__PlayMovie")
    episode.call(booking["tool"], booking["arguments"])  # its recording again
    parts = reward.parts(episode, final)
    assert (parts["reward"], parts["transaction_precision"], parts["transaction_recall"]) == (0.0, 0.5, 1.0)


# ---------------------------------------------------------------- the database's rules

def test_the_kth_same_call_gets_the_kth_recording_then_the_last(tmp_path):
    schema = {"service_name": "Shop_1", "description": "A shop", "slots": [
        {"name": "item", "description": "An item", "is_categorical": False, "possible_values": []},
        {"name": "size", "description": "Size", "is_categorical": True, "possible_values": ["S", "L"]}],
        "intents": [{"name": "Find", "description": "Find items", "is_transactional": False,
                     "required_slots": ["item"], "optional_slots": [{"slot": "size", "value": "dontcare"}],
                     "result_slots": ["item", "size"]}]}
    rows = [call_row("d1", turn, "Shop_1", "Find", {"item": "Hat"}, [{"item": "Hat", "size": size}])
            for turn, size in ((1, "S"), (3, "L"))]
    rows += [call_row("d2", 1, "Shop_1", "Find", {"item": "Cap"},
                      [{"item": "Cap", "size": "S"}, {"item": "Cap", "size": "L"}])]
    path = database.build(rows, [schema], str(tmp_path / "db.sqlite"))
    episode = Episode(Services([schema]), path, {"dialogue_id": "d1", "mode": "ticket", "outcome": {}})
    answers = [json.loads(episode.call("Shop_1__Find", {"item": " hat "})) for _ in range(3)]
    assert [a[0]["size"] for a in answers] == ["S", "L", "L"]
    # not recorded in d1: the union's rows that match, the default dontcare ignored
    assert json.loads(episode.call("Shop_1__Find", {"item": "CAP"})) == [{"item": "Cap", "size": "S"},
                                                                          {"item": "Cap", "size": "L"}]
    assert json.loads(episode.call("Shop_1__Find", {"item": "Cap", "size": "l"})) == [{"item": "Cap", "size": "L"}]
    assert json.loads(episode.call("Shop_1__Find", {"item": "Scarf"})) == []
    connection = sqlite3.connect(path)  # a file any SQLite client reads
    assert connection.execute("SELECT count(*) FROM calls").fetchone() == (3,)


def call_row(dialogue, turn, service, intent, arguments, results):
    return {"dialogue_id": dialogue, "turn_index": turn, "service": service, "intent": intent,
            "arguments": [{"slot": k, "value": v} for k, v in arguments.items()],
            "results": [[{"slot": k, "value": v} for k, v in result.items()] for result in results]}


def test_the_union_gives_at_most_ten_rows_in_their_first_order(tmp_path):
    schema = {"service_name": "S_1", "description": "", "slots": [
        {"name": "n", "description": "", "is_categorical": False, "possible_values": []}],
        "intents": [{"name": "Q", "description": "", "is_transactional": False, "required_slots": [],
                     "optional_slots": [], "result_slots": ["n"]}]}
    rows = [call_row(f"d{k}", 1, "S_1", "Q", {}, [{"n": str(k)}, {"n": str(k + 1)}]) for k in range(12)]
    path = database.build(rows, [schema], str(tmp_path / "db.sqlite"))
    episode = Episode(Services([schema]), path, {"dialogue_id": "other", "mode": "ticket", "outcome": {}})
    assert [r["n"] for r in json.loads(episode.call("S_1__Q", {}))] == [str(k) for k in range(10)]


def test_a_recorded_refusal_stays_one_and_an_unrecorded_transaction_is_confirmed(ready):
    ready_split, _ = ready("train")
    row = row_of(ready_split, "sgd/train/2_00089")
    episode = episode_of(ready_split, row)
    answer = json.loads(episode.call("Media_1__PlayMovie", {"title": "Some Movie"}))
    assert answer == [{"title": "Some Movie", "subtitles": "False"}]  # the default of subtitles
    assert episode.transactions == [("Media_1__PlayMovie", episode.services.tools["Media_1__PlayMovie"].key(
        {"title": "Some Movie"}))]
    path = database.build([call_row("x", 1, "Media_1", "PlayMovie", {"title": "Up"}, [])],
                          ready_split.episodes and [ready_split.schemas["Media_1"]], ready_split.path + ".refusal")
    refused = Episode(ready_split.services(["Media_1"]), path, {"dialogue_id": "x", "mode": "ticket", "outcome": {}})
    assert json.loads(refused.call("Media_1__PlayMovie", {"title": "up"})) == [] and refused.transactions == []


@pytest.mark.parametrize("name,arguments,says", [
    ("Nope__Tool", {}, "there is no tool 'Nope__Tool'"),
    ("Media_1__PlayMovie", {}, "needs the argument 'title'"),
    ("Media_1__PlayMovie", {"title": "Up", "colour": "red"}, "has no argument 'colour'"),
    ("Media_1__PlayMovie", {"title": "Up", "subtitles": "maybe"}, "takes one of 'True', 'False'"),
    ("Media_1__PlayMovie", {"title": {"a": 1}}, "is text, not"),
    ("Media_1__PlayMovie", ["Up"], "JSON object"),
])
def test_a_bad_call_is_a_message_the_model_reads(ready, name, arguments, says):
    ready_split, _ = ready("train")
    episode = episode_of(ready_split, row_of(ready_split, "sgd/train/2_00089"))
    answer = json.loads(episode.call(name, arguments))
    assert says in answer["error"] and episode.transactions == []


def test_a_message_after_the_user_left_is_an_error_and_replay_gives_the_turns_in_order(ready):
    ready_split, _ = ready("train", "replay")
    row = row_of(ready_split, "sgd/train/2_00089")
    episode = episode_of(ready_split, row)
    replies = [episode.send_message_to_user(f"turn {k}") for k in range(1, len(row["user_turns"]))]
    assert [r.split("\n\n(")[0] for r in replies] == row["user_turns"][1:]
    assert tickets.user_text("ended") in replies[-1]
    assert json.loads(episode.send_message_to_user("anyone?"))["error"] == tickets.user_text("ended")


# ---------------------------------------------------------------- goals and episodes

def user(acts, states=()):
    return {"roles": ["USER"], "utterance": "", "dialog_acts": acts, "belief_state": list(states),
            "query": None, "querying_result": None}


def inform(service, slot, value, canonical=None):
    return {"act": "INFORM", "domain": service, "slot_value_table": [
        {"slot": slot, "relation": None, "values": [{"value": value, "cononical_value": canonical or value,
                                                     "start": None, "end": None}]}]}


def state(service, intent, **slots):
    return {"intent": intent, "domain": service, "requested_slots": [], "informed_slot_value_table": [
        {"slot": slot, "relation": None, "values": [{"value": value, "cononical_value": value}]}
        for slot, value in slots.items()]}


def test_a_goal_keeps_a_changed_value_in_order_and_adds_the_final_state():
    turns = [user([inform("Hotels_1", "city", "NYC", "New York")], [state("Hotels_1", "Reserve", city="NYC")]),
             user([inform("Hotels_1", "city", "LA")], [state("Hotels_1", "Reserve", city="LA", hotel="Ritz")])]
    schemas = {"Hotels_1": {"service_name": "Hotels_1", "intents": [{"name": "Reserve", "is_transactional": True}]}}
    (entry,) = goals.goal(turns, schemas)["intents"]
    assert entry["transactional"] and entry["constraints"] == [
        {"slot": "city", "values": ["New York", "LA"], "accepted": False},
        {"slot": "hotel", "values": ["Ritz"], "accepted": True}]
    text = ticket({"intents": [entry]}, {})
    assert "- city: LA (I first asked for New York)" in text
    assert "- hotel: Ritz (I did not ask for it: I accept it when it is offered)" in text


def test_episodes_rows_hold_the_ticket_or_the_first_user_turn(ready):
    ticket_split, _ = ready("validation")
    replay_split, _ = ready("validation", "replay")
    for ticket_row, replay_row in zip(ticket_split.episodes, replay_split.episodes):
        by_name = {name: ticket_split.schemas[name] for name in ticket_row["services"]}
        assert ticket_row["prompt"][1]["content"] == ticket(ticket_row["goal"], by_name)
        assert replay_row["prompt"][1]["content"] == replay_row["user_turns"][0]
        assert [m["content"] for m in (ticket_row["prompt"][0], replay_row["prompt"][0])] == \
            [tickets.instruction("ticket"), tickets.instruction("replay")]


def test_an_unknown_mode_is_an_error_naming_the_modes(tmp_path):
    with pytest.raises(ConfigError, match="option mode takes one of 'ticket', 'replay', 'simulated', not 'chat'"):
        load("sgd", "episodes", split="validation", mode="chat", cache_dir=str(tmp_path), **{
            "data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd")})


# ---------------------------------------------------------------- the check command

def test_the_check_command_passes_on_the_fixtures(tmp_path, capsys):
    status = environment_check.main(["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                                     "--cache-dir", str(tmp_path), "--split", "train"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    for mode in MODES:
        counts = report["train"][mode]
        assert counts["gold_reward_1"] == counts["dialogues"] == 5 and counts["failures"] == {}
        assert counts["no_call_reward_0"] == counts["changed_reward_0"] == counts["with_transaction"] == 4


def test_a_call_of_an_intent_outside_the_schemas_is_an_error_naming_dialogue_and_turn():
    unified = pa.Table.from_pylist([minimal_record("BookTable")], schema=UNIFIED_FEATURES.arrow_schema)
    with pytest.raises(SourceFormatError, match=r"dialogue sgd/train/1_00000: field 'dialog\[1\]\.query': "
                                                r"Restaurants_1\.BookTable is not an intent"):
        calls.table(unified)
    assert calls.table(pa.Table.from_pylist([minimal_record("FindRestaurants")],
                                            schema=UNIFIED_FEATURES.arrow_schema)).num_rows == 1


def test_the_dialogues_own_rows_come_first_one_row_per_item(tmp_path):
    slots = [{"name": name, "description": "", "is_categorical": False, "possible_values": []}
             for name in ("city", "restaurant_name", "phone", "date", "humidity")]
    schemas = [{"service_name": "Food_1", "description": "", "slots": slots[:3], "intents": [
                   {"name": "FindRestaurants", "description": "", "is_transactional": False,
                    "required_slots": ["city"], "optional_slots": [], "result_slots": ["city", "restaurant_name", "phone"]}]},
               {"service_name": "Sky_1", "description": "", "slots": [slots[0], *slots[3:]], "intents": [
                   {"name": "GetWeather", "description": "", "is_transactional": False, "required_slots": ["city"],
                    "optional_slots": [{"slot": "date", "value": "2019-03-01"}],
                    "result_slots": ["city", "date", "humidity"]}]}]
    rows = [call_row("other", 1, "Food_1", "FindRestaurants", {"city": "Napa"},
                     [{"city": "Napa", "restaurant_name": "Bistro", "phone": "111"},
                      {"city": "Napa", "restaurant_name": "Cafe", "phone": "222"}]),
            call_row("mine", 1, "Food_1", "FindRestaurants", {"city": "Napa", "phone": "333"},
                     [{"city": "Napa", "restaurant_name": "Cafe", "phone": "333"}]),
            call_row("other", 2, "Sky_1", "GetWeather", {"city": "Napa", "date": "2019-03-07"},
                     [{"city": "Napa", "date": "2019-03-07", "humidity": "20"}]),
            call_row("mine", 2, "Sky_1", "GetWeather", {"city": "Napa", "date": "2019-03-07", "humidity": "15"},
                     [{"city": "Napa", "date": "2019-03-07", "humidity": "15"}])]
    path = database.build(rows, schemas, str(tmp_path / "db.sqlite"))
    mine = Episode(Services(schemas), path, {"dialogue_id": "mine", "mode": "ticket", "outcome": {}})
    # not a recorded call of either dialogue: the item this dialogue was told of, its values, first
    assert json.loads(mine.call("Food_1__FindRestaurants", {"city": "Napa"})) == [
        {"city": "Napa", "restaurant_name": "Cafe", "phone": "333"},
        {"city": "Napa", "restaurant_name": "Bistro", "phone": "111"}]
    # an item-less intent: a forecast is identified by its arguments
    assert json.loads(mine.call("Sky_1__GetWeather", {"city": "Napa", "date": "2019-03-07"})) == [
        {"city": "Napa", "date": "2019-03-07", "humidity": "15"}]
    other = Episode(Services(schemas), path, {"dialogue_id": "else", "mode": "ticket", "outcome": {}})
    assert [r["phone"] for r in json.loads(other.call("Food_1__FindRestaurants", {"city": "Napa"}))] == ["111", "222"]


def test_a_booking_with_a_value_the_user_gave_up_is_refused(tmp_path):
    slots = [{"name": name, "description": "", "is_categorical": False, "possible_values": []}
             for name in ("doctor", "time")]
    schema = {"service_name": "Care_1", "description": "", "slots": slots, "intents": [
        {"name": "Book", "description": "", "is_transactional": True, "required_slots": ["doctor", "time"],
         "optional_slots": [], "result_slots": ["doctor", "time"]}]}
    booked = {"service": "Care_1", "intent": "Book", "arguments": [{"slot": "doctor", "value": "Kim"},
                                                                   {"slot": "time", "value": "11:30"}]}
    goal = {"intents": [{"service": "Care_1", "intent": "Book", "constraints": [
        {"slot": "time", "values": ["12:00", "11:45", "11:30"], "accepted": True},
        {"slot": "doctor", "values": ["Kim"], "accepted": False}]}]}
    path = database.build([call_row("d", 3, "Care_1", "Book", {"doctor": "Kim", "time": "11:30"},
                                    [{"doctor": "Kim", "time": "11:30"}])], [schema], str(tmp_path / "db.sqlite"))
    row = {"dialogue_id": "d", "mode": "ticket", "goal": goal, "outcome": {"transactions": [booked], "refused": []}}
    episode = Episode(Services([schema]), path, row)
    for given_up in ("12:00", "11:45"):
        assert json.loads(episode.call("Care_1__Book", {"doctor": "Kim", "time": given_up})) == {
            "refused": REFUSED}
    assert json.loads(episode.call("Care_1__Book", {"doctor": "Lee", "time": "12:00"})) == [
        {"doctor": "Lee", "time": "12:00"}]  # another doctor: not what the user gave up
    assert json.loads(episode.call("Care_1__Book", {"doctor": "Kim", "time": "11:30"})) == [
        {"doctor": "Kim", "time": "11:30"}]
    assert len(episode.transactions) == 2
    # the user's last value is never given up, even where the dialogue booked another (dontcare)
    goal["intents"][0]["constraints"][1]["values"] = ["Kim", "dontcare"]
    assert json.loads(Episode(Services([schema]), path, row).call("Care_1__Book", {"doctor": "dontcare", "time": "11:30"})) \
        == [{"doctor": "dontcare", "time": "11:30"}]
