"""How an answer is judged (``environment.communicate``): each rule on the wordings SGD's
system turns use, the mistakes a lenient judge makes (a value inside a longer number, a
dump of every row, a hedge), and properties of whole-number matching; the measuring command
on the fixtures."""

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import checksums, fixture_dir
from unified_dialogue.environment import communicate as c, reading, yes_no
from unified_dialogue.environment.communicate import confirms, mentions, said_about
from unified_dialogue.tools import answer_agreement

PURE = settings(max_examples=3 * settings().max_examples)


# ---------------------------------------------------------------- mentions

@pytest.mark.parametrize("text, forms", [
    ("It costs $50.00 in total.", ["50"]),
    ("That is 50 dollars.", ["$50"]),
    ("The rating is 4.5.", ["4.50"]),
    ("It costs 1,330 dollars.", ["1330"]),
    ("Call (510) 651-1040.", ["510-651-1040"]),
    ("Call 323-852-7000.", ["+1 323-852-7000"]),
    ("It leaves at 5:30PM.", ["17:30"]),
    ("It leaves at 5:30 p.m.", ["17:30"]),
    ("It leaves at 17:30.", ["5:30 pm"]),
    ("See you at noon.", ["12:00"]),
    ("On March 5th, 2019.", ["2019-03-05"]),
    ("Two people.", ["2"]),
    ("At 261 North 2nd St.", ["261 North 2nd Street"]),
    ("Starring B.J. Jones!", ["B.J. Jones"]),
    ("Near O'Hare.", ["OHare"]),
    ("Made.408-265-4808 is the number.", ["408-265-4808"]),
])
def test_a_value_is_found_in_the_forms_people_write_it(text, forms):
    assert mentions(text, forms)


@pytest.mark.parametrize("text, forms", [
    ("Your flight 1330 leaves.", ["3"]),          # a transfer count inside a number
    ("On 2019-03-05.", ["0"]),                    # a count inside a date
    ("Rated 3.5.", ["3"]),
    ("At 5:30 pm.", ["5"]),
    ("At 15 pm.", ["17:00"]),
    ("In San Joseph.", ["San Jose"]),
    ("Call 408-247-8880.", ["408"]),
    ("Nothing here.", [""]),
])
def test_a_value_is_not_found_inside_another_word_or_number(text, forms):
    assert not mentions(text, forms)


def test_spellings_and_normal_form():
    assert "5:30 pm" in reading.spellings("17:30") and "March 5th" in reading.spellings("2019-03-05")
    assert "17:30" in reading.spellings("5:30 pm") and "323-852-7000" in reading.spellings("+1 323-852-7000")
    assert reading.normal("Hi. Costs $5, ok") == "hi\ncosts 5 , ok"
    assert reading.word("street") == "st" and reading.word("three") == "3" and reading.word("pets") == "pets"


@PURE
@given(st.integers(0, 99), st.integers(0, 9), st.integers(0, 9), st.sampled_from(["", ".", ":", ",", "-", "/"]))
def test_a_number_is_never_found_inside_a_longer_number(value, left, right, joiner):
    text = f"It is {left}{joiner}{value}{right} now"
    assume(not (joiner in ".," and float(f"{left}.{value}{right}".replace(",", "")) == value))  # 0.00 is 0
    assert not mentions(text, [str(value)])
    assert mentions(f"It is {value} now", [str(value)])


@PURE
@given(st.integers(0, 23), st.integers(0, 59))
def test_a_time_is_found_as_a_twelve_hour_time(hour, minute):
    twelve = f"{hour % 12 or 12}:{minute:02} {'am' if hour < 12 else 'pm'}"
    assert mentions(f"Leaves at {twelve}.", [f"{hour:02}:{minute:02}"])
    assert not mentions(f"Leaves at {twelve}.", [f"{(hour + 1) % 24:02}:{minute:02}"])


@PURE
@given(st.sampled_from(["San Jose", "4.5", "17:30", "408-247-8880", "261 North 2nd Street", "2019-03-05"]),
       st.sampled_from(["", "(", "\"", "**", "- "]), st.sampled_from(["", ".", ")", "!", ",", "\"", "**"]),
       st.booleans())
def test_case_and_punctuation_around_a_value_do_not_matter(value, before, after, upper):
    said = value.upper() if upper else value
    assert mentions(f"It is {before}{said}{after} I think", [value])


# ---------------------------------------------------------------- attribution

