"""The faithfulness of an original response, from its BEGIN labels (``original_response.begin``
of the unified schema: FaithDial's), read as FaithDial's own critic, FaithCritic, reads
them; and which turns rewrote an unfaithful original. Pure functions over one turn's
values, shared by the ``critic`` view, the ``preference`` rows and the corpus statistics.

FaithCritic (the FaithDial repository's ``models/critic_data.py``) has two classes,
``Entailment`` (faithful) and ``Hallucination`` (the class it detects, the positive one):
an original labelled Hallucination, alone or with other labels, is ``Hallucination``; else
one labelled Entailment is ``Entailment``; an original with neither (Partial Hallucination,
Generic or Uncooperative only) is no example. The option ``unfaithful`` names the BEGIN
labels read as ``Hallucination`` (FaithCritic's: ``Hallucination`` alone).
"""

from ..core.options import Option

ENTAILMENT, HALLUCINATION = "Entailment", "Hallucination"
# BEGIN's taxonomy (Dziri et al., 2022), as FaithDial writes its labels.
BEGIN_LABELS = (ENTAILMENT, HALLUCINATION, "Partial Hallucination", "Generic", "Uncooperative")
# FaithCritic's classes, in its order (its label ids 0 and 1); the second is the positive class.
CRITIC_LABELS = (ENTAILMENT, HALLUCINATION)
POSITIVE = HALLUCINATION
UNFAITHFUL_LABELS = tuple(label for label in BEGIN_LABELS if label != ENTAILMENT)
UNFAITHFUL_DEFAULT = (HALLUCINATION,)
SEPARATOR = ","


def unfaithful_labels(text):
    """The labels an ``unfaithful`` option's text names (comma-separated, spaces around
    each dropped), as a tuple."""
    return tuple(label.strip() for label in text.split(SEPARATOR))


def unfaithful_problem(text):
    """Why ``text`` cannot be an ``unfaithful`` option (a phrase), or None where it can."""
    named = unfaithful_labels(text)
    wrong = [label for label in named if label not in UNFAITHFUL_LABELS]
    if not wrong:
        return None
    if ENTAILMENT in wrong:
        return f"{ENTAILMENT} marks a faithful original; name labels of unfaithful ones"
    return (f"{', '.join(map(repr, wrong))} is no BEGIN label of an unfaithful original: name one or more of "
            f"{', '.join(UNFAITHFUL_LABELS)}, separated by commas")


UNFAITHFUL = Option("unfaithful", str, SEPARATOR.join(UNFAITHFUL_DEFAULT),
                    "The BEGIN labels that make an original response unfaithful, separated by commas (default "
                    f"FaithCritic's: {SEPARATOR.join(UNFAITHFUL_DEFAULT)}; any of {', '.join(UNFAITHFUL_LABELS)}).",
                    problem=unfaithful_problem)


def critic_label(begin, unfaithful=UNFAITHFUL_DEFAULT):
    """FaithCritic's label of an original response from its BEGIN labels.

    Args:
        begin: the original's BEGIN labels (None: none).
        unfaithful: the labels read as ``Hallucination`` (``unfaithful_labels`` of the option).

    Returns:
        ``Hallucination`` where ``begin`` has one of ``unfaithful``; else ``Entailment``
        where it has ``Entailment``; else None (no example).

    Example:
        >>> critic_label(["Hallucination", "Entailment"]), critic_label(["Generic"])
        ('Hallucination', None)
    """
    labels = set(begin or ())
    if labels & set(unfaithful):
        return HALLUCINATION
    return ENTAILMENT if ENTAILMENT in labels else None


def rewritten(original, response):
    """Whether a response rewrote its original: the original is a text with words in it
    that differs from the response in more than spacing (None, ``""`` or blanks mean the
    original was kept, at most lightly edited).

    Example:
        >>> rewritten("It is red.", "It is blue."), rewritten(None, "Hi."), rewritten(" It is  red.", "It is red.")
        (True, False, False)
    """
    return bool(original and original.split()) and original.split() != (response or "").split()


def rejected(original, response, begin, unfaithful=UNFAITHFUL_DEFAULT):
    """Whether a turn is a preference pair, its response chosen over its original: the
    response rewrote the original (``rewritten``), which FaithCritic's reading of its
    labels finds unfaithful (``critic_label``). An original labelled Entailment only was
    faithful: its edit fixed typos, and makes no pair.

    Example:
        >>> rejected("Paris is in Spain.", "Paris is in France.", ["Hallucination"])
        True
        >>> rejected("Paris is in frace.", "Paris is in France.", ["Entailment"])
        False
    """
    return rewritten(original, response) and critic_label(begin, unfaithful) == HALLUCINATION
