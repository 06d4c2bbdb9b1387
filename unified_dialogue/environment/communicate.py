"""What the user was told, judged as a user reads it: plain strings in, booleans out.

Three questions, each a pure function of the text:

- ``mentions(text, forms)``: the text states one of a value's forms as whole words and whole
  numbers. Both sides are read the same way (``normal``): case, punctuation around words and
  apostrophes aside; ``$50``, ``50.00`` and ``50`` are one number, ``4.50`` is ``4.5``,
  ``1,330`` is ``1330``, number words up to twelve are digits; a phone number is its digits
  (``(510) 651-1040`` is ``510-651-1040``); ``St``/``Street``-style abbreviations of
  addresses are one word; ``5pm`` and ``5 p.m.`` are ``5 pm``. A time (``17:30``, or
  ``5:30 pm``) and a date (``2019-03-05``) are also found as people say them (``spellings``).
  A number is never found inside a longer one: ``3`` is not in ``1330``, ``3.5`` or
  ``5:30``, ``0`` is not in a date.
- ``said_about(text, item_forms, slot, value_forms, other_items, yes_no)``: the value is
  stated for the item it was asked about, and no value of the slot for another item (see
  *attribution* below). A yes-or-no value must be said in words: a clause that names the
  slot's subject (``subject``, said as ``SUBJECTS`` has it: ``vegetarian``, ``outdoor``,
  ``next day`` …, plurals too) says yes unless it holds a negation (``no``, ``not``,
  ``n't``, ``without``, ``non``/``un`` before the subject, ``<subject> free``); a clause
  naming only its opposite (``OPPOSITES``: ``same day``, ``entrance fee``, ``indoor``) says
  the reverse. A bare answer (``yes``, ``they do``, ``it sure does``, ``you cannot``)
  counts only where no clause of the text names the subject or its opposite. Saying both
  yes and no about the item is no answer (two clauses that disagree, ``yes`` beside a
  negation, ``…: yes`` followed by ``no`` in its sentence).
- ``confirms(text, identifying)``: every identifying value of a booking is mentioned
  outside the clauses that say a booking failed (``couldn't``, ``unable``, ``nothing`` …);
  a yes-or-no value, or ``None`` (no subtitles), is said in words.

Attribution. The text is cut into sentences (line breaks, ``.``, ``!``, ``?``, ``;`` before
white space) and a sentence into clauses (commas, ``|``, and ``and``/``but``/``while`` …).
An item is named where one of its *distinctive* identifying values is mentioned (a value
another item shares names neither; a mention inside a longer mention of another item does
not count). A statement (a value's mention, or the subject word of a yes-or-no clause) is
about the item named last before it in its sentence, else the first named after it in its
sentence, else the item named last in an earlier sentence. A statement before any item is
named is about the asked item only where the text names no other item; another item's value
stated there (not also the asked value) counts as stated for that item, so that a list of
every row's values without names gives nothing, unless it is a number of one or two digits
(``small_number``: a count a text may say as another fact).
"""

import re
from functools import lru_cache

TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
TWELVE_HOUR = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\.?$")
DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")
# Words of addresses written in full or abbreviated; the abbreviation is the one compared.
ABBREVIATIONS = {"street": "st", "avenue": "ave", "boulevard": "blvd", "road": "rd", "drive": "dr",
                 "place": "pl", "lane": "ln", "court": "ct", "highway": "hwy", "parkway": "pkwy",
                 "suite": "ste", "international": "intl", "saint": "st", "mount": "mt"}
# Characters that join the digits of one number; elsewhere they are punctuation.
JOINERS = ".:/,-"
PHONE = re.compile(r"(?<![\w:/-])(?<!\d\.)(?:\+\d{1,3}|\(?\d{2,}\)?)(?:[ .-]\(?\d{2,}\)?)+(?![\w])")
COUNTRY_CODE = re.compile(r"^\+\d{1,3}[ -]+(?=\(?\d)")


