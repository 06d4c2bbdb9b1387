"""The judge's rules, each a small pure function: refused calls, items, the goal's asked and
accepted values, the ticket, the values a model can produce, left-out episodes and the
reward's criteria on SGD's fixtures (the gold agent 1.0, a refused booking no transaction,
a wrong item or a silent answer 0.0)."""

import json
from types import SimpleNamespace

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.chat import agent
from unified_dialogue.chat.ticket import TODAY, ticket
from unified_dialogue.core import features
from unified_dialogue.environment import episode as episode_module
from unified_dialogue.environment import final_state, found, gold, leftout, reward, splits, told
from unified_dialogue.environment.episode import Episode
from unified_dialogue.environment.services import Services
from unified_dialogue.views import goals, items

SCHEMA = {"service_name": "Restaurants_2", "description": "",
          "slots": [{"name": n, "description": n, "is_categorical": n == "has_vegetarian_options",
                     "possible_values": ["True", "False"] if n == "has_vegetarian_options" else []}
                    for n in ("restaurant_name", "location", "date", "time", "phone_number", "has_vegetarian_options")],
          "intents": [{"name": "FindRestaurants", "description": "", "is_transactional": False,
                       "required_slots": ["location"], "optional_slots": [],
                       "result_slots": ["restaurant_name", "location", "phone_number", "has_vegetarian_options"]},
                      {"name": "ReserveRestaurant", "description": "", "is_transactional": True,
                       "required_slots": ["restaurant_name", "location", "time"],
                       "optional_slots": [{"slot": "date", "value": "2019-03-01"}],
                       "result_slots": ["restaurant_name", "location", "date", "time"]}]}
SCHEMAS = {"Restaurants_2": SCHEMA}


def act(kind, slot="", *values, domain="Restaurants_2"):
    return {"act": kind, "domain": domain, "slot_value_table": [
        {"slot": slot, "values": [{"value": v, "cononical_value": c} for v, c in values]}] if slot else
        [{"slot": "", "values": []}]}


def turn(role, acts, states=(), query=None, results=None):
    return {"roles": [role], "utterance": "", "dialog_acts": acts, "belief_state": list(states),
            "query": query, "querying_result": None if results is None else {"results": results}}


def state(intent, **slots):
    return {"intent": intent, "domain": "Restaurants_2", "informed_slot_value_table": [
        {"slot": slot, "values": [{"value": value, "cononical_value": value}]} for slot, value in slots.items()]}


def call(method, **arguments):
    return {"domain": "Restaurants_2", "method": method,
            "parameters": [{"slot": k, "value": v} for k, v in arguments.items()]}


ROW = [{"slot": "restaurant_name", "value": "Lalla Grill"}, {"slot": "time", "value": "18:30"}]
# the user asks for 6:45 pm, the service refuses and offers 6:30 pm, the user takes it
REFUSED_THEN_BOOKED = [
    turn("USER", [act("INFORM", "time", ("6:45 pm", "18:45")), act("INFORM", "restaurant_name", ("Lalla", "Lalla")),
                  act("INFORM", "location", ("San Jose", "San Jose"))],
         [state("ReserveRestaurant", time="6:45 pm", restaurant_name="Lalla", location="San Jose")]),
    turn("SYSTEM", [act("OFFER", "time", ("6:30 pm", "18:30")), act("NOTIFY_FAILURE")],
         query=call("ReserveRestaurant", restaurant_name="Lalla Grill", location="San Jose", time="18:45"),
         results=[ROW]),
    turn("USER", [act("AFFIRM")], [state("ReserveRestaurant", time="6:30 pm", restaurant_name="Lalla",
                                         location="San Jose")]),
    turn("SYSTEM", [act("NOTIFY_SUCCESS")],
         query=call("ReserveRestaurant", restaurant_name="Lalla Grill", location="San Jose", time="18:30"),
         results=[ROW]),
]


def test_sgds_act_names_are_defined_once_beside_dontcare():
    assert (features.INFORM, features.NOTIFY_FAILURE, features.DONTCARE) == ("INFORM", "NOTIFY_FAILURE", "dontcare")


