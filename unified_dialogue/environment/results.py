"""The summary of a run's episode lines (``summary``), and the same as a table (``table``).

Means are over lines (one per episode and trial); pass^k (``trials.pass_hat``) over
episodes, from each episode's trials, for k = 1 … the run's trials.
"""

from collections import defaultdict

from . import reward
from .runs import domain
from .trials import pass_hat
from .user import MAX_TURNS

# How an episode ends when a request of it was refused (``EndpointError.of_one_request``).
ERROR = "error"
# The columns of the table, after the group's name and episodes.
SHOWN = (("reward", "reward"), ("transaction_recall", "recall"), ("items_found", "found"),
         ("requested_values_given", "told"), ("bookings_confirmed", "confirmed"))


def means(group, trials=1):
    """The mean reward and parts of a group of lines, its episode and line counts, and
    ``pass^k`` for k = 1 … ``trials`` (``{"1": …}``; None where an episode has fewer trials)."""
    if not group:
        return {"episodes": 0, "lines": 0}
    by_episode = defaultdict(lambda: [0, 0])
    for record in group:
        counts = by_episode[record["id"]]
        counts[0] += 1
        counts[1] += record["reward"] >= 1.0
    pairs = [tuple(counts) for counts in by_episode.values()]
    return {"episodes": len(by_episode), "lines": len(group),
            **{part: sum(r[part] for r in group) / len(group) for part in reward.PARTS},
            "pass^k": {str(k): pass_hat(pairs, k) for k in range(1, trials + 1)}}


def summary(records, run=None, trials=1, unplayed=0):
    """The summary of episode lines.

    Args:
        records: the lines (dicts), one per episode and trial.
        run: what names the run (split, mode, variant, model, settings, limit or sample),
            shown as it is under ``run``.
        trials: the trials asked of each episode.
        unplayed: the episodes' trials asked that are not in ``records`` (left to a rerun).

    Returns:
        ``run``; the ``means`` overall, for episodes of seen services only and with an
        unseen one, with and without transactions, and per domain (an episode counts in
        each of its services' domains); counts of lines that ended at ``max_steps``, at an
        error, with tool calls given as text (and of those calls), and ``unplayed``; with a
        simulated user its failures apart from the agent's.
    """
    by_domain = defaultdict(list)
    for record in records:
        for name in sorted({domain(s) for s in record["services"]}):
            by_domain[name].append(record)
    made = {
        "run": {**(run or {}), "trials": trials},
        "overall": means(records, trials),
        "seen": means([r for r in records if not r["unseen_services"]], trials),
        "unseen": means([r for r in records if r["unseen_services"]], trials),
        "with_transactions": means([r for r in records if r["transactions"]], trials),
        "without_transactions": means([r for r in records if not r["transactions"]], trials),
        "ended_at_max_steps": sum(r["ended"] == "max_steps" for r in records),
        "ended_with_error": sum(r["ended"] == ERROR for r in records),
        "text_tool_calls": sum(r.get("text_tool_calls", 0) for r in records),
        "with_text_tool_calls": sum(bool(r.get("text_tool_calls")) for r in records),
        "unplayed": unplayed,
        "per_domain": {name: means(group, trials) for name, group in sorted(by_domain.items())},
    }
    if any("failure" in r for r in records):  # a simulated user: its failures apart from the agent's
        made["failures"] = {"agent": sum(r.get("failure") == "agent" for r in records),
                            "user": sum(r.get("failure") == "user" for r in records)}
        made["without_user_failures"] = means([r for r in records if r.get("failure") != "user"], trials)
        made["ended_at_max_user_turns"] = sum(r["ended"] == MAX_TURNS for r in records)
    return made


def number(value):
    return "-" if value is None else f"{value:.3f}"


def table(made):
    """The summary as text: a line naming the run and its counts, then one row per group
    (overall, seen, unseen, each domain): episodes, mean reward, pass^k, and the parts."""
    run = made["run"]
    named = ", ".join(f"{key} {value}" for key, value in run.items() if value is not None and key != "settings")
    settings = ", ".join(f"{key} {value}" for key, value in (run.get("settings") or {}).items() if value is not None)
    counts = (f"ended at an error {made['ended_with_error']}, at --max-steps {made['ended_at_max_steps']}; "
              f"tool calls given as text {made['text_tool_calls']} (in {made['with_text_tool_calls']} lines); "
              f"left to a rerun {made['unplayed']}")
    if "failures" in made:
        counts += f"; failures: agent {made['failures']['agent']}, user {made['failures']['user']}"
    ks = list(made["overall"].get("pass^k") or {"1": None})
    head = ["group", "episodes", *(label for _, label in SHOWN[:1]), *(f"pass^{k}" for k in ks),
            *(label for _, label in SHOWN[1:])]
    rows = [("overall", made["overall"]), ("seen", made["seen"]), ("unseen", made["unseen"]),
            *((f"  {name}", group) for name, group in made["per_domain"].items())]
    body = [[name, str(group["episodes"]), number(group.get("reward")),
             *(number((group.get("pass^k") or {}).get(k)) for k in ks),
             *(number(group.get(part)) for part, _ in SHOWN[1:])] for name, group in rows]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in [head, *body]]
    return "\n".join([f"run: {named}", *([f"settings: {settings}"] if settings else []), counts, "", *lines]) + "\n"


__all__ = ["ERROR", "means", "summary", "table"]
