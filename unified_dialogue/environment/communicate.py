"""Whether a text tells a user a value (the answer-judging rules; docs/environment.md, "How
an answer is judged"): whole words and numbers, never a substring of another word or number.
"""

import re

NEGATIONS = ("no", "not", "none", "without", "non", "never", "nor", "neither", "doesn't", "don't", "isn't",
             "aren't", "won't", "can't", "cannot", "n't")
# Words of a slot's name that say nothing of what it is about.
FILLERS = frozenset({"has", "is", "are", "serves", "offers", "allowed", "good", "for", "the", "of", "a", "services",
                     "service", "options", "welcome"})
SENTENCE = re.compile(r"(?<=[.!?;\n])\s+|\n")


def plain(text):
    return " ".join(re.sub(r"[^\w:.$'-]+", " ", text.casefold()).split()).strip(" .")


def mentions(text, forms):
    """Whether ``text`` states one of ``forms`` as whole words or numbers (case, white
    space and punctuation around aside)."""
    said = f" {plain(text)} "
    for form in forms:
        form = plain(form)
        if form and re.search(rf"(?<![\w:.$-]){re.escape(form)}(?![\w-]|[:.]\w)", said):
            return True
    return False


def sentences(text):
    return [part for part in SENTENCE.split(text) if part.strip()]


def slot_words(slot):
    return [word for word in slot.casefold().split("_") if word not in FILLERS] or slot.casefold().split("_")


def says_yes_no(sentence, slot):
    """``True``/``False`` where ``sentence`` speaks of ``slot`` (a word of its name, or its
    stem), with or without a negation; None where it does not speak of it."""
    words = plain(sentence).replace("n't", " n't").split()
    stems = [word[:5] for word in slot_words(slot)]
    if not all(any(word.startswith(stem) for word in words) for stem in stems):
        return None
    return not any(word in NEGATIONS for word in words)


def said_about(text, item_forms, slot, value_forms, other_items, yes_no=False):
    """Whether ``text`` states the value (``value_forms``) for the item (``item_forms``: the
    forms of each identifying value) and no value of ``slot`` for another item
    (``other_items``: ``(item forms, value forms)``); with ``yes_no`` the value
    (``["True"]`` or ``["False"]``) said in words of the slot; both yes and no is no answer."""
    if not all(mentions(text, forms) for forms in item_forms):
        return False
    if yes_no:
        about = [sentence for sentence in sentences(text) if item_forms and
                 all(mentions(sentence, forms) for forms in item_forms)]
        said = {says_yes_no(sentence, slot) for sentence in about} - {None} or \
            {says_yes_no(sentence, slot) for sentence in sentences(text)} - {None}
        return said == {value_forms[0].casefold() == "true"}
    if not mentions(text, value_forms):
        return False
    asked = {plain(form) for form in value_forms}
    return not any(all(mentions(sentence, forms) for forms in others) and mentions(sentence, values)
                   for others, values in other_items if others and not asked & {plain(v) for v in values}
                   for sentence in sentences(text))


def confirms(text, identifying):
    """Whether ``text`` confirms a booking: it states each identifying value
    (``[(slot, forms)]``, a relative date among the forms as the dialogue said it)."""
    return all(mentions(text, forms) for _, forms in identifying)