def test_a_refused_call_is_no_transaction_and_the_accepted_alternative_is():
    gold_outcome = goals.outcome(REFUSED_THEN_BOOKED, SCHEMAS)
    assert [c["arguments"][-1]["value"] for c in gold_outcome["refused"]] == ["18:45"]
    assert [c["arguments"][-1]["value"] for c in gold_outcome["transactions"]] == ["18:30"]
    (entry,) = goals.goal(REFUSED_THEN_BOOKED, SCHEMAS)["intents"]
    assert entry["on_refusal"] == "accept"
    time = next(c for c in entry["constraints"] if c["slot"] == "time")
    assert time == {"slot": "time", "values": ["18:45", "6:30 pm"], "accepted": True}


def test_a_refused_booking_declined_says_so_in_the_ticket():
    declined = REFUSED_THEN_BOOKED[:2] + [turn("USER", [act("NEGATE")])]
    (entry,) = goals.goal(declined, SCHEMAS)["intents"]
    assert entry["on_refusal"] == "decline" and not goals.outcome(declined, SCHEMAS)["transactions"]
    assert "I do not take an alternative" in ticket(goals.goal(declined, SCHEMAS), SCHEMAS)


def test_the_refusal_has_one_form_with_the_alternative_where_offered():
    assert agent.refusal([]) == {"refused": agent.REFUSED}
    assert json.loads(agent.results_text({"results": [ROW]}, refused=True)) == {
        "refused": agent.REFUSED, agent.OFFERED: {"restaurant_name": "Lalla Grill", "time": "18:30"}}
    assert agent.refused_call({"domain": "Restaurants_2"}, [act("NOTIFY_FAILURE")])
    assert not agent.refused_call({"domain": "Hotels_1"}, [act("NOTIFY_FAILURE")])


def test_items_are_declared_per_intent_and_an_unlisted_intent_has_none():
    assert items.identifying(SCHEMA, "ReserveRestaurant") == ["restaurant_name", "date", "time"]
    assert items.identifying(SCHEMA, "FindRestaurants") == ["restaurant_name"]
    assert items.identifying(SCHEMA, "GetWeather") == [] and items.identifying(SCHEMA, "MovieSearch") == []


def test_told_values_carry_their_item_and_a_ticket_names_an_item_not_the_last():
    turns = [turn("USER", [act("INFORM", "location", ("San Jose", "San Jose"))],
                  [state("FindRestaurants", location="San Jose")]),
             turn("SYSTEM", [act("OFFER", "restaurant_name", ("Sino", "Sino"))],
                  query=call("FindRestaurants", location="San Jose"), results=[]),
             turn("USER", [act("REQUEST", "phone_number")]),
             turn("SYSTEM", [act("INFORM", "phone_number", ("408-1", "408-1"))]),
             turn("USER", [act("REQUEST", "phone_number")]),
             turn("SYSTEM", [act("OFFER", "restaurant_name", ("Tofu", "Tofu")), act("INFORM", "phone_number",
                                                                                  ("408-2", "408-2"))])]
    gold_outcome = goals.outcome(turns, SCHEMAS)
    assert [(t["values"], t["item"][0]["values"]) for t in gold_outcome["told"]] == [
        (["408-1"], ["Sino"]), (["408-2"], ["Tofu"])]
    assert gold_outcome["found"][0]["item"] == [{"slot": "restaurant_name", "values": ["Tofu"]}]
    text = ticket(goals.goal(turns, SCHEMAS), SCHEMAS)
    assert "- Tell me: phone_number of Sino; phone_number of Tofu." in text and f"({TODAY})" in text