ALAMEDA, ALMADEN = [["Alameda Gardens"]], [["Almaden House"]]


def test_a_value_counts_for_the_item_it_is_said_about():
    other = [(ALAMEDA, ["555-1234"])]
    assert said_about("Almaden House: 555-9999.", ALMADEN, "phone_number", ["555-9999"], other)
    assert said_about("Almaden House can be reached at 555-9999.", ALMADEN, "phone_number", ["555-9999"], other)
    assert said_about("I found Almaden House.\nPhone: 555-9999", ALMADEN, "phone_number", ["555-9999"], other)
    assert said_about("The phone is 555-9999.", ALMADEN, "phone_number", ["555-9999"], other)
    assert not said_about("The phone of Alameda Gardens is 555-9999.", ALMADEN, "phone_number", ["555-9999"],
                          [(ALAMEDA, ["555-9999"])])


def test_a_dump_of_every_row_gives_nothing():
    other = [(ALAMEDA, ["555-1234"])]
    dump = "Almaden House: 555-9999.\nAlameda Gardens: 555-1234."
    assert not said_about(dump, ALMADEN, "phone_number", ["555-9999"], other)
    assert not said_about("Alameda Gardens: 555-1234. Almaden House: 555-9999.", ALMADEN, "phone_number",
                          ["555-9999"], other)
    assert not said_about("The phones are 555-9999 and 555-1234.", ALMADEN, "phone_number", ["555-9999"], other)
    stops = [([["10:00"]], ["1"])]
    assert said_about("For 1 passenger, the flight has 0 stops.", [["14:00"]], "number_stops", ["0"], stops)
    assert c.small_number(["12"]) and not c.small_number(["4.5"]) and not c.small_number(["$120"])


NAMES = st.lists(st.sampled_from(["Sakura", "Almaden House", "Blue Gingko", "Blue Gingko Blackhawk", "Sino", "Hana",
                                  "Royal Rangoon", "Ariake"]), min_size=2, max_size=5, unique=True)
PHONES = st.lists(st.from_regex(r"\A[2-9]\d\d-\d\d\d-\d\d\d\d\Z"), min_size=5, max_size=5, unique=True)


@given(NAMES, PHONES, st.sampled_from(["{name}: {phone}", "{name} can be reached at {phone}.",
                                       "- **{name}**, phone {phone}", "The phone of {name} is {phone}."]))
def test_the_asked_item_s_value_counts_and_a_dump_never_does(names, phones, line):
    items = [([[name]], [phone]) for name, phone in zip(names, phones)]
    (asked, value), others = items[0], items[1:]
    careful = line.format(name=names[0], phone=phones[0])
    assert said_about(f"Done. {careful}", asked, "phone_number", value, others)
    dump = "\n".join(line.format(name=name, phone=phone) for name, phone in zip(names, phones))
    assert not said_about(dump, asked, "phone_number", value, others)
    assert not said_about(" ".join(reversed(phones[:len(names)])), asked, "phone_number", value, others)


def test_a_value_said_before_any_item_counts_only_where_no_other_item_is_named():
    assert said_about("It is 21 degrees.", [], "temperature", ["21"], [])
    assert not said_about("Phone 555-9999. Alameda Gardens is nice.", ALMADEN, "phone_number", ["555-9999"],
                          [(ALAMEDA, ["555-1234"])])


def test_an_item_is_named_by_distinctive_values_only():
    flight = [["American Airlines"], ["10:00"]]
    other = [([["American Airlines"], ["14:00"]], ["$300"])]
    names = c.named(reading.normal("The American Airlines flight at 10 am costs $200"), [flight, other[0][0]])
    assert [index for _, _, index in names] == [0]
    assert said_about("The American Airlines flight at 10 am costs $200.", flight, "price", ["200"], other)
    assert not said_about("The American Airlines flight at 2 pm costs $200.", flight, "price", ["200"], other)
    longer = c.named(reading.normal("Blue Gingko Blackhawk"), [[["Blue Gingko"]], [["Blue Gingko Blackhawk"]]])
    assert [index for _, _, index in longer] == [1]


