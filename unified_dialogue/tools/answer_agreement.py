"""Measures the rules of ``environment.communicate`` on SGD's own system turns:

- ``yes_no``: each value a system turn informs for a yes-or-no slot (possible values
  ``True`` and ``False``), judged by ``said_about(utterance, [], slot, [value], [],
  yes_no=True)``: the share credited, and the share credited with the value swapped (the
  text unchanged), which should be near 0;
- ``values``: each other value a system turn informs, judged by ``mentions`` with its
  forms (as said, canonical): the share found, and the share found with the value swapped
  for another value of the same slot in the split (the next one in sorted order whose
  forms differ);
- ``confirms``: each system turn that asks the user to confirm a booking (``CONFIRM`` acts),
  judged by ``confirms`` with every value it confirms as the booking's identifying values:
  the share credited, and the share credited with one value (the first one whose slot has
  another value in the split that the turn does not confirm) swapped for that value;
- the first turns of each that the rules miss.

    python -m unified_dialogue.tools.answer_agreement --data-dir path/to/sgd [--no-verify]
        [--split validation] [--examples 20]

Prints a JSON report per split.
"""

import argparse
import json
import sys

from unified_dialogue import load
from unified_dialogue.cli import add_copy_flags, copy_options, run_command
from unified_dialogue.core.features import CONFIRM, INFORM
from unified_dialogue.environment.communicate import YES_NO, confirms, mentions, normal, said_about
from unified_dialogue.views.goals import SYSTEM


def yes_no_slots(dialogue):
    """``{(service, slot)}`` of a unified dialogue's schemas whose possible values are
    ``True`` and ``False``."""
    return {(service["service_name"], slot["name"]) for service in dialogue["knowledge"]["value"]["schema"] or ()
            for slot in service["slots"] if set(slot["possible_values"]) == YES_NO}


def acted(dialogue, name):
    """``[(utterance, [(service, slot, forms)])]``: the values of each system turn's
    ``name`` acts (the turns that have some), ``forms`` as said, then canonical where it
    differs."""
    found = []
    for turn in dialogue["dialog"]:
        if turn["roles"] != [SYSTEM]:
            continue
        values = [(act["domain"], entry["slot"], forms) for act in turn["dialog_acts"] if act["act"] == name
                  for entry in act["slot_value_table"] for value in entry["values"]
                  for forms in [list(dict.fromkeys(v for v in (value["value"], value["cononical_value"]) if v))]
                  if forms]
        if values:
            found.append((turn["utterance"], values))
    return found


def informed(dialogue):
    """``[(utterance, service, slot, forms, yes_no)]``: each value a system turn informs."""
    flags = yes_no_slots(dialogue)
    return [(utterance, service, slot, forms, (service, slot) in flags)
            for utterance, values in acted(dialogue, INFORM) for service, slot, forms in values]


def confirmed(dialogue):
    """``[(utterance, [(service, slot, forms)])]``: each system turn's ``CONFIRM`` values."""
    return acted(dialogue, CONFIRM)


def swapped_value(forms, candidates):
    """The next of ``candidates`` (sorted canonical values of the slot) after the value,
    whose ``normal`` form differs from each of ``forms``; None where there is none."""
    own = {normal(form) for form in forms}
    others = [c for c in candidates if normal(c) not in own]
    if not others:
        return None
    later = [c for c in others if c > forms[-1]]
    return (later or others)[0]


def opposite(forms):
    return "False" if forms[-1] == "True" else "True"


def slot_values(turns, confirmations):
    """``{(service, slot): sorted canonical values}`` of the values informed (yes-or-no
    ones aside) and confirmed."""
    values = {}
    for _, service, slot, forms, flag in turns:
        if not flag:
            values.setdefault((service, slot), set()).add(forms[-1])
    for _, confirmed_values in confirmations:
        for service, slot, forms in confirmed_values:
            values.setdefault((service, slot), set()).add(forms[-1])
    return {key: sorted(found) for key, found in values.items()}


