"""``python -m unified_dialogue.scoring.dst``: the DSTC8 evaluator's command line
(``schema_guided_dst/evaluate.py``: absl flags, SGD-format files), without TensorFlow,
writing the same metrics JSON. A module of its own, so that running it does not run a
module the package has already imported.
"""

import argparse
import sys

from ...cli import check_output, one_line_errors, run_command
from ..rows import write_metrics
from . import ACTIVE_INTENT_ACCURACY, ALL_SERVICES, AVERAGE_GOAL_ACCURACY, JOINT_GOAL_ACCURACY, \
    REQUESTED_SLOTS_F1
from .files import score_dst_files

BOOLEAN_FLAGS = {"joint_acc_across_turn": False, "use_fuzzy_match": True}
STRING_FLAGS = ("dstc8_data_dir", "prediction_dir", "eval_set", "output_metric_file")
_TRUE, _FALSE = ("true", "t", "1"), ("false", "f", "0")


def absl_argv(argv):
    """The evaluator's command lines (absl flags) in argparse's spelling: ``-flag`` as
    ``--flag``, and a boolean ``--flag=VALUE`` (true/t/1 or false/f/0, any case) as ``--flag``
    or ``--noflag``. As with absl, a boolean flag takes no separate value."""
    names = set(STRING_FLAGS) | set(BOOLEAN_FLAGS) | {f"no{name}" for name in BOOLEAN_FLAGS}
    out = []
    for position, arg in enumerate(argv):
        if arg == "--":
            return out + list(argv[position:])
        name, equals, value = arg.lstrip("-").partition("=")
        if not arg.startswith("-") or name not in names:
            out.append(arg)
        elif name in BOOLEAN_FLAGS and equals:
            if value.lower() not in _TRUE + _FALSE:
                raise ValueError(f"--{name}={value}: a boolean flag takes true, t, 1, false, f or 0")
            out.append(f"--{name}" if value.lower() in _TRUE else f"--no{name}")
        else:
            out.append("--" + arg.lstrip("-"))
    return out


def parser():
    p = argparse.ArgumentParser(
        prog="python -m unified_dialogue.scoring.dst", allow_abbrev=False,
        description="Score SGD-format dialogue state predictions with the DSTC8 metrics, as the DSTC8 evaluator does.")
    p.add_argument("--dstc8_data_dir", required=True,
                   help="SGD data in the upstream layout (train/, dev/, test/ with schema.json and dialogues_*.json)")
    p.add_argument("--prediction_dir", required=True,
                   help="folder whose *.json files hold the predicted dialogues, in SGD format")
    p.add_argument("--eval_set", required=True, choices=("train", "dev", "test"), help="the split predicted")
    p.add_argument("--output_metric_file", required=True, help="the JSON file to write the metrics to")
    p.add_argument("--joint_acc_across_turn", action="store_true",
                   help="joint accuracies across the services of a turn (MultiWOZ-style); off by default")
    p.add_argument("--nojoint_acc_across_turn", dest="joint_acc_across_turn", action="store_false",
                   help=argparse.SUPPRESS)
    p.add_argument("--use_fuzzy_match", action="store_true",
                   help="fuzzy matching of non-categorical values (the DSTC8 setting, on by default)")
    p.add_argument("--nouse_fuzzy_match", dest="use_fuzzy_match", action="store_false",
                   help="exact matching of non-categorical values")
    p.set_defaults(**BOOLEAN_FLAGS)
    return p


def main(argv=None):
    p = one_line_errors(parser())
    try:
        argv = absl_argv(sys.argv[1:] if argv is None else argv)
    except ValueError as error:
        p.error(str(error))
    run_command(p, score_command, argv, name="dst", quiet=False)


def score_command(args):
    """The command's work: score, write the metrics file, print the headline figures."""
    check_output(args.output_metric_file, "--output_metric_file", inputs=(args.dstc8_data_dir, args.prediction_dir))
    metrics = score_dst_files(args.dstc8_data_dir, args.prediction_dir, args.eval_set,
                              use_fuzzy_match=args.use_fuzzy_match, joint_acc_across_turn=args.joint_acc_across_turn)
    write_metrics(metrics, args.output_metric_file)
    overall = metrics[ALL_SERVICES]
    headline = (ACTIVE_INTENT_ACCURACY, REQUESTED_SLOTS_F1, AVERAGE_GOAL_ACCURACY, JOINT_GOAL_ACCURACY)
    print(f"{args.output_metric_file}: {len(metrics)} groups; {ALL_SERVICES}: "
          + ", ".join(f"{metric} {overall[metric]:.4f}" for metric in headline if metric in overall), file=sys.stderr)


if __name__ == "__main__":
    main()
