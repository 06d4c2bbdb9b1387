"""``python -m unified_dialogue.scoring``: score a predictions file against the rows of a
corpus's config it answers, and write the metrics as JSON.

    python -m unified_dialogue.scoring --corpus sgd --config dst-chat --split test \\
        [--variant v3] [--option NAME=VALUE ...] [--data-dir DIR] \\
        --predictions predictions.jsonl [--output metrics.json] [--per-row rows.jsonl] [--allow-missing] \\
        [--quiet] [scorer flags]

The scorer flags are those of the config's scorer (``--help`` with ``--config`` lists them;
``dst-chat``: ``--no-use-fuzzy-match``, ``--joint-acc-across-turn``).

A mistake on the command line is one line on stderr and exit status 2, found before any
row is loaded where it can be (the corpus, config, split and options; the predictions
file; the output path, which is never a file the command reads; the scorer flags). A
result that is almost surely a mistake (no prediction, no readable text, mostly unknown
services) is written, with a ``warning:`` line on stderr (``scoring.suspicious``).
"""

import argparse
import json
import os
import sys

from .. import registry
from ..cli import add_copy_flags, check_output, progress, run_command
from ..core.errors import ConfigError
from ..core.options import parse_assignments
from . import SCORERS, flag_help, flags, reader, score
from .gem import TOKENIZERS, tokenizer_of
from .rows import write_metrics, write_per_row
from .suspicious import warnings

PROG = "python -m unified_dialogue.scoring"
# Scorer flags whose values are a closed list, and the check of a value that needs more
# than the list (before any row is loaded).
CHOICES = {"tokenizer": TOKENIZERS}
CHECKS = {"tokenizer": tokenizer_of}


def parser(config=None):
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Score a predictions file (JSON Lines of {\"id\", \"text\"}; for "
                                            "preference, of {\"id\", \"chosen\", \"rejected\"}: a model's scores of "
                                            "both responses) against the rows of a config, and write the metrics as "
                                            "JSON.")
    p.add_argument("--corpus", required=True, help="the corpus (sgd, ccpe, faithdial, ...)")
    p.add_argument("--config", required=True,
                   help=f"the config predicted; those with a scorer: {', '.join(sorted(SCORERS))}")
    p.add_argument("--split", required=True, help="the split predicted (SGD: train, validation, test)")
    p.add_argument("--variant", help="the corpus's variant predicted (SGD-X: v1 ... v5)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of the config, typed as the loader types it (repeatable)")
    add_copy_flags(p)
    p.add_argument("--predictions", required=True, help="the predictions file (JSON Lines; preference: the scores)")
    p.add_argument("--output", help="where to write the metrics (default: standard output); never an input")
    p.add_argument("--per-row", metavar="PATH",
                   help="also write each row's own scores there, as JSON Lines (docs/scoring.md, \"Per-row scores\"); "
                        "never an input")
    p.add_argument("--allow-missing", action="store_true",
                   help="score a row without a prediction as a miss (counted) instead of failing")
    p.add_argument("--quiet", action="store_true", help="no progress bars (there are none when stderr is not "
                                                        "a terminal)")
    if config is not None:
        group = p.add_argument_group(f"flags of the {config} scorer")
        descriptions = flag_help(config)
        for name, default in flags(config).items():
            flag = "--" + name.replace("_", "-")
            text = descriptions.get(name, "").replace("%", "%%")
            if isinstance(default, bool):
                group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=default,
                                   help=f"{text} (default: %(default)s)")
            else:
                group.add_argument(flag, dest=name, type=type(default), default=default, choices=CHOICES.get(name),
                                   help=f"{text} (default: %(default)s)")
    return p


def checked_options(args):
    """The config's options from ``--option``, after checking the corpus, config, split and
    variant: each unknown one a ConfigError naming what is accepted."""
    try:
        corpus = registry.get(args.corpus)
        declared = corpus.config(args.config).options
    except (KeyError, ValueError) as error:  # an unknown corpus or config
        raise ConfigError(error.args[0]) from None
    if args.split not in corpus.splits:
        raise ConfigError(f"--split {args.split!r}: {corpus.name} has the splits {', '.join(corpus.splits)}")
    return parse_assignments(args.option, declared, f"--option of {args.corpus} {args.config}", corpus.configs)


def check_paths(args):
    """The files: the predictions file readable, the output writable and no input."""
    if os.path.isdir(args.predictions):
        raise ConfigError(f"--predictions {args.predictions}: a folder; give the predictions file (JSON Lines)")
    if not os.path.isfile(args.predictions):
        raise ConfigError(f"--predictions {args.predictions}: no such file")
    if args.data_dir and not os.path.isdir(args.data_dir):
        raise ConfigError(f"--data-dir {args.data_dir}: no such folder")
    inputs = (args.predictions, args.checksums, args.data_dir)
    if args.output:
        check_output(args.output, "--output", inputs=inputs)
    if args.per_row:
        check_output(args.per_row, "--per-row", inputs=inputs)
        if args.output and os.path.realpath(args.output) == os.path.realpath(args.per_row):
            raise ConfigError(f"--per-row {args.per_row}: the same file as --output; name another file")


def run(args):
    """Score the predictions the command line names; write or print the metrics; warn
    about a result that is almost surely a mistake."""
    config_flags = {name: getattr(args, name) for name in flags(args.config)}  # a config with a scorer
    options = checked_options(args)
    check_paths(args)
    for name, check in CHECKS.items():
        if name in config_flags:
            check(config_flags[name])
    predictions = reader(args.config)(args.predictions)
    load_options = {key: value for key, value in (("checksums", args.checksums), ("cache_dir", args.cache_dir))
                    if value}
    if args.no_verify:
        load_options["verify"] = False
    metrics = score(args.corpus, args.config, args.split, predictions, variant=args.variant,
                    data_dir=args.data_dir, options=options, load_options=load_options,
                    allow_missing=args.allow_missing, **config_flags, **({"per_row": True} if args.per_row else {}))
    if args.per_row:
        write_per_row(with_malformed(metrics.pop("per_row"), metrics), args.per_row)
    if args.output:
        write_metrics(metrics, args.output)
    else:
        print(json.dumps(metrics, indent=2, sort_keys=True))
    scored = " ".join(filter(None, (args.corpus, args.variant, args.config, args.split)))
    for line in warnings(metrics, len(predictions), what=scored):
        print(line, file=sys.stderr)
    return metrics


def with_malformed(records, metrics):
    """The per-row records, each with ``malformed``: whether its text could not be read
    whole (then a reward gives 0.0, whatever part of the text was scored)."""
    listed = metrics.get("malformed_ids")
    if listed is None and isinstance(metrics.get("malformed"), dict):  # generated text: {"count", "ids"}
        listed = metrics["malformed"].get("ids")
    malformed = set(listed or ())
    return [dict(record, malformed=record["id"] in malformed) for record in records]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # The scorer flags depend on the config: read it first, then the whole command line.
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--config")
    first.add_argument("--quiet", action="store_true")
    known = first.parse_known_args(argv)[0]
    p = parser(known.config if known.config in SCORERS else None)
    progress(not known.quiet)
    return run_command(p, run, argv, name=PROG, quiet=False, flag_hints=True)


if __name__ == "__main__":
    main()
