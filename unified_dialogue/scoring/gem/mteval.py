"""NIST as e2e-metrics computes it for GEM-metrics: mteval-v13a tokenisation, 5-grams,
unrounded."""

import math
import re
from collections import defaultdict

from .tokens import SPACES

_MTEVAL_RULES = [(re.compile(pattern), replacement) for pattern, replacement in [
    (r"<skipped>", ""),
    (r"-\n", ""),
    (r"\n", " "),
    (r"&quot;", '"'),
    (r"&amp;", "&"),
    (r"&lt;", "<"),
    (r"&gt;", ">"),
]]
_MTEVAL_PUNCTUATION = [(re.compile(pattern), replacement) for pattern, replacement in [
    # every ASCII symbol except the period, comma, hyphen and apostrophe
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    # period and comma, unless inside a number
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
]]


def mteval_tokenize(text):
    """The mteval-v13a tokenisation of e2e-metrics' NIST, which GEM-metrics uses; empty text
    gives ``[""]``."""
    for pattern, replacement in _MTEVAL_RULES:
        text = pattern.sub(replacement, text)
    text = f" {text} "
    for pattern, replacement in _MTEVAL_PUNCTUATION:
        text = pattern.sub(replacement, text)
    return SPACES.sub(" ", text).strip().split(" ")


_NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2
_NIST_ORDER = 5


def _counts(tokens, n):
    """n-gram counts in order of first occurrence."""
    counts = {}
    for k in range(len(tokens) - n + 1):
        gram = tuple(tokens[k:k + n])
        counts[gram] = counts.get(gram, 0) + 1
    return counts


def nist(predictions, references):
    """NIST over lowercased mteval tokens. A prediction's length less n counts towards the
    n-gram total even when negative, and the sums run in e2e-metrics' order, so that the
    score is GEM-metrics' to the last digit."""
    reference_counts = [defaultdict(int) for _ in range(_NIST_ORDER + 1)]
    hits = [[] for _ in range(_NIST_ORDER)]
    totals = [0] * _NIST_ORDER
    average_reference_length = 0.0
    for prediction, refs in zip(predictions, references):
        prediction = [token.lower() for token in mteval_tokenize(prediction)]
        refs = [[token.lower() for token in mteval_tokenize(ref)] for ref in refs]
        for n in range(1, _NIST_ORDER + 1):
            totals[n - 1] += len(prediction) - (n - 1)
            clipped = {}
            for ref in refs:
                for gram, count in _counts(ref, n).items():
                    clipped[gram] = max(clipped.get(gram, 0), count)
                    reference_counts[n][gram] += count
            matched = {}
            for gram, count in _counts(prediction, n).items():
                hit = min(count, clipped.get(gram, 0))
                if hit:
                    matched[gram] = hit
            hits[n - 1].append(matched)
        reference_length = sum(len(ref) for ref in refs)
        reference_counts[0][()] += reference_length
        average_reference_length += reference_length / float(len(refs))

    def information(gram):
        if gram not in reference_counts[len(gram)]:
            return 0.0
        return math.log(reference_counts[len(gram) - 1][gram[:-1]] / float(reference_counts[len(gram)][gram]), 2)

    information_sums = [0.0] * _NIST_ORDER
    for n in range(_NIST_ORDER):
        for matched in hits[n]:
            information_sums[n] += sum(information(gram) * count for gram, count in matched.items())
    if any(total == 0 for total in totals):
        return {"nist": 0.0}
    score = sum(information_sum / total for information_sum, total in zip(information_sums, totals))
    ratio = totals[0] / float(average_reference_length)
    if ratio >= 1:
        penalty = 1
    elif ratio <= 0:
        penalty = 0
    else:
        penalty = math.exp(-_NIST_BETA * math.log(ratio) ** 2)
    return {"nist": penalty * score}
