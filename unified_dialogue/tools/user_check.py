"""Checks the user's side on a whole copy of SGD, dialogue by dialogue:

- ``user-chat``: its rows, the goals that hold a change of mind, and that every value a
  user turn informs is in its row's goal (among the goal's values of the slot, and in the
  row's system message);
- the gold completions of ``user-chat`` score 1.0 on every per-row metric of
  ``scoring.user`` (so that the split's lexical metrics are 100);
- ``simulated`` mode: the gold agent, against a user that replays the corpus's user turns
  (each ``user-chat`` row's gold completion, found by the conversation the simulated user
  is sent: the same messages as the row's prompt, white space around a turn aside), earns
  1.0 on every dialogue, and the report (``environment.report``) finds every constraint of
  the goal stated.

    python -m unified_dialogue.tools.user_check --data-dir path/to/sgd [--split train]
        [--variant v1] [--no-verify] [--examples 3]

Prints a JSON report of the counts per split, with the first rows or dialogues that fail
each check; exits 1 where one fails.
"""

import argparse
import hashlib
import json
import sys
from typing import NamedTuple

from unified_dialogue import load
from unified_dialogue.cli import add_copy_flags, copy_options, run_command
from unified_dialogue.environment import gold, report, reward, splits
from unified_dialogue.environment.episode import Episode
from unified_dialogue.environment.user import UserModel
from unified_dialogue.scoring.user import ROW_METRICS, references_of, row_scores, turn_acts
from unified_dialogue.core.features import INFORM
from unified_dialogue.views.goals import canonical, same



class ReplayingUser:
    """The corpus's users: ``of(dialogue_id)`` is an endpoint answering as the user of one
    dialogue, with the gold completion of the dialogue's ``user-chat`` row whose prompt is
    the conversation sent (``misses``: the conversations of no row). Dialogues with the same
    goal have rows with the same first prompt, so each user answers from its own rows."""

    def __init__(self):
        self.completions, self.misses = {}, 0

    def add(self, row):
        self.completions[(row["dialogue_id"], key(row["prompt"]))] = row["completion"][0]["content"]

    def of(self, dialogue_id):
        return DialogueUser(self, dialogue_id)


class DialogueUser(NamedTuple):
    """The endpoint of ``ReplayingUser.of``."""

    users: ReplayingUser
    dialogue_id: str

    def answer(self, messages, tools):
        text = self.users.completions.get((self.dialogue_id, key(messages)))
        if text is None:
            self.users.misses += 1
        return {"role": "assistant", "content": text or ""}


def key(messages):
    """A conversation as a short key: its messages' roles and contents, white space around a
    content aside (a model's turn is read without it, ``core.answer``), as JSON, hashed."""
    plain = [[message["role"], message["content"].strip()] for message in messages]
    return hashlib.sha256(json.dumps(plain, ensure_ascii=False).encode("utf-8")).digest()


def informed_in_goal(row, acts, goal):
    """The values the turn's ``INFORM`` acts give that the row's goal lacks (among the
    goal's values of the slot, or in the row's system message)."""
    values = {}
    for entry in goal["intents"]:
        for constraint in entry["constraints"]:
            values.setdefault((entry["service"], constraint["slot"]), []).extend(constraint["values"])
    lacking = []
    for act in acts or ():
        for pair in act["slot_value_table"] if act["act"] == INFORM else ():
            for value in pair["values"]:
                known = values.get((act["domain"], pair["slot"]), [])
                said = canonical(value)
                if not any(same(said, v) for v in known) or said not in row["prompt"][0]["content"]:
                    lacking.append((act["domain"], pair["slot"], said))
    return lacking


def check_split(split, options, examples):
    rows = load("sgd", "user-chat", split=split, **options)
    goals = {row["dialogue_id"]: row["goal"] for row in
             load("sgd", "episodes", split=split, mode="simulated", **options).select_columns(["dialogue_id", "goal"])}
    unified = load("sgd", split=split, **options)
    acts = turn_acts(unified, set(rows["id"]))
    references = references_of(rows.select_columns(["id", "completion"]).to_list(), unified,
                               load("sgd", "schema", split=split, **options))
    counts = dict(rows=rows.num_rows, dialogues=len(goals), informed_values=0, informed_not_in_goal=0, gold_1=0,
                  changes_of_mind=sum(any(len(c["values"]) > 1 for e in g["intents"] for c in e["constraints"])
                                      for g in goals.values()))
    failures = {"informed": [], "gold": [], "simulated": [], "unstated": []}
    user = ReplayingUser()
    for row in rows:
        user.add(row)
        counts["informed_values"] += sum(len(p["values"]) for a in acts[row["id"]] or () if a["act"] == INFORM
                                         for p in a["slot_value_table"])
        lacking = informed_in_goal(row, acts[row["id"]], goals[row["dialogue_id"]])
        counts["informed_not_in_goal"] += len(lacking)
        failures["informed"] += [f"{row['id']}: {entry}" for entry in lacking]
        scores, problems = row_scores(row["completion"][0]["content"], references[row["id"]])
        counts["gold_1"] += ok(not problems and all(scores[name] == 1.0 for name in ROW_METRICS), failures["gold"],
                               row["id"])
    counts.update(simulate(split, user, options, failures))
    return {**counts, "failures": {k: v[:examples] for k, v in failures.items() if v}}


def simulate(split, replaying, options, failures):
    """The gold agent against a ``ReplayingUser``, every episode of ``split``."""
    ready = splits.prepare(split, mode="simulated", **options)
    chats = {row["dialogue_id"]: row["messages"] for row in load("sgd", "agent-chat", split=split, **options)}
    most = max(len(row["user_turns"]) for row in ready.episodes)
    counts = dict(simulated_reward_1=0, user_stated_goal=0, replayed_turns=0)
    for row in ready.episodes:
        user = UserModel(replaying.of(row["dialogue_id"]), most).user_of(ready.schemas, row)
        user.opening()
        episode = Episode(ready.services(row["services"]), ready.path, row, user)
        final = gold.play(episode, gold.actions(chats[row["dialogue_id"]], "simulated"))
        counts["simulated_reward_1"] += ok(reward.parts(episode, final)["reward"] == 1.0 and user.ended == "stop",
                                           failures["simulated"], row["dialogue_id"])
        counts["user_stated_goal"] += ok(not report.unstated(row["goal"], episode, user.said), failures["unstated"],
                                         row["dialogue_id"])
        counts["replayed_turns"] += len(user.said)
    counts["unmatched_user_requests"] = replaying.misses
    return counts


def ok(passed, failures, name):
    if not passed:
        failures.append(name)
    return int(passed)


def main(argv=None):
    parser = add_copy_flags(argparse.ArgumentParser(prog="python -m unified_dialogue.tools.user_check",
                                                    description=__doc__.split("\n\n")[0]))
    parser.add_argument("--split", action="append", help="a split to check (default: every split of the copy)")
    parser.add_argument("--variant", help="an SGD-X variant, v1 … v5")
    parser.add_argument("--examples", type=int, default=3, help="failing rows or dialogues listed per check")

    def run(args):
        options = {**copy_options(args), **({"variant": args.variant} if args.variant else {})}
        names = args.split or list(load("sgd", "schema", **options))
        result = {split: check_split(split, options, args.examples) for split in names}
        print(json.dumps(result, indent=2))
        return int(any(r["failures"] or r["unmatched_user_requests"] for r in result.values()))

    return run_command(parser, run, argv, flag_hints=True)


if __name__ == "__main__":
    sys.exit(main())
