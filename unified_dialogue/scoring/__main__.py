"""``python -m unified_dialogue.scoring``: score a predictions file against the rows of a
corpus's config it answers, and write the metrics as JSON.

    python -m unified_dialogue.scoring --corpus sgd --config dst-chat --split test \\
        [--variant v3] [--option NAME=VALUE ...] [--data-dir DIR] \\
        --predictions predictions.jsonl [--output metrics.json] [--per-row rows.jsonl] \\
        [--allow-missing] [--only-predicted] [--quiet] [scorer flags]

With ``--variant-predictions v1=p1.jsonl ... v5=p5.jsonl`` (instead of ``--predictions``), every
SGD-X variant's file is scored and SGD-X's schema sensitivity computed (``scoring.sgdx``).

The scorer flags are those of the config's scorer (``--help`` with ``--config`` lists them;
``dst-chat``: ``--no-use-fuzzy-match``, ``--joint-acc-across-turn``).

A mistake on the command line is one line on stderr and exit status 2, found before any
row is loaded where it can be (the corpus, config, split and options; the predictions
file; the output path, which is never a file the command reads; the scorer flags). A
result that is almost surely a mistake (most rows without a prediction, most texts
unreadable, mostly unknown services) is written, with a ``warning:`` line on stderr
(``scoring.suspicious``).
"""

import argparse
import json
import os
import sys

from ..cli import add_copy_flags, check_output, copy_options, progress, run_command
from ..core.errors import ConfigError
from ..core.options import parse_assignments
from . import score
from .configs import CONFIGS, scored
from .rows import write_metrics, write_per_row
from .sgdx import score_variants
from .suspicious import warnings

PROG = "python -m unified_dialogue.scoring"


