"""GEM-metrics' tokenisers and the tokenised texts its metrics read.

GEM-metrics tokenises with NLTK's Punkt (``word_tokenize``) when the Punkt data is installed
and otherwise with its own regular-expression tokeniser, the "fallback" (``fallback_tokenize``);
``tokenizer_of`` picks one by name. ``Texts`` holds predictions or references with their
tokens, lowercased tokens and lowercased tokens without punctuation.
"""

import re
import string

TOKENIZERS = ("fallback", "punkt")

PUNCTUATION = frozenset(string.punctuation)


# Each rule is (pattern, replacement), applied in this order to the whole text. The order
# matters: later rules see the spaces earlier ones inserted.
_FALLBACK_RULES = [(re.compile(pattern), replacement) for pattern, replacement in [
    # quotes and brackets always stand alone
    (r'(["<>{}“”«»–|—„‚‘]|\[|\]|``|\'\'|‘‘|\^)', r" \1 "),
    # so do these, and a double hyphen
    (r"([;!()?#\$£%&*…]|--)", r" \1 "),
    # a single hyphen stands alone beside a non-word character, except as a unary minus
    (r"([^\-\w])\-([^\-0-9])", r"\1 - \2"),
    (r"([0-9]\s+)\-([0-9])", r"\1 - \2"),
    (r"([^\-])\-([^\-\w])", r"\1 - \2"),
    # a plus between words or numbers, and before a non-word character
    (r"(\w)\+(\w)", r"\1 + \2"),
    (r"([0-9]\s*)\+([0-9])", r"\1 + \2"),
    (r"\+([^\w\+])", r"+ \1"),
    # an apostrophe beside a non-word character, unless doubled or before a digit ('60)
    (r"([^\'’\w])([\'’])([^\'’\d])", r"\1 \2 \3"),
    (r"([^\'’])([\'’])([^\'’\w])", r"\1 \2 \3"),
    # dot, comma, slash and colon, unless between digits
    (r"(\D|^)([\.,:\/])", r"\1 \2"),
    (r"([\.,:\/])(\D|$)", r"\1 \2"),
    # an ellipsis is one token
    (r"\.\s*\.\s*\.", r"..."),
    # contractions: 's 'm 'd 'll 're 've and n't are tokens of their own
    (r"([\'’´])(s|m|d|ll|re|ve)\s", r" \1\2 "),
    (r"(n[\'’´]t\s)", r" \1 "),
    (r" ([Cc])annot\s", r" \1an not "),
    (r" ([Dd])\'ye\s", r" \1\' ye "),
    (r" ([Gg])imme\s", r" \1im me "),
    (r" ([Gg])onna\s", r" \1on na "),
    (r" ([Gg])otta\s", r" \1ot ta "),
    (r" ([Ll])emme\s", r" \1em me "),
    (r" ([Mm])ore\'n\s", r" \1ore \'n "),
    (r" \'([Tt])is\s", r" \'\1 is "),
    (r" \'([Tt])was\s", r" \'\1 was "),
    (r" ([Ww])anna\s", r" \1an na "),
]]
SPACES = re.compile(r"\s+")


def fallback_tokenize(text):
    """GEM-metrics' language-independent tokeniser (its fallback when NLTK's Punkt data is
    missing). Text without a token, the empty string included, gives ``[""]``, one empty
    token, as in GEM-metrics: that token counts in the lengths and n-gram statistics.

    >>> fallback_tokenize("I'm at 6:30, don't wait...")
    ['I', "'m", 'at', '6:30,', 'do', "n't", 'wait', '...']
    """
    for pattern, replacement in _FALLBACK_RULES:
        text = pattern.sub(replacement, text)
    return SPACES.sub(" ", text).strip().split(" ")


def punkt_tokenize(text):
    """NLTK's ``word_tokenize`` in English, which GEM-metrics uses where the Punkt data is
    installed (``nltk.download("punkt_tab")``, or ``"punkt"`` for NLTK before 3.8.2)."""
    import nltk

    return nltk.word_tokenize(text, language="english")


def tokenizer_of(tokenizer):
    """The tokenising function for ``tokenizer``: ``"fallback"``, ``"punkt"`` or a callable
    from text to a list of tokens."""
    if callable(tokenizer):
        return tokenizer
    if tokenizer == "fallback":
        return fallback_tokenize
    if tokenizer == "punkt":
        try:
            punkt_tokenize(".")
        except LookupError:
            from ...core.sources import argument
            from ..rows import ScoringError

            raise ScoringError(f"{argument('tokenizer', 'punkt')} needs NLTK's Punkt data, which is not installed "
                               f"(python -m nltk.downloader punkt_tab); {argument('tokenizer', 'fallback')} is what "
                               "GEM-metrics uses without it") from None
        return punkt_tokenize
    raise ValueError(f"tokenizer must be one of {', '.join(TOKENIZERS)} or a function, not {tokenizer!r}")


class Texts:
    """Predictions or references (a list of strings per item) with the tokenised forms the
    metrics read: each distinct text tokenised once; the lowercased forms derived from the
    tokens on each call."""

    def __init__(self, items, tokenize):
        self.items = items
        self._tokenize = tokenize
        self._cache = {}

    def _tokens(self, text):
        tokens = self._cache.get(text)
        if tokens is None:
            tokens = self._cache[text] = self._tokenize(text)
        return tokens

    def tokens(self):
        return [[self._tokens(text) for text in texts] for texts in self.items]

    def lower(self):
        return [[[token.lower() for token in tokens] for tokens in texts] for texts in self.tokens()]

    def lower_nopunct(self):
        return [[[token for token in tokens if token not in PUNCTUATION] for tokens in texts] for texts in self.lower()]