def test_a_value_asked_of_two_items_names_each_item_in_the_ticket():
    # no search call: the service ends at no item, so only the two items tell the questions apart
    turns = [turn("USER", [act("INFORM", "location", ("San Jose", "San Jose"))],
                  [state("FindRestaurants", location="San Jose")]),
             turn("SYSTEM", [act("OFFER", "restaurant_name", ("Sino", "Sino"))]),
             turn("USER", [act("REQUEST", "phone_number")]),
             turn("SYSTEM", [act("INFORM", "phone_number", ("408-1", "408-1"))]),
             turn("USER", [act("REQUEST", "phone_number")]),
             turn("SYSTEM", [act("OFFER", "restaurant_name", ("Tofu", "Tofu")), act("INFORM", "phone_number",
                                                                                  ("408-2", "408-2"))])]
    (entry,) = goals.goal(turns, SCHEMAS)["intents"]
    assert [(q["item"][0]["values"], q["named"]) for q in entry["questions"]] == [(["Sino"], True), (["Tofu"], True)]
    assert "- Tell me: phone_number of Sino; phone_number of Tofu." in ticket({"intents": [entry]}, SCHEMAS)
    # one item, but the service ends at none (no search): only its name leads to it
    assert goals.goal(turns[:4], SCHEMAS)["intents"][0]["questions"][0]["named"]


def test_a_value_told_of_a_forecast_the_user_moved_on_from_names_its_search():
    weather = {"service_name": "Weather_1", "description": "", "slots": [
        {"name": name, "description": name, "is_categorical": False, "possible_values": []}
        for name in ("city", "humidity")], "intents": [
        {"name": "GetWeather", "description": "", "is_transactional": False, "required_slots": ["city"],
         "optional_slots": [], "result_slots": ["city", "humidity"]}]}
    schemas = {"Weather_1": weather}
    turns = [turn("USER", [act("INFORM", "city", ("Cotati", "Cotati"), domain="Weather_1")],
                  [{**state("GetWeather", city="Cotati"), "domain": "Weather_1"}]),
             turn("SYSTEM", [], query=call("GetWeather", city="Cotati"), results=[]),
             turn("USER", [act("REQUEST", "humidity", domain="Weather_1")]),
             turn("SYSTEM", [act("INFORM", "humidity", ("15", "15"), domain="Weather_1")]),
             turn("USER", [act("INFORM", "city", ("Seattle", "Seattle"), domain="Weather_1")],
                  [{**state("GetWeather", city="Seattle"), "domain": "Weather_1"}]),
             turn("SYSTEM", [], query=call("GetWeather", city="Seattle"), results=[])]
    for entry in turns:
        if entry["query"]:
            entry["query"] = {**entry["query"], "domain": "Weather_1"}
    (told_entry,) = goals.outcome(turns, schemas)["told"]
    assert told_entry["item"] == [{"slot": "city", "values": ["Cotati"]}]
    assert "- Tell me: humidity of Cotati." in ticket(goals.goal(turns, schemas), schemas)
    # asked of the search the user ended at: no item, none named
    (told_entry,) = goals.outcome(turns[:4], schemas)["told"]
    assert told_entry["item"] == []


def test_only_the_last_refused_attempt_of_an_intent_is_demanded():
    first, last = ({"service": "Restaurants_2", "intent": "ReserveRestaurant", "arguments": [
        {"slot": "time", "value": time}], "item": []} for time in ("19:00", "17:15"))
    assert final_state.unanswered_refusals({"transactions": [], "refused": [first, last]}) == [last]
    assert final_state.unanswered_refusals({"transactions": [last], "refused": [first]}) == []


def test_aliases_map_the_users_words_to_the_services_form():
    services = Services([SCHEMA])
    aliases = episode_module.aliases(services, [{"service": "Restaurants_2", "slot": "date",
                                                 "values": ["2019-03-01", "today"]}])
    assert aliases == {("Restaurants_2", "date", "today"): "2019-03-01"}


def heard(outcome, said, rows=()):
    return leftout.heard(outcome, {"intents": []}, said, list(rows), Services([SCHEMA]))