def test_attribution_takes_the_item_named_last_before_else_first_after():
    text = reading.normal("X is here. Phone for Y: 1. Then 2")
    names = [(0, 1, 0), (text.index("y"), text.index("y") + 1, 1)]
    bounds = reading.sentences(text)
    assert c.attributed(text.index("1"), names, bounds) == {1}
    assert c.attributed(text.index("phone"), names, bounds) == {1}
    assert c.attributed(text.index("2"), names, bounds) == {1}
    assert c.attributed(0, [], bounds) == set()
    assert c.about_asked(frozenset(), []) and not c.about_asked(frozenset(), [(5, 6, 1)])
    assert c.about_asked(frozenset({0, 1}), [(0, 1, 0), (5, 6, 1)])
    both = c.normal("X and Y; then 2")
    assert c.attributed(both.index("2"), [(0, 1, 0), (6, 7, 1)], c.sentences(both)) == {0, 1}


def test_another_item_s_value_counts_against_the_asked_one():
    assert c.against(frozenset({1}), 1, True, ["555"], True)
    assert c.against(frozenset({0, 1}), 1, False, ["555"], True)
    assert not c.against(frozenset({0, 1}), 1, True, ["555"], True)
    assert c.against(frozenset(), 1, False, ["555"], False) and not c.against(frozenset(), 1, False, ["2"], False)
    assert not c.against(frozenset(), 1, False, ["555"], True)
    assert not c.against(frozenset({0}), 1, False, ["555"], True)


def test_what_is_said_of_another_asked_item_is_neither_for_nor_against_the_asked_one():
    text = ("How about Bklyn House Hotel? Yes, smoking is allowed.\nThe Bogart Hotel is nice too.\n"
            "I booked the Broadway Hotel & Hostel.\nNo, sorry, that is a nonsmoking property.")
    bklyn, broadway, bogart = [["Bklyn House Hotel"]], [["Broadway Hotel & Hostel"]], [([["Bogart Hotel"]], ["True"])]
    assert said_about(text, broadway, "smoking_allowed", ["False"], bogart, yes_no=True, asked_items=[bklyn])
    assert said_about(text, bklyn, "smoking_allowed", ["True"], bogart, yes_no=True, asked_items=[broadway])
    assert not said_about(text, bklyn, "smoking_allowed", ["True"], bogart, yes_no=True)  # "No" taken for Bogart's
    prices = "Bolt: you have to pay $100.\nGolf is there too. You have to pay $124."
    assert said_about(prices, [["Golf"]], "total_price", ["124"], [([["Fit"]], ["100"])], asked_items=[[["Bolt"]]])
    assert said_about("You have to pay $100. Golf is there too. You have to pay $124.", [["Golf"]], "total_price",
                      ["124"], [([["Fit"]], ["100"])])


def test_the_asked_item_itself_among_the_asked_items_is_left_out():
    sino = [["Sino"]]
    booked = [["Sino"], ["2019-03-01", "today"], ["11:30"]]
    text = "I booked Sino today at 11:30 am. Their phone number is 408-247-8880."
    assert said_about(text, sino, "phone_number", ["408-247-8880"], [], asked_items=[booked])
    assert said_about("The ride to 18300 Carriage Drive takes 18 minutes.", [], "approximate_ride_duration", ["18"],
                      [], asked_items=[[["18300 Carriage Drive"]]])
    banner = "How about Banner Linda L? They are located at 2516 Samaritan Drive."
    assert said_about(banner, [["Banner Linda L"]], "address", ["2516 Samaritan Drive"], [],
                      asked_items=[[["2516 Samaritan Drive"]]])
    assert c.same_item(sino, booked) and c.same_item([], sino) and not c.same_item(booked, sino)


def test_a_bare_answer_counts_for_an_item_no_clause_names_the_subject_for():
    text = "71 Saint Peter: yes, outdoor seating is available.\nBilly Berk's is nice. Unfortunately they don't."
    assert said_about(text, [["Billy Berk's"]], "has_seating_outdoors", ["False"], [], yes_no=True,
                      asked_items=[[["71 Saint Peter"]]])
    asked = "Does Billy Berk's have vegetarian options? They do."
    assert not said_about(asked, [["Billy Berk's"]], "has_seating_outdoors", ["True"], [], yes_no=True)
    assert said_about(asked, [["Billy Berk's"]], "has_vegetarian_options", ["True"], [], yes_no=True)


def test_a_value_said_after_a_sentence_naming_two_items_counts_for_both():
    other = [(ALAMEDA, ["555-1234"])]
    text = "I booked Almaden House instead of Alameda Gardens. Their phone is 555-9999."
    assert said_about(text, ALMADEN, "phone_number", ["555-9999"], other)
    dump = "Almaden House and Alameda Gardens. Phones: 555-9999, 555-1234."
    assert not said_about(dump, ALMADEN, "phone_number", ["555-9999"], other)


