"""Valid CCPE-M source files, generated: ``data.json``, a list of conversations as
``loaders/ccpe/format.py`` declares them.

Utterances of either speaker in any order (the first of either side, one speaker several
times in a row), adversarial text (``unified_dialogue.testing.strategies.text``), and
segments that locate their text exactly (``text[startIndex:endIndex]``), nested,
overlapping, empty or absent, each with zero or more annotations of the four annotation and
entity types. ``segments`` is absent on some utterances and an empty list on others, as the
source has both. Needs ``hypothesis``."""

from hypothesis import strategies as st

from unified_dialogue.testing.strategies.files import SourceFiles, decoded
from unified_dialogue.testing.strategies.text import BOOLEANS, fillers, values

from . import format

# A copy builds only CCPE-M's 6 configs, from one file: more copies than of SGD.
BUILD_SHARE = 0.5

SPEAKERS = ("USER", "ASSISTANT")
ANNOTATION_TYPES = ("ENTITY_NAME", "ENTITY_PREFERENCE", "ENTITY_DESCRIPTION", "ENTITY_OTHER")
ENTITY_TYPES = ("MOVIE_GENRE_OR_CATEGORY", "MOVIE_OR_SERIES", "PERSON", "SOMETHING_ELSE")
ANNOTATIONS = st.fixed_dictionaries({"annotationType": st.sampled_from(ANNOTATION_TYPES),
                                     "entityType": st.sampled_from(ENTITY_TYPES)})


@st.composite
def utterance(draw, index):
    """One utterance: its text made of pieces; each segment covers a run of pieces."""
    pieces = draw(st.lists(st.one_of(values(), fillers()), min_size=1, max_size=4))
    bounds = [0]
    for piece in pieces:
        bounds.append(bounds[-1] + len(piece))
    text = "".join(pieces)
    record = {"index": index, "speaker": draw(st.sampled_from(SPEAKERS)), "text": text}
    kind = draw(st.sampled_from(("absent", "empty", "segments")))
    if kind == "absent":
        return record
    segments = []
    for _ in range(draw(st.integers(1, 3)) if kind == "segments" else 0):
        first = draw(st.integers(0, len(pieces)))
        last = draw(st.integers(first, len(pieces)))
        start, end = bounds[first], bounds[last]
        segments.append({"startIndex": start, "endIndex": end, "text": text[start:end],
                         "annotations": draw(st.lists(ANNOTATIONS, max_size=2))})
    record["segments"] = segments
    return record


@st.composite
def conversation(draw, conversation_id, max_utterances=4, complete=False):
    """A conversation; ``complete``: with an ASSISTANT utterance (the responding side), so
    that every view has a row of it."""
    count = draw(st.integers(1, max_utterances))
    utterances = [draw(utterance(i)) for i in range(count)]
    if complete and all(u["speaker"] != "ASSISTANT" for u in utterances):
        utterances[draw(st.integers(0, count - 1))]["speaker"] = "ASSISTANT"
    return {"conversationId": conversation_id, "utterances": utterances}


@st.composite
def corpora(draw, max_conversations=3, complete=True):
    """A CCPE-M copy (``SourceFiles``): ``data.json`` with one to ``max_conversations``
    conversations of distinct, adversarial ids; ``complete``: the first has an ASSISTANT
    utterance (else the response views have no row, which the loader refuses)."""
    ids = draw(st.lists(st.one_of(values(), st.integers(0, 99).map(lambda n: f"CCPE-{n:05x}")),
                        min_size=1, max_size=max_conversations, unique=True))
    conversations = [draw(conversation(i, complete=complete and k == 0)) for k, i in enumerate(ids)]
    return SourceFiles({"data.json": conversations}, ensure_ascii=draw(BOOLEANS))


def check_files(copy):
    """Assert that a drawn copy is valid: data.json decodes as CCPE-M's format and passes its
    checks, and every segment locates its text."""
    for conversation in decoded(copy.files["data.json"], format.Conversation, format.check_conversation):
        for utterance in conversation.utterances:
            for segment in utterance.segments or []:
                assert utterance.text[segment.startIndex:segment.endIndex] == segment.text