def test_nothing_to_judge_is_left_out_and_a_booking_is_not():
    empty = {"transactions": [], "refused": [], "found": [], "told": []}
    booked = {**empty, "transactions": [{"service": "Restaurants_2", "intent": "ReserveRestaurant", "arguments": [],
                                          "item": [{"slot": "restaurant_name", "values": ["Sino"]}]}]}
    assert leftout.left_out(heard(empty, "")) == "nothing_to_judge"
    assert leftout.left_out(heard(booked, "Your table at Sino is booked.")) == ""
    assert set(leftout.REASONS) == {"nothing_to_judge", "found_nowhere", "unsaid_by_the_corpus"}


def test_an_item_settled_on_that_no_call_returned_is_left_out():
    settled = {"service": "Restaurants_2", "intent": "FindRestaurants",
               "item": [{"slot": "restaurant_name", "values": ["Sino"]}]}
    outcome = {"transactions": [], "refused": [], "found": [settled], "told": []}
    row = ("Restaurants_2__FindRestaurants", {"restaurant_name": "Sino", "location": "San Jose"})
    assert leftout.left_out(heard(outcome, "I found Sino.", [row])) == ""
    other = ("Restaurants_2__FindRestaurants", {"restaurant_name": "Tofu", "location": "San Jose"})
    assert leftout.left_out(heard(outcome, "I found Sino.", [other])) == "found_nowhere"


def test_a_dialogue_whose_own_system_turns_do_not_tell_what_is_annotated_is_left_out():
    veggie = {"service": "Restaurants_2", "slot": "has_vegetarian_options", "values": ["True"],
              "item": [{"slot": "restaurant_name", "values": ["Sino"]}]}
    outcome = {"transactions": [], "refused": [], "found": [], "told": [veggie]}
    assert leftout.left_out(heard(outcome, "Sino has vegetarian options.")) == ""
    # annotated against its own words, or never said
    for said in ("Sino has no vegetarian options.", "Sino is at 377 Santana Row."):
        assert leftout.left_out(heard(outcome, said)) == "unsaid_by_the_corpus"
    refused = {"service": "Restaurants_2", "intent": "ReserveRestaurant", "arguments": [], "item": []}
    outcome = {"transactions": [], "refused": [refused], "found": [], "told": []}
    assert leftout.left_out(heard(outcome, "Sorry, the table could not be booked.")) == ""
    assert leftout.left_out(heard(outcome, "How about 7 pm?")) == "unsaid_by_the_corpus"


# ---------------------------------------------------------------- the criteria on the fixtures

@pytest.fixture(scope="module")
def validation(tmp_path_factory):
    options = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
               "cache_dir": str(tmp_path_factory.mktemp("judge"))}
    ready = splits.prepare("validation", **options)
    chats = {row["dialogue_id"]: row["messages"] for row in load("sgd", "agent-chat", split="validation", **options)}
    return ready, chats


def played(ready, chats, row, final=None):
    episode = Episode(ready.services(row["services"]), ready.path, row)
    answer = gold.play(episode, gold.actions(chats[row["dialogue_id"]], "ticket", row["outcome"]))
    return episode, answer if final is None else final


def test_the_composed_gold_answer_earns_1_and_silence_or_a_lie_0_where_something_is_told(validation):
    ready, chats = validation
    judged = 0
    for row in ready.episodes:
        episode, answer = played(ready, chats, row)
        assert reward.parts(episode, answer) == dict.fromkeys(reward.PARTS, 1.0), row["dialogue_id"]
        outcome = row["outcome"]
        if outcome["told"] or outcome["transactions"] or outcome["found"]:
            judged += 1
            for lie in ("Done.", "Sorry, nothing was booked."):
                assert reward.parts(episode, lie)["reward"] == 0.0, (row["dialogue_id"], lie)
    assert judged


def test_a_value_for_another_item_or_a_dump_of_rows_is_not_told(validation):
    ready, chats = validation
    checked = 0
    for row in ready.episodes:
        episode, answer = played(ready, chats, row)
        dump = "\n".join(json.dumps(r) for _, r in episode.rows)
        for entry in row["outcome"]["told"]:
            others = told.other_items(episode, entry)
            if entry["item"] and others and not told.is_yes_no(episode, entry["service"], entry["slot"]):
                checked += 1
                assert not told.value_given(episode, entry, dump), (row["dialogue_id"], entry)
    assert checked


