"""What the user was told, judged as a user reads it: plain strings in, booleans out.

Three questions, each a pure function of the text:

- ``mentions(text, forms)``: the text states one of a value's forms as whole words and whole
  numbers. Both sides are read the same way (``reading.normal``): case, punctuation around words and
  apostrophes aside; ``$50``, ``50.00`` and ``50`` are one number, ``4.50`` is ``4.5``,
  ``1,330`` is ``1330``, number words up to twelve are digits; a phone number is its digits
  (``(510) 651-1040`` is ``510-651-1040``); ``St``/``Street``-style abbreviations of
  addresses are one word; ``5pm`` and ``5 p.m.`` are ``5 pm``. A time (``17:30``, or
  ``5:30 pm``) and a date (``2019-03-05``) are also found as people say them
  (``reading.spellings``).
  A number is never found inside a longer one: ``3`` is not in ``1330``, ``3.5`` or
  ``5:30``, ``0`` is not in a date.
- ``said_about(text, item_forms, slot, value_forms, other_items, yes_no)``: the value is
  stated for the item it was asked about, and no value of the slot for another item (see
  *attribution* below). A yes-or-no value must be said in words: a clause that names the
  slot's subject (``yes_no.subject``, said as ``yes_no.SUBJECTS`` has it: ``vegetarian``, ``outdoor``,
  ``next day`` …, plurals too) says yes unless it holds a negation (``no``, ``not``,
  ``n't``, ``without``, ``non``/``un`` before the subject, ``<subject> free``); a clause
  naming only its opposite (``yes_no.OPPOSITES``: ``same day``, ``entrance fee``, ``indoor``) says
  the reverse. A bare answer (``yes``, ``they do``, ``it sure does``, ``you cannot``)
  counts only for an item no such clause is about, and not after a question (which it
  answers). Saying both yes and no about the item is no answer (two clauses that disagree,
  ``yes`` beside a negation, ``…: yes`` followed by ``no`` in its sentence).
- ``confirms(text, identifying)``: every identifying value of a booking is mentioned
  outside the clauses that say a booking failed (``couldn't``, ``unable``, ``nothing`` …);
  a yes-or-no value, or ``None`` (no subtitles), is said in words.

Attribution. The text is cut into sentences (line breaks, ``.``, ``!``, ``?``, ``;`` before
white space; not the dot of a title or an initial: ``Dr. Manuj K. Nangia``) and a sentence
into clauses (commas, ``|``, and ``and``/``but``/``while`` …).
An item is named where one of its *distinctive* identifying values is mentioned (a value
another item shares names neither; a mention inside a longer mention of another item does
not count), or, having none, where all its identifying values are in one sentence that
holds no other item's all (``together``). A statement (a value's mention, or the subject word of a yes-or-no clause) is
about the item named last before it in its sentence, else the first named after it in its
sentence, else the items named in the last earlier sentence that names any ("I booked Almaden
House instead of Alameda Gardens. Their phone is …" is about both); on a list item's line
(``- ``, ``1. ``), the last earlier one that is no list item's (its heading). The items are the asked
one, the others (``other_items``) and the other items the user asked about (``asked_items``,
named only so that what is said of them is not taken for the asked item's). A statement
before any item is named is about the asked item only where the text names no other item.
Another item's value counts as stated for it when it is about that item alone, or about it
among others where the same words do not also state the asked value, or about none named
where the asked value is itself credited only so (a list of every row's values without
names gives nothing), unless it is a number of one or two digits (``small_number``: a count
a text may say as another fact), except one standing alone in its clause where the asked
value too is stated with no item named (``also_stated``): a list ``0, 1, … 10`` states
several values of the slot, which is no answer, as yes beside no is.
"""

import re

from .reading import clauses, found, normal, occurrences, sentences
from .yes_no import NONE, YES_NO, yes_no_statements


def mentions(text, forms):
    """Whether ``text`` states one of ``forms`` (see the module's docstring).

    Example:
        >>> mentions("It costs $50.00 in total.", ["50"]), mentions("Flight 1330", ["3"])
        (True, False)
    """
    return bool(occurrences(normal(text), list(forms)))


# ---------------------------------------------------------------- attribution

def named(normal_text, items):
    """``[(start, end, index)]``: where each of ``items`` (lists of lists of forms of its
    identifying values) is named by a distinctive value, a mention inside a longer mention
    of another item left out."""
    owners = {}
    for index, item in enumerate(items):
        for forms in item:
            for form in forms:
                owners.setdefault(normal(form), set()).add(index)
    spans = []
    for index, item in enumerate(items):
        for forms in item:
            if all(owners[normal(form)] == {index} for form in forms):
                spans += [(start, end, index) for start, end in occurrences(normal_text, forms)]
    spans += together(normal_text, items, {index for _, _, index in spans})
    return [(s, e, i) for s, e, i in spans
            if not any(i2 != i and s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, i2 in spans)]


