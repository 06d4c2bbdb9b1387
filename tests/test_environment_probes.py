"""The reward-hacking probes on SGD's fixtures: no cheat beats the careful probe, a silent or
lying answer never scores, an answer of the agent's own arguments never scores where the
ticket asks to be told something; the probes read only the prompt and the tools; the
evaluation command (against the stand-in server), TRL's reward functions and the probes'
command agree episode by episode; the value rules; the command's mistakes."""

import json

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue.environment import probes, reward, splits
from unified_dialogue.environment.episode import Episode
from unified_dialogue.environment.play import tools_of
from unified_dialogue.environment.probe_values import Value, parse_date, parse_time, read_ticket, rewritten
from unified_dialogue.testing import server
from unified_dialogue.tools import environment_probes

SPLITS = ("train", "validation", "test")
CHEATS = [name for name in probes.PROBES if name not in probes.HONEST]


@pytest.fixture(scope="module")
def options(tmp_path_factory):
    return {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"),
            "cache_dir": str(tmp_path_factory.mktemp("probes-cache"))}


@pytest.fixture(scope="module")
def played(options):
    """``{(split, probe): {dialogue id: (reward parts, episode row)}}``, every probe on every
    ticket episode of the fixtures."""
    made = {}
    for split in SPLITS:
        ready = splits.prepare(split, **options)
        for name in probes.PROBES:
            found = made.setdefault((split, name), {})
            for row in ready.episodes:
                episode = Episode(ready.services(row["services"]), ready.path, row)
                final, _ = probes.play(episode, name, row["prompt"], tools_of(ready, row["services"], row["mode"]))
                found[row["dialogue_id"]] = (reward.parts(episode, final), row)
    return made


@pytest.mark.parametrize("cheat", CHEATS)
@pytest.mark.parametrize("split", SPLITS)
def test_no_cheat_beats_the_careful_probe_on_any_episode(played, split, cheat):
    careful = played[(split, "careful")]
    better = [dialogue for dialogue, (parts, _) in played[(split, cheat)].items()
              if parts["reward"] > careful[dialogue][0]["reward"]]
    assert not better, f"{cheat} beats careful on {better}"


@pytest.mark.parametrize("name", ["silent", "lie"])
@pytest.mark.parametrize("split", SPLITS)
def test_a_silent_or_lying_answer_never_scores(played, split, name):
    scored = [dialogue for dialogue, (parts, _) in played[(split, name)].items() if parts["reward"] > 0]
    assert not scored, f"{name} scores on {scored}"


@pytest.mark.parametrize("split", SPLITS)
def test_echoing_its_own_arguments_never_scores_where_the_ticket_asks_something(played, split):
    asks = {dialogue: parts for dialogue, (parts, row) in played[(split, "echo")].items()
            if any(intent["requested"] for intent in row["goal"]["intents"])}
    assert asks, "no fixture episode asks to be told something"
    assert [dialogue for dialogue, parts in asks.items() if parts["reward"] > 0] == []


def test_the_careful_probe_passes_episodes_and_the_cheats_make_its_calls(played):
    # the probes are agents that act: careful passes some fixture episode, and a cheat that
    # keeps careful's calls keeps its transactions
    assert any(parts["reward"] == 1.0 for split in SPLITS for parts, _ in played[(split, "careful")].values())
    for split in SPLITS:
        for dialogue, (parts, _) in played[(split, "silent")].items():
            careful = played[(split, "careful")][dialogue][0]
            assert parts["transaction_recall"] == careful["transaction_recall"], dialogue


def test_a_probe_reads_only_the_prompt_and_the_tools(options):
    ready = splits.prepare("validation", **options)
    row = ready.episodes[0]
    tools = tools_of(ready, row["services"], row["mode"])
    blind = {key: value for key, value in row.items() if key not in ("goal", "outcome", "user_turns")}
    assert probes.next_message("careful", blind["prompt"], tools) == \
        probes.next_message("careful", row["prompt"], tools)
    served = probes.answerer("careful")({"messages": row["prompt"], "tools": tools})
    assert served == probes.next_message("careful", row["prompt"], tools) and served["tool_calls"]


