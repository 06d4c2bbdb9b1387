"""The nlg rows as chat: the schemas, the acts to put in words and the turns before, then the system turn.

``nlg-chat``, for data-to-text generation (SGD: one row per system turn, the ``assistant``):
- ``system``: the instruction, the schemas of the services used up to and including the
  turn, then the acts to put in words, in GEM's order, one per slot:
  ``Acts: OFFER(restaurant_name=Nopa); INFORM_COUNT(count=2); REQUEST(date); GOODBYE``
  (several values of a slot separated by `` | ``);
- then the utterances before the target, the user's and the assistant's alternately back
  from the last, which is the user's (SGD's turns alternate);
- ``completion``: the target utterance.
"""

import sys

from . import build
from .text import ASSISTANT, USER, compose, conversation, services_text, system_text, values

NAME = "nlg"
FEATURES = build.FEATURES
# The columns of a nlg row its messages are made of.
COLUMNS = ("dialog_acts", "context", "target")


def act_text(act, act_names=None):
    """One GEM act: ``NAME(slot=values)``, ``NAME(slot)`` without values, ``NAME`` without a slot."""
    name = act["act"] if isinstance(act["act"], str) else act_names[act["act"]]
    if not act["slot"]:
        return name
    return f"{name}({act['slot']}={values(act['values'])})" if act["values"] else f"{name}({act['slot']})"


def acts_text(acts, act_names=None):
    return "Acts: " + "; ".join(act_text(act, act_names) for act in acts)


def system(row, instruction, services="", act_names=None):
    """The system message; ``services``: the text of the services' schemas (``text.services_text``)."""
    return system_text(instruction, services, acts_text(row["dialog_acts"], act_names))


def turns(row):
    last = len(row["context"]) - 1
    return conversation([(USER if (last - j) % 2 == 0 else ASSISTANT, utterance)
                         for j, utterance in enumerate(row["context"])])


def target(row):
    return row["target"]


def messages(row, instruction=None, services=(), act_names=None):
    """The chat of one ``nlg`` row: ``{"prompt": [...], "completion": [...]}``.
    ``services``: the schemas (``schema`` rows) of the services used up to the row's turn;
    ``act_names``: the act names, where the row's acts are the ClassLabel's numbers."""
    system_message = system(row, build.instruction(NAME, instruction), services_text(services), act_names)
    return compose(system_message, turns(row), target(row))


def table(unified, role, act_names, dataset="schema_guided_dialog", instruction=None):
    """The nlg-chat rows of a pa.Table of unified records: the nlg view's rows (with its
    options: the responding ``role``, ``act_names``, GEM's ``dataset``) as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    view_table = build.view_table(NAME, role=role, act_names=act_names, dataset=dataset)
    return build.chat_table(unified, sys.modules[__name__], view_table, build.instruction(NAME, instruction),
                            build.nlg_sides, {"act_names": act_names})