def test_several_values_of_the_slot_for_the_asked_item_are_no_answer():
    wind = [([], ["1"])]
    assert said_about("Wind is 5 mph.", [], "wind", ["5"], wind)
    assert not said_about("Wind: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 mph.", [], "wind", ["5"], wind)
    assert said_about("Wind: 5 mph. It feels like 1 mph less.", [], "wind", ["5"], wind)
    stops = [([["10:00"]], ["1"])]
    assert said_about("For 1 passenger, the flight at 2 pm has 0 stops.", [["14:00"]], "number_stops", ["0"], stops)
    text = reading.normal("Wind: 5, 1.")
    one = text.index("1")
    assert c.also_stated(text, (one, one + 1), {}, ["1"], frozenset(), False)
    assert not c.also_stated(text, (one, one + 1), {}, ["1"], frozenset(), True)
    assert not c.also_stated(text, (one, one + 1), {}, ["1"], frozenset({0}), False)
    assert not c.also_stated(text, (one, one + 1), {one: frozenset()}, ["1"], frozenset(), False)


def test_a_title_s_or_an_initial_s_dot_ends_no_sentence():
    text = reading.normal("Dr. Manuj K. Nangia is at 12 Main St. Call him. Bye!")
    assert text == "dr manuj k nangia is at 12 main st call him\nbye"
    unabbreviated = reading.unabbreviated("Mr. Lee met Ms. A. Ray. We saw a. p.m. Bye.")
    assert unabbreviated == "Mr Lee met Ms A Ray. We saw a. p.m. Bye."
    assert len(reading.sentences(reading.normal("Sakura is open. Elizabeth A. Uno is not."))) == 2


def test_clauses_and_sentences():
    text = reading.normal("No, it is not furnished and pets are allowed. Bye!")
    assert [text[s:e] for s, e in reading.clauses(text)] == ["no", "it is not furnished", "pets are allowed", "bye"]
    assert len(reading.sentences(text)) == 2


# ---------------------------------------------------------------- yes or no

@pytest.mark.parametrize("text, slot, value", [
    ("Vegetarian options: yes", "has_vegetarian_options", "True"),
    ("Vegetarian options: no", "has_vegetarian_options", "False"),
    ("They have good vegetarian options.", "has_vegetarian_options", "True"),
    ("For vegetarians they have many options", "has_vegetarian_options", "True"),
    ("Reservation made, and yes, they do.", "has_vegetarian_options", "True"),
    ("It sure does", "has_wifi", "True"),
    ("Unfortunately, you cannot.", "has_seating_outdoors", "False"),
    ("Sorry there isn't.", "furnished", "False"),
    ("There is no furniture, but pets are allowed.", "furnished", "False"),
    ("There is no furniture, but pets are allowed.", "pets_allowed", "True"),
    ("The flight arrives at 7:07 pm local time the same day.", "arrives_next_day", "False"),
    ("It arrives in Paris the next day", "arrives_next_day", "True"),
    ("Yes, it arrives on the same day.", "arrives_next_day", "False"),
    ("There is no entrance fee.", "free_entry", "True"),
    ("Good news, the entry fee is free.", "free_entry", "True"),
    ("Entry is charged.", "free_entry", "False"),
    ("It's a non smoking property.", "smoking_allowed", "False"),
    ("It's nonsmoking and at 45 Park Lane.", "smoking_allowed", "False"),
    ("No, smoking is not allowed and it will cost $315", "smoking_allowed", "False"),
    ("Nope, its not furnished but they do allow pets.", "pets_allowed", "True"),
    ("Yes, pets are allowed, but unfortunately, it isn't a furnished apartment.", "furnished", "False"),
    ("It's very child friendly.", "good_for_kids", "True"),
    ("Outdoor seating is unavailable.", "has_seating_outdoors", "False"),
    ("The hotel is smoke-free.", "smoking_allowed", "False"),
    ("It is unisex.", "is_unisex", "True"),
    ("Unfortunately no outdoor seats. Yes, there are many vegetarian dishes.", "has_seating_outdoors", "False"),
    ("No outdoor seating, no.", "has_seating_outdoors", "False"),
    ("It is an unfurnished apartment.", "furnished", "False"),
    ("The ticket is unrefundable.", "refundable", "False"),
    ("It's not an overnight flight.", "is_redeye", "False"),
    ("Sadly, you cannot get your money back.", "refundable", "False"),
    ("Vegetarian options, yes", "has_vegetarian_options", "True"),
    ("Vegetarian options?\nNo.", "has_vegetarian_options", "False"),
    ("Does it have vegetarian options? It does not.", "has_vegetarian_options", "False"),
    ("Whether it has vegetarian options: yes", "has_vegetarian_options", "True"),
    ("Almaden House: has vegetarian options, phone 555-9999", "has_vegetarian_options", "True"),
    ("has_vegetarian_options: False", "has_vegetarian_options", "False"),
    ("| Almaden House | 555-9999 | vegetarian: no |", "has_vegetarian_options", "False"),
    ("A cab for 2 to X. A shared ride.", "shared_ride", "True"),
    ("The hotel is at 4301 Island Avenue and is a smoke-free property.", "smoking_allowed", "False"),
    ("They are rated 4.1 and do not serve vegetarian food.", "has_vegetarian_options", "False"),
])
def test_a_yes_or_no_value_said_in_words_counts_and_its_opposite_does_not(text, slot, value):
    opposite = "False" if value == "True" else "True"
    assert said_about(text, [], slot, [value], [], yes_no=True)
    assert not said_about(text, [], slot, [opposite], [], yes_no=True)


