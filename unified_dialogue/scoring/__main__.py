"""``python -m unified_dialogue.scoring``: score a predictions file against the rows of a
corpus's config it answers, and write the metrics as JSON.

    python -m unified_dialogue.scoring --corpus sgd --config dst-chat --split test \\
        [--variant v3] [--option NAME=VALUE ...] [--data-dir DIR] \\
        --predictions predictions.jsonl [--output metrics.json] [--per-row rows.jsonl] [--allow-missing] \\
        [scorer flags]

The scorer flags are those of the config's scorer (``--help`` with ``--config`` lists them;
``dst-chat``: ``--no-use-fuzzy-match``, ``--joint-acc-across-turn``).
"""

import argparse
import json
import os
import sys

from .. import registry
from ..cli import run_command
from ..core.errors import ConfigError
from ..core.options import parse_assignments
from . import SCORERS, flags, score
from .rows import write_metrics, write_per_row

PROG = "python -m unified_dialogue.scoring"


def parser(config=None):
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Score a predictions file (JSON Lines of {\"id\", \"text\"}) against "
                                            "the rows of a config, and write the metrics as JSON.")
    p.add_argument("--corpus", required=True, help="the corpus (sgd, ccpe, faithdial, ...)")
    p.add_argument("--config", required=True, help="the config predicted (dst-chat, ...)")
    p.add_argument("--split", required=True, help="the split predicted")
    p.add_argument("--variant", help="the corpus's variant predicted (SGD-X: v1 ... v5)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of the config, typed as the loader types it (repeatable)")
    p.add_argument("--data-dir", help="a local copy of the corpus (default: the pinned download)")
    p.add_argument("--checksums", help="the checksum table of the local copy or mirror")
    p.add_argument("--no-checks", action="store_true", help="do not check the sizes and sha256 of the source files")
    p.add_argument("--cache-dir", help="the datasets cache to build the rows in")
    p.add_argument("--predictions", required=True, help="the predictions file (JSON Lines)")
    p.add_argument("--output", help="where to write the metrics (default: standard output)")
    p.add_argument("--per-row", metavar="PATH",
                   help="also write each row's own scores there, as JSON Lines (docs/scoring.md, \"Per-row scores\")")
    p.add_argument("--allow-missing", action="store_true",
                   help="score a row without a prediction as a miss (counted) instead of failing")
    if config is not None:
        group = p.add_argument_group(f"flags of the {config} scorer")
        for name, default in flags(config).items():
            flag = "--" + name.replace("_", "-")
            if isinstance(default, bool):
                group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=default)
            else:
                group.add_argument(flag, dest=name, type=type(default), default=default)
    return p


def run(args):
    """Score the predictions the command line names; write or print the metrics."""
    config_flags = flags(args.config)
    try:
        declared = registry.get(args.corpus).config(args.config).options
    except (KeyError, ValueError) as error:  # an unknown corpus or config
        raise ConfigError(error.args[0]) from None
    options = parse_assignments(args.option, declared, f"--option of {args.corpus} {args.config}")
    load_options = {key: value for key, value in (("checksums", args.checksums), ("cache_dir", args.cache_dir))
                    if value}
    if args.no_checks:
        load_options["verification_mode"] = "no_checks"
    if args.per_row:
        check_per_row_path(args.per_row, args.predictions, args.data_dir, args.checksums)
        if args.output and os.path.realpath(args.output) == os.path.realpath(args.per_row):
            raise ConfigError(f"--per-row {args.per_row}: the same file as --output; name another file")
    metrics = score(args.corpus, args.config, args.split, args.predictions, variant=args.variant,
                    data_dir=args.data_dir, options=options, load_options=load_options,
                    allow_missing=args.allow_missing, **{name: getattr(args, name) for name in config_flags},
                    **({"per_row": True} if args.per_row else {}))
    if args.per_row:
        write_per_row(metrics.pop("per_row"), args.per_row)
    if args.output:
        write_metrics(metrics, args.output)
    else:
        print(json.dumps(metrics, indent=2, sort_keys=True))
    return metrics


def check_per_row_path(path, *inputs):
    """``--per-row PATH`` must name a file in an existing folder, and neither an input file
    nor a file inside an input folder: checked before the work starts."""
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise ConfigError(f"--per-row {path}: a folder, not a file")
    if not os.path.isdir(os.path.dirname(target)):
        raise ConfigError(f"--per-row {path}: the folder {os.path.dirname(path) or '.'} does not exist")
    for given in filter(None, inputs):
        source = os.path.realpath(given)
        if target == source or target.startswith(source.rstrip(os.sep) + os.sep):
            raise ConfigError(f"--per-row {path}: that is an input ({given}); name another file")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # The scorer flags depend on the config: read it first, then the whole command line.
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--config")
    config = first.parse_known_args(argv)[0].config
    return run_command(parser(config if config in SCORERS else None), run, argv, name=PROG, flag_hints=True)


if __name__ == "__main__":
    main()
