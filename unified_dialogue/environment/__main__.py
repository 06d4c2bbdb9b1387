"""Evaluate a served model in the environment: every episode of a split against an
OpenAI-compatible chat endpoint with tools, one JSON line per episode, then a summary.

    python -m unified_dialogue.environment --base-url http://127.0.0.1:8000/v1 --model NAME \\
        --split validation --out episodes.jsonl [--mode ticket|replay|simulated] [--variant v1] \\
        [--limit N] [--concurrency 4] [--max-steps 30] [--temperature 0] [--seed N] \\
        [--user-base-url URL --user-model NAME [--user-temperature 0] [--user-seed N] \\
         [--max-user-turns 30] [--user-instruction TEXT]] \\
        [--data-dir path/to/sgd] [--no-verify] [--cache-dir DIR] [--summary summary.json]

Run it again with the same ``--out`` and flags to resume: the episodes already written are
kept and not played again. The summary (success overall, per domain, seen and unseen services,
with and without transactions) is printed, and written to ``--summary`` where given.
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
from urllib.parse import urlparse

from ..cli import add_copy_flags, check_output, copy_options, progress, run_command, write_atomically
from ..core.errors import ConfigError
from ..chat.user import STOP, STOP_PLACEHOLDER
from .play import AGENT, USER, Endpoint, evaluate, finished, run_header
from .tickets import MODES, REPLAY_NOTE
from .user import UserModel

# Where the endpoints' key is read from unless a flag names another variable.
KEY_VARIABLE = "OPENAI_API_KEY"


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
    made.add_argument("--limit", type=int, help="play only the first N episodes of the split")
    made.add_argument("--concurrency", type=int, default=4, help="episodes played at once (default: 4)")
    made.add_argument("--max-steps", type=int, default=30, help="answers of the model per episode (default: 30)")
    made.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default: 0)")
    made.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer (default: 120)")
    made.add_argument("--seed", type=int, help="the sampling seed sent with each request (default: none)")
    made.add_argument("--api-key-env", default=KEY_VARIABLE, help="the environment variable holding the key")
    user = made.add_argument_group("the simulated user (--mode simulated)")
    user.add_argument("--user-base-url", help="the user model's endpoint (…/v1)")
    user.add_argument("--user-model", help="the model name the user's endpoint serves")
    user.add_argument("--user-temperature", type=float, default=0.0, help="its sampling temperature (default: 0)")
    user.add_argument("--user-seed", type=int, help="its sampling seed (default: none)")
    user.add_argument("--max-user-turns", type=int, default=30,
                      help="turns the user speaks at most; reaching them fails the episode (default: 30)")
    user.add_argument("--user-instruction", help="the instruction of its system message (default: user-chat's)")
    user.add_argument("--user-api-key-env", default=KEY_VARIABLE,
                      help="the environment variable holding its key")
    made.add_argument("--summary", help="also write the summary to this JSON file")
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
    if args.mode == "simulated" and len(user_flags) < 2:
        raise ConfigError("--mode simulated: give the user's model with --user-base-url and --user-model")
    if args.mode != "simulated" and user_flags:
        raise ConfigError(f"{user_flags[0]}: a user model plays only in --mode simulated")
    for flag, value, least in (("--limit", args.limit, 0), ("--concurrency", args.concurrency, 1),
                               ("--max-steps", args.max_steps, 1), ("--max-user-turns", args.max_user_turns, 1)):
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


def show(done, total):
    sys.stderr.write(f"\r{done}/{total} episodes")
    sys.stderr.flush()


def main(argv=None):
    def work(args):
        from .splits import prepare

        checked(args)
        options = copy_options(args)
        endpoint = Endpoint(args.base_url, args.model, os.environ.get(args.api_key_env), args.temperature,
                            args.timeout, args.seed, AGENT)
        user_model = None
        if args.mode == "simulated":
            user_model = UserModel(Endpoint(args.user_base_url, args.user_model, os.environ.get(args.user_api_key_env),
                                            args.user_temperature, args.timeout, args.user_seed, USER),
                                   args.max_user_turns, args.user_instruction)
        finished(args.out, run_header(endpoint, args.split, args.mode, args.max_steps, args.variant, user_model))
        for served in filter(None, (endpoint, user_model and user_model.endpoint)):
            served.reachable()  # before the split is built: a server that is down is found at once
        progress(False)
        ready = prepare(args.split, mode=args.mode, variant=args.variant, **options)
        unseen = unseen_services(ready, args.variant, options)
        terminal = sys.stderr.isatty()
        result = evaluate(endpoint, ready, args.out, unseen=unseen, limit=args.limit, concurrency=args.concurrency,
                          max_steps=args.max_steps, variant=args.variant, progress=show if terminal else None,
                          user_model=user_model, warn=lambda line: sys.stderr.write(("\n" if terminal else "") + line
                                                                                    + "\n"))
        if terminal:
            sys.stderr.write("\n")
        text = json.dumps(result, indent=2, ensure_ascii=False)
        if args.summary:
            write_atomically(args.summary, text + "\n")
        print(text)
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
