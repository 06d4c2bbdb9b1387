"""The environment's hackability report: every probe agent of
``unified_dialogue.environment.probes`` played on every episode of a split, its reward and
parts overall, with and without bookings, on the episodes whose ticket asks to be told
something, and on the episodes left out of the judged set (by reason).

    python -m unified_dialogue.tools.environment_probes --split validation [--mode ticket] \\
        [--probes careful,dump,...] [--limit N] [--agreement N] [--out-dir DIR] [--summary FILE] \\
        [--data-dir path/to/sgd] [--no-verify] [--cache-dir DIR]

The probes are played in process by the evaluation's own ``play.evaluate`` (one JSON line
per episode in ``--out-dir`` where given). ``--agreement N`` also plays each probe's first N
episodes through the evaluation command against the stand-in server and through
``environment.trl``'s environments and reward function, and says whether the three rewards
agree episode by episode (a ``warning:`` line for each that does not).
"""

import argparse
import contextlib
import dataclasses
import inspect
import io
import json
import os
import sys
import tempfile

from ..cli import add_copy_flags, check_output, copy_options, progress, run_command, write_atomically
from ..core.errors import ConfigError
from ..environment import probes, reward

PROG = "python -m unified_dialogue.tools.environment_probes"
# The modes a probe can play: it reads its task from a ticket.
PROBE_MODES = ("ticket",)
GROUPS = ("overall", "with_bookings", "without_bookings", "asks", "left_out")


def parser():
    made = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], allow_abbrev=False)
    made.add_argument("--split", required=True, help="train, validation or test")
    made.add_argument("--mode", default="ticket", help="the episodes' mode: ticket (the probes read a ticket)")
    made.add_argument("--probes", help=f"the probes to play, comma separated (default: all: {', '.join(probes.PROBES)})")
    made.add_argument("--limit", type=int, help="play only the first N episodes of the split")
    made.add_argument("--agreement", type=int, default=0,
                      help="also play each probe's first N episodes through the evaluation command and TRL's "
                           "reward function, and compare the rewards (default: 0, none)")
    made.add_argument("--out-dir", help="keep each probe's episode lines here (<probe>.jsonl; default: not kept)")
    made.add_argument("--summary", help="also write the figures to this JSON file")
    return add_copy_flags(made)


def checked(args):
    """The arguments' mistakes, before any work: one ConfigError naming the flag."""
    from ..environment.splits import checked as checked_choices

    if args.mode not in PROBE_MODES:
        raise ConfigError(f"--mode {args.mode}: the probes read their task from a ticket; give --mode ticket")
    checked_choices(args.split, args.mode)
    names = probe_names(args.probes)
    for flag, value in (("--limit", args.limit), ("--agreement", args.agreement)):
        if value is not None and value < 0:
            raise ConfigError(f"{flag} {value}: give a number of at least 0")
    if args.out_dir is not None:
        if not os.path.isdir(args.out_dir):
            raise ConfigError(f"--out-dir {args.out_dir}: no such folder")
        kept = [name for name in names if any(os.path.exists(os.path.join(args.out_dir, f"{name}{part}.jsonl"))
                                              for part in ("", "-left-out"))]
        if kept:  # lines of an earlier reward would be resumed, not played again
            raise ConfigError(f"--out-dir {args.out_dir}: it holds lines of the {kept[0]} probe from an earlier "
                              f"run; give an empty folder")
    if args.summary:
        check_output(args.summary, "--summary", [args.data_dir, args.checksums])
    return names


def probe_names(given):
    if given is None:
        return list(probes.PROBES)
    names = [name.strip() for name in given.split(",") if name.strip()]
    unknown = [name for name in names if name not in probes.PROBES]
    if unknown or not names:
        raise ConfigError(f"--probes {given}: {'no probe ' + ', '.join(unknown) if unknown else 'no probe named'}; "
                          f"the probes are {', '.join(probes.PROBES)}")
    return names


def left_out_reason(row):
    """Why an episode is left out of the judged set (None: judged)."""
    return row.get("left_out") or None