def bulleted(text, normal_text, bounds):
    """The starts of the sentences of ``normal_text`` (``normal(text)``; ``bounds``) that are
    on a list item's line of ``text`` (``- ``, ``* ``, ``• ``, ``1. ``)."""
    starts, offset = set(), 0
    for line in text.splitlines():
        said = normal(line)
        if not said:
            continue
        if BULLET.match(line):
            starts.update(s for s, _ in bounds if offset <= s < offset + len(said))
        offset += len(said) + 1
    return frozenset(starts) if offset - 1 == len(normal_text) else frozenset()


BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s")


def together(normal_text, items, named_already):
    """``[(start, end, index)]``: where an item with no distinctive value (of ``items``, not
    in ``named_already``) is named by all its identifying values in one sentence, which no
    other item's values all are ("Mets Vs Pirates, March 5th", another game of the Mets
    and another event of March 5th aside); the span of each of its values there."""
    spans, anywhere = [], [[occurrences(normal_text, forms) for forms in item] for item in items]
    for start, end in sentences(normal_text):
        found = [[[(s, e) for s, e in mentions if start <= s and e <= end] for mentions in item] for item in anywhere]
        whole = [index for index, item in enumerate(items) if item and all(found[index])]
        if len(whole) == 1 and whole[0] not in named_already and len(items[whole[0]]) > 1:
            spans += [(s, e, whole[0]) for mentions in found[whole[0]] for s, e in mentions]
    return spans


def attributed(position, names, bounds, bullets=frozenset()):
    """The items a statement at ``position`` is about (a frozenset of indices, empty where
    none is named before it; see the module's docstring); ``names`` as ``named`` gives
    them, ``bounds`` the text's ``sentences``, ``bullets`` the starts of those on a list
    item's line (``bulleted``)."""
    start, end = next(((s, e) for s, e in bounds if s <= position <= e), (position, position))
    before = [n for n in names if start <= n[0] <= position]
    if before:
        return frozenset({max(before)[2]})
    after = [n for n in names if position < n[0] <= end]
    if after:
        return frozenset({min(after)[2]})
    earlier = [n for n in names if n[0] < start]
    if start in bullets:  # a list item naming none is about its list's heading, not another item
        earlier = [n for n in earlier if sentence_start(n[0], bounds) not in bullets]
    if not earlier:
        return frozenset()
    last = next((s, e) for s, e in bounds if s <= max(earlier)[0] <= e)
    return frozenset(index for s, _, index in earlier if last[0] <= s <= last[1])


def sentence_start(position, bounds):
    return next(s for s, e in bounds if s <= position <= e)


def about_asked(items, names):
    """Whether a statement about ``items`` (``attributed``) is about the asked item (index 0
    of ``names``): it is among them, or none is and the text names no other item."""
    return 0 in items or (not items and not any(index for _, _, index in names))


def against(items, index, also_asked, forms, named_credit):
    """Whether a statement of another item's value (``index``; ``forms``), about ``items``
    (``attributed``), says it for that item: it is about that item alone; or about it among
    others, where the same words do not also state the asked value (``also_asked``); or
    about none named, where they do not, the asked value is credited only where no item is
    named (not ``named_credit``: a list of values without names) and it is no small number."""
    if items == {index}:
        return True
    if items:
        return index in items and not also_asked
    return not also_asked and not named_credit and not small_number(forms)


# ---------------------------------------------------------------- the three questions

def said_about(text, item_forms, slot, value_forms, other_items, yes_no=False, asked_items=()):
    """Whether ``text`` states the value of ``slot`` for the asked item, no other value of
    the slot for it, and no value of the slot for another (see the module's docstring).

    Args:
        text: what the user was told.
        item_forms: the asked item's identifying values, a list of forms each (may be empty).
        slot: the slot asked about.
        value_forms: the value's forms (``["True"]`` or ``["False"]`` with ``yes_no``).
        other_items: ``[(item_forms, value_forms)]`` of the items the user did not ask about.
        yes_no: whether the slot's values are ``True`` and ``False``, said in words.
        asked_items: the item forms of the other items the user asked about (for this slot
            or another): named, so that what is said of them is not taken for the asked
            item's, and never counted against it; one holding every identifying value of
            the asked item (``same_item``; any, where the asked item has none) is left out.

    Example:
        >>> said_about("Vegetarian options: yes", [["Tasty Place"]], "has_vegetarian_options", ["True"], [])
        True
    """
    normal_text = normal(text)
    bounds = sentences(normal_text)
    bullets = bulleted(text, normal_text, bounds)
    names = named(normal_text, [list(item_forms), *[list(forms) for forms, _ in other_items],
                                *[list(forms) for forms in asked_items if not same_item(item_forms, forms)]])
    if yes_no:
        wanted = {plain_bool(form) for form in value_forms}
        stated = [(attributed(p, names, bounds, bullets), answer, bare) for p, answer, bare in
                  yes_no_statements(unbroken(normal_text, names), slot)]
        mine = [set().union(*[answer for items, answer, bare in stated if bare is kind and about_asked(items, names)])
                for kind in (False, True)]
        mine = mine[0] or mine[1]  # a bare answer only for an item no clause names the subject for
        others = any(not bare and items and 0 not in items and min(items) <= len(other_items)
                     for items, _, bare in stated)
        return bool(mine) and mine <= wanted and len(mine) == 1 and not others
    spans = occurrences(normal_text, list(value_forms))
    # a mention that is the asked value itself names no other item ("located at <the address>")
    names = [(s, e, i) for s, e, i in names if i == 0 or not any(s < end and start < e for start, end in spans)]
    asked = {start: attributed(start, names, bounds, bullets) for start, _ in spans}
    credited = [items for items in asked.values() if about_asked(items, names)]
    if not credited or any(also_stated(normal_text, span, asked, values, attributed(span[0], names, bounds, bullets),
                                       any(credited))
                           for _, values in other_items for span in occurrences(normal_text, list(values))):
        return False
    return not any(against(attributed(start, names, bounds, bullets), index, start in asked, values, any(credited))
                   for index, (_, values) in enumerate(other_items, 1)
                   for start, _ in occurrences(normal_text, list(values)))


