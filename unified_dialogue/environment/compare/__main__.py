"""Compare runs of the evaluation command: is model B better than model A on the same
episodes, and by how much (a paired bootstrap's interval); or, with ``--variants``, how much
one model's reward depends on the wording of SGD-X's schemas.

    python -m unified_dialogue.environment.compare A.jsonl B.jsonl [C.jsonl ...] [--out report.json]
    python -m unified_dialogue.environment.compare --variants v1.jsonl v2.jsonl ... v5.jsonl [--out report.json]

The report is printed as tables, and written as JSON to ``--out`` where given.
"""

import argparse
import json
import sys

from ...cli import check_output, run_command, write_atomically
from ...core.errors import ConfigError
from ..reward import PARTS
from . import LEVEL, compare, read_run, variants

PROG = "python -m unified_dialogue.environment.compare"


def parser():
    made = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], allow_abbrev=False)
    made.add_argument("runs", nargs="*", metavar="RUN", help="episode lines an evaluation run wrote (its --out); "
                                                              "the first is the one the others are compared with")
    made.add_argument("--variants", action="store_true",
                      help="the runs are one model's under SGD-X's variants: the reward under each and its schema "
                           "sensitivity")
    made.add_argument("--out", help="also write the report to this JSON file")
    return made


def number(value):
    return "-" if value is None else f"{value:.3f}"


def table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
                     for line in (header, *rows))


def comparison_text(report):
    method = report["bootstrap"]
    lines = [f"{report['episodes']} episodes in common; the mean over an episode's trials where it has several", "",
             table(["run", "model", "episodes", *PARTS],
                   [[run["file"], run["model"], run["episodes"], *(number(run["means"][p]) for p in PARTS)]
                    for run in report["runs"]])]
    interval = f"{LEVEL:.0%} interval"
    for made in report["comparisons"]:
        lines += ["", f"{made['other']} minus {made['first']}: reward, {method['method']} ({method['resamples']:,} "
                      f"resamples, seed {method['seed']}); won and lost: episodes where {made['other']} earns more, "
                      f"less"]
        groups = [(name, made[name]) for name in ("overall", "seen", "unseen")] + \
            [(f"  {name}", group) for name, group in made["per_domain"].items()]
        rows = [[name, group["episodes"], number(group["first"]["reward"]), number(group["other"]["reward"]),
                 f"{group['difference']:+.3f}", f"[{group['interval'][0]:+.3f}, {group['interval'][1]:+.3f}]",
                 group["won"], group["lost"]] if group["episodes"] else [name, 0, "-", "-", "-", "-", "-", "-"]
                for name, group in groups]
        lines.append(table(["group", "episodes", "first", "other", "difference", interval, "won", "lost"], rows))
    return "\n".join(lines)


def variants_text(report):
    sensitivity = report["schema_sensitivity"]
    rows = [[name, made["overall"]["episodes"], *(number(made[g].get("reward")) for g in ("overall", "seen", "unseen"))]
            for name, made in report["variants"].items()]
    lines = [f"model {report['model']}: {report['episodes']} episodes in common", "",
             table(["variant", "episodes", "reward", "seen", "unseen"], rows), "",
             "schema sensitivity of the reward (the mean over episodes of the standard deviation of an episode's "
             "reward across the variants over its mean; episodes with mean 0 left out):",
             table(["episodes", "value", "counted", "mean 0"],
                   [[name, number(group["value"]), group["episodes"], group["episodes_mean_zero"]]
                    for name, group in [("all", sensitivity)] + [(g, sensitivity[g]) for g in ("seen", "unseen")
                                                                  if g in sensitivity]])]
    return "\n".join(lines)


def main(argv=None):
    def work(args):
        if len(args.runs) < 2:
            raise ConfigError("give two or more runs (the files an evaluation run wrote with --out)"
                              + (f"; only {args.runs[0]} was given" if args.runs else ""))
        if args.out:
            check_output(args.out, "--out", args.runs)
        runs = [read_run(path) for path in args.runs]
        if args.variants:
            from ...api import corpus_of

            report = variants(runs, corpus_of("sgd").variants)
            text = variants_text(report)
        else:
            report = compare(runs)
            text = comparison_text(report)
        for warning in report["warnings"]:
            sys.stderr.write(warning + "\n")
        if args.out:
            write_atomically(args.out, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        print(text)
        return 0

    return run_command(parser(), work, argv, name=PROG)


if __name__ == "__main__":
    sys.exit(main())
