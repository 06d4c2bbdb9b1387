"""Evaluate a served model in the environment: every episode of a split against an
OpenAI-compatible chat endpoint with tools, one JSON line per episode, then a summary.

    python -m unified_dialogue.environment --base-url http://127.0.0.1:8000/v1 --model NAME \\
        --split validation --out episodes.jsonl [--mode ticket|replay|simulated] [--variant v1] \\
        [--limit N | --sample N [--sample-seed S]] [--trials N] [--concurrency 4] [--max-steps 30] \\
        [--temperature 0] [--seed N] [--max-tokens N] [--timeout 120] \\
        [--user-base-url URL --user-model NAME [--user-temperature 0] [--user-seed N] \\
         [--max-user-turns 30] [--user-instruction TEXT] [--user-max-tokens N]] \\
        [--data-dir path/to/sgd] [--no-verify] [--cache-dir DIR] [--summary summary.json] [--json]

Run it again with the same ``--out`` and flags to resume: the episodes already written are
kept and not played again. The summary (the run's name and counts; success and pass^k
overall, per domain, seen and unseen services, with and without transactions) is printed
as a table (as JSON with ``--json``), and written as JSON to ``--summary`` where given.
The key of an endpoint that needs one is read from the environment variable named by
``--api-key-env`` (default ``OPENAI_API_KEY``), never from the command line.

``--mode simulated`` plays each episode against a second model playing the user (``--user-
base-url``, ``--user-model``; its key in ``--user-api-key-env``), given the system message
of ``user-chat`` rows, so that a model trained on them plugs in as it is; the summary then
separates the agent's failures from the user's (``environment.report``).
"""

import argparse
import json
import os
import sys
import time
from urllib.parse import urlparse

from ..cli import add_copy_flags, check_output, copy_options, progress, run_command, write_atomically
from ..core.errors import ConfigError
from ..chat.user import STOP, STOP_PLACEHOLDER
from .endpoint import AGENT, USER, Endpoint
from .play import evaluate
from .results import table
from .runs import finished, run_header
from .text_calls import warning as text_calls_warning
from .tickets import MODES, REPLAY_NOTE
from .user import UserModel

# Where the endpoints' key is read from unless a flag names another variable.
KEY_VARIABLE = "OPENAI_API_KEY"
# Seconds between two progress lines on a pipe (a terminal's line is rewritten as episodes end).
PROGRESS_EVERY = 30.0


def parser():
    made = argparse.ArgumentParser(prog="python -m unified_dialogue.environment", description=__doc__.split("\n\n")[0],
                                   allow_abbrev=False)
    made.add_argument("--base-url", required=True, help="the endpoint's base URL (…/v1), where /chat/completions lies")
    made.add_argument("--model", required=True, help="the model name the endpoint serves")
    made.add_argument("--split", required=True, help="train, validation or test")
    made.add_argument("--out", required=True, help="the episodes' JSON lines (resumed where it exists)")
    made.add_argument("--mode", default="ticket", choices=MODES,
                      help=f"how the user speaks (default: ticket); {REPLAY_NOTE}")
    made.add_argument("--variant", help="an SGD-X variant, v1 … v5")
    made.add_argument("--limit", type=int, metavar="N",
                      help="play only the first N episodes in the split's order (a few domains only: for a smoke run; "
                           "--sample for a figure)")
    made.add_argument("--sample", type=int, metavar="N", help="play N episodes drawn across domains (each domain "
                                                              "in turn gives one, drawn with --sample-seed)")
    made.add_argument("--sample-seed", type=int, metavar="S", help="the seed of --sample's draw (default: 0)")
    made.add_argument("--trials", type=int, default=1, metavar="N",
                      help="play each episode N times (trial t sends --seed + t); the summary gives pass^k for "
                           "k = 1 … N (default: 1)")
    made.add_argument("--concurrency", type=int, default=4, help="episodes played at once (default: 4)")
    made.add_argument("--max-steps", type=int, default=30, help="answers of the model per episode (default: 30)")
    made.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default: 0)")
    made.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer (default: 120)")
    made.add_argument("--seed", type=int, help="the sampling seed sent with each request (default: none)")
    made.add_argument("--max-tokens", type=int, help="max_tokens sent with each request (default: the server's)")
    made.add_argument("--api-key-env", default=KEY_VARIABLE, help="the environment variable holding the key")
    user = made.add_argument_group("the simulated user (--mode simulated)")
    user.add_argument("--user-base-url", help="the user model's endpoint (…/v1)")
    user.add_argument("--user-model", help="the model name the user's endpoint serves")
    user.add_argument("--user-temperature", type=float, default=0.0, help="its sampling temperature (default: 0)")
    user.add_argument("--user-seed", type=int, help="its sampling seed (default: none)")
    user.add_argument("--max-user-turns", type=int, default=UserModel._field_defaults["max_turns"],
                      help="turns the user speaks at most; reaching them fails the episode (default: %(default)s)")
    user.add_argument("--user-instruction", help="the instruction of its system message (default: user-chat's)")
    user.add_argument("--user-max-tokens", type=int, help="max_tokens sent with its requests (default: the server's)")
    user.add_argument("--user-api-key-env", default=KEY_VARIABLE,
                      help="the environment variable holding its key")
    made.add_argument("--summary", help="also write the summary to this JSON file")
    made.add_argument("--json", action="store_true", help="print the summary as JSON, not as a table")
    return add_copy_flags(made)