def ordinal(number):
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def spellings(value):
    """The ways a value may be said: itself, and for a time (``HH:MM``, or ``5:30 pm``) or a
    date (``YYYY-MM-DD``, SGD's canonical forms) the forms people say them in."""
    found = [value]
    if COUNTRY_CODE.match(value):
        found.append(COUNTRY_CODE.sub("", value))
    twelve = TWELVE_HOUR.match(value.strip().casefold())
    if twelve and 1 <= int(twelve.group(1)) <= 12:
        hour = int(twelve.group(1)) % 12 + (12 if twelve.group(3) == "p" else 0)
        value = f"{hour:02}:{twelve.group(2) or '00'}"
        found.append(value)
    time = TIME.match(value)
    if time and int(time.group(1)) < 24 and int(time.group(2)) < 60:
        hour, minute = int(time.group(1)), time.group(2)
        twelve, half = hour % 12 or 12, "am" if hour < 12 else "pm"
        found += [f"{hour}:{minute}", f"{twelve}:{minute} {half}", f"{twelve}:{minute}"]
        if minute == "00":
            found += [f"{twelve} {half}", f"{twelve} o'clock"]
        found += {"12:00": ["noon"], "00:00": ["midnight"]}.get(f"{hour:02}:{minute}", [])
    date = DATE.match(value)
    if date and 1 <= int(date.group(2)) <= 12 and 1 <= int(date.group(3)) <= 31:
        month, day = MONTHS[int(date.group(2)) - 1], int(date.group(3))
        found += [f"{month} {day}", f"{month} {ordinal(day)}", f"{ordinal(day)} of {month}", f"{day} {month}",
                  f"the {ordinal(day)}"]
    return found


def numbers(text):
    """Numbers written one way: no thousands comma, no trailing zeros of a fraction, no
    currency sign, a phone number (groups of two digits or more) as its digits."""
    text = PHONE.sub(lambda m: re.sub(r"\D", "", m.group()) if len(re.sub(r"\D", "", m.group())) >= 7
                     else m.group(), text)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = re.sub(r"(\d)\.0+(?!\d)", r"\1", text)
    text = re.sub(r"(\d\.\d*[1-9])0+(?!\d)", r"\1", text)
    return re.sub(r"[$€£]\s*(?=\d)", "", text)


@lru_cache(maxsize=4096)
def normal(text):
    """``text`` as compared: case folded, sentence ends as line breaks, commas between words
    (clause ends) as `` , ``, other punctuation around words as space, words single-spaced
    (see the module's docstring for numbers and words)."""
    text = text.casefold().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"\b([ap])\.\s?m\b\.?", r"\1m", text)
    text = re.sub(r"(\d)\s*([ap]m)\b", r"\1 \2", text)
    text = numbers(text.replace("'", "").replace("&", " and ").replace("%", " percent "))
    text = re.sub(r"[.!?;]+(?=\s|$)|\n", "\n", text)
    text = re.sub(r"\|", ",", text)
    text = re.sub(rf"(?<!\d)[{JOINERS}]|[{JOINERS}](?!\d)", lambda m: " , " if m.group() == "," else " ", text)
    text = re.sub(rf"[^\w\s{JOINERS}]|_", " ", text)
    text = re.sub(r"(?<![\w.:/,-])[a-z]+(?![\w.:/,-])", lambda m: word(m.group()), text)
    return re.sub(r"\s*\n\s*", "\n", re.sub(r"[^\S\n]+", " ", text)).strip()


def word(text):
    """A word as compared: an address word as its abbreviation, a number word as digits."""
    return str(NUMBER_WORDS.index(text)) if text in NUMBER_WORDS else ABBREVIATIONS.get(text, text)


@lru_cache(maxsize=4096)
def pattern(form):
    """The regular expression finding ``form`` (``normal``) as whole words and numbers in a
    ``normal`` text, across commas and line breaks; None for a form with no word."""
    words = [w for w in normal(form).split() if w != ","]
    if not words:
        return None
    body = r"(?:\s|,)+".join(re.escape(word) for word in words)
    return re.compile(rf"(?<!\w)(?<!\d[{JOINERS}]){body}(?!\w)(?![{JOINERS}]\d)")


def occurrences(normal_text, forms):
    """The ``(start, end)`` spans in ``normal_text`` where one of ``forms`` or of their
    ``spellings`` is mentioned."""
    spans = set()
    for form in forms:
        for spelling in spellings(form):
            found = pattern(spelling)
            if found:
                spans.update(match.span() for match in found.finditer(normal_text))
    return sorted(spans)