def test_an_item_is_found_only_by_a_row_holding_its_values(validation):
    ready, chats = validation
    rows = [row for row in ready.episodes if row["outcome"]["found"]]
    assert rows
    for row in rows:
        episode, _ = played(ready, chats, row)
        entry = row["outcome"]["found"][0]
        assert found.is_found(episode, entry)
        wrong = {**entry, "item": [{**slot, "values": ["no such item"]} for slot in entry["item"]]}
        assert not found.is_found(episode, wrong)


class Told:
    """What ``told``'s text rules read of an episode: its outcome's asked values."""

    def __init__(self, told_entries):
        self.outcome = {"told": told_entries, "transactions": []}


def test_a_sentence_about_another_asked_item_is_its_own_answer():
    sino = {"service": "Restaurants_2", "slot": "phone_number", "values": ["408-1"],
            "item": [{"slot": "restaurant_name", "values": ["Sino"]}]}
    tofu = {**sino, "values": ["408-2"], "item": [{"slot": "restaurant_name", "values": ["Tofu"]}]}
    text = "Sino: phone 408-1.\nTofu: phone 408-2.\nBoth are open."
    assert told.without_other_asked(Told([sino, tofu]), sino, text) == "Sino: phone 408-1.\nBoth are open."
    assert told.without_other_asked(Told([sino]), sino, text) == text


def test_an_item_less_value_has_the_other_rows_values_of_its_slot_against_it():
    wind = {"service": "Weather_1", "slot": "wind", "values": ["5"], "item": []}
    tools = {"GetWeather": SimpleNamespace(service="Weather_1", slots={})}
    rows = [("GetWeather", {"date": day, "wind": value}) for day, value in (("06", "5"), ("09", "1"), ("10", "3"))]
    episode = SimpleNamespace(outcome={"told": [wind], "transactions": []}, rows=rows,
                              services=SimpleNamespace(tools=tools))
    assert told.other_items(episode, wind) == [([], ["1"]), ([], ["3"])]
    assert told.value_given(episode, wind, "Wind: 5 mph.")
    assert not told.value_given(episode, wind, "Wind: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 mph.")
    episode.outcome["told"].append({**wind, "values": ["3"]})  # the wind of another day, asked too
    assert told.other_items(episode, wind) == [([], ["1"])]


def test_the_values_of_an_item_the_user_wanted_do_not_count_against_another():
    # the hotel found (and asked of its address) is the user's: its phone said beside it is no dump
    ace = {"service": "Hotels_4", "slot": "phone_number", "values": ["+44 20 7613 9800"],
           "item": [{"slot": "place_name", "values": ["Ace Hotel"]}]}
    amba = {"service": "Hotels_4", "slot": "street_address", "values": ["Bryanston Street"],
            "item": [{"slot": "place_name", "values": ["Amba"]}]}
    rows = [("Find", {"place_name": "Ace Hotel", "phone_number": "+44 20 7613 9800", "street_address": "Shoreditch"}),
            ("Find", {"place_name": "Amba", "phone_number": "+44 800 330 8523", "street_address": "Bryanston Street"}),
            ("Find", {"place_name": "Zetter", "phone_number": "+44 20 7324 4444", "street_address": "St John St"})]
    tools = {"Find": SimpleNamespace(service="Hotels_4", slots={})}
    episode = SimpleNamespace(outcome={"told": [ace, amba], "transactions": [], "found": []}, rows=rows,
                              services=SimpleNamespace(tools=tools))
    assert told.users_items(episode, ace) == [amba["item"]]
    assert [forms for forms, _ in told.other_items(episode, ace)] == [[["Zetter"]]]
    answer = "Found Amba, phone +44 800 330 8523, at Bryanston Street.\nAce Hotel's phone: +44 20 7613 9800."
    assert told.value_given(episode, ace, answer)
    assert not told.value_given(episode, ace, answer + "\nZetter's phone: +44 20 7324 4444.")
    episode.outcome["told"] = [ace]  # the same text, Amba not wanted: its phone is another item's
    assert not told.value_given(episode, ace, answer)