def test_the_command_prints_every_probe_and_the_three_ways_agree(tmp_path, options, capsys):
    summary = tmp_path / "summary.json"
    flags = ["--split", "validation", "--data-dir", options["data_dir"], "--checksums", options["checksums"],
             "--cache-dir", options["cache_dir"], "--agreement", "3", "--summary", str(summary)]
    assert environment_probes.main(flags) == 0
    out = capsys.readouterr().out
    report = json.loads(summary.read_text())
    assert set(report["probes"]) == set(probes.PROBES)
    for name in probes.PROBES:
        assert f"| {name} |" in out
        assert report["agreement"][name] == {"episodes": 3, "agree": 3, "disagreements": []}, name
    assert report["probes"]["careful"]["overall"]["episodes"] == 3


@pytest.mark.parametrize("flags, says", [
    (["--mode", "replay"], "--mode replay"),
    (["--probes", "careful,nobody"], "no probe nobody"),
    (["--limit", "-1"], "--limit -1"),
    (["--out-dir", "/no/such/folder"], "--out-dir /no/such/folder"),
])
def test_a_mistake_is_one_line_and_status_2(flags, says, capsys):
    with pytest.raises(SystemExit) as stopped:
        environment_probes.main(["--split", "validation", *flags])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err


@pytest.mark.parametrize("flags, says", [
    (["--agent", "nobody"], "--agent nobody"),
    (["--agent", "careful", "--corpus", "sgd"], "--corpus"),
])
def test_the_stand_in_servers_agent_flag_mistakes(flags, says, capsys):
    with pytest.raises(SystemExit) as stopped:
        server.main(flags)
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err


# ---------------------------------------------------------------- the value rules

def test_a_ticket_is_read_into_requests_values_and_asks():
    text = ("Here is what I need, in this order.\n1. Find a restaurant (Restaurants_2).\n- City: SF\n"
            "- Name of the restaurant: Sino (I first asked for Aria, then Bar)\n- Tell me: Phone number; Address.\n"
            "Please do all of it and tell me the result.")
    (request,) = read_ticket(text)
    assert (request.description, request.service) == ("Find a restaurant", "Restaurants_2")
    assert request.values == [Value("City", "SF"), Value("Name of the restaurant", "Sino", ("Aria", "Bar"))]
    assert request.asks == ["Phone number", "Address"] and not request.declines


def test_a_ticket_says_what_the_user_only_accepted_and_what_they_decline():
    text = ("1. Book a flight (Flights_1).\n- Airline: Delta (I did not ask for it: I accept it when it is offered)\n"
            "- Time: 10:00; if that cannot be done, I accept 10:30 when it is offered\n"
            "- If it cannot be done, I do not take an alternative: just tell me.")
    (request,) = read_ticket(text)
    assert request.values == [Value("Airline", "Delta", accepted=True), Value("Time", "10:00", fallback="10:30")]
    assert request.declines


def test_the_values_asked_for_in_turn_before_an_accepted_one_end_at_the_one_asked_for_now():
    (request,) = read_ticket("1. Buy tickets for a bus journey (Buses_1).\n"
                             "- Time: 12:30, then 12:00; if that cannot be done, I accept 12:20 when it is offered")
    assert request.values == [Value("Time", "12:00", ("12:30",), fallback="12:20")]


@pytest.mark.parametrize("text, today, expected", [
    ("2019-03-05", None, "2019-03-05"), ("March 5th", "2019-03-01", "2019-03-05"),
    ("10th of this month", "2019-03-01", "2019-03-10"), ("tomorrow", "2019-03-01", "2019-03-02"),
    ("next Monday", "2019-03-01", "2019-03-04"), ("Thursday next week", "2019-03-01", "2019-03-07"),
    ("10th of this month", None, None), ("soon", "2019-03-01", None),
])
def test_dates_are_read_as_a_model_reads_them(text, today, expected):
    import datetime

    found = parse_date(text, today and datetime.date.fromisoformat(today))
    assert (found.isoformat() if found else None) == expected


