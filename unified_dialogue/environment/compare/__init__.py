"""Comparing runs of the evaluation command (``python -m unified_dialogue.environment``):
whether one model does better than another on the same episodes, and how much one model's
reward depends on the wording of the schemas (SGD-X's variants).

A run is one file of episode lines (``play.play_episode``). Its episodes are paired with
another run's by ``id``; an episode played several times (lines with a ``trial``) counts
with the mean of its trials, for the reward and each of its parts (``reward.PARTS``). A
line without a ``reward_version`` was judged by the first reward (``"1"``).

``compare(runs)`` sets each run beside the first, on the episodes every run has: the mean
reward and parts of each, the mean of the paired differences (the other run's reward minus
the first's, episode by episode) with a confidence interval, and the episodes the other run
won (its reward higher) and lost; overall, for episodes of seen services only and with an
unseen one, and per domain (an episode counts in each of its services' domains, as in the
summary, ``results.summary``). The interval is a paired bootstrap's: ``RESAMPLES`` resamples of
the episodes with replacement, drawn by numpy's ``default_rng(SEED)``, the percentile
interval of their mean differences at ``LEVEL``. Runs of different splits, modes, variants
or reward versions are refused (their numbers are not of the same episodes, or not judged
alike).

``variants(runs)`` takes one model's runs under SGD-X's variants (the same model, split,
mode and reward version, each run another variant) and gives the mean reward under each and
SGD-X's schema sensitivity of the reward: per episode the standard deviation of its reward
across the variants over their mean, averaged over the episodes as ``scoring.sgdx`` averages
it over a tracker's frames (``sgdx.grouped_sensitivity``, the one definition), for all
episodes and for those of seen services only and with an unseen one.
"""

import json
import os
from collections import defaultdict
from typing import NamedTuple

import numpy as np

from ...core.errors import ConfigError
from ...scoring.sgdx import grouped_sensitivity
from ..runs import domain
from ..reward import PARTS

SEED = 0
RESAMPLES = 10_000
LEVEL = 0.95
# What a run is judged by where its lines do not say (the lines written before rewards had versions).
FIRST_REWARD_VERSION = "1"
# What runs compared side by side must share; and one model's runs under the variants.
SAME_EPISODES = ("split", "mode", "variant", "reward_version")
SAME_MODEL = ("model", "split", "mode", "reward_version")
# What says which run a line is of (a file of lines of two runs is refused).
IDENTITY = ("split", "mode", "variant", "model", "reward_version")
# Draws of the bootstrap held in memory at once, in resamples × episodes.
CHUNK = 2_000_000


class Episode(NamedTuple):
    """One episode of a run: the mean of each part over its ``trials``, its domains, and
    whether all its services are seen (the train split has them)."""

    parts: dict
    domains: tuple
    seen: bool
    trials: int


class Run(NamedTuple):
    """A run's file, what its lines share (``IDENTITY``), and its episodes by id."""

    path: str
    identity: dict
    episodes: dict


def identity_of(record):
    found = {key: record.get(key) for key in IDENTITY}
    found["reward_version"] = str(record.get("reward_version") or FIRST_REWARD_VERSION)
    return found


def is_episode_line(record):
    return (isinstance(record, dict) and all(key in record for key in ("id", *IDENTITY[:-1], "services"))
            and all(isinstance(record.get(part), (int, float)) for part in PARTS))


