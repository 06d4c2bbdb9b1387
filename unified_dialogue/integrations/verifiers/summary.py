"""The evaluation command's summary of a verifiers run: ``python -m
unified_dialogue.integrations.verifiers.summary RUN_DIR`` (the folder holding
``traces.jsonl``, or the file) prints the same JSON as the evaluation command (the mean
reward and parts overall, per domain, seen and unseen, with and without transactions; the
failures of a simulated user apart), from each rollout's line (``reward.line``), and, where
the tasks were played more than once (``-r N``), ``pass_hat_k``: pass^k for k = 1 … N, by
the evaluation command's estimator (``environment.trials``).
"""

import argparse
import json
import os
import sys
from collections import Counter

from ...cli import run_command
from ...core.errors import ConfigError
from ...environment.results import summary as command_summary
from .reward import INFO_KEY

TRACES = "traces.jsonl"


def lines_of(path):
    """The rollouts' lines of a run (its folder, or its ``traces.jsonl``: one episode a line,
    its traces each holding its rollout's line)."""
    path = os.path.join(path, TRACES) if os.path.isdir(path) else path
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: no such file; give the run's folder (vf-eval's output_dir/run name) or its "
                          f"{TRACES}")
    found = []
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            try:
                found += [trace["info"][INFO_KEY] for trace in json.loads(text)["traces"]]
            except (ValueError, KeyError, TypeError):
                raise ConfigError(f"{path}: line {number} is no scored rollout of this taskset") from None
    return found


def summary(lines):
    """The evaluation command's summary of rollout ``lines``, with ``pass_hat_k`` where an
    episode was played more than once (every episode as often as the others)."""
    rounds = min(Counter(line["id"] for line in lines).values(), default=0)
    made = command_summary(lines, trials=max(rounds, 1))
    if rounds > 1:
        made["pass_hat_k"] = made["overall"]["pass^k"]
    return made


def main(argv=None):
    made = argparse.ArgumentParser(prog="python -m unified_dialogue.integrations.verifiers.summary",
                                   description=__doc__.split("\n\n")[0])
    made.add_argument("run", help=f"the run's folder, or its {TRACES}")

    def work(args):
        print(json.dumps(summary(lines_of(args.run)), indent=2, ensure_ascii=False))
        return 0

    return run_command(made, work, argv)


if __name__ == "__main__":
    sys.exit(main())
