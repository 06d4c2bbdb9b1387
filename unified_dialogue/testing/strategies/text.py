"""Adversarial text for generated corpora: names and values that hold what the project's
text forms use themselves (their keywords, separators, brackets, quotes), line breaks,
leading and trailing spaces, non-ASCII, empty strings and very long strings.

Each strategy draws a Python ``str`` that JSON can carry (no lone surrogates, which the
loaders refuse as not Unicode text)."""

from hypothesis import strategies as st

from ...chat.text import KEYWORDS
from ...core.answer import OUTPUT_MARKERS
from ...core.features import NO_INTENT
from ...views.d3st_syntax import SECTION_MARKERS
from ...views.d3st_text import DONTCARE

# Words and marks of the text forms: the dst-chat state text (``intent=``, ``requested=[…]``,
# ``;``, `` | ``, ``NONE``), the nlu-chat text (``intents:``, ``spans:``, ``none``, ``.``,
# ``/``), D3ST (``[states]``, ``i0``, ``1a)``, ``dontcare``), the tool names (``__``) and
# what a model's output is read by (``<think>``, ``</think>``, harmony's tokens, a fence).
FORM_WORDS = (*KEYWORDS, NO_INTENT, "None", DONTCARE, *SECTION_MARKERS, "i0", "0", "1a)", "a)", "count", "null",
              "true", *OUTPUT_MARKERS)
MARKS = (
    ";", "|", " | ", "=", ":", ",", "[", "]", ".", "/", "__", "_", "-", '"', "'", "\\", "\\n", "{", "}",
    "\n", "\r\n", "\t", " ", "  ",
)
PIECES = FORM_WORDS + MARKS + ("é", "Ärger", "日本語", "ß", "İ", "🙂", "a b", "a.b", "x=y", "a; b", 'say "hi"')

# Characters JSON carries and the loaders accept: anything but surrogates (lone surrogates
# are not Unicode text).
CHARACTERS = st.characters(blacklist_categories=("Cs",))


# Each strategy is made once: hypothesis validates a strategy object the first time it is
# drawn from, which costs more than the draw.
_PIECE = st.one_of(st.sampled_from(PIECES), st.text(CHARACTERS, min_size=1, max_size=3),
                   st.text("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789", min_size=1, max_size=6))
_JOINED = st.lists(_PIECE, min_size=1, max_size=4).map("".join)
_FILLERS = st.lists(_PIECE, max_size=3).map("".join)
_DRAWN = st.one_of(st.sampled_from(PIECES), _JOINED, _JOINED.map(lambda s: f" {s} "),
                   st.sampled_from(PIECES).map(lambda p: (p + " long value ") * 40))
BOOLEANS = st.booleans()
_VALUES = st.one_of(st.just(""), _DRAWN)
_NAMES = _DRAWN.filter(bool)


def values(empty=True):
    """A value: a keyword or mark alone, pieces, with spaces around, very long, or empty."""
    return _VALUES if empty else _NAMES


def names():
    """A name (service, slot, intent, act value): never empty (an empty slot stands for "no
    slot" in SGD's acts), else anything ``values`` draws."""
    return _NAMES


@st.composite
def distinct_names(draw, min_size=0, max_size=4, avoid=()):
    """Distinct names, some of them differing only in case from another."""
    found = draw(st.lists(names().filter(lambda n: n not in avoid), min_size=min_size, max_size=max_size,
                          unique=True))
    if found and draw(st.booleans()):
        twin = found[draw(st.integers(0, len(found) - 1))].swapcase()
        if twin not in found and twin not in avoid and len(found) < max_size:
            found.append(twin)
    return found


def fillers():
    """Utterance text around the values: pieces, possibly empty."""
    return _FILLERS