def mentions(text, forms):
    """Whether ``text`` states one of ``forms`` (see the module's docstring).

    Example:
        >>> mentions("It costs $50.00 in total.", ["50"]), mentions("Flight 1330", ["3"])
        (True, False)
    """
    return bool(occurrences(normal(text), list(forms)))


# ---------------------------------------------------------------- attribution

def sentences(normal_text):
    """The ``(start, end)`` of each sentence of a ``normal`` text."""
    bounds, start = [], 0
    for match in re.finditer(r"\n", normal_text):
        bounds.append((start, match.start()))
        start = match.end()
    return bounds + [(start, len(normal_text))]


CLAUSE_END = re.compile(r"\s*,\s*|\s+(?:and|but|while|whereas|although|though|however)\s+")


def clauses(normal_text):
    """The ``(start, end)`` of each clause of a ``normal`` text (its sentences cut at
    commas and at conjunctions)."""
    found = []
    for start, end in sentences(normal_text):
        at = start
        for match in CLAUSE_END.finditer(normal_text, start, end):
            found.append((at, match.start()))
            at = match.end()
        found.append((at, end))
    return [(start, end) for start, end in found if end > start]


def named(normal_text, items):
    """``[(start, end, index)]``: where each of ``items`` (lists of lists of forms of its
    identifying values) is named by a distinctive value, a mention inside a longer mention
    of another item left out."""
    keys = [[{normal(form) for form in forms} for forms in item] for item in items]
    spans = []
    for index, item in enumerate(items):
        for position, forms in enumerate(item):
            shared = any(keys[index][position] & value for other, values in enumerate(keys) if other != index
                         for value in values)
            if not shared:
                spans += [(start, end, index) for start, end in occurrences(normal_text, forms)]
    return [(s, e, i) for s, e, i in spans
            if not any(i2 != i and s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, i2 in spans)]


def attributed(position, names, bounds):
    """The item a statement at ``position`` is about (an index), or None (see the module's
    docstring); ``names`` as ``named`` gives them, ``bounds`` the text's ``sentences``."""
    start, end = next(((s, e) for s, e in bounds if s <= position <= e), (position, position))
    before = [n for n in names if start <= n[0] <= position]
    if before:
        return max(before)[2]
    after = [n for n in names if position < n[0] <= end]
    if after:
        return min(after)[2]
    earlier = [n for n in names if n[0] < start]
    return max(earlier)[2] if earlier else None


def about_asked(position, names, bounds):
    """Whether a statement at ``position`` is about the asked item (index 0 of ``names``)."""
    item = attributed(position, names, bounds)
    return item == 0 or (item is None and not any(index for _, _, index in names))


# ---------------------------------------------------------------- yes or no, said in words

# Words of a yes-or-no slot's name that say nothing of its subject.
FUNCTION_WORDS = frozenset({"a", "the", "is", "are", "has", "have", "for", "good", "allowed", "welcome", "options",
                            "offers", "serves", "service", "services", "seating", "entry", "arrives", "available"})
# A subject (a slot's name without its function words) as people say it, and its opposite.
SUBJECTS = {
    "vegetarian": ("vegetarian", "veggie", "vegan", "meatless"),
    "outdoors": ("outdoor", "outdoors", "out door", "outside", "patio", "terrace", "alfresco", "al fresco"),
    "smoking": ("smoking", "smoke", "smokers", "smoker"),
    "wifi": ("wifi", "wi fi", "internet", "wireless"),
    "free": ("free", "complimentary", "no charge"),
    "kids": ("kids", "kid", "children", "child", "family", "families", "youngsters"),
    "pets": ("pets", "pet", "animals", "animal", "dogs", "dog", "cats", "cat"),
    "furnished": ("furnished", "furniture", "furnishing", "furnishings"),
    "next day": ("next day", "following day", "day after", "next morning", "overnight"),
    "redeye": ("redeye", "red eye", "overnight"),
    "live music": ("live music", "music", "live band", "live entertainment", "live performance"),
    "alcohol": ("alcohol", "alcoholic", "drinks", "beer", "wine", "liquor", "cocktails"),
    "laundry": ("laundry", "washing", "washer"),
    "refundable": ("refundable", "refund", "refunded", "money back"),
    "cosmetic": ("cosmetic", "cosmetics"),
    "shared ride": ("shared", "share", "sharing", "pool", "other passengers"),
    "subtitles": ("subtitles", "subtitle", "subtitled", "captions"),
    "subtitle language": ("subtitles", "subtitle", "subtitled", "captions"),
}
OPPOSITES = {
    "outdoors": ("indoor", "indoors", "inside only"),
    "free": ("fee", "fees", "charge", "charges", "cost", "costs", "paid", "pay", "charged", "ticket price",
             "admission price"),
    "kids": ("adults only", "adult only"),
    "next day": ("same day", "same date"),
    "shared ride": ("private",),
}
NEGATIONS = frozenset({"no", "not", "never", "none", "nor", "neither", "without", "non", "cannot", "nope", "lack",
                       "lacks", "isnt", "arent", "wasnt", "werent", "dont", "doesnt", "didnt", "cant", "couldnt",
                       "wont", "wouldnt", "hasnt", "havent", "hadnt", "shouldnt", "unavailable",
                       "prohibited", "forbidden", "banned", "absent", "missing", "restricts"})