@pytest.mark.parametrize("text", [
    "Done.",
    "Its phone is 555-1234.",
    "Vegetarian options: yes and no",
    "Vegetarian options: yes. Vegetarian options: no.",
    "Vegetarian options: yes/no",
    "They have vegetarian options. They have no vegetarian options.",
    "They might have vegetarian options.",
    "Vegetarian: yes (or no)",
    "Do they have vegetarian options?",
])
def test_saying_nothing_or_both_is_no_answer(text):
    for value in ("True", "False"):
        assert not said_about(text, [], "has_vegetarian_options", [value], [], yes_no=True)


def test_a_yes_or_no_value_is_judged_for_the_item_it_is_about():
    other = [(ALAMEDA, ["False"])]
    assert said_about("Almaden House has vegetarian options.", ALMADEN, "has_vegetarian_options", ["True"], other,
                      yes_no=True)
    assert not said_about("Alameda Gardens has vegetarian options.", ALMADEN, "has_vegetarian_options", ["True"],
                          other, yes_no=True)
    dump = "Almaden House: vegetarian options yes.\nAlameda Gardens: vegetarian options no."
    assert not said_about(dump, ALMADEN, "has_vegetarian_options", ["True"], other, yes_no=True)


def test_the_subject_of_a_slot_and_a_clause_s_polarity():
    assert yes_no.subject("has_seating_outdoors") == "outdoors" and yes_no.subject("arrives_next_day") == "next day"
    assert yes_no.subject("good_for_kids") == "kids" and yes_no.subject("is_redeye") == "redeye"
    assert yes_no.polarity("they do not have wifi", "has_wifi") == (17, {False})
    assert yes_no.polarity("the rating is 4", "has_wifi") == (0, set())
    assert yes_no.polarity("yes they do not have wifi", "has_wifi")[1] == {True, False}
    assert yes_no.bare("they do") == {True} and yes_no.bare("you cannot") == {False}
    assert yes_no.bare("its expensive") == set()
    assert yes_no.answer_words("vegetarian options yes") == {True} and yes_no.answer_words("nope") == {False}
    assert yes_no.label("vegetarian options", "has_vegetarian_options") and yes_no.label("a shared ride", "shared_ride")
    assert not yes_no.label("has vegetarian options", "has_vegetarian_options")
    assert not yes_no.label("it is unisex", "is_unisex")
    assert yes_no.question("does it have wifi", True) and not yes_no.question("does it have wifi", False)
    assert not yes_no.question("it has wifi", True)
    assert yes_no.whole("a\nb\nc", 2, 3) and not yes_no.whole("a\nb , c", 2, 3)


# ---------------------------------------------------------------- bookings

SAKURA = [("restaurant_name", ["Sakura"]), ("time", ["19:00"]), ("date", ["2019-03-02", "tomorrow"])]


@pytest.mark.parametrize("text, confirmed", [
    ("Booked: Sakura at 7 pm tomorrow.", True),
    ("Your table at Sakura is reserved for March 2nd at 7:00 pm.", True),
    ("I couldn't book Sakura at 7 pm tomorrow, sorry.", False),
    ("Sorry, nothing was booked.", False),
    ("Done.", False),
    ("Booked Sakura tomorrow.", False),
    ("I could not book Sakura at 6 pm, so I booked Sakura at 7 pm tomorrow.", True),
    ("Sakura has no outdoor seating, booked for 7 pm tomorrow.", True),
])
def test_a_booking_is_confirmed_by_its_identifying_values(text, confirmed):
    assert confirms(text, SAKURA) is confirmed