def groups_of(row):
    """The groups of ``GROUPS`` an episode counts in."""
    reason = left_out_reason(row)
    if reason:
        return ["left_out", f"left_out:{reason}"]
    made = ["overall", "with_bookings" if row["outcome"]["transactions"] else "without_bookings"]
    if any(intent["requested"] for intent in row["goal"]["intents"]):
        made.append("asks")
    return made


def figures(records, rows):
    """``{group: {"episodes", part: mean}}`` of a probe's episode lines."""
    grouped = {}
    for record in records:
        for group in groups_of(rows[record["id"]]):
            grouped.setdefault(group, []).append(record)
    return {group: {"episodes": len(lines), **{part: sum(r[part] for r in lines) / len(lines) for part in reward.PARTS}}
            for group, lines in sorted(grouped.items(), key=lambda item: (GROUPS + (item[0],)).index(
                item[0].split(":")[0]))}


def table(results):
    """The Markdown table of the probes' rewards by group, then of their parts overall."""
    groups = [group for group in GROUPS if any(group in found for found in results.values())]
    groups += sorted({g for found in results.values() for g in found if g.startswith("left_out:")})
    count = next(iter(results.values()), {})
    head = [f"{group} ({count.get(group, {}).get('episodes', 0)})" for group in groups]
    lines = ["| probe | " + " | ".join(head) + " |", "|---|" + "---|" * len(groups)]
    for name, found in results.items():
        cells = [f"{found[group]['reward']:.3f}" if group in found else "–" for group in groups]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    parts = [part for part in reward.PARTS if part != "reward"]
    lines += ["", "| probe (overall) | " + " | ".join(parts) + " |", "|---|" + "---|" * len(parts)]
    for name, found in results.items():
        overall = found.get("overall", {})
        lines.append(f"| {name} | " + " | ".join(f"{overall[p]:.3f}" if p in overall else "–" for p in parts) + " |")
    return "\n".join(lines)


def beaten(results):
    """``warning:`` lines: a cheat at or above careful overall, silent or lie above 0.05."""
    careful = results.get("careful", {}).get("overall", {}).get("reward")
    lines = []
    for name, found in results.items():
        score = found.get("overall", {}).get("reward")
        if score is None:
            continue
        if careful is not None and name not in probes.HONEST and score > careful:
            lines.append(f"warning: the {name} probe ({score:.3f}) beats the careful one ({careful:.3f})")
        if name in ("silent", "lie") and score > 0.05:
            lines.append(f"warning: the {name} probe scores {score:.3f} (above 0.05)")
    return lines


def left_out_split(ready, options):
    """The split's episodes left out of the judged set, as a ``splits.Split`` (None: none)."""
    from .. import load

    if not getattr(ready, "left_out", None):
        return None
    every = load("sgd", "episodes", split=ready.name, mode=ready.mode, **options)
    left = every.filter(lambda reason: bool(reason), input_columns=["left_out"])
    return dataclasses.replace(ready, episodes=left)


def play_all(parts, names, limit, out_dir, show):
    """``{probe: {id: episode line}}``, each probe played in process on each of ``parts``
    (``(name, splits.Split)``: the judged episodes, the left-out ones)."""
    from ..environment.play import evaluate
    from ..environment.runs import finished

    played = {}
    for name in names:
        played[name] = {}
        for part, ready in parts:
            out = os.path.join(out_dir, f"{name}{part}.jsonl")
            evaluate(probes.ProbeEndpoint(name), ready, out, limit=limit, concurrency=1,
                     progress=(lambda done, total, name=name: show(name, done, total)) if show else None)
            played[name].update({key: line for (key, _), line in finished(out).items()})
    return played


# ---------------------------------------------------------------- agreement

def copy_flags(options):
    """The command-line flags of ``load`` options (``copy_options``'s inverse)."""
    flags = []
    for name in ("data_dir", "checksums", "cache_dir"):
        if options.get(name):
            flags += [f"--{name.replace('_', '-')}", options[name]]
    return flags + (["--no-verify"] if options.get("verify") is False else [])