YES_NO = frozenset({"True", "False"})
NONE = "None"
AFFIRMATIONS = frozenset({"yes", "yeah", "yep", "yup"})
# A clause that answers yes or no without naming what: "yes", "they do", "it sure does", "you cannot".
BARE = re.compile(r"^(?:(?:and|but|so|well|oh|sorry|sadly|unfortunately|yes|yeah|yep|no|nope) )*"
                  r"(?:(?:yes|yeah|yep|yup|no|nope)|(?:its|thats|theres)(?: not)?"
                  r"|(?:they|it|you|there|she|he|that|this|we)(?: (?:sure|certainly|definitely|really|also|do))?"
                  r" (?:do|does|did|is|are|can|will|has|have|cannot|cant|dont|doesnt|didnt|isnt|arent|wont|hasnt|"
                  r"havent)(?: not)?(?: (?:indeed|too|also|though|actually|so))?)$")


def subject(slot):
    """The subject of a yes-or-no slot (``has_seating_outdoors`` -> ``outdoors``): its name's
    words without ``FUNCTION_WORDS``."""
    words = [word for word in re.split(r"[_\W]+", slot.casefold()) if word and word not in FUNCTION_WORDS]
    return " ".join(words) or slot.casefold()


def found(words, phrase):
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", words) is not None


def said(clause, phrases):
    """``[(offset, negated)]``: where a clause (``normal`` words) says one of ``phrases``,
    a plural allowed, and a ``non`` or ``un`` before it negating it (``non smoking``,
    ``nonsmoking``, ``unfurnished``)."""
    return [(m.start(), bool(m.group(1))) for phrase in phrases
            for m in re.finditer(rf"(?<!\w)(non ?|un)?{re.escape(phrase)}(?:s|es)?(?!\w)", clause)]


def polarity(clause, slot):
    """``(offset, answer)``: what a clause (``normal`` words) says of a yes-or-no slot,
    ``{True}``, ``{False}``, both (a ``yes`` beside a negation), or empty (it does not name
    the slot's subject nor its opposite), and where (its first subject word)."""
    name = subject(slot)
    words = set(clause.split())
    subjects, opposites = said(clause, SUBJECTS.get(name, (name,))), said(clause, OPPOSITES.get(name, ()))
    negated = bool(NEGATIONS & words) or any(non for _, non in subjects) or any(
        found(clause, f"{phrase} free") for phrase in SUBJECTS.get(name, (name,)) if phrase != "free")
    if subjects:
        answer, offset = {not negated}, min(subjects)[0]
    elif opposites:
        answer, offset = {negated}, min(opposites)[0]
    else:
        return 0, set()
    return offset, ({True, False} if negated and AFFIRMATIONS & words else answer)


def bare(clause):
    """What a clause answering without naming its subject says: ``{True}``, ``{False}``, or
    empty (it is no bare answer)."""
    if not BARE.match(clause):
        return set()
    return {not (NEGATIONS & set(clause.split()))}


def answer_words(clause):
    """The yes-or-no words of a clause, as the answers they give."""
    words = set(clause.split())
    return ({True} if AFFIRMATIONS & words else set()) | ({False} if {"no", "nope"} & words else set())