def parser(config=None):
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Score a predictions file (JSON Lines of {\"id\", \"text\"}; for "
                                            "preference, of {\"id\", \"chosen\", \"rejected\"}: a model's scores of "
                                            "both responses) against the rows of a config, and write the metrics as "
                                            "JSON.")
    p.add_argument("--corpus", required=True, help="the corpus (sgd, ccpe, faithdial, ...)")
    p.add_argument("--config", required=True,
                   help=f"the config predicted; those with a scorer: {', '.join(sorted(CONFIGS))}")
    p.add_argument("--split", required=True, help="the split predicted (SGD: train, validation, test)")
    p.add_argument("--variant", help="the corpus's variant predicted (SGD-X: v1 ... v5)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of the config, typed as the loader types it (repeatable)")
    add_copy_flags(p)
    p.add_argument("--predictions", help="the predictions file (JSON Lines; preference: the scores)")
    p.add_argument("--variant-predictions", action="append", default=[], metavar="VARIANT=PATH",
                   help="the predictions file of one variant (SGD-X: v1=p1.jsonl ... v5=p5.jsonl, each once), instead "
                        "of --predictions and --variant: every variant is scored, and SGD-X's schema sensitivity "
                        "computed (dst-chat, d3st)")
    p.add_argument("--output", help="where to write the metrics (default: standard output); never an input")
    p.add_argument("--per-row", metavar="PATH",
                   help="also write each row's own scores there, as JSON Lines (docs/scoring.md, \"Per-row scores\"); "
                        "never an input")
    p.add_argument("--allow-missing", action="store_true",
                   help="score a row without a prediction as a miss (counted) instead of failing")
    p.add_argument("--only-predicted", action="store_true",
                   help="score the rows that have a prediction, and only them (an lm-eval --limit run, a sample); "
                        "the metrics and a line on stderr say how many of how many rows")
    p.add_argument("--quiet", action="store_true", help="no progress bars (there are none when stderr is not "
                                                        "a terminal)")
    if config is not None:
        group = p.add_argument_group(f"flags of the {config} scorer")
        for option in scored(config).settings:
            flag = "--" + option.name.replace("_", "-")
            text = option.description.replace("%", "%%")
            if option.type is bool:
                group.add_argument(flag, dest=option.name, action=argparse.BooleanOptionalAction,
                                   default=option.default, help=f"{text} (default: %(default)s)")
            else:
                group.add_argument(flag, dest=option.name, type=option.type, default=option.default,
                                   choices=option.choices, help=f"{text} (default: %(default)s)")
    return p


def checked_options(args):
    """The config's options from ``--option``, after checking the corpus, config and split
    (``api.sort_arguments``, as ``scoring.score`` checks them): each mistake a ConfigError
    naming what is accepted."""
    from ..api import config_of, corpus_of, sort_arguments

    corpus = corpus_of(args.corpus)
    options = parse_assignments(args.option, config_of(corpus, args.config).options,
                                f"--option of {args.corpus} {args.config}", corpus.configs)
    return sort_arguments(args.corpus, args.config, options, split=args.split).options


def predictions_files(args):
    """``{variant: path}`` of the predictions files named (``None``: ``--predictions``), each
    a file that can be read; the command's mistakes in naming them, one line each."""
    if args.predictions and args.variant_predictions:
        raise ConfigError("--predictions and --variant-predictions together: give one (--predictions PATH for one "
                          "file, --variant-predictions VARIANT=PATH for each variant: SGD-X's schema sensitivity)")
    if not args.predictions and not args.variant_predictions:
        raise ConfigError("give the predictions: --predictions PATH, or --variant-predictions VARIANT=PATH for each "
                          "variant (SGD-X's schema sensitivity)")
    files = {args.variant: args.predictions} if args.predictions else {}
    for given in args.variant_predictions:
        variant, equals, path = given.partition("=")
        if not equals or not variant or not path:
            raise ConfigError(f"--variant-predictions {given!r}: not VARIANT=PATH (v1=p1.jsonl)")
        if variant in files:
            raise ConfigError(f"--variant-predictions: variant {variant} is given twice")
        files[variant] = path
    for clash, flag in ((args.variant, "--variant"), (args.per_row, "--per-row")):
        if args.variant_predictions and clash:
            raise ConfigError(f"{flag} goes with --predictions, not --variant-predictions (which scores every "
                              f"variant); score one variant's file with --predictions and {flag}")
    for path in files.values():
        flag = "--predictions" if args.predictions else "--variant-predictions"
        if os.path.isdir(path):
            raise ConfigError(f"{flag} {path}: a folder; give the predictions file (JSON Lines)")
        if not os.path.isfile(path):
            raise ConfigError(f"{flag} {path}: no such file")
    return files


def check_paths(args, files):
    """The other files: the output writable and no input."""
    inputs = (*files.values(), args.checksums, args.data_dir)
    if args.output:
        check_output(args.output, "--output", inputs=inputs)
    if args.per_row:
        check_output(args.per_row, "--per-row", inputs=inputs)
        if args.output and os.path.realpath(args.output) == os.path.realpath(args.per_row):
            raise ConfigError(f"--per-row {args.per_row}: the same file as --output; name another file")


def run(args):
    """Score the predictions the command line names; write or print the metrics; warn
    about a result that is almost surely a mistake."""
    declaration = scored(args.config)  # first: a config with a scorer
    options = checked_options(args)
    files = predictions_files(args)
    load_options = copy_options(args)
    check_paths(args, files)
    config_flags = {option.name: option.check(getattr(args, option.name), "the command line")
                    for option in declaration.settings}
    predictions = {variant: declaration.read(path) for variant, path in files.items()}
    for variant, path in files.items():
        if not predictions[variant] and not args.allow_missing:  # with it: every row a miss, and a warning
            raise ConfigError(f"{path}: no prediction: the file is empty (a predictions file has one "
                              f"{{\"id\", \"text\"}} object a line)")
    common = dict(options=options, load_options=load_options, allow_missing=args.allow_missing,
                  only_predicted=args.only_predicted, **config_flags)
    if args.variant_predictions:
        metrics = score_variants(args.corpus, args.config, args.split, predictions, **common)
        each = metrics["variants"]
    else:
        metrics = score(args.corpus, args.config, args.split, predictions[args.variant], variant=args.variant,
                        per_row=bool(args.per_row), **common)
        each = {args.variant: metrics}
    if args.per_row:
        write_per_row(metrics.pop("per_row"), args.per_row)
    if args.output:
        write_metrics(metrics, args.output)
    else:
        print(json.dumps(metrics, indent=2, sort_keys=True))
    for variant, scored_metrics in each.items():
        what = " ".join(filter(None, (args.corpus, variant, args.config, args.split)))
        if args.only_predicted:
            print(f"scored {scored_metrics['rows_scored']:,} of the {scored_metrics['rows_total']:,} rows of {what}: "
                  f"those with a prediction (--only-predicted)", file=sys.stderr)
        for line in warnings(scored_metrics, len(predictions[variant]), what=what):
            print(line, file=sys.stderr)
    return metrics


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # The scorer flags depend on the config: read it first, then the whole command line.
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--config")
    first.add_argument("--quiet", action="store_true")
    known = first.parse_known_args(argv)[0]
    p = parser(known.config if known.config in CONFIGS else None)
    progress(not known.quiet)
    return run_command(p, run, argv, name=PROG, quiet=False, flag_hints=True)


if __name__ == "__main__":
    main()
