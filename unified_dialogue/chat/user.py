"""The user's side as chat: the user's goal and the turns before, then the user's turn, the roles swapped.

``user-chat``, for training a model that plays the user (a user simulator; SGD: one row per
user turn, the ``assistant``, the system's turns being the ``user``):
- ``system``: the instruction to play the user (``templates.json``, ``user``; ``{stop}`` in
  it stands for ``STOP``), then the user's goal for the whole dialogue as ``chat.ticket``
  writes it, the text of the environment's ``ticket`` mode: each intent with its
  constraints (a value the user changed with the one asked first) and the slots to be told
  about. Every row of a dialogue has this same message, the user's knowledge from its first
  turn on (``given``); every value a user turn informs is in it;
- then the turns before the user's: the user's as ``assistant``, the system's as ``user``
  (an opening user message first: SGD's user speaks first);
- ``completion``: the user's turn; the turn that ends the conversation (its own acts close
  it: SGD's ``GOODBYE``, or ``NEGATE`` with ``THANK_YOU``) ends with ``STOP``, which the
  environment's simulated user reads as the end (``reading``).
"""

import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.answer import answer
from ..views.goals import dialogues, goal
from . import build, response
from .text import compose, system_text
from .ticket import ticket

NAME = "user"
FEATURES = build.FEATURES
# The end of the conversation, after the user's last words (τ-bench's users say it too).
STOP = "###STOP###"
STOP_PLACEHOLDER = "{stop}"


def closes(act_names, closing):
    """Whether a turn with the acts ``act_names`` ends the conversation: it has every act of
    one of the sets of ``closing``."""
    names = set(act_names)
    return any(set(acts) <= names for acts in closing)


def completion_text(utterance, ends):
    """The user's turn as the completion: ``STOP`` after the words of the last one."""
    return " ".join(part for part in (utterance, STOP if ends else "") if part)


def reading(text):
    """``(words, ends, problems)`` of a user turn a model wrote: its answer (``core.answer``:
    without a reasoning block or a fence around it, nor white space around it), then, where
    it ends with ``STOP``, without it and the spaces before it; whether it did; and the
    answer's problems (``malformed`` where a reasoning block never ends: no words). A turn
    of the corpus reads back as its utterance, white space around it aside (a turn of the
    corpus whose own words ended with ``STOP`` would read as ending; none does)."""
    text, problems = answer(text)
    ends = text.endswith(STOP)
    return (text[:-len(STOP)].rstrip() if ends else text), ends, problems


def with_stop(instruction):
    """The instruction with ``{stop}`` standing for ``STOP``."""
    return instruction.replace(STOP_PLACEHOLDER, STOP)


def system_message(goal_text, instruction=None):
    """The system message of a dialogue's rows, and of the environment's simulated user.

    Args:
        goal_text: the user's goal as ``chat.ticket.ticket`` writes it.
        instruction: the instruction (None: the default of ``templates.json``).

    Returns:
        The text: the instruction, a blank line, the goal.

    Example:
        >>> system_message(ticket(goal, schemas))
        'You are the user ... ###STOP###.\\n\\nHere is what I need, in this order.\\n1. ...'
    """
    return system_text(with_stop(build.instruction(NAME, instruction)), goal_text)


def goal_texts(unified):
    """``{dialogue_id: the goal's text}`` of a pa.Table of unified SGD records."""
    texts = {}
    for dialogue_id, _, turns, schemas in dialogues(unified):
        by_name = {schema["service_name"]: schema for schema in schemas}
        texts[dialogue_id] = ticket(goal(turns, by_name), by_name)
    return texts


def given(row):
    """What a ``user-chat`` row holds of its whole dialogue, its system message (the user's
    goal), and the rest of the row."""
    return row["prompt"][0], {**row, "prompt": row["prompt"][1:], "messages": row["messages"][1:]}


# ---------------------------------------------------------------- one row (pure Python)

def system(row, instruction, services="", goal_text=""):
    """The system message of one row (``services`` is not shown: the user needs its goal only)."""
    return system_text(with_stop(instruction), goal_text)


def turns(row):
    return response.turns(row)


def target(row, closing=()):
    return completion_text(row["response"], closes([act["act"] for act in row["dialog_acts"] or ()], closing))


def messages(row, instruction=None, goal_text="", closing=()):
    """The chat of one ``response`` row of the user's turns, ``goal_text`` its dialogue's goal
    (``chat.ticket.ticket``), ``closing`` the corpus's closing acts."""
    return compose(system(row, build.instruction(NAME, instruction), goal_text=goal_text), turns(row),
                   target(row, closing))


# ---------------------------------------------------------------- a table (Arrow)

def systems(rows, instruction, services, goals):
    """``system`` of every row of a pa.Table of the user's rows: one text per dialogue
    (``goals``: ``{dialogue_id: goal text}``), as a pa.DictionaryArray."""
    dialogue_ids = rows.column("dialogue_id").to_pylist()
    order = list(dict.fromkeys(dialogue_ids))
    position = {dialogue_id: k for k, dialogue_id in enumerate(order)}
    texts = [system(None, instruction, goal_text=goals[d]) for d in order]
    return pa.DictionaryArray.from_arrays(pa.array([position[d] for d in dialogue_ids], pa.int32()),
                                          pa.array(texts, pa.string()))


def closing_rows(acts, closing):
    """Whether each row's acts (a list array of unified acts) end the conversation (``closes``), as numpy."""
    names = pc.fill_null(acts.flatten().field("act"), "").to_numpy(zero_copy_only=False)
    row_of = pc.list_parent_indices(acts).to_numpy()
    ends = np.zeros(len(acts), dtype=bool)
    for act_set in closing:
        every = np.ones(len(acts), dtype=bool)
        for name in act_set:
            has = np.zeros(len(acts), dtype=bool)
            has[row_of[names == name]] = True
            every &= has
        ends |= every
    return ends


def targets(rows):
    """The completions of a pa.Table of the user's rows with their ``ends`` column."""
    utterances = rows.column("response").combine_chunks()
    ends = rows.column("ends").combine_chunks()
    marked = pc.binary_join_element_wise(utterances, pa.scalar(STOP), " ")
    alone = pc.if_else(pc.equal(utterances, ""), pa.scalar(STOP), marked)
    return pc.if_else(ends, alone, utterances)


def table(unified, role, closing=(), instruction=None):
    """The user-chat rows of a pa.Table of unified records: the ``response`` view's rows of
    the user's turns (``role``: the user's role) as chat, the roles swapped. ``closing``:
    the sets of acts that end the conversation (a turn with every act of one set);
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    def user_rows(records):
        rows = build.view_table(response.NAME, role=role)(records)
        ends = closing_rows(rows.column("dialog_acts").combine_chunks(), closing)
        return rows.append_column("ends", pa.array(ends))

    return build.chat_table(unified, sys.modules[__name__], user_rows, instruction, build.response_sides,
                            {"goals": goal_texts(unified)})
