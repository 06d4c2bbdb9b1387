"""The DSTC8 evaluator's fuzzy match of non-categorical values, without its libraries:
``token_sort_ratio(a, b)``, from 0 to 100, the number fuzzywuzzy gives as the evaluator's
requirements install it.
"""

import difflib
import re

# Non-categorical values are compared with fuzzywuzzy's ``fuzz.token_sort_ratio`` in the DSTC8
# evaluator. Its requirements (schema_guided_dst/requirements.txt) list fuzzywuzzy without
# python-Levenshtein, and fuzzywuzzy then computes the ratio with the standard library's
# difflib.SequenceMatcher (Ratcliff/Obershelp: the longest matching block first). rapidfuzz,
# and fuzzywuzzy with python-Levenshtein, compute it from the Indel distance (the longest
# common subsequence), which gives other ratios for some pairs, e.g. 44 instead of 33 for
# "ab1cd2xxx" / "xxxab3cd4": neither gives the official numbers. So this module uses difflib,
# the library the official scores came from, with fuzzywuzzy's processing of both strings:
# - delete U+0080..U+00FF (its ``force_ascii`` deletes exactly these, not all non-ASCII);
# - replace every character that is not a Unicode word character (``\W``) with a space;
# - lowercase, split on whitespace, sort the tokens and join them with single spaces;
# then 100 for equal strings, 0 when one is empty, else 100 × SequenceMatcher's ratio rounded
# half to even (Python's round), as an integer.
_LATIN1_SUPPLEMENT = dict.fromkeys(range(0x80, 0x100))
_NON_WORD = re.compile(r"\W", re.IGNORECASE)


def _sorted_tokens(text):
    text = _NON_WORD.sub(" ", text.translate(_LATIN1_SUPPLEMENT)).lower()
    return " ".join(sorted(text.split()))


def token_sort_ratio(a, b):
    """The similarity of two strings from 0 to 100, as the DSTC8 evaluator measures it."""
    a, b = _sorted_tokens(a), _sorted_tokens(b)
    if a == b:  # also where SequenceMatcher's junk heuristic (strings of 200+) would not say so
        return 100
    if not a or not b:
        return 0
    return round(100 * difflib.SequenceMatcher(None, a, b).ratio())
