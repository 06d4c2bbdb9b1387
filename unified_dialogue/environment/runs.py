"""A run of the evaluation command in its file: what every line of one run holds alike
(``run_header``: every setting that changes how an episode plays or is judged), reading the
lines already written to resume (``finished``, refusing a file of another run), which
episodes a run plays (``sample``) and the seed of each trial (``trial_seed``).
"""

import hashlib
import json
import os
import random
from itertools import zip_longest

from ..core.errors import ConfigError
from .reward import REWARD_VERSION

# The keys of a line that say which run it belongs to, besides ``user`` (``USER_KEYS``).
RUN_KEYS = ("split", "mode", "variant", "model", "temperature", "seed", "max_steps", "max_tokens", "reward_version")
USER_KEYS = ("model", "temperature", "seed", "max_turns", "instruction", "max_tokens")


def digest(text):
    """A long text as a line records it: None, or ``sha256:`` and its first 16 hex digits."""
    return None if text is None else "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def trial_seed(seed, trial):
    """The seed sent with the requests of trial ``trial`` (0 the first): ``seed`` for the
    first (None: none sent), ``seed + trial`` for the others (``trial`` where ``seed`` is
    None), so that trials draw differently where the server takes a seed, and adding trials
    to a run keeps its first ones."""
    if trial == 0:
        return seed
    return (seed or 0) + trial


def run_header(endpoint, split, mode, max_steps, variant=None, user_model=None):
    """What every line of one run holds alike: ``split``, ``mode``, ``variant``, the agent's
    ``model``, ``temperature``, ``seed``, ``max_steps``, ``max_tokens`` and the
    ``reward_version`` (``reward.REWARD_VERSION``); in ``simulated`` mode ``user`` (its
    ``model``, ``temperature``, ``seed``, ``max_turns``, ``instruction``: None for
    ``user-chat``'s, else its ``digest``, and ``max_tokens``)."""
    header = {"split": split, "mode": mode, "variant": variant, "model": endpoint.model,
              "temperature": endpoint.temperature, "seed": endpoint.seed, "max_steps": max_steps,
              "max_tokens": endpoint.max_tokens, "reward_version": REWARD_VERSION}
    if user_model is not None:
        model = user_model.endpoint
        header["user"] = {"model": model.model, "temperature": model.temperature, "seed": model.seed,
                          "max_turns": user_model.max_turns, "instruction": digest(user_model.instruction),
                          "max_tokens": getattr(model, "max_tokens", None)}
    return header


def run_of(line):
    """The run a line belongs to: its ``run_header`` part (the user's turns and end aside)."""
    user = line.get("user")
    return {**{key: line.get(key) for key in RUN_KEYS},
            "user": None if user is None else {key: user.get(key) for key in USER_KEYS}}


def differences(line, run):
    """``key 'line's', not 'run's'`` for each setting where a line's run differs from ``run``."""
    found = []
    for key, value in run_of(line).items():
        now = run[key]
        if key == "user" and value is not None and now is not None:
            found += [f"user {name} {value[name]!r}, not {now[name]!r}" for name in USER_KEYS
                      if value[name] != now[name]]
        elif value != now:
            found.append(f"{key} {value!r}, not {now!r}")
    return found


def finished(path, header=None):
    """The lines of ``path`` already written whole, by ``(id, trial)``; a last line cut short
    by an interruption is removed (its episode is played again). ``header``: the
    ``run_header`` of the run (a line of another run, such as one judged by another reward
    version, is an error, not resumed)."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = f.read()
    whole = data[:data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        with open(path, "r+b") as f:
            f.truncate(len(whole))
    done, run = {}, None if header is None else run_of(header)
    for number, line in enumerate(whole.splitlines(), start=1):
        try:
            record = json.loads(line)
            # a line written before trials and reward versions were recorded is of another run, said below
            if not all(key in record for key in ("id", *RUN_KEYS[:-2])):
                raise KeyError(number)
        except (ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError
            raise ConfigError(f"--out {path}: line {number} is not an episode's line; give a new file, or the "
                              f"file of the run to resume") from None
        other = differences(record, run) if run else []
        if other:
            raise ConfigError(f"--out {path}: line {number} is an episode of another run ({'; '.join(other)}); give "
                              f"a new file, or the same flags to resume it")
        done[record["id"], record.get("trial", 0)] = record
    return done


def domain(service):
    """A service's domain: its name without the ``_<number>`` SGD gives each service."""
    return service.rsplit("_", 1)[0] if service.rsplit("_", 1)[-1].isdigit() else service


def first_domain(row):
    """The domain of an ``episodes`` row's first service (``""`` for none)."""
    return domain(row["services"][0]) if row["services"] else ""


def across_domains(rows):
    """``rows`` (episodes) ordered so that every prefix spans the domains: the first row of
    each domain (of its first service, in name order), then the second of each, and so on,
    each domain's rows in their own order; so a run limited to the first N covers as many
    domains as N allows."""
    groups = {}
    for row in rows:
        groups.setdefault(first_domain(row), []).append(row)
    rounds = zip_longest(*(groups[name] for name in sorted(groups)))
    return [row for turn in rounds for row in turn if row is not None]


def sample(services, size, seed):
    """The positions of ``size`` episodes drawn across domains (``services``: each episode's
    services, in the split's order): the episodes are grouped by the domain of their first
    service; the seed shuffles each group and the order of the domains; then each domain in
    turn gives its next episode until ``size`` are drawn, so that every domain has as many
    as its size allows (at most one apart). Returned in the split's order; all where
    ``size`` is the split's size or more."""
    groups = {}
    for position, names in enumerate(services):
        groups.setdefault(domain(names[0]) if names else "", []).append(position)
    rng = random.Random(seed)
    order = sorted(groups)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(groups[name])
    drawn, turn = [], 0
    while len(drawn) < min(size, len(services)):
        for name in order:
            if turn < len(groups[name]) and len(drawn) < size:
                drawn.append(groups[name][turn])
        turn += 1
    return sorted(drawn)


__all__ = ["RUN_KEYS", "USER_KEYS", "digest", "domain", "finished", "run_header", "run_of", "sample", "trial_seed"]