def read_run(path):
    """The ``Run`` of an episode-lines file; a ConfigError naming the file (and line) for a
    file that is missing, empty, not of episode lines, of two runs, or has a trial twice."""
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: {'a folder' if os.path.isdir(path) else 'no such file'}; give the episode "
                          f"lines an evaluation run wrote (--out)")
    trials, identity, seen_trials = defaultdict(list), None, set()
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError:  # UnicodeDecodeError is a ValueError
                record = None
            if not is_episode_line(record):
                raise ConfigError(f"{path}: line {number} is not an episode's line of an evaluation run (python -m "
                                  f"unified_dialogue.environment --out)")
            mine = identity_of(record)
            identity = identity or mine
            other = [f"{key} {mine[key]!r}, not {identity[key]!r}" for key in IDENTITY if mine[key] != identity[key]]
            if other:
                raise ConfigError(f"{path}: line {number} is of another run than line 1 ({'; '.join(other)}); give "
                                  f"one run per file")
            key = (record["id"], record.get("trial"))
            if key in seen_trials:
                raise ConfigError(f"{path}: line {number}: episode {record['id']!r}"
                                  + (f" trial {key[1]}" if key[1] is not None else "") + " is there twice")
            seen_trials.add(key)
            trials[record["id"]].append(record)
    if identity is None:
        raise ConfigError(f"{path}: no episode lines; give the file an evaluation run wrote (--out)")
    return Run(path, identity, {key: episode_of(lines) for key, lines in trials.items()})


def episode_of(lines):
    """The ``Episode`` of one episode's lines (one per trial)."""
    parts = {part: sum(line[part] for line in lines) / len(lines) for part in PARTS}
    first = lines[0]
    return Episode(parts, tuple(sorted({domain(s) for s in first["services"]})), not first["unseen_services"],
                   len(lines))


def check_alike(runs, keys, why):
    """Refuse runs that differ in one of ``keys`` from the first."""
    for run in runs[1:]:
        other = [f"{key} {run.identity[key]!r}, not {runs[0].identity[key]!r}" for key in keys
                 if run.identity[key] != runs[0].identity[key]]
        if other:
            raise ConfigError(f"{run.path}: another {' and '.join(k.split()[0] for k in other)} than "
                              f"{runs[0].path} ({'; '.join(other)}): {why}")


def shared(runs):
    """The ids every run has, in the first run's order, and a warning line where the runs
    cover different episodes (None where they cover the same)."""
    common = [key for key in runs[0].episodes if all(key in run.episodes for run in runs[1:])]
    if not common:
        raise ConfigError(f"{runs[0].path} and {runs[1].path}" + (" and the others" if len(runs) > 2 else "")
                          + ": no episode in common; give runs of the same episodes")
    apart = [f"{run.path} {len(run.episodes) - len(common)}" for run in runs if len(run.episodes) > len(common)]
    warning = None
    if apart:
        warning = (f"warning: the runs cover different episodes (episodes only some runs have: {', '.join(apart)}); "
                   f"compared on the {len(common)} they all have")
    return common, warning


def groups(episodes, ids):
    """``{"overall", "seen", "unseen", "per_domain": {domain: ids}}`` of ``ids``."""
    by_domain = defaultdict(list)
    for key in ids:
        for name in episodes[key].domains:
            by_domain[name].append(key)
    return {"overall": list(ids), "seen": [k for k in ids if episodes[k].seen],
            "unseen": [k for k in ids if not episodes[k].seen],
            "per_domain": dict(sorted(by_domain.items()))}


def means(run, ids):
    return {part: sum(run.episodes[key].parts[part] for key in ids) / len(ids) for part in PARTS} if ids else {}


