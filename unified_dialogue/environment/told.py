"""The communicate criterion: what the user was told, judged with the rules of
``environment.communicate`` (docs/environment.md, "How an answer is judged"). The text
judged is every message the agent sent the user and its final answer.

- ``requested_values_given``: each value the user asked about (the outcome's ``told``) is
  stated for the item it was asked about, and no value of that slot is stated for another
  item the episode read that the user did not want (an item they asked a value of, or
  settled on, is theirs to be told about; ``communicate.said_about``; a yes-or-no value
  said in words);
- ``bookings_confirmed``: each gold transaction is confirmed by its identifying values
  (``views.items``; any form the dialogue used, a time or a date as people say them);
- ``items_named``: each item the user settled on without booking it (the outcome's
  ``found``) is named by its identifying values;
- ``refusals_told``: where the gold's only attempt at a booking was refused, the answer
  says so (a clause saying a booking failed, ``communicate.failed``).

Each is 1.0 where there is nothing to judge.
"""

import re

from ..views.items import declared
from . import communicate, yes_no
from .final_state import ratio, unanswered_refusals
from .reading import clauses, normal, unabbreviated

YES_NO = frozenset({"true", "false"})


def every_form(values):
    """The forms of values, each once (``communicate`` finds a time's or a date's spoken forms)."""
    return list(dict.fromkeys(values))


def refusal_told(text):
    """Whether a clause of ``text`` says the booking failed."""
    normal_text = normal(text)
    return any(communicate.failed(normal_text[start:end]) for start, end in clauses(normal_text))


def item_forms(item):
    return [every_form(slot["values"]) for slot in item]


def is_yes_no(episode, service, slot):
    prop = next((tool.slots.get(slot) for tool in episode.services.tools.values() if tool.service == service), None)
    return {value.casefold() for value in (prop or {}).get("enum", ())} == YES_NO


def holds(row, item):
    """Whether ``row`` holds every identifying value of ``item`` (an outcome's item)."""
    return bool(item) and all(str(row.get(slot["slot"], "")).casefold() in
                              {value.casefold() for value in slot["values"]} for slot in item)


def users_items(episode, entry):
    """The other items of the entry's service the user asked for: each one they asked a
    value of (any slot) or settled on (the outcome's ``found``; of an intent without items,
    such as a forecast, its last search's arguments). What is said of them is said of an
    item the user wanted, never a dump of others."""
    outcome = episode.outcome
    searched = [{"service": query["service"], "item": [{"slot": pair["slot"], "values": [pair["value"]]}
                                                       for pair in query["arguments"]]}
                for query in outcome.get("queries") or () if declared().get(query["intent"]) == []]
    items = [other["item"] for other in [*outcome["told"], *(outcome.get("found") or ()), *searched]
             if other["service"] == entry["service"] and other["item"] and other["item"] != entry["item"]]
    return [item for index, item in enumerate(items) if item not in items[:index]]


def other_items(episode, entry):
    """``(item forms, value forms)`` of the rows the episode read from the entry's service
    that are not the asked item nor another item the user wanted (``users_items``) and
    hold a value of its slot (not a value naming the row's
    own item, nor an argument of a booking of another service the user asked for, nor one the
    asked value holds); for a value asked of no item (the weather), each row's value of the
    slot the user did not ask for, of no item."""
    slots = [slot["slot"] for slot in entry["item"]]
    same = [other for other in episode.outcome["told"] if other["service"] == entry["service"]
            and other["slot"] == entry["slot"] and [s["slot"] for s in other["item"]] == slots]
    asked = [[{form.casefold() for form in forms} for forms in item_forms(other["item"])] for other in same]
    told_values = {value.casefold() for other in same for value in other["values"]}
    booked = {pair["value"] for call in episode.outcome["transactions"] if call["service"] != entry["service"]
              for pair in call["arguments"]}  # a ride to the restaurant says its address for the ride
    others = []
    for name, row in episode.rows:
        if episode.services.tools[name].service != entry["service"] or entry["slot"] not in row:
            continue
        values = [row.get(slot) for slot in slots]
        if not slots and row[entry["slot"]].casefold() in told_values:
            continue  # an item-less value the user asked for (the wind of another day asked too)
        if slots and any(all(value is not None and value.casefold() in forms for value, forms in zip(values, item))
               for item in asked) or any(holds(row, item) for item in users_items(episode, entry)):
            continue
        other = ([every_form([value]) for value in values if value is not None], every_form([row[entry["slot"]]]))
        value = row[entry["slot"]]
        if value in values or value in booked or any(value.casefold() in form.casefold() for form in entry["values"]):
            continue  # a value naming its item (a hotel named for its street), one of the user's bookings,
            # or one the asked value holds (the same address, a suite of it): no answer can tell them apart
        if other not in others:
            others.append(other)
    return others


SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n")


def without_other_asked(episode, entry, text):
    """``text`` without its sentences about another item the user asked the same slot of
    (and not about this one): what is said of that item is its own answer, never one
    against this item's."""
    others = [item_forms(other["item"]) for other in episode.outcome["told"]
              if other["service"] == entry["service"] and other["slot"] == entry["slot"]
              and other["item"] and other["item"] != entry["item"]]
    if not others or not entry["item"]:
        return text
    mine = item_forms(entry["item"])

    def names(sentence, forms):
        return all(communicate.mentions(sentence, values) for values in forms)

    return "\n".join(sentence for sentence in SENTENCE.split(unabbreviated(text))
                     if names(sentence, mine) or not any(names(sentence, other) for other in others))


def without_names_saying(episode, entry, text):
    """``text`` with each name of a row read that holds the words of a yes-or-no slot's
    subject (an event called "World Music Festival", for ``has_live_music``) put as a
    placeholder: those words are the name's, not a statement (the asked item's own names
    stay, to name it)."""
    phrases = yes_no.SUBJECTS.get(yes_no.subject(entry["slot"]), (yes_no.subject(entry["slot"]),))
    own = {form.casefold() for forms in item_forms(entry["item"]) for form in forms}
    names = {str(value) for _, row in episode.rows for value in row.values()
             if len(str(value).split()) > 1 and str(value).casefold() not in own
             and yes_no.said(normal(str(value)), phrases)}
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(re.escape(name), "the item", text, flags=re.IGNORECASE)
    return text


def value_given(episode, entry, text):
    """Whether the requested value ``entry`` (an outcome's ``told`` entry) was told."""
    text = without_other_asked(episode, entry, text)
    wanted = [item_forms(item) for item in users_items(episode, entry)]
    if is_yes_no(episode, entry["service"], entry["slot"]):
        text = without_names_saying(episode, entry, text)
        answer = [value for value in entry["values"] if value.casefold() in YES_NO][:1]
        return bool(answer) and communicate.said_about(text, item_forms(entry["item"]), entry["slot"],
                                                        [answer[0].capitalize()], other_items(episode, entry),
                                                        yes_no=True, asked_items=wanted)
    return communicate.said_about(text, item_forms(entry["item"]), entry["slot"], every_form(entry["values"]),
                                  other_items(episode, entry), asked_items=wanted)


def confirmed(transaction, text):
    return communicate.confirms(text, [(slot["slot"], every_form(slot["values"])) for slot in transaction["item"]])


def named(entry, text):
    return all(communicate.mentions(text, forms) for forms in item_forms(entry["item"]))


def parts(episode, final_answer):
    """``{requested_values_given, bookings_confirmed, items_named, refusals_told, told_ok}``."""
    outcome = episode.outcome
    text = "\n".join([*episode.messages, final_answer or ""])
    checks = {
        "requested_values_given": [value_given(episode, entry, text) for entry in outcome["told"]],
        "bookings_confirmed": [confirmed(entry, text) for entry in outcome["transactions"]],
        "items_named": [named(entry, text) for entry in outcome.get("found") or ()],
        "refusals_told": [refusal_told(text) for _ in unanswered_refusals(outcome)[:1]],
    }
    result = {name: ratio(sum(found), len(found), 0) for name, found in checks.items()}
    return {**result, "told_ok": all(all(found) for found in checks.values())}