def through_command(name, split, limit, options, folder):
    """``{id: episode line}`` of probe ``name`` played by the evaluation command against the
    stand-in server."""
    from ..environment.__main__ import main as evaluation
    from ..environment.runs import finished
    from ..testing.server import StandInServer

    out = os.path.join(folder, f"{name}-served.jsonl")
    with StandInServer(probes.answerer(name)) as server, contextlib.redirect_stdout(io.StringIO()):
        evaluation(["--base-url", server.base_url, "--model", f"probe-{name}", "--split", split, "--out", out,
                    "--limit", str(limit), "--concurrency", "1", *copy_flags(options)])
    return {key: line for (key, _), line in finished(out).items()}


def through_trl(name, ready, rows):
    """``{id: {part: value}}`` of probe ``name`` played through ``environment.trl``'s
    environments (their tool methods) and judged by its reward functions."""
    from ..environment.binding import factories, reward_function
    from ..environment.episodes import environment_name
    from ..environment.play import tools_of

    made, functions = factories(ready), reward_function(*reward.PARTS)
    judged = {}
    for row in rows:
        environment = made[environment_name(row["services"])]()
        environment.reset(**row)

        def call(tool, arguments, environment=environment):
            method = getattr(environment, tool, None)
            if method is None:
                return environment._episode.call(tool, arguments)
            names = dict(zip(environment._services.tools[tool].properties, inspect.signature(method).parameters))
            return method(**{names.get(slot, slot): value for slot, value in arguments.items()})

        _, said = probes.play(None, name, row["prompt"], tools_of(ready, row["services"], row["mode"]), call=call)
        judged[row["id"]] = {function.part: function(prompts=[row["prompt"]], completions=[said],
                                                     environments=[environment])[0] for function in functions}
    return judged


def agreement(ready, names, played, limit, options, split):
    """``{probe: {"episodes", "agree", "disagreements"}}``: the first ``limit`` episodes of
    each probe, their reward parts in process (``played``), through the evaluation command
    and through TRL's reward functions."""
    rows = [ready.episodes[i] for i in range(min(limit, len(ready.episodes)))]
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            served, trl = through_command(name, split, limit, options, folder), through_trl(name, ready, rows)
            wrong = []
            for row in rows:
                ways = {"in process": played[name].get(row["id"]), "command": served.get(row["id"]),
                        "trl": trl.get(row["id"])}
                values = {way: None if line is None else tuple(line[p] for p in reward.PARTS)
                          for way, line in ways.items()}
                if len(set(values.values())) > 1:
                    wrong.append(f"episode {row['id']}: " + "; ".join(f"{way} {value}" for way, value in values.items()))
            found[name] = {"episodes": len(rows), "agree": len(rows) - len(wrong), "disagreements": wrong}
    return found


def main(argv=None):
    def work(args):
        from ..environment.splits import prepare

        names = checked(args)
        options = copy_options(args)
        progress(False)
        ready = prepare(args.split, mode=args.mode, **options)
        left = left_out_split(ready, options)
        parts = [("", ready)] + ([("-left-out", left)] if left is not None else [])
        rows = {row["id"]: row for _, part in parts for row in part.episodes}
        terminal = sys.stderr.isatty()

        def show(name, done, total):
            sys.stderr.write(f"\r{name}: {done}/{total} episodes")
            sys.stderr.flush()

        with tempfile.TemporaryDirectory() as scratch:
            played = play_all(parts, names, args.limit, args.out_dir or scratch, show if terminal else None)
        if terminal:
            sys.stderr.write("\n")
        results = {name: figures(list(lines.values()), rows) for name, lines in played.items()}
        report = {"split": args.split, "mode": args.mode, "probes": results}
        if args.agreement:
            report["agreement"] = agreement(ready, names, played, args.agreement, options, args.split)
            for name, found in report["agreement"].items():
                for line in found["disagreements"]:
                    sys.stderr.write(f"warning: {name}: {line}\n")
        for line in beaten(results):
            sys.stderr.write(line + "\n")
        if args.summary:
            write_atomically(args.summary, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        print(f"split {args.split}, mode {args.mode}: reward by group (episodes)\n")
        print(table(results))
        if args.agreement:
            print("\nagreement (in process, the evaluation command, TRL's reward function), episode by episode:")
            for name, found in report["agreement"].items():
                print(f"- {name}: {found['agree']} of {found['episodes']} episodes agree")
        return 0

    return run_command(parser(), work, argv, name=PROG, flag_hints=True)


if __name__ == "__main__":
    sys.exit(main())
