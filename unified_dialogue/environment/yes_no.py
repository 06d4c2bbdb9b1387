"""A yes-or-no value said in words (``environment.communicate``, whose docstring says the
rule): the subject of a slot as people say it, and what a clause says of it.
"""

import re
from functools import lru_cache

from .reading import clauses, found

# Words of a yes-or-no slot's name that say nothing of its subject.
FUNCTION_WORDS = frozenset({"a", "the", "is", "are", "has", "have", "for", "good", "allowed", "welcome", "options",
                            "offers", "serves", "service", "services", "seating", "entry", "arrives", "available"})
# Words of a slot's name that make it a statement ("has vegetarian options"), not a label.
VERBS = frozenset({"has", "have", "is", "are", "offers", "serves", "allowed", "arrives", "welcome"})
# First words of a question ("does it have wifi"), which a statement does not start with.
QUESTIONS = frozenset({"does", "do", "is", "are", "can", "whether"})
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
                       "prohibited", "forbidden", "banned", "absent", "missing", "restricts", "false"})
YES_NO = frozenset({"True", "False"})
NONE = "None"
AFFIRMATIONS = frozenset({"yes", "yeah", "yep", "yup"})
# Words that leave a yes-or-no question open.
UNSURE = frozenset({"maybe", "might", "perhaps", "possibly", "unsure", "unclear", "unknown", "probably"})
# A clause that answers yes or no without naming what: "yes", "they do", "it sure does", "you cannot".
BARE = re.compile(r"^(?:(?:and|but|so|well|oh|sorry|sadly|unfortunately|yes|yeah|yep|no|nope) )*"
                  r"(?:(?:yes|yeah|yep|yup|no|nope|true|false)|(?:its|thats|theres)(?: not)?"
                  r"|(?:they|it|you|there|she|he|that|this|we)(?: (?:sure|certainly|definitely|really|also|do))?"
                  r" (?:do|does|did|is|are|can|will|has|have|cannot|cant|dont|doesnt|didnt|isnt|arent|wont|hasnt|"
                  r"havent)(?: not)?(?: (?:indeed|too|also|though|actually|so))?)$")


def subject(slot):
    """The subject of a yes-or-no slot (``has_seating_outdoors`` -> ``outdoors``): its name's
    words without ``FUNCTION_WORDS``."""
    words = [word for word in re.split(r"[_\W]+", slot.casefold()) if word and word not in FUNCTION_WORDS]
    return " ".join(words) or slot.casefold()


def said(clause, phrases):
    """``[(offset, negated)]``: where a clause (``normal`` words) says one of ``phrases``,
    a plural allowed, and a ``non`` or ``un`` before it negating it (``non smoking``,
    ``nonsmoking``, ``unfurnished``)."""
    return [(m.start(), bool(m.group(1))) for m in phrasing(tuple(phrases)).finditer(clause)]


@lru_cache(maxsize=256)
def phrasing(phrases):
    """The expression ``said`` finds ``phrases`` with."""
    alternatives = "|".join(re.escape(phrase) for phrase in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(non ?|un)?(?:{alternatives})(?:s|es)?(?!\w)")


def polarity(clause, slot):
    """``(offset, answer)``: what a clause (``normal`` words) says of a yes-or-no slot,
    ``{True}``, ``{False}``, both (a ``yes`` beside a negation), or empty (it does not name
    the slot's subject nor its opposite), and where (its first subject word)."""
    name = subject(slot)
    words = set(clause.split())
    subjects, opposites = said(clause, SUBJECTS.get(name, (name,))), said(clause, OPPOSITES.get(name, ()))
    negated = bool(NEGATIONS & words) or any(non for _, non in subjects) or any(
        found(clause, f"{phrase} free") for phrase in SUBJECTS.get(name, (name,)) if phrase != "free")
    if UNSURE & words or found(clause, "not sure"):
        return (min(subjects or opposites)[0], {True, False}) if subjects or opposites else (0, set())
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


def label(clause, slot):
    """Whether a clause only names the slot (``Vegetarian options``, ``a shared ride``): an
    answer after it says the value (``Vegetarian options, no``), else it says yes."""
    name = subject(slot)
    names = {*(w for w in slot.casefold().split("_") if w not in VERBS),
             *(w for said in SUBJECTS.get(name, (name,)) for w in said.split()), "the", "a", "any"}
    return bool(clause.split()) and set(clause.split()) <= names


def question(clause, opening):
    """Whether a clause asks (``does it have wifi``): one opening its sentence
    (``opening``) with a word a statement does not start with; only an answer in or after
    it says the value."""
    return opening and clause.split()[:1] in ([word] for word in QUESTIONS)


def whole(normal_text, start, end):
    """Whether ``start``-``end`` of a ``normal`` text is a whole sentence."""
    return normal_text[:start].rstrip(" ,").endswith("\n") | (not normal_text[:start].strip(" ,")) and \
        normal_text[end:].lstrip(" ,")[:1] in ("\n", "")


def answer_words(clause):
    """The yes-or-no words of a clause, as the answers they give."""
    words = set(clause.split())
    return ({True} if AFFIRMATIONS & words else set()) | ({False} if {"no", "nope", "false"} & words else set())


def line_answer(normal_text, spans, index, slot):
    """The answer ending the line of a label or question opening it (``Whether it arrives
    the next day, for the 10:35 flight: no``): the yes-or-no word its last clause ends
    with, where no clause between them names the subject; else empty."""
    start = spans[index][0]
    if normal_text[:start].strip(" ,") and not normal_text[:start].rstrip(" ,").endswith("\n"):
        return set()
    for after_start, after_end in spans[index + 1:]:
        if "\n" in normal_text[start:after_start]:
            return set()
        clause = normal_text[after_start:after_end].strip(" ,")
        if polarity(clause, slot)[1] or question(clause, False):
            return set()
        last = clause.split()[-1:]
        ends_line = "\n" in normal_text[after_end:after_end + 2] or not normal_text[after_end:].strip(" ,")
        if ends_line:
            return answer_words(" ".join(last))
    return set()


def yes_no_statements(normal_text, slot):
    """``[(position, {True|False, …}, bare)]``: the yes-or-no statements of a ``normal`` text
    about ``slot``: each clause naming its subject or opposite (``bare`` False; a hedge,
    ``…: yes`` then ``no``, both), and each bare answer that follows no question (``bare``
    True: the caller takes them only for an item no clause names the subject for)."""
    spans = clauses(normal_text)
    found_in, asked = [], False
    for index, (start, end) in enumerate(spans):
        text = normal_text[start:end].strip(" ,")
        offset, answer = polarity(text, slot)
        opening = not normal_text[:start].strip(" ,") or normal_text[:start].rstrip(" ,").endswith("\n")
        if answer:
            after = spans[index + 1] if index + 1 < len(spans) else (end, end)
            following = normal_text[after[0]:after[1]].strip(" ,")
            asks, names = question(text, opening), label(text, slot)
            if "\n" in normal_text[end:after[0]] and not ((asks or names) and whole(normal_text, start, end)):
                following = ""  # the next clause of the sentence (or of a label's or question's own line)
            if asks or names:
                answer = answer_words(text) or bare(following) or line_answer(normal_text, spans, index, slot) or \
                    (set() if asks else answer)
            said_here, said_next = answer_words(text), answer_words(following) if len(following.split()) == 1 else set()
            if said_here and said_next and said_here != said_next:
                answer = {True, False}
            if answer:
                found_in.append((start + offset, answer, False))
        elif bare(text) and not asked:
            found_in.append((start, bare(text), True))
        asked = question(text, opening)  # a bare answer after another question answers it
    return found_in