def paired_interval(differences, resamples=RESAMPLES, seed=SEED, level=LEVEL):
    """The percentile interval at ``level`` of the means of ``resamples`` bootstrap
    resamples of ``differences`` (drawn with replacement, numpy's ``default_rng(seed)``).

    Example:
        >>> paired_interval([0.0, 0.0, 1.0])
        [0.0, 1.0]
    """
    values = np.asarray(differences, dtype=float)
    count = len(values)
    rng = np.random.default_rng(seed)
    drawn, step = [], max(1, CHUNK // count)
    for start in range(0, resamples, step):
        picks = rng.integers(0, count, size=(min(step, resamples - start), count))
        drawn.append(values[picks].mean(axis=1))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(np.concatenate(drawn), [tail, 100 - tail])
    return [float(low), float(high)]


def paired(first, other, ids):
    """The comparison of ``other`` with ``first`` on ``ids``."""
    if not ids:
        return {"episodes": 0}
    differences = [other.episodes[k].parts["reward"] - first.episodes[k].parts["reward"] for k in ids]
    return {"episodes": len(ids), "first": means(first, ids), "other": means(other, ids),
            "difference": sum(differences) / len(differences), "interval": paired_interval(differences),
            "won": sum(d > 0 for d in differences), "lost": sum(d < 0 for d in differences),
            "tied": sum(d == 0 for d in differences)}


def compare(runs):
    """Each run beside the first, on the episodes all have (see the module's docstring).

    Args:
        runs: two or more ``Run`` (``read_run``) of the same split, mode, variant and
            reward version.

    Returns:
        ``{"bootstrap": {...}, "episodes": n, "runs": [{"file", "model", "episodes",
        "trials", "means"}], "comparisons": [{"first", "other", "overall", "seen", "unseen",
        "per_domain"}], "warnings": [...]}``: ``means`` over the episodes compared; each
        group's ``first`` and ``other`` means, ``difference`` (other minus first),
        ``interval``, ``won``, ``lost`` and ``tied`` (episodes where the other run's reward
        is higher, lower, equal).

    Raises:
        ConfigError: runs that differ in ``SAME_EPISODES``, or share no episode.
    """
    check_alike(runs, SAME_EPISODES, "the runs compared must be of the same episodes, judged alike")
    ids, warning = shared(runs)
    grouped = groups(runs[0].episodes, ids)
    comparisons = []
    for other in runs[1:]:
        made = {"first": runs[0].path, "other": other.path}
        made.update({name: paired(runs[0], other, grouped[name]) for name in ("overall", "seen", "unseen")})
        made["per_domain"] = {name: paired(runs[0], other, keys) for name, keys in grouped["per_domain"].items()}
        comparisons.append(made)
    return {"bootstrap": bootstrap(), "episodes": len(ids),
            "runs": [{"file": run.path, "model": run.identity["model"], "episodes": len(run.episodes),
                      "trials": max(e.trials for e in run.episodes.values()), "means": means(run, ids)}
                     for run in runs],
            "comparisons": comparisons, "warnings": [warning] if warning else []}


def bootstrap():
    return {"method": "paired bootstrap, percentile interval", "resamples": RESAMPLES, "seed": SEED,
            "level": LEVEL}


def variants(runs, declared=None):
    """One model's reward under each variant and the schema sensitivity of the reward.

    Args:
        runs: ``Run`` of one model, split, mode and reward version, each of another variant.
        declared: the corpus's variants (SGD-X's ``v1`` … ``v5``); a warning line where the
            runs are not of exactly these.

    Returns:
        ``{"model", "episodes", "variants": {variant: {"file", "overall", "seen", "unseen"}},
        "schema_sensitivity": sgdx.grouped_sensitivity(...), "warnings": [...]}``; a variant
        ``None`` (the original schema) is named ``original``.

    Raises:
        ConfigError: runs of different models, splits, modes or reward versions, two runs of
            one variant, or no episode in common.
    """
    check_alike(runs, SAME_MODEL, "the variants' runs must be of one model on the same episodes, judged alike")
    named = {}
    for run in runs:
        name = run.identity["variant"] or "original"
        if name in named:
            raise ConfigError(f"{run.path}: variant {name} again (as {named[name].path}); give one run per variant")
        named[name] = run
    ids, warning = shared(runs)
    warnings = [warning] if warning else []
    if declared and sorted(named) != sorted(declared):
        warnings.append(f"warning: SGD-X's schema sensitivity is across {', '.join(declared)}; these runs are of "
                        f"{', '.join(sorted(named))}")
    grouped = groups(runs[0].episodes, ids)
    by_variant = [{key: (run.episodes[key].parts["reward"], run.episodes[key].seen) for key in ids} for run in runs]
    return {"model": runs[0].identity["model"], "episodes": len(ids),
            "variants": {name: {"file": run.path, **{group: {"episodes": len(grouped[group]),
                                                             **means(run, grouped[group])}
                                                     for group in ("overall", "seen", "unseen")}}
                         for name, run in named.items()},
            "schema_sensitivity": grouped_sensitivity(by_variant, "episodes"), "warnings": warnings}