def yes_no_statements(normal_text, slot):
    """``[(position, {True|False, …})]``: the yes-or-no statements of a ``normal`` text about
    ``slot``: each clause naming its subject or opposite, a hedge (``…: yes`` then ``no``)
    both; the bare answers only where no clause names either (see the module's docstring)."""
    spans = clauses(normal_text)
    named_in, bare_in = [], []
    for index, (start, end) in enumerate(spans):
        text = normal_text[start:end].strip(" ,")
        offset, answer = polarity(text, slot)
        if answer:
            # the next clause of the sentence, where it is one answer word
            after = spans[index + 1] if index + 1 < len(spans) else (end, end)
            following = "" if "\n" in normal_text[end:after[0]] else normal_text[after[0]:after[1]].strip(" ,")
            said_here, said_next = answer_words(text), answer_words(following) if len(following.split()) == 1 else set()
            if said_here and said_next and said_here != said_next:
                answer = {True, False}
            named_in.append((start + offset, answer))
        elif bare(text):
            bare_in.append((start, bare(text)))
    return named_in or bare_in


# ---------------------------------------------------------------- the three questions

def said_about(text, item_forms, slot, value_forms, other_items, yes_no=False):
    """Whether ``text`` states the value of ``slot`` for the asked item, and no value of
    the slot for another (see the module's docstring).

    Args:
        text: what the user was told.
        item_forms: the asked item's identifying values, a list of forms each (may be empty).
        slot: the slot asked about.
        value_forms: the value's forms (``["True"]`` or ``["False"]`` with ``yes_no``).
        other_items: ``[(item_forms, value_forms)]`` of the items the user did not ask about.
        yes_no: whether the slot's values are ``True`` and ``False``, said in words.

    Example:
        >>> said_about("Vegetarian options: yes", [["Tasty Place"]], "has_vegetarian_options", ["True"], [])
        True
    """
    normal_text = normal(text)
    bounds = sentences(normal_text)
    names = named(normal_text, [list(item_forms), *[list(forms) for forms, _ in other_items]])
    if yes_no:
        wanted = {plain_bool(form) for form in value_forms}
        stated = yes_no_statements(normal_text, slot)
        mine = set().union(*[answer for p, answer in stated if about_asked(p, names, bounds)])
        others = any(attributed(p, names, bounds) not in (0, None) for p, _ in stated)
        return bool(mine) and mine <= wanted and len(mine) == 1 and not others
    asked = {start for start, _ in occurrences(normal_text, list(value_forms))}
    if not any(about_asked(start, names, bounds) for start in asked):
        return False
    return not any(attributed(start, names, bounds) == index or (
        attributed(start, names, bounds) is None and start not in asked and not small_number(values))
        for index, (_, values) in enumerate(other_items, 1) for start, _ in occurrences(normal_text, list(values)))


def small_number(forms):
    """Whether a value is a number of one or two digits, which a text may well say as
    another fact (``for 2 people``)."""
    return any(re.fullmatch(r"\d{1,2}", normal(str(form))) for form in forms)


def plain_bool(form):
    return str(form).strip().casefold() == "true"


# Words of a clause saying that a booking was not made.
FAILURES = frozenset({"couldnt", "cannot", "cant", "unable", "failed", "fail", "fails", "unsuccessful", "wasnt",
                      "werent", "didnt", "nothing", "unavailable"})
FAILURE_PHRASES = ("could not", "was not", "were not", "did not", "not able", "not booked", "not been",
                   "no booking", "not reserved", "not available", "not possible")


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
    bad = [(start, end) for start, end in clauses(normal_text) if failed(normal_text[start:end])]
    for slot, forms in identifying:
        if forms and all(str(form) in YES_NO | {NONE} for form in forms):
            # "None" of a slot (subtitle_language) is said as no subtitles
            if not said_about(text, [], slot, ["False" if str(form) == NONE else form for form in forms], [], yes_no=True):
                return False
        elif not any(not any(s <= start < e for s, e in bad) for start, _ in occurrences(normal_text, list(forms))):
            return False
    return True


__all__ = ["mentions", "said_about", "confirms", "spellings", "normal"]
