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

import pyarrow as pa
import pyarrow.compute as pc

from . import build
from ..views.turns import lengths, relist
from .text import ASSISTANT, USER, VALUES_JOIN, conversation, system_text, system_texts, values, written_values

NAME = "nlg"
FEATURES = build.FEATURES


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


def systems(rows, instruction, services, act_names=None):
    """``system`` of every row of a pa.Table of nlg rows (``services``: each row's services
    text, a pa.DictionaryArray), by Arrow."""
    return system_texts(instruction, services, acts_texts(rows, act_names))


def acts_texts(rows, act_names=None):
    """``acts_text`` of every row of a pa.Table of nlg rows."""
    acts = rows.column("dialog_acts").combine_chunks()
    flat = acts.flatten()
    name, slot, texts = flat.field("act"), flat.field("slot"), flat.field("values")
    if not pa.types.is_string(name.type):
        name = pa.array(act_names, pa.string()).take(name)
    listed = pc.binary_join(relist(lengths(texts), written_values(texts.flatten())), VALUES_JOIN)
    with_slot = pc.if_else(pc.greater(pa.array(lengths(texts)), 0),
                           pc.binary_join_element_wise(name, "(", slot, "=", listed, ")", ""),
                           pc.binary_join_element_wise(name, "(", slot, ")", ""))
    has_slot = pc.fill_null(pc.not_equal(slot, ""), False)
    items = pc.if_else(has_slot, with_slot, name)
    joined = pc.fill_null(pc.binary_join(relist(lengths(acts), items), "; "), "")
    return pc.binary_join_element_wise("Acts: ", joined, "")


def turns(row):
    last = len(row["context"]) - 1
    return conversation([(USER if (last - j) % 2 == 0 else ASSISTANT, utterance)
                         for j, utterance in enumerate(row["context"])])


def target(row):
    return row["target"]


def targets(rows):
    return rows.column("target").combine_chunks()


def messages(row, instruction=None, services=(), act_names=None):
    """The chat of one ``nlg`` row (``build.row_messages``)."""
    return build.row_messages(sys.modules[__name__], row, instruction, services, act_names=act_names)


def table(unified, role, act_names, dataset="schema_guided_dialog", instruction=None):
    """The nlg-chat rows of a pa.Table of unified records: the nlg view's rows (with its
    options: the responding ``role``, ``act_names``, GEM's ``dataset``) as chat.
    ``instruction``: the system message's (default: the view's in ``templates.json``)."""
    view_table = build.view_table(NAME, role=role, act_names=act_names, dataset=dataset)
    return build.chat_table(unified, sys.modules[__name__], view_table, instruction,
                            build.nlg_sides, {"act_names": act_names})
