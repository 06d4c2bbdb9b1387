"""Overlap of a generated response with the knowledge it should be grounded in: the
"knowledge F1" of Wizard-of-Wikipedia style evaluations (FaithDial reports it beside BLEU).

Both texts are normalised as ParlAI normalises answers for its F1 metric: lowercased; each
ASCII punctuation character (``string.punctuation``) replaced by a space; the words ``a``,
``an`` and ``the`` removed; split at whitespace. With ``common`` the size of the multiset
intersection of the two token lists, precision = common / prediction tokens, recall = common
/ knowledge tokens, F1 their harmonic mean; all three are 0 when nothing is shared (an empty
prediction included). The scores are averaged over the turns (not pooled).
"""

import re
import string
from collections import Counter

_PUNCTUATION = re.compile("[" + re.escape(string.punctuation) + "]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(text):
    """ParlAI's answer normalisation, as a token list."""
    return _ARTICLES.sub(" ", _PUNCTUATION.sub(" ", text.lower())).split()


def overlap(prediction, knowledge):
    """``(precision, recall, f1)`` of the prediction's tokens against the knowledge's."""
    predicted, grounding = normalize(prediction), normalize(knowledge)
    common = sum((Counter(predicted) & Counter(grounding)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(predicted), common / len(grounding)
    return precision, recall, 2 * precision * recall / (precision + recall)
