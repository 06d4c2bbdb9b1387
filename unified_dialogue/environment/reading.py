"""How the environment reads a text it judges (``environment.communicate``): one normal
form for a text and for a value's forms, so that a value is found as whole words and whole
numbers, and the text's sentences and clauses.
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
# A dot after a title or a single capital initial abbreviates and ends no sentence ("Dr. Manuj K. Nangia").
ABBREVIATED = re.compile(r"(?<![\w.])((?i:dr|mr|mrs|ms|st|mt|jr|sr|prof|rev)|[A-Z])\.(?=\s)")


def unabbreviated(text):
    """``text`` without the dots of its abbreviations (``ABBREVIATED``), so that only sentence
    ends are left."""
    return ABBREVIATED.sub(r"\1", text)


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


# A possessive ending (``Ace Hotel's phone`` names Ace Hotel), not a contraction (``it's``).
POSSESSIVE = re.compile(r"(?<!\w)(?!(?:it|that|there|here|what|who|where|how|he|she|let)')(\w+)'s(?!\w)")


@lru_cache(maxsize=4096)
def normal(text):
    """``text`` as compared: case folded, sentence ends (not an abbreviation's dot) as line breaks, commas between words
    (clause ends) as `` , ``, other punctuation around words as space, words single-spaced
    (see the module's docstring for numbers and words)."""
    text = unabbreviated(text).casefold().replace("\u2019", "'").replace("\u2018", "'")
    text = POSSESSIVE.sub(r"\1", text)
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
    """``(first word, regular expression)``: the expression finding ``form`` (``normal``)
    as whole words and numbers in a ``normal`` text, across commas and line breaks; None
    for a form with no word."""
    words = [w for w in normal(form).split() if w != ","]
    if not words:
        return None
    body = r"(?:\s|,)+".join(re.escape(word) for word in words)
    return words[0], re.compile(rf"(?<!\w)(?<!\d[{JOINERS}]){body}(?!\w)(?![{JOINERS}]\d)")


def occurrences(normal_text, forms):
    """The ``(start, end)`` spans in ``normal_text`` where one of ``forms`` or of their
    ``spellings`` is mentioned."""
    spans = set()
    for form in forms:
        for spelling in spellings(form):
            found = pattern(spelling)
            if found and found[0] in normal_text:  # most forms are absent: skip the expression
                spans.update(match.span() for match in found[1].finditer(normal_text))
    return sorted(spans)


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


def found(words, phrase):
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", words) is not None
