"""The episodes left out of the judged set: a dialogue whose annotations cannot say what
its user would accept. Each reason is decided from the annotations alone (the goal and
the outcome of ``views.goals``, and SGD's own system turns), never by running an agent;
``REASONS`` is the closed list, in the order they are tried. A left-out episode is in no ``overall`` figure, no TRL row and
no adapter's sample: the evaluation summary and the SGD card count them by reason.
"""

from . import communicate, told
from .final_state import unanswered_refusals
from .yes_no import YES_NO


def nothing_to_judge(outcome, goal, said):
    """No booking, no refusal, no item found and no value asked about: any answer would pass."""
    return not (outcome["transactions"] or outcome["refused"] or outcome["found"] or outcome["told"])


def unsaid_by_the_corpus(outcome, goal, said):
    """SGD's own system turns (``said``, as its user heard them) do not say, by the answer
    rules (``environment.communicate``), a value its annotations say they told (the value is
    never said, or said against its annotation), the refusal they report, or a booking they
    confirm: the corpus cannot say what its user was told."""
    for entry in outcome["told"]:
        values = told.every_form(entry["values"])
        yes_no = bool(values) and all(value in YES_NO for value in values)
        if not communicate.said_about(said, told.item_forms(entry["item"]), entry["slot"],
                                      values[:1] if yes_no else values, [], yes_no=yes_no):
            return True
    if unanswered_refusals(outcome)[:1] and not told.refusal_told(said):
        return True
    return not all(told.confirmed(transaction, said) for transaction in outcome["transactions"])


REASONS = {"nothing_to_judge": nothing_to_judge, "unsaid_by_the_corpus": unsaid_by_the_corpus}


def judged(row):
    """Whether an ``episodes`` row is in the judged set: its ``left_out`` reason, where the rows
    have that column, empty (``splits.prepare`` keeps only these; the adapters read the mark
    through this one function)."""
    return not row.get("left_out")


def left_out(outcome, goal, said):
    """The first reason of ``REASONS`` that holds for a dialogue (its gold ``outcome`` and
    ``goal``, ``said`` its system turns), or ``""`` (judged)."""
    for reason, holds in REASONS.items():
        if holds(outcome, goal, said):
            return reason
    return ""
