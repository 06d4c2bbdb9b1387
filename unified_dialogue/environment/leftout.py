"""The episodes left out of the judged set: a dialogue whose annotations cannot say what
its user would accept. Each reason is decided from the annotations alone (the goal and
the outcome of ``views.goals``, and SGD's own system turns), never by running an agent;
``REASONS`` is the closed list, in the order they are tried. A left-out episode is in no
``overall`` figure, no TRL row and no adapter's sample: the evaluation summary and the SGD
card count them by reason.
"""

from types import SimpleNamespace

from . import found, told


def heard(outcome, goal, said, rows, services):
    """A dialogue as the reasons read it: its gold ``outcome`` and ``goal``, ``said`` (SGD's
    system turns, as its user heard them) and ``rows`` (``(tool name, row)`` of every result
    its service calls returned), ``services`` (its ``services.Services``); what the answer
    rules of ``told`` read of an episode."""
    return SimpleNamespace(outcome=outcome, goal=goal, messages=[said], rows=rows, services=services)


def nothing_to_judge(dialogue):
    """No booking, no refusal, no item found and no value asked about: any answer would pass."""
    outcome = dialogue.outcome
    return not (outcome["transactions"] or outcome["refused"] or outcome["found"] or outcome["told"])


def unsaid_by_the_corpus(dialogue):
    """SGD's own system turns, judged by the answer rules (``told``) against the rows its own
    calls returned, do not tell its user what its annotations say they told: a value never
    said, said against its annotation or not for its item, a refusal not reported, a booking
    not confirmed. The corpus cannot say what its user was told."""
    return not told.parts(dialogue, "")["told_ok"]


def found_nowhere(dialogue):
    """An item the user settled on that no call of the dialogue returned (SGD's system
    offered a flight its own search never found): no search can find it."""
    return not found.parts(dialogue)["found_ok"]


REASONS = {"nothing_to_judge": nothing_to_judge, "found_nowhere": found_nowhere,
           "unsaid_by_the_corpus": unsaid_by_the_corpus}


def judged(row):
    """Whether an ``episodes`` row is in the judged set: its ``left_out`` reason, where the rows
    have that column, empty (``splits.prepare`` keeps only these; the adapters read the mark
    through this one function)."""
    return not row.get("left_out")


def left_out(dialogue):
    """The first reason of ``REASONS`` that holds for a dialogue (``heard``), or ``""``
    (judged)."""
    for reason, holds in REASONS.items():
        if holds(dialogue):
            return reason
    return ""