@pytest.mark.parametrize("text, expected", [
    ("11:30", "11:30"), ("7 pm", "19:00"), ("half past 6 in the evening", "18:30"), ("noon", "12:00"),
    ("quarter to eight pm", "19:45"), ("whenever", None),
])
def test_times_are_read_as_a_model_reads_them(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("value, prop, name, expected", [
    ("SD", {"description": "City where the restaurant is located"}, "location", "San Diego"),
    ("Paris, France", {"description": "City in which the journey ends"}, "destination_city", "Paris"),
    ("yes", {"description": "Whether it is free", "enum": ["True", "False"]}, "free_entry", "True"),
    ("two", {"description": "Number of seats", "enum": ["1", "2"]}, "number_of_seats", "2"),
    ("economy", {"description": "Fare class", "enum": ["Economy", "Business"]}, "flight_class", "Economy"),
    ("Sino", {"description": "Name of the restaurant"}, "restaurant_name", "Sino"),
])
def test_values_are_rewritten_into_the_tools_form(value, prop, name, expected):
    assert rewritten(value, prop, name, None) == expected


def tool(name, description, required, *optional):
    properties = {slot: {"type": "string", "description": text} for slot, text in (*required, *optional)}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": [slot for slot, _ in required]}}}


THERAPISTS = [
    tool("Services_4__FindProvider", "Discover therapist according to user's conditions",
         [("city", "Area where user wants to search for a therapist"), ("type", "Type of the therapist")]),
    tool("Services_4__BookAppointment", "Make a reservation with the therapist based on user's wish",
         [("therapist_name", "Name of the therapist"), ("appointment_time", "Time of the appointment"),
          ("appointment_date", "Date of the appointment")]),
]
PROVIDERS = [
    {"therapist_name": "Blank Gary A", "type": "Psychologist", "city": "Santa Rosa", "address": "2455 Bennett Road"},
    {"therapist_name": "Beck Jennifer P", "type": "Psychiatrist", "city": "Santa Rosa",
     "address": "1400 Dutton Avenue"},
]


def providers(name, arguments):
    if name.endswith("FindProvider"):
        return [row for row in PROVIDERS if all(row[slot] == value for slot, value in arguments.items())]
    return [{**arguments, "phone_number": "707-526-2525", "address": "2455 Bennett Road"}]


def converse(name, ticket, tools, answer):
    """Probe ``name`` on ``ticket`` with ``tools``, ``answer(tool, arguments)`` giving each
    call's rows: ``(calls made, final answer)``."""
    messages, calls = [{"role": "system", "content": "Act with the tools."}, {"role": "user", "content": ticket}], []
    for _ in range(30):
        message = probes.next_message(name, messages, tools)
        messages.append(message)
        if not message["tool_calls"]:
            return calls, message["content"]
        for made in message["tool_calls"]:
            arguments = json.loads(made["function"]["arguments"])
            calls.append((made["function"]["name"], arguments))
            messages.append({"role": "tool", "tool_call_id": made["id"],
                             "content": json.dumps(answer(made["function"]["name"], arguments))})
    raise AssertionError("the probe never answered")


@pytest.mark.parametrize("name", probes.HONEST)
def test_a_question_about_an_item_first_asked_for_is_answered_from_its_row(name):
    ticket = ("1. Discover therapist according to user's conditions (Services_4).\n"
              "- Type of the therapist: Psychologist (I first asked for Psychiatrist)\n"
              "- Area where user wants to search for a therapist: Santa Rosa\n"
              "- Tell me: Address of the therapist of Beck Jennifer P; Address of the therapist of Blank Gary A.")
    calls, answer = converse(name, ticket, THERAPISTS, providers)
    assert ("Services_4__FindProvider", {"city": "Santa Rosa", "type": "Psychiatrist"}) in calls
    assert "Address of the therapist of Beck Jennifer P: 1400 Dutton Avenue" in answer
    assert "Address of the therapist of Blank Gary A: 2455 Bennett Road" in answer


def test_a_question_naming_no_item_searches_nothing_again():
    ticket = ("1. Discover therapist according to user's conditions (Services_4).\n"
              "- Type of the therapist: Psychologist (I first asked for Psychiatrist)\n"
              "- Area where user wants to search for a therapist: Santa Rosa\n"
              "- Tell me: Address of the therapist of the user's choice.")
    optional_type = tool("Services_4__FindProvider", "Discover therapist according to user's conditions",
                         [("city", "Area where user wants to search for a therapist")],
                         ("type", "Type of the therapist"))
    calls, _ = converse("careful", ticket, [optional_type], providers)
    assert calls == [("Services_4__FindProvider", {"city": "Santa Rosa", "type": "Psychologist"})]


CARS = [
    tool("RentalCars_1__GetCarsAvailable", "Search for available rental cars by city and date",
         [("pickup_city", "City to pick up the rental car"), ("pickup_date", "Date of rental car pickup")]),
    tool("RentalCars_1__ReserveCar", "Reserve car rental for given dates and location",
         [("pickup_location", "Location of rental car pickup"), ("pickup_date", "Date of rental car pickup"),
          ("type", "Category to which rental car belongs")]),
]


def cars(name, arguments):
    if name.endswith("GetCarsAvailable"):
        return [{"car_name": "Camry", "pickup_location": "LAX", "total_price": "160", **arguments},
                {"car_name": "Civic", "pickup_location": "Union Station", "total_price": "150", **arguments}]
    return [{"car_name": "Corolla", "total_price": "174", **arguments}]


def test_a_booking_is_read_back_from_its_confirmation_and_answered_from_it():
    ticket = ("1. Search for available rental cars by city and date (RentalCars_1).\n"
              "- City to pick up the rental car: Los Angeles\n- Date of rental car pickup: 2019-03-07\n"
              "- Location of rental car pickup: Union Station (I did not ask for it: I accept it when it is offered)\n"
              "2. Reserve car rental for given dates and location (RentalCars_1).\n"
              "- Date of rental car pickup: 2019-03-07\n"
              "- Location of rental car pickup: Union Station (I did not ask for it: I accept it when it is offered)\n"
              "- Category to which rental car belongs: Standard\n- Tell me: Total price of car rental.")
    _, answer = converse("careful", ticket, CARS, cars)
    found, done, told = answer.splitlines()
    assert "car name: Civic" in found and "car name: Corolla" in done and told == "- Total price of car rental: 174"
    # the price asked is said once, for the car booked: not for the car the search found
    assert "150" not in answer and "total price" not in done


HOMES = [tool("Homes_1__FindApartment", "Find an apartment in a city for a given number of bedrooms",
              [("area", "City where the apartment is located"), ("number_of_beds", "Number of bed rooms")])]


def homes(name, arguments):
    return [{"property_name": "Amador Apartments", "phone_number": "510-849-6628", **arguments},
            {"property_name": "Baywood Apartments", "phone_number": "510-471-7075", **arguments}]


def test_the_questions_about_the_item_found_come_before_those_naming_another():
    ticket = ("1. Find an apartment in a city for a given number of bedrooms (Homes_1).\n"
              "- City where the apartment is located: Hayward\n- Number of bed rooms: 4\n"
              "- Name of the apartment: Baywood Apartments (I did not ask for it: I accept it when it is offered)\n"
              "- Tell me: Phone number of the apartment of Amador Apartments; Phone number of the apartment.")
    _, answer = converse("careful", ticket, HOMES, homes)
    assert answer.splitlines()[1:] == ["- Phone number of the apartment: 510-471-7075",
                                       "- Phone number of the apartment of Amador Apartments: 510-849-6628"]
    assert "Baywood Apartments" in answer.splitlines()[0] and "phone" not in answer.splitlines()[0]


def apartments(name, arguments):
    rows = [{"property_name": "Autumn Oaks Apartments", "area": "Suisun City", "number_of_beds": "3",
             "number_of_baths": "3"},
            {"property_name": "Breezewood Village", "area": "Suisun City", "number_of_beds": "3",
             "number_of_baths": "2"}]
    return [row for row in rows if all(row[slot] == value for slot, value in arguments.items())]


def test_an_item_the_user_accepted_that_the_search_missed_is_searched_again_with_fewer_filters():
    ticket = ("1. Find an apartment in a city for a given number of bedrooms (Homes_1).\n"
              "- City where the apartment is located: Suisun City\n- Number of bed rooms: 3\n"
              "- Number of baths in the apartment: 3\n"
              "- Name of the apartment: Breezewood Village (I did not ask for it: I accept it when it is offered)")
    homes_tools = [tool("Homes_1__FindApartment", "Find an apartment in a city for a given number of bedrooms",
                        [("area", "City where the apartment is located"), ("number_of_beds", "Number of bed rooms")],
                        ("number_of_baths", "Number of baths in the apartment"))]
    calls, answer = converse("careful", ticket, homes_tools, apartments)
    assert calls[-1] == ("Homes_1__FindApartment", {"area": "Suisun City", "number_of_beds": "3"})
    assert "Breezewood Village" in answer and "Autumn Oaks" not in answer


def test_a_search_that_finds_nothing_is_tried_again_with_the_values_as_the_ticket_writes_them():
    ticket = "1. Find events in a given city (Events_1).\n- City where event is happening: Vegas"
    events = [tool("Events_1__FindEvents", "Find events in a given city",
                   [("city_of_event", "City where event is happening")])]
    calls, answer = converse("careful", ticket, events, lambda name, arguments: [
        {"event_name": "Nationals Vs Braves", **arguments}] if arguments["city_of_event"] == "Vegas" else [])
    assert [arguments for _, arguments in calls] == [{"city_of_event": "Las Vegas"}, {"city_of_event": "Vegas"}]
    assert "Nationals Vs Braves" in answer


def test_a_row_fits_the_ticket_by_the_values_of_the_slots_its_labels_name():
    hotels = [tool("Travel_1__FindAttractions", "Browse attractions in a given city",
                   [("location", "City or town where the attraction is located")]),
              tool("Hotels_1__SearchHotel", "Find a hotel at a given location",
                   [("destination", "Location of the hotel")],
                   ("has_wifi", "Boolean flag indicating if the hotel has wifi"),
                   ("number_of_rooms", "Number of rooms")),
              tool("Hotels_1__ReserveHotel", "Reserve a selected hotel for given dates",
                   [("hotel_name", "Name of the hotel"), ("number_of_rooms", "Number of rooms")])]

    def answer(name, arguments):
        if name.startswith("Travel_1"):
            return [{"attraction_name": "Angels Flight", "free_entry": "False", **arguments},
                    {"attraction_name": "Autry Museum", "free_entry": "True", **arguments}]
        if name.endswith("SearchHotel"):
            return [{"hotel_name": "Aka City", "number_of_rooms": "1", **arguments},
                    {"hotel_name": "Aloft Downtown", "number_of_rooms": "2", **arguments}]
        return [arguments]

    ticket = ("1. Browse attractions in a given city (Travel_1).\n"
              "- City or town where the attraction is located: LA\n"
              "2. Find a hotel at a given location (Hotels_1).\n- Location of the hotel: LA\n"
              "- Boolean flag indicating if the hotel has wifi: True\n"
              "3. Reserve a selected hotel for given dates (Hotels_1).\n- Number of rooms: 1\n"
              "- Name of the hotel: Aloft Downtown (I did not ask for it: I accept it when it is offered)")
    _, said = converse("careful", ticket, hotels, answer)
    # a True of the hotel's wifi says nothing of an attraction's free entry; the hotel the
    # user goes on to book is the one found, whatever the number of rooms of another
    assert "Angels Flight" in said.splitlines()[0] and "Aloft Downtown" in said.splitlines()[1]


def test_the_item_a_search_found_is_the_one_booked_after_it():
    ticket = ("1. Search for available rental cars by city and date (RentalCars_1).\n"
              "- City to pick up the rental car: Los Angeles\n- Date of rental car pickup: 2019-03-07\n"
              "- Tell me: Total price of car rental.\n"
              "2. Reserve car rental for given dates and location (RentalCars_1).\n"
              "- Date of rental car pickup: 2019-03-07\n- Location of rental car pickup: Union Station\n"
              "- Category to which rental car belongs: Standard")

    def answer(name, arguments):  # the booking takes no car: the service books one of the station's
        if name.endswith("GetCarsAvailable"):
            return [{"car_name": car, "pickup_location": "Union Station", "total_price": price, **arguments}
                    for car, price in (("Civic", "150"), ("Camry", "160"))]
        return [{"car_name": "Camry", "total_price": "160", **arguments}]

    _, said = converse("careful", ticket, CARS, answer)
    found, told, _ = said.splitlines()
    assert "car name: Camry" in found and told == "- Total price of car rental: 160"


def test_a_question_about_an_item_never_found_is_not_answered_with_another_items_value():
    ticket = ("1. Discover therapist according to user's conditions (Services_4).\n"
              "- Type of the therapist: Psychologist\n- Area where user wants to search for a therapist: Santa Rosa\n"
              "- Tell me: Address of the therapist of Nobody Known; Address of the therapist.")
    _, answer = converse("careful", ticket, THERAPISTS, providers)
    assert answer.splitlines()[1:] == ["- Address of the therapist: 2455 Bennett Road",
                                       "- Address of the therapist of Nobody Known: not given by the service"]
