"""``python -m unified_dialogue.harness``: print the folder of the task files (lm-eval's
``--include_path``).

``python -m unified_dialogue.harness samples-to-predictions SAMPLES [--output P] [--filter F]
[--variant V]`` writes the predictions file (``{"id", "text"}`` lines) of an lm-eval samples
file, to standard output without ``--output``.
"""

import argparse
import sys

from ..cli import check_output, run_command
from . import TASKS

PROG = "python -m unified_dialogue.harness"


def parser():
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Print the folder of the lm-eval task files (--include_path), "
                                            "or convert an lm-eval samples file to predictions.")
    commands = p.add_subparsers(dest="command")
    convert = commands.add_parser("samples-to-predictions", allow_abbrev=False,
                                  help="an lm-eval samples file as {\"id\", \"text\"} lines")
    convert.add_argument("samples", help="an lm-eval samples file (samples_<task>_<date>.jsonl)")
    convert.add_argument("--output", help="the predictions file to write (default: standard output)")
    convert.add_argument("--filter", help="the filter whose responses to take, where the file has several")
    convert.add_argument("--variant", help="the variant whose responses to take, in the samples of a task on "
                                           "every variant (sgd_dst_chat_sgd_x)")
    return p


def work(args):
    if args.command is None:
        print(TASKS)
        return
    from .samples import prediction_lines, read_samples, write_predictions

    if args.output:  # before reading: never onto the samples file, into a folder that is not there
        check_output(args.output, "--output", inputs=[args.samples])
    predictions = read_samples(args.samples, args.filter, args.variant)
    if args.output:
        write_predictions(predictions, args.output)
    else:
        sys.stdout.writelines(prediction_lines(predictions))


def main(argv=None):
    run_command(parser(), work, argv, name=PROG, quiet=False)


if __name__ == "__main__":
    main()
