"""The answer rules of ``environment.communicate`` on the forms a model's answers take: a
label or question opening a line answered at its end, a list item about its heading, a
failure word inside a confirmed value, an item named by all its values together."""

from unified_dialogue.environment.communicate import confirms, said_about


def test_a_question_or_label_opening_a_line_is_answered_by_the_word_ending_it():
    flight = [["American Airlines"], ["10:35"]]
    line = "- Whether the flight arrives the next day of American Airlines, 10:35: no"
    assert said_about(line, flight, "arrives_next_day", ["False"], [], yes_no=True)
    assert not said_about(line, flight, "arrives_next_day", ["True"], [], yes_no=True)
    # nothing naming the subject may stand between the label and the word ending its line
    mixed = "Whether it arrives the next day, it does arrive the next day, no"
    assert not said_about(mixed, flight, "arrives_next_day", ["False"], [], yes_no=True)


def test_a_list_item_naming_no_item_is_about_its_heading():
    hale, ashland = [["Hale Apartments"]], [["Ashland Village"]]
    listed = "Found Hale Apartments, phone 510-1.\n- Furnished, of Ashland Village: no\n- Pets allowed: no"
    assert said_about(listed, hale, "pets_allowed", ["False"], [], yes_no=True, asked_items=[ashland])
    assert not said_about(listed, ashland, "pets_allowed", ["False"], [], yes_no=True, asked_items=[hale])
    prose = "Found Hale Apartments, phone 510-1.\nAshland Village is unfurnished.\nPets allowed: no"
    assert not said_about(prose, hale, "pets_allowed", ["False"], [], yes_no=True, asked_items=[ashland])


def test_a_failure_word_inside_a_confirmed_value_is_the_values():
    song = [("song_name", ["Sorry"]), ("playback_device", ["TV"])]
    assert confirms("Please confirm: Play Sorry on the TV.", song)
    assert not confirms("Sorry, I could not play it on the TV.", [("playback_device", ["TV"])])


def test_an_item_without_a_distinctive_value_is_named_by_all_its_values_together():
    mets_5, mets_6, friends_5 = [["Mets"], ["2019-03-05"]], [["Mets"], ["2019-03-06"]], [["Friends"], ["2019-03-05"]]
    others = [(mets_6, ["18:00"]), (friends_5, ["17:00"])]
    text = "Booked: Mets, March 6th.\nMets, March 5th: starts at 5:30 pm."
    assert said_about(text, mets_5, "time", ["17:30"], others)
    assert not said_about(text.replace("5:30", "6"), mets_5, "time", ["17:30"], others)
    # both games in one sentence: neither is named by it
    assert not said_about("Mets, March 5th and March 6th: 5:30 pm.", mets_5, "time", ["17:30"], others)


def test_a_name_holding_and_or_a_comma_is_one_name_not_two_clauses():
    hostel = [["Broadway Hotel & Hostel"]]
    assert said_about("Smoking allowed at Broadway Hotel & Hostel: no", hostel, "smoking_allowed", ["False"], [],
                      yes_no=True)
    assert not said_about("Smoking allowed at Broadway Hotel & Hostel: no", hostel, "smoking_allowed", ["True"], [],
                          yes_no=True)
    aquaria = [["Aquaria KLCC, Kuala Lumpur"]]
    assert said_about("Aquaria KLCC, Kuala Lumpur is free to enter.", aquaria, "free_entry", ["True"], [], yes_no=True)
    sushi = [["My No.1 Sushi & Tofu"]]
    assert said_about("My No.1 Sushi & Tofu serves alcohol: yes.", sushi, "serves_alcohol", ["True"], [], yes_no=True)