def checked(args):
    """The arguments' mistakes, before any work: one ConfigError naming the flag."""
    from .splits import checked as checked_choices

    checked_choices(args.split, args.mode, args.variant)
    for flag, given in (("--base-url", args.base_url), ("--user-base-url", args.user_base_url)):
        url = urlparse(given or "")
        if given is not None and (url.scheme not in ("http", "https") or not url.netloc):
            raise ConfigError(f"{flag} {given!r}: give an http(s) URL such as http://127.0.0.1:8000/v1")
    user_flags = [flag for flag, value in (("--user-base-url", args.user_base_url), ("--user-model", args.user_model))
                  if value is not None]
    turns = UserModel._field_defaults["max_turns"]
    others = [flag for flag, given in (("--user-seed", args.user_seed is not None),
                                       ("--user-instruction", args.user_instruction is not None),
                                       ("--user-max-tokens", args.user_max_tokens is not None),
                                       ("--user-temperature", args.user_temperature != 0.0),
                                       ("--max-user-turns", args.max_user_turns != turns)) if given]
    if args.mode == "simulated" and len(user_flags) < 2:
        raise ConfigError("--mode simulated: give the user's model with --user-base-url and --user-model")
    if args.mode != "simulated" and (user_flags or others):
        raise ConfigError(f"{(user_flags or others)[0]}: a user model plays only in --mode simulated")
    if args.sample_seed is not None and args.sample is None:
        raise ConfigError("--sample-seed: it draws --sample's episodes; give --sample N too")
    if args.limit is not None and args.sample is not None:
        raise ConfigError("--limit and --sample: give one (--sample N draws across domains, --limit N takes the "
                          "first N)")
    for flag, value, least in (("--limit", args.limit, 0), ("--sample", args.sample, 1),
                               ("--trials", args.trials, 1), ("--concurrency", args.concurrency, 1),
                               ("--max-steps", args.max_steps, 1), ("--max-user-turns", args.max_user_turns, 1),
                               ("--max-tokens", args.max_tokens, 1), ("--user-max-tokens", args.user_max_tokens, 1)):
        if value is not None and value < least:
            raise ConfigError(f"{flag} {value}: give a number of at least {least}")
    for flag, value in (("--temperature", args.temperature), ("--user-temperature", args.user_temperature)):
        if value < 0:
            raise ConfigError(f"{flag} {value}: give a temperature of at least 0 (0: the most likely answer)")
    for flag, value in (("--model", args.model), ("--user-model", args.user_model)):
        if value is not None and not value.strip():
            raise ConfigError(f"{flag}: give the name of a model the endpoint serves, not an empty one")
    if args.timeout <= 0:
        raise ConfigError(f"--timeout {args.timeout}: give a number of seconds above 0")
    for flag, variable in (("--api-key-env", args.api_key_env), ("--user-api-key-env", args.user_api_key_env)):
        if variable != KEY_VARIABLE and variable not in os.environ:
            raise ConfigError(f"{flag} {variable}: no such environment variable; export it with the endpoint's key, "
                              f"or leave the flag out for an endpoint without one")
    if args.user_instruction is not None and not any(mark in args.user_instruction
                                                     for mark in (STOP_PLACEHOLDER, STOP)):
        sys.stderr.write(f"warning: --user-instruction has neither {STOP_PLACEHOLDER} nor {STOP}: the simulated user "
                         f"is not told how to end the conversation, and an episode it never ends fails at "
                         f"--max-user-turns\n")
    inputs = [args.data_dir, args.checksums]
    check_output(args.out, "--out", inputs)
    if args.summary:
        check_output(args.summary, "--summary", inputs + [args.out])


