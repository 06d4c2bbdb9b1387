"""What a probe agent (``probes``) reads, as a model reads it: the ticket's requests, the
tools' schemas, and the values rewritten into a tool's form.

Nothing here knows the episode's goal or outcome: a ticket is read from its text alone
(a numbered line opens a request, ``- label: value`` lines give its values, a line whose
label starts with ``Tell me`` lists what the user wants to be told), and a value is
matched to an argument by the words of the argument's description and name; a tool's
answer is read as the rows it gives or the refusal it says (``read_answer``), a question as
what it asks and the item it names (``ask_label``). The rewriting
rules are generic, a model's common knowledge: a handful of city nicknames and
abbreviations, a region after a comma dropped, a date written in words made the tool's
``YYYY-MM-DD``, a time in words made ``HH:MM``, a number in words made digits, ``yes`` and
``no`` made a yes-or-no argument's ``True`` and ``False``.
"""

import datetime
import json
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

# Nicknames and abbreviations any model knows (airport codes among them).
CITY_NAMES = {
    "sf": "San Francisco", "sfo": "San Francisco", "san fran": "San Francisco", "frisco": "San Francisco",
    "la": "Los Angeles", "lax": "Los Angeles", "l.a.": "Los Angeles", "sd": "San Diego", "ny": "New York",
    "nyc": "New York", "new york city": "New York", "jfk": "New York", "philly": "Philadelphia",
    "chi-town": "Chicago", "chitown": "Chicago", "ord": "Chicago", "vegas": "Las Vegas", "lv": "Las Vegas",
    "dc": "Washington D.C.", "washington dc": "Washington D.C.", "atl": "Atlanta",
    "sea": "Seattle", "pdx": "Portland", "nola": "New Orleans", "sac": "Sacramento", "sj": "San Jose",
    "sjc": "San Jose", "oak": "Oakland", "kl": "Kuala Lumpur", "bkk": "Bangkok", "yvr": "Vancouver",
    "yyz": "Toronto", "lhr": "London", "cdg": "Paris", "hk": "Hong Kong",
}
NUMBERS = {word: str(number) for number, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
MONTHS = {name: number for number, name in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
MONTHS.update({name[:3]: number for name, number in list(MONTHS.items())})
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
YES = {"yes", "true", "y"}
NO = {"no", "false", "n"}
STOP_WORDS = frozenset("a an the of for in on at by or and is be with which that this whether "
                       "not number name me my".split())
TODAY = re.compile(r"\btoday is\s+(?:\w+day,?\s+)?(\d{4}-\d{2}-\d{2}|[^.\n;)]+)", re.IGNORECASE)
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# Words a label may use for a slot name's word.
SYNONYMS = {"contact": "phone", "telephone": "phone", "cost": "price", "fare": "price"}
# How an English label names one end of a journey (a slot name's word), as any reader takes it.
PHRASES = (("flying to", "destination"), ("going to", "destination"), ("arriving at", "destination"),
           ("flying out from", "origin"), ("flying from", "origin"), ("leaving from", "origin"),
           ("departing from", "origin"), ("return", "inbound"))
# The first word of a tool's description that says it changes something (a booking).
BOOKING_VERBS = frozenset("book reserve make buy purchase schedule add transfer play rent set create request send "
                          "pay order call hire".split())


@dataclass(frozen=True)
class Value:
    """A value a ticket gives: its ``label``, the ``value``, the ``earlier`` values the user
    asked for first, whether the user only ``accepted`` it when offered (no filter of a
    search), and the ``fallback`` the user accepts when the value cannot be had."""

    label: str
    value: str
    earlier: Tuple[str, ...] = ()
    accepted: bool = False
    fallback: Optional[str] = None


@dataclass
class Request:
    """One numbered request of a ticket: its text (``description``, ``service`` where the
    line names one in parentheses), its ``values`` (``Value``), ``asks`` (the labels of
    what the user wants to be told) and whether the user ``declines`` an alternative."""

    description: str
    service: str = ""
    values: List[Value] = field(default_factory=list)
    asks: List[str] = field(default_factory=list)
    declines: bool = False


def value_of(label, text):
    """The ``Value`` of a ticket's ``label: text`` line."""
    fallback = re.match(r"^(.*?);\s*if that cannot be done, I accept (.*?) when (?:it is )?offered\.?$", text,
                        re.IGNORECASE)
    if fallback:  # the values asked for in turn ("A, then B"): the last is the one asked for now
        *earlier, value = re.split(r", then ", fallback.group(1).strip())
        return Value(label, value, tuple(earlier), fallback=fallback.group(2).strip())
    accepted = re.search(r"\s*\(I did not ask for it[^()]*\)$", text, re.IGNORECASE)
    if accepted:
        return Value(label, text[:accepted.start()].strip(), accepted=True)
    earlier = re.search(r"\s*\(I first asked for (.*)\)$", text)
    if earlier:
        return Value(label, text[:earlier.start()].strip(), tuple(re.split(r", then ", earlier.group(1))))
    return Value(label, text.strip())


def read_ticket(text):
    """The requests of a ticket's text, in order (a ticket without a numbered line is
    one request)."""
    requests = []
    for line in (text or "").splitlines():
        line = line.strip()
        opened = re.match(r"^(\d+)[.)]\s+(.*?)\s*(?:\(([^()]*)\))?\.?$", line)
        if opened:
            requests.append(Request(opened.group(2), (opened.group(3) or "").strip()))
            continue
        if not line.startswith(("-", "*", "•")):
            continue
        if not requests:
            requests.append(Request(""))
        if re.search(r"\bnot take an alternative\b|\bno alternative\b", line, re.IGNORECASE):
            requests[-1].declines = True
            continue
        pair = re.match(r"^[-*•]\s*([^:]+):\s*(.*)$", line)
        if not pair:
            continue
        label, value = pair.group(1).strip(), pair.group(2).strip()
        if label.casefold().startswith("tell me"):
            requests[-1].asks += [ask.strip() for ask in value.rstrip(".").split(";") if ask.strip()]
            continue
        requests[-1].values.append(value_of(label, value))
    return requests


@dataclass
class Tool:
    name: str
    description: str
    properties: dict
    required: tuple

    @property
    def service(self):
        return self.name.split("__")[0]

    @property
    def booking(self):
        first = (self.description.split() or [""])[0].casefold()
        return first in BOOKING_VERBS


def tools_of(tools):
    made = {}
    for entry in tools or ():
        function = entry.get("function") or entry
        params = function.get("parameters") or {}
        made[function["name"]] = Tool(function["name"], function.get("description") or "",
                                      params.get("properties") or {}, tuple(params.get("required") or ()))
    return made


def read_answer(text):
    """A tool's answer as ``(rows, refusal)``: the rows of a JSON list of objects (None for
    an error); for a refusal (an object with ``refused``) no row, and the refusal."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None, None
    if isinstance(value, dict) and "refused" in value:
        return [], value
    return ([row for row in value if isinstance(row, dict)] if isinstance(value, list) else None), None


def offered_row(refusal):
    """The alternative a refusal offers (the first object in it), else None."""
    return next((value for value in (refusal or {}).values() if isinstance(value, dict)), None)


def ask_label(ask):
    """What a ``Tell me`` entry asks, without the item it names, as a reader sees it:
    ``<label> of <a name>`` (``Address of Beck Jennifer P``; a name is written with a
    capital or a digit: ``1760``, ``07:30``), where a label alone may hold an ``of``
    (``Total price of car rental``)."""
    pieces = ask.split(" of ")
    cut = next((cut for cut in range(1, len(pieces)) if re.match(r"[A-Z0-9]", pieces[cut])), len(pieces))
    return " of ".join(pieces[:cut])


def names_item(ask):
    return ask_label(ask) != ask


def asked_slot(tools, ask, row):
    """The slot of ``row`` a ``Tell me`` label asks for: an argument of ``tools`` (``Tool``
    by name) described so, else the slot whose name's words the label holds."""
    for tool in tools.values():
        for slot, prop in tool.properties.items():
            if slot in row and similarity(ask, prop.get("description") or "", slot) == 1.0:
                return slot
    plain = " ".join(ask.casefold().split())
    order = ordered_words(ask)
    said = set(order) | {SYNONYMS[word] for word in order if word in SYNONYMS} | \
        {slot_word for phrase, slot_word in PHRASES if phrase in plain}
    if not said & {"inbound", "return"}:
        said.add("outbound")
    scored = []
    for slot in row:
        named = words(slot)
        shared = len(named & said)
        if not named or ("name" in slot and "name" not in plain) or shared / len(named) < 0.5:
            continue
        first = min((position for position, word in enumerate(order)
                     if word in named or SYNONYMS.get(word) in named), default=len(order))
        scored.append((len(named & said), -first, len(named & said) / len(named), slot))
    return max(scored)[-1] if scored else None


def yes_no_text(value):
    return {"true": "yes", "false": "no"}.get(str(value).casefold(), str(value))


def ordered_words(text):
    """The content words of a text in order (lower case, a plural's ``s`` dropped)."""
    found = re.findall(r"[a-z0-9]+", text.replace("_", " ").casefold())
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in found if w not in STOP_WORDS]


def words(text):
    """The set of a text's content words (``ordered_words``)."""
    return set(ordered_words(text))


def similarity(label, description, name=""):
    """How well a ticket's label fits an argument (its description and name), 0 to 1."""
    if " ".join(label.casefold().split()) == " ".join(description.casefold().split()):
        return 1.0
    said, meant = words(label), words(description) | words(name)
    return len(said & meant) / len(said | words(description)) if said else 0.0


def today_of(text):
    """The date the prompt says today is, else None."""
    stated = TODAY.search(text or "")
    return parse_date(stated.group(1), None) if stated else None


def parse_date(text, today):
    """A date written as a model reads it (``2019-03-05``, ``March 5th``, ``5th of March``,
    ``the 10th of this month``, ``today``, ``tomorrow``, ``next Monday``), else None;
    ``today`` (a ``datetime.date`` or None) resolves what is relative."""
    text = " ".join(text.casefold().replace(",", " ").split())
    iso = ISO_DATE.search(text)
    if iso:
        return datetime.date(*map(int, iso.groups()))
    if today is not None:
        if text in ("today", "tonight", "this evening"):
            return today
        if text in ("tomorrow", "tomorrow night"):
            return today + datetime.timedelta(days=1)
        if text in ("day after tomorrow", "the day after tomorrow"):
            return today + datetime.timedelta(days=2)
        for number, weekday in enumerate(WEEKDAYS):
            if weekday in text:
                if "next week" in text:  # that weekday of the next calendar week
                    return today + datetime.timedelta(days=7 - today.weekday() + number)
                return today + datetime.timedelta(days=(number - today.weekday()) % 7 or 7)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", text)
    month = next((number for name, number in MONTHS.items() if re.search(rf"\b{name}\b", text)), None)
    if day is None or not 1 <= int(day.group(1)) <= 31:
        return None
    if month is None and today is not None and ("this month" in text or "the" in text.split()):
        month = today.month
    if month is None:
        return None
    year = today.year if today is not None else None
    if year is None:
        return None
    try:
        return datetime.date(year, month, int(day.group(1)))
    except ValueError:
        return None


def parse_time(text):
    """A time of day written as a model reads it (``11:30``, ``7 pm``, ``half past 6 in the
    evening``, ``noon``) as ``HH:MM``, else None."""
    text = " ".join(text.casefold().replace(".", "").split())
    if text in ("noon", "midday"):
        return "12:00"
    if text == "midnight":
        return "00:00"
    for word, digits in NUMBERS.items():
        text = re.sub(rf"\b{word}\b", digits, text)
    minutes = 0
    if text.startswith("half past "):
        text, minutes = text[len("half past "):], 30
    elif text.startswith("quarter past "):
        text, minutes = text[len("quarter past "):], 15
    elif text.startswith("quarter to "):
        text, minutes = text[len("quarter to "):], -15
    match = re.match(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|in the morning|in the afternoon|in the evening|at night|"
                     r"o'?clock)?", text)
    if not match:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0) + minutes
    part = match.group(3) or ""
    if part in ("pm", "in the afternoon", "in the evening", "at night") and hour < 12:
        hour += 12
    if part == "am" and hour == 12:
        hour = 0
    if minute < 0:
        hour, minute = hour - 1, minute + 60
    return f"{hour:02d}:{minute:02d}" if 0 <= hour < 24 and 0 <= minute < 60 else None


