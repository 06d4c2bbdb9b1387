"""Valid FaithDial source files, generated: the seven ``data/*.json`` files as
``loaders/faithdial/format.py`` declares them.

Each dialogue is a conversation whose turns alternate between Seeker and Wizard, opening
with either; its utterances are some of its Wizard turns (at least one), each with the
conversation before it as its history, so that every history repeats the earlier ones
exactly. ``valid.json`` holds exactly the dialogues of ``valid_random_split.json`` and
``valid_topic_split.json`` (in another order, numbered anew), ``test.json`` those of the
test parts. ``dialog_idx`` is unique in its file, or absent. Texts are adversarial
(``unified_dialogue.testing.strategies.text``); a knowledge sentence holds no line break
(the loader joins the sentences of a dialogue with line breaks, and refuses one inside a
sentence). BEGIN and VRM hold their labels (``Ack.`` among them), sometimes other text; an
original response is null, any text, or the response itself, spaced otherwise or not. By
default (``complete``) each file has a preference pair: a response that rewrote an original
labelled Hallucination (and so a row of every view). Needs ``hypothesis``."""

from hypothesis import strategies as st

from unified_dialogue.testing.strategies.files import SourceFiles, decoded
from unified_dialogue.testing.strategies.text import BOOLEANS, values

from . import format, mapping

BEGIN = ("Entailment", "Hallucination", "Partial Hallucination", "Generic", "Uncooperative")
VRM = ("Disclosure", "Edification", "Advisement", "Confirmation", "Question", "Acknowledgment", "Interpretation",
       "Reflection", "Ack.")
PARTS = {"data/valid.json": ("data/valid_random_split.json", "data/valid_topic_split.json"),
         "data/test.json": ("data/test_random_split.json", "data/test_topic_split.json")}


def labels(known):
    """Labels, mostly ``known`` ones (the rules of the views read them), sometimes other text."""
    return st.lists(st.one_of(st.sampled_from(known), st.sampled_from(known), values()), max_size=3, unique=True)


@st.composite
def dialogue(draw, max_turns=5, complete=False):
    """One dialogue without its dialog_idx; ``complete``: its last utterance rewrote an
    original labelled Hallucination (a preference pair, with the configs' defaults)."""
    wizard_first = draw(BOOLEANS)
    count = draw(st.integers(1, max_turns))
    turns = draw(st.lists(values(), min_size=count, max_size=count))
    wizard = [p for p in range(count) if (p % 2 == 0) == wizard_first]
    if not wizard:  # a single Seeker turn: the Wizard answers it
        turns.append(draw(values()))
        wizard = [count]
    answered = [p for p, keep in zip(wizard, draw(st.lists(st.booleans(), min_size=len(wizard),
                                                            max_size=len(wizard)))) if keep] or wizard[-1:]
    knowledge = values().filter(lambda s: "\n" not in s)
    utterances = [{
        "history": turns[:p],
        "speaker": "Wizard",
        "knowledge": draw(knowledge),
        # an original: none, any text, or the response itself, respaced or not (not rewritten)
        "original_response": draw(st.one_of(st.none(), values(), st.sampled_from((turns[p], f" {turns[p]}\t")))),
        "response": turns[p],
        "BEGIN": draw(labels(BEGIN)),
        "VRM": draw(labels(VRM)),
    } for p in answered]
    if complete:
        last = utterances[-1]
        last["original_response"] = draw(values(empty=False).filter(
            lambda text: text.split() and text.split() != last["response"].split()))
        if "Hallucination" not in last["BEGIN"]:
            last["BEGIN"] = [*last["BEGIN"][:2], "Hallucination"]
    return {"utterances": utterances}


def numbered(draw, dialogues):
    """The dialogues with a dialog_idx each (distinct), or none at all, or some without."""
    way = draw(st.sampled_from(("all", "none", "some")))
    numbers = draw(st.lists(st.integers(0, 2 ** 31 - 1), min_size=len(dialogues), max_size=len(dialogues),
                            unique=True))
    out = []
    for dialogue, number in zip(dialogues, numbers):
        if way == "all" or (way == "some" and draw(BOOLEANS)):
            dialogue = {**dialogue, "dialog_idx": number}
        out.append(dialogue)
    return out


@st.composite
def corpora(draw, max_dialogues=2, complete=True):
    """A FaithDial copy (``SourceFiles``): every file of the seven, each with one to
    ``max_dialogues`` dialogues; the union files hold their parts' dialogues.
    ``complete``: each file's first dialogue ends with a preference pair."""
    files = {}
    for name in ("data/train.json", *(part for parts in PARTS.values() for part in parts)):
        first = draw(dialogue(complete=complete))
        files[name] = numbered(draw, [first, *draw(st.lists(dialogue(), max_size=max_dialogues - 1))])
    for union, parts in PARTS.items():
        together = [{k: v for k, v in d.items() if k != "dialog_idx"} for part in parts for d in files[part]]
        files[union] = numbered(draw, draw(st.permutations(together)))
    return SourceFiles(files, ensure_ascii=draw(BOOLEANS))


def check_files(copy):
    """Assert that a drawn copy is valid: it has the seven files, each decodes as FaithDial's
    format and passes its checks, and every dialogue's histories agree (its mapping takes it)."""
    assert sorted(copy.files) == sorted(mapping.SPLIT_FILES.values())
    for value in copy.files.values():
        for position, dialogue in enumerate(decoded(value, format.Dialogue, format.check_dialogue)):
            mapping.dialogue_to_unified(dialogue, "train", position)