def shower(terminal, every=None, unit="episodes"):
    """``show(done, total)``: on a terminal one line rewritten as episodes end; on a pipe a
    line once ``every`` seconds have passed since the last (or the start), and the last."""
    last, every = [time.monotonic()], PROGRESS_EVERY if every is None else every

    def show(done, total):
        if terminal:
            sys.stderr.write(f"\r{done}/{total} {unit}")
        elif done and (done == total or time.monotonic() - last[0] >= every):
            last[0] = time.monotonic()
            sys.stderr.write(f"{done}/{total} {unit}\n")
        sys.stderr.flush()

    return show


def run_name(args):
    """What names the run in its summary (``results.summary``'s ``run``)."""
    return {"split": args.split, "mode": args.mode, "variant": args.variant, "model": args.model,
            "limit": args.limit, "sample": args.sample, "sample_seed": (args.sample_seed or 0) if args.sample else None,
            "settings": {"temperature": args.temperature, "seed": args.seed, "max_steps": args.max_steps,
                         "max_tokens": args.max_tokens, "user_model": args.user_model,
                         **({"user_temperature": args.user_temperature, "user_seed": args.user_seed,
                             "max_user_turns": args.max_user_turns, "user_max_tokens": args.user_max_tokens,
                             "user_instruction": "given" if args.user_instruction else None}
                            if args.mode == "simulated" else {})}}


def main(argv=None):
    def work(args):
        from .splits import prepare

        checked(args)
        options = copy_options(args)
        endpoint = Endpoint(args.base_url, args.model, os.environ.get(args.api_key_env), args.temperature,
                            args.timeout, args.seed, AGENT, args.max_tokens)
        user_model = None
        if args.mode == "simulated":
            user_model = UserModel(Endpoint(args.user_base_url, args.user_model, os.environ.get(args.user_api_key_env),
                                            args.user_temperature, args.timeout, args.user_seed, USER,
                                            args.user_max_tokens),
                                   args.max_user_turns, args.user_instruction)
        finished(args.out, run_header(endpoint, args.split, args.mode, args.max_steps, args.variant, user_model))
        for served in filter(None, (endpoint, user_model and user_model.endpoint)):
            served.reachable()  # before the split is built: a server that is down is found at once
        progress(False)
        ready = prepare(args.split, mode=args.mode, variant=args.variant, **options)
        unseen = unseen_services(ready, args.variant, options)
        for flag, size in (("--limit", args.limit), ("--sample", args.sample)):
            if size is not None and size > len(ready.episodes):
                sys.stderr.write(f"warning: {flag} {size}: the split has {len(ready.episodes)} episodes; all are "
                                 f"played\n")
        terminal = sys.stderr.isatty()
        show = shower(terminal, unit="episodes" if args.trials == 1 else "episode trials")
        result = evaluate(endpoint, ready, args.out, unseen=unseen, limit=args.limit, concurrency=args.concurrency,
                          max_steps=args.max_steps, variant=args.variant, progress=show,
                          user_model=user_model, warn=lambda line: sys.stderr.write(("\n" if terminal else "") + line
                                                                                    + "\n"),
                          trials=args.trials, size=args.sample, sample_seed=args.sample_seed or 0,
                          run=run_name(args))
        if terminal:
            sys.stderr.write("\n")
        if result["text_tool_calls"]:
            sys.stderr.write(text_calls_warning(result["text_tool_calls"], result["with_text_tool_calls"],
                                                endpoint.server) + "\n")
        text = json.dumps(result, indent=2, ensure_ascii=False)
        if args.summary:
            write_atomically(args.summary, text + "\n")
        print(text if args.json else table(result), end="\n" if args.json else "")
        return 0

    try:
        return run_command(parser(), work, argv, flag_hints=True)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: the episodes written are kept; run the same command again to resume\n")
        sys.stderr.flush()
        sys.stdout.flush()
        # Now, not after the requests still waiting for an answer (up to --timeout each):
        # nothing of theirs would be written.
        os._exit(130)


def unseen_services(ready, variant, options):
    """The split's services that the train split's schema lacks (none for train)."""
    if ready.name == "train":
        return set()
    from .. import load

    train = load("sgd", "schema", split="train", **({"variant": variant} if variant else {}), **options)
    return set(ready.schemas) - set(train["service_name"])


if __name__ == "__main__":
    sys.exit(main())