def test_a_yes_or_no_or_none_value_of_a_booking_is_confirmed_in_words():
    ride = [("destination", ["Matador"]), ("shared_ride", ["True"])]
    assert confirms("A shared ride to Matador is booked.", ride) and not confirms("A cab to Matador is booked.", ride)
    assert not confirms("A private ride to Matador is booked.", ride)
    movie = [("movie_name", ["Dogman"]), ("subtitle_language", ["None"])]
    assert confirms("Dogman is rented, with no subtitles.", movie) and not confirms("Dogman is rented.", movie)
    assert not confirms("Dogman is rented, with subtitles.", movie)


def test_a_failure_clause():
    assert c.failed("i couldnt book it") and c.failed("it was not possible") and not c.failed("it has no wifi")


# ---------------------------------------------------------------- the measuring command

def dialogue(utterance, slot, value, canonical=None, possible=("True", "False"), name="INFORM"):
    schema = [{"service_name": "S_1", "slots": [{"name": slot, "possible_values": list(possible)}]}]
    act = {"act": name, "domain": "S_1", "slot_value_table": [
        {"slot": slot, "values": [{"value": value, "cononical_value": canonical or value}]}]}
    return {"knowledge": {"value": {"schema": schema}},
            "dialog": [{"roles": ["USER"], "dialog_acts": [act], "utterance": "x"},
                       {"roles": ["SYSTEM"], "utterance": utterance, "dialog_acts": [act]}]}


def test_measure_counts_credited_and_swapped_turns():
    dialogues = [dialogue("They have wifi.", "has_wifi", "True"), dialogue("It's 3.3", "has_wifi", "False"),
                 dialogue("It costs $50.", "price", "$50", "50", ()), dialogue("It costs $60.", "price", "$60", "60", ()),
                 dialogue("Flight 1330.", "transfers", "3", None, ())]
    report = answer_agreement.measure(dialogues, examples=5)
    assert report["yes_no"] == {"turns": 2, "credited": 1, "credited_swapped": 0, "credited_share": 0.5,
                                "credited_swapped_share": 0.0}
    assert report["values"]["values"] == 3 and report["values"]["found"] == 2
    assert report["values"]["swapped"] == 2 and report["values"]["found_swapped"] == 0
    assert [m["utterance"] for m in report["misses"]["yes_no"]] == ["It's 3.3"]
    assert report["confirms"]["turns"] == 0
    assert answer_agreement.swapped_value(["$50", "50"], ["50", "60"]) == "60"
    assert answer_agreement.swapped_value(["60"], ["50", "60"]) == "50"
    assert answer_agreement.swapped_value(["60"], ["60"]) is None


def test_measure_counts_confirmed_bookings_and_swaps_a_value_the_turn_does_not_confirm():
    dialogues = [dialogue("Please confirm: a table at Sakura.", "restaurant_name", "Sakura", name="CONFIRM",
                          possible=()),
                 dialogue("Please confirm: a table.", "restaurant_name", "Hana", name="CONFIRM", possible=())]
    report = answer_agreement.measure(dialogues, examples=5)
    assert report["confirms"] == {"turns": 2, "credited": 1, "swapped": 2, "credited_swapped": 0,
                                  "credited_share": 0.5, "credited_swapped_share": 0.0}
    assert [m["utterance"] for m in report["misses"]["confirms"]] == ["Please confirm: a table."]


def test_the_command_measures_the_fixtures(tmp_path, capsys):
    status = answer_agreement.main(["--data-dir", str(fixture_dir("sgd")), "--checksums", checksums("sgd"),
                                    "--split", "validation", "--cache-dir", str(tmp_path)])
    report = json.loads(capsys.readouterr().out)["validation"]
    assert status == 0 and report["values"]["values"] > 0
    assert report["values"]["found"] >= 0.9 * report["values"]["values"]
    assert report["values"]["found_swapped"] <= 0.1 * report["values"]["swapped"]
    assert report["confirms"]["credited"] >= 0.9 * report["confirms"]["turns"] > 0


def test_the_command_s_mistakes_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        answer_agreement.main(["--data-dir", str(tmp_path / "absent")])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1 and "--data-dir" in error