def measure_confirms(confirmations, values, examples):
    """The ``confirms`` part of the report, the turns it misses and those it credits with
    a value swapped."""
    counts, misses, swapped_misses = dict(turns=0, credited=0, swapped=0, credited_swapped=0), [], []
    for utterance, confirmed_values in confirmations:
        identifying = [(slot, forms) for _, slot, forms in confirmed_values]
        counts["turns"] += 1
        right = confirms(utterance, identifying)
        counts["credited"] += right
        if not right and len(misses) < examples:
            misses.append({"values": identifying, "utterance": utterance})
        said = {form for _, _, forms in confirmed_values for form in forms}
        for index, (service, slot, forms) in enumerate(confirmed_values):
            swap = swapped_value(forms, [value for value in values[(service, slot)] if value not in said])
            if swap is not None:
                changed = list(identifying)
                changed[index] = (slot, [swap])
                counts["swapped"] += 1
                wrong = confirms(utterance, changed)
                counts["credited_swapped"] += wrong
                if wrong and len(swapped_misses) < examples:
                    swapped_misses.append({"values": changed, "utterance": utterance})
                break
    return counts, misses, swapped_misses


def measure(dialogues, examples):
    """The report of one split (see the module's docstring)."""
    turns, confirmations = [], []
    for dialogue in dialogues:
        turns += informed(dialogue)
        confirmations += confirmed(dialogue)
    values = slot_values(turns, confirmations)
    yes_no = dict(turns=0, credited=0, credited_swapped=0)
    other = dict(values=0, found=0, swapped=0, found_swapped=0)
    misses = {"yes_no": [], "yes_no_swapped": [], "values": []}
    for utterance, service, slot, forms, flag in turns:
        if flag:
            yes_no["turns"] += 1
            right = said_about(utterance, [], slot, [forms[-1]], [], yes_no=True)
            wrong = said_about(utterance, [], slot, [opposite(forms)], [], yes_no=True)
            yes_no["credited"] += right
            yes_no["credited_swapped"] += wrong
            for missed, name in ((not right, "yes_no"), (wrong, "yes_no_swapped")):
                if missed and len(misses[name]) < examples:
                    misses[name].append({"slot": slot, "value": forms[-1], "utterance": utterance})
            continue
        other["values"] += 1
        found = mentions(utterance, forms)
        other["found"] += found
        if not found and len(misses["values"]) < examples:
            misses["values"].append({"slot": slot, "forms": forms, "utterance": utterance})
        swap = swapped_value(forms, values[(service, slot)])
        if swap is not None:
            other["swapped"] += 1
            other["found_swapped"] += mentions(utterance, [swap])
    booked, misses["confirms"], misses["confirms_swapped"] = measure_confirms(confirmations, values, examples)
    share = (lambda part, whole: round(part / whole, 4) if whole else None)
    yes_no.update(credited_share=share(yes_no["credited"], yes_no["turns"]),
                  credited_swapped_share=share(yes_no["credited_swapped"], yes_no["turns"]))
    other.update(found_share=share(other["found"], other["values"]),
                 found_swapped_share=share(other["found_swapped"], other["swapped"]))
    booked.update(credited_share=share(booked["credited"], booked["turns"]),
                  credited_swapped_share=share(booked["credited_swapped"], booked["swapped"]))
    return {"yes_no": yes_no, "values": other, "confirms": booked, "misses": misses}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.answer_agreement",
                                     description=__doc__.split("\n\n")[0])
    add_copy_flags(parser)
    parser.add_argument("--split", action="append", help="a split to measure (default: every split of the copy)")
    parser.add_argument("--examples", type=int, default=20, help="missed turns listed per rule")

    def run(args):
        options = copy_options(args)
        names = args.split or list(load("sgd", "schema", **options))
        report = {split: measure(load("sgd", split=split, **options), args.examples) for split in names}
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0

    return run_command(parser, run, argv, flag_hints=True)


if __name__ == "__main__":
    sys.exit(main())
