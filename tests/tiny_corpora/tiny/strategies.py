"""Valid copies of the tiny corpus, generated for the tests: ``train.json`` and ``test.json``,
lists of chats as ``format.py`` declares them, with distinct ids, lines of either speaker in
any order, and adversarial ids and texts (``unified_dialogue.testing.strategies.text``).
Needs ``hypothesis``."""

from hypothesis import strategies as st

from unified_dialogue.testing.strategies.files import SourceFiles, decoded
from unified_dialogue.testing.strategies.text import BOOLEANS, values

from . import format
from .corpus import SPLITS

LINES = st.lists(st.fixed_dictionaries({"speaker": st.sampled_from(("A", "B")), "text": values()}), min_size=1,
                 max_size=3)


@st.composite
def chats(draw, complete=True):
    """One or two chats of distinct ids; ``complete``: B speaks in one of them (so that the
    response view has a row)."""
    found = [{"id": chat_id, "lines": draw(LINES)}
             for chat_id in draw(st.lists(values(), min_size=1, max_size=2, unique=True))]
    if complete and all(line["speaker"] == "A" for chat in found for line in chat["lines"]):
        found[0]["lines"].append({"speaker": "B", "text": draw(values())})
    return found


@st.composite
def corpora(draw, complete=True):
    """A tiny copy (``SourceFiles``): each split's file, of ``chats``."""
    return SourceFiles({f"{split}.json": draw(chats(complete)) for split in SPLITS}, ensure_ascii=draw(BOOLEANS))


def check_files(copy):
    """Assert that a drawn copy is valid: each file decodes as the format's chats and passes its check."""
    for value in copy.files.values():
        decoded(value, format.Chat, format.check_chat)