def city(text):
    """A place's name as a service spells it: a nickname's full name, a region after a
    comma dropped."""
    known = CITY_NAMES.get(" ".join(text.casefold().split()))
    if known:
        return known
    head = text.split(",")[0].strip()
    return CITY_NAMES.get(head.casefold(), head)


def kind(prop, name):
    """What an argument holds, read from its description and name: ``date``, ``time``,
    ``place``, ``yes-no``, ``number`` or ``text``."""
    said = words(f"{prop.get('description', '')} {name}")
    enum = [str(value).casefold() for value in prop.get("enum", ())]
    if set(enum) == {"true", "false"}:
        return "yes-no"
    if "date" in said:
        return "date"
    if "time" in said and not said & {"length", "duration"}:
        return "time"
    if said & {"city", "location", "town", "area", "destination", "origin", "place"} and "name" not in name:
        return "place"
    if enum and all(value.isdigit() for value in enum) or said & {"count", "number", "many"}:
        return "number"
    return "text"


def rewritten(value, prop, name, today):
    """``value`` in the form of the argument ``prop`` (named ``name``), as a model writes it."""
    sort, text = kind(prop, name), value.strip()
    if sort == "date":
        date = parse_date(text, today)
        text = date.isoformat() if date else text
    elif sort == "time":
        text = parse_time(text) or text
    elif sort == "place":
        text = city(text)
    elif sort == "yes-no":
        folded = text.casefold()
        text = "True" if folded in YES else "False" if folded in NO else text
    elif sort == "number":
        text = NUMBERS.get(text.casefold(), text)
    for option in prop.get("enum", ()):
        if str(option).casefold() == text.casefold():
            return str(option)
    return text


def same(a, b):
    """Whether two values are the same as a reader sees them (case and spaces aside)."""
    return " ".join(str(a).casefold().split()) == " ".join(str(b).casefold().split())


__all__ = ["Request", "Tool", "Value", "ask_label", "asked_slot", "city", "kind", "names_item", "offered_row",
           "ordered_words", "parse_date", "parse_time", "read_answer", "read_ticket", "rewritten", "same", "similarity",
           "today_of", "tools_of", "value_of", "words", "yes_no_text"]
