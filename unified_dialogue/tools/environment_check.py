"""Checks the environment on a whole copy of SGD, dialogue by dialogue, in both modes:

- the gold agent (``environment.gold``) earns reward 1.0 on every dialogue;
- each of its calls is answered with exactly the rows its dialogue recorded for it (a call
  the corpus's service refused: the refusal, offering the row it recorded, if any);
- an agent that answers at once, without a call, earns 0.0 on every dialogue with a
  transaction;
- the gold agent with one argument of one transaction changed earns 0.0 (the first
  transaction that returned a row; a categorical value becomes another of its slot's
  values, any other value gets `` (changed)`` appended).

    python -m unified_dialogue.tools.environment_check --data-dir path/to/sgd [--split train]
        [--variant v1] [--no-verify] [--examples 3]

Prints a JSON report of the counts per split and mode, with the first dialogues that fail
each check; exits 1 where one fails.
"""

import argparse
import copy
import json
import sys

from unified_dialogue import load
from unified_dialogue.cli import add_copy_flags, copy_options, run_command
from unified_dialogue.chat.agent import OFFERED
from unified_dialogue.environment import gold, reward, splits
from unified_dialogue.environment.episode import Episode
# The modes the gold agent plays alone (a simulated user is a model: tools.user_check plays
# the simulated mode with a user replaying the corpus's turns).
MODES = ("ticket", "replay")


def changed_steps(steps, services):
    """``steps`` with one argument of the first transaction that returned a row changed,
    or None where the gold agent makes none."""
    for index, step in enumerate(steps):
        for call in step.get("tool_calls") or ():
            tool = services.tools.get(call["function"]["name"])
            if tool is None or not tool.transactional:
                continue
            arguments = json.loads(call["function"]["arguments"])
            if not arguments:
                continue
            slot, value = next(iter(arguments.items()))
            others = [v for v in (tool.properties.get(slot) or {}).get("enum", ()) if v != value]
            arguments[slot] = others[0] if others else f"{value} (changed)"
            changed = copy.deepcopy(steps)
            changed[index]["tool_calls"] = [gold.call_message(tool.name, arguments)["tool_calls"][0]]
            return changed
    return None


def recorded_answers(episode, calls):
    """Whether each service call of ``episode`` was answered with its recording
    (``calls``: the dialogue's ``database`` rows, in order)."""
    answers = [json.loads(c["answer"]) for c in episode.calls if c["tool"] != gold.SEND]
    expected = [[{p["slot"]: p["value"] for p in result} for result in row["results"]] for row in calls]
    return [answer if isinstance(answer, list) else [answer[OFFERED]] if OFFERED in answer else []
            for answer in answers] == expected


def check_split(split, mode, options, examples):
    ready = splits.prepare(split, mode=mode, **options)
    chats = {row["dialogue_id"]: row["messages"] for row in load("sgd", "agent-chat", split=split, **options)}
    calls = {}
    for row in load("sgd", "database", split=split, **options):
        calls.setdefault(row["dialogue_id"], []).append(row)
    counts = dict(dialogues=0, gold_reward_1=0, gold_calls=0, gold_calls_recorded=0, with_transaction=0,
                  no_call_reward_0=0, changed_reward_0=0)
    failures = {"gold": [], "recorded": [], "no_call": [], "changed": []}
    for row in ready.episodes:
        services = ready.services(row["services"])
        steps = gold.actions(chats[row["dialogue_id"]], mode, row["outcome"])
        episode = Episode(services, ready.path, row)
        final = gold.play(episode, steps)
        counts["dialogues"] += 1
        counts["gold_reward_1"] += ok(reward.parts(episode, final)["reward"] == 1.0, failures["gold"], row)
        mine = calls.get(row["dialogue_id"], [])
        counts["gold_calls"] += len(mine)
        counts["gold_calls_recorded"] += len(mine) if ok(recorded_answers(episode, mine), failures["recorded"],
                                                         row) else 0
        if not row["outcome"]["transactions"]:
            continue
        counts["with_transaction"] += 1
        silent = Episode(services, ready.path, row)
        counts["no_call_reward_0"] += ok(reward.parts(silent, "Done.")["reward"] == 0.0, failures["no_call"], row)
        changed = Episode(services, ready.path, row)
        final = gold.play(changed, changed_steps(steps, services))
        counts["changed_reward_0"] += ok(reward.parts(changed, final)["reward"] == 0.0, failures["changed"], row)
    return {**counts, "failures": {k: v[:examples] for k, v in failures.items() if v}}


def ok(passed, failures, row):
    if not passed:
        failures.append(row["dialogue_id"])
    return int(passed)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.environment_check",
                                     description=__doc__.split("\n\n")[0])
    add_copy_flags(parser)
    parser.add_argument("--split", action="append", help="a split to check (default: every split of the copy)")
    parser.add_argument("--variant", help="an SGD-X variant, v1 … v5")
    parser.add_argument("--examples", type=int, default=3, help="failing dialogues listed per check")

    def run(args):
        options = {**copy_options(args), **({"variant": args.variant} if args.variant else {})}
        names = args.split or list(load("sgd", "schema", **options))
        report = {split: {mode: check_split(split, mode, options, args.examples) for mode in MODES}
                  for split in names}
        print(json.dumps(report, indent=2))
        return int(any(r["failures"] for modes in report.values() for r in modes.values()))

    return run_command(parser, run, argv, flag_hints=True)


if __name__ == "__main__":
    sys.exit(main())
