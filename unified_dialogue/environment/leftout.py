"""The episodes left out of the judged set: a dialogue whose annotations cannot say what
its user would accept. Each reason is decided from the annotations alone (the goal and
the outcome of ``views.goals``), never by running an agent; ``REASONS`` is the closed list,
in the order they are tried. A left-out episode is in no ``overall`` figure, no TRL row and
no adapter's sample: the evaluation summary and the SGD card count them by reason.
"""



def nothing_to_judge(outcome, goal):
    """No booking, no refusal, no item found and no value asked about: any answer would pass."""
    return not (outcome["transactions"] or outcome["refused"] or outcome["found"] or outcome["told"])


REASONS = {"nothing_to_judge": nothing_to_judge}


def judged(row):
    """Whether an ``episodes`` row is in the judged set: its ``left_out`` reason, where the rows
    have that column, empty (``splits.prepare`` keeps only these; the adapters read the mark
    through this one function)."""
    return not row.get("left_out")


def left_out(outcome, goal):
    """The first reason of ``REASONS`` that holds for a dialogue, or ``""`` (judged)."""
    for reason, holds in REASONS.items():
        if holds(outcome, goal):
            return reason
    return ""