def unbroken(normal_text, names):
    """``normal_text`` with each item's name (``named``) one word of the same length: its
    words are the name's, neither a clause's end ("Broadway Hotel & Hostel") nor an answer
    ("My No.1 Sushi")."""
    chars = list(normal_text)
    for start, end, _ in names:
        chars[start:end] = "_" * (end - start)
    return "".join(chars)


def also_stated(normal_text, span, asked, forms, items, named_credit):
    """Whether another value of the slot (``forms``, mentioned at ``span``, about ``items``)
    is stated for the asked item, which makes several values of it and no answer: a mention
    that is no mention of the asked value (``asked``), about none named where the asked value
    is credited only so (not ``named_credit``; ``against`` judges the others); a number of one
    or two digits only where it stands alone in its clause (``0, 1, … 10``), not inside a
    phrase saying another fact (``for 1 passenger``)."""
    if span[0] in asked or items or named_credit:
        return False
    clause = next(((s, e) for s, e in clauses(normal_text) if s <= span[0] < e), span)
    return not small_number(forms) or clause == span


def same_item(item_forms, other_forms):
    """Whether an item (``other_forms``) holds every identifying value of ``item_forms``
    (an item with none is any item): the asked item itself, among ``asked_items``."""
    theirs = [{normal(form) for form in forms} for forms in other_forms]
    return all(any({normal(form) for form in forms} & values for values in theirs) for forms in item_forms)


def small_number(forms):
    """Whether a value is a number of one or two digits, which a text may well say as
    another fact (``for 2 people``)."""
    return any(re.fullmatch(r"\d{1,2}", normal(str(form))) for form in forms)


def plain_bool(form):
    return str(form).strip().casefold() == "true"


# Words of a clause saying that a booking was not made.
FAILURES = frozenset({"couldnt", "cannot", "cant", "unable", "failed", "fail", "fails", "unsuccessful", "wasnt",
                      "werent", "didnt", "nothing", "unavailable", "sorry", "unfortunately", "regretfully",
                      "apologize", "apologies"})
FAILURE_PHRASES = ("could not", "was not", "were not", "did not", "not able", "not booked", "not been",
                   "no booking", "not reserved", "not available", "not possible", "isnt possible", "not confirmed",
                   "not done", "can not", "went wrong", "no openings", "not go through", "was an issue")


def failed(clause):
    """Whether a clause (``normal`` words) says a booking failed."""
    return bool(FAILURES & set(clause.split())) or any(found(clause, phrase) for phrase in FAILURE_PHRASES)


def confirms(text, identifying):
    """Whether ``text`` confirms a booking: each of its identifying values (``identifying``:
    ``[(slot, forms)]``, relative dates among the forms where the dialogue said them) is
    mentioned outside the clauses that say a booking failed; a
    yes-or-no value (forms ``True`` or ``False``) is said in words (``said_about``).

    Example:
        >>> confirms("Booked: Sakura at 7 pm tomorrow.", [("restaurant_name", ["Sakura"]), ("time", ["19:00"])])
        True
    """
    normal_text = normal(text)
    named = [span for _, forms in identifying for span in occurrences(normal_text, [str(form) for form in forms])]
    # a failure word inside a value is the value's (a song called "Sorry")
    unnamed = "".join(" " if any(s <= index < e for s, e in named) else char for index, char in enumerate(normal_text))
    bad = [(start, end) for start, end in clauses(normal_text) if failed(unnamed[start:end])]
    for slot, forms in identifying:
        if forms and all(str(form) in YES_NO | {NONE} for form in forms):
            # "None" of a slot (subtitle_language) is said as no subtitles
            if not said_about(text, [], slot, ["False" if str(form) == NONE else form for form in forms], [], yes_no=True):
                return False
        elif not any(not any(s <= start < e for s, e in bad) for start, _ in occurrences(normal_text, list(forms))):
            return False
    return True


__all__ = ["mentions", "said_about", "confirms"]