def test_the_item_settled_on_without_a_booking_is_in_the_goal_as_accepted():
    intents = {("Travel_1", "FindAttractions"): {"constraints": {"location": ["Kuala Lumpur"]}, "accepted": set()},
               ("Cars_1", "GetCars"): {"constraints": {"car_name": ["Civic"]}, "accepted": set()}}
    gold = {"found": [
        {"service": "Travel_1", "intent": "FindAttractions",
         "item": [{"slot": "attraction_name", "values": ["Aquaria KLCC", "the aquarium"]}]},
        {"service": "Cars_1", "intent": "GetCars", "item": [{"slot": "car_name", "values": ["Altima"]}]},
        {"service": "Other_1", "intent": "Find", "item": [{"slot": "name", "values": ["X"]}]}]}
    goals.settled_on(intents, gold)
    travel, cars = intents.values()
    assert travel == {"constraints": {"location": ["Kuala Lumpur"], "attraction_name": ["Aquaria KLCC"]},
                      "accepted": {"attraction_name"}}
    assert cars == {"constraints": {"car_name": ["Civic"]}, "accepted": set()}  # the user's own value stays


def test_the_forecast_the_user_ended_at_is_theirs_and_another_is_not():
    cotati = {"service": "Weather_1", "slot": "humidity", "values": ["15"],
              "item": [{"slot": "city", "values": ["Cotati"]}]}
    rows = [("GetWeather", {"city": city, "humidity": value}) for city, value in
            (("Cotati", "15"), ("Seattle", "20"), ("Napa", "30"))]
    episode = SimpleNamespace(rows=rows, services=SimpleNamespace(
        tools={"GetWeather": SimpleNamespace(service="Weather_1", slots={})}), outcome={
        "told": [cotati], "transactions": [], "found": [], "queries": [
            {"service": "Weather_1", "intent": "GetWeather", "arguments": [{"slot": "city", "value": "Seattle"}]}]})
    assert [forms for forms, _ in told.other_items(episode, cotati)] == [[["Napa"]]]
    answer = "Seattle: humidity 20 percent.\nCotati: humidity 15 percent."
    assert told.value_given(episode, cotati, answer)
    assert not told.value_given(episode, cotati, answer + "\nNapa: humidity 30 percent.")


def test_the_users_words_in_the_state_are_forms_of_the_calls_value():
    said = {}
    goals.said_as(said, "Buses_1", {"slot": "to_location", "value": "New York"}, ["NYC", "NY"])
    goals.said_as(said, "Buses_1", {"slot": "from_location", "value": "dontcare"}, ["anywhere"])
    goals.said_as(said, "Buses_1", {"slot": "leaving_date", "value": "2019-03-02"}, ["dontcare"])
    assert said == {("Buses_1", "to_location", "new york"): ["New York", "NYC", "NY"]}
    assert goals.aliases(said) == [{"service": "Buses_1", "slot": "to_location", "values": ["New York", "NYC", "NY"]}]


def test_a_name_holding_a_yes_or_no_subject_is_no_statement_of_it():
    music = {"service": "Restaurants_1", "slot": "has_live_music", "values": ["False"],
             "item": [{"slot": "restaurant_name", "values": ["Ippuku"]}]}
    rows = [("Buy", {"event_name": "Berkeley World Music Festival"}), ("Find", {"restaurant_name": "Ippuku"})]
    tools = {"Find": SimpleNamespace(service="Restaurants_1", slots={"has_live_music": {"enum": ["True", "False"]}}),
             "Buy": SimpleNamespace(service="Events_1", slots={})}
    episode = SimpleNamespace(outcome={"told": [music], "transactions": [], "found": []}, rows=rows,
                              services=SimpleNamespace(tools=tools))
    answer = "Booked: Berkeley World Music Festival.\nFound: Ippuku.\nIppuku has live music: no."
    assert told.value_given(episode, music, answer)
    assert not told.value_given(episode, music, answer.replace("music: no", "music: yes"))
