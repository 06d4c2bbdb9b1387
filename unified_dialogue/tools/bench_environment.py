"""Benchmark: what the environment (``unified_dialogue.environment``) costs, next to a
baseline measured in the same run.

``python -m unified_dialogue.tools.bench_environment --data-dir DIR [--split train]
[--repeat 3] [--calls 2000]`` reads SGD from DIR (``--no-checks`` by default: a partial
copy) and times, each ``--repeat`` times in a fresh cache (medians):

- the baseline: a build of ``unified`` (one process);
- the ``database`` config, built from that cached ``unified`` build, then the SQLite file
  built from its rows (``environment.database.build``): the database's whole cost once the
  corpus is built, as a multiple of the unified build;
- on the built database: a query answered from the dialogue's recording, a query answered
  from the union (its call made in another dialogue), a transaction, and ``reset`` of a TRL
  environment, each the median of ``--calls`` calls, in milliseconds.
"""

import argparse
import random
import shutil
import statistics
import tempfile

from .bench_rewards import timed


def seconds(function):
    return timed(function)[0]


def builds(data_dir, split, options):
    """``(unified build, database config build, SQLite build)`` seconds, in a fresh cache."""
    from .. import load
    from ..environment import database, splits

    cache = tempfile.mkdtemp(prefix="bench-environment-")
    try:
        every = {"data_dir": data_dir, "cache_dir": cache, **options}
        unified = seconds(lambda: load("sgd", "unified", split=split, **every))
        made = {}
        config = seconds(lambda: made.setdefault("rows", load("sgd", "database", split=split, **every)))
        schemas = load("sgd", "schema", split=split, **every)
        path = splits.file_for(made["rows"], split)
        sqlite = seconds(lambda: database.build(made["rows"], schemas, path))
        return unified, config, sqlite
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def per_call(data_dir, split, options, calls, seed=0):
    """Median milliseconds of a recorded query, a union query, a transaction and ``reset``."""
    from ..environment import binding, splits
    from ..environment.episode import Episode

    ready = splits.prepare(split, data_dir=data_dir, **options)
    rows = ready.episodes.select(range(min(calls, len(ready.episodes)))).to_list()
    factories = binding.factories(ready)
    from .. import load

    recorded = load("sgd", "database", split=split, data_dir=data_dir, **options).select_columns(
        ["dialogue_id", "tool", "transactional", "arguments"]).to_list()
    by_dialogue = {}
    for call in recorded:
        by_dialogue.setdefault(call["dialogue_id"], []).append(call)
    rnd = random.Random(seed)
    timings = {"query, recorded": [], "query, from the union": [], "transaction": [], "reset": []}
    for row in rows:
        environment = factories[row["environment"]]()
        columns = {key: value for key, value in row.items() if key != "environment"}
        timings["reset"].append(seconds(lambda: environment.reset(**columns)))
        episode = Episode(ready.services(row["services"]), ready.path, row)
        mine = by_dialogue.get(row["dialogue_id"], [])
        other = by_dialogue[rnd.choice(list(by_dialogue))]
        for label, pool, transactional in (("query, recorded", mine, False), ("query, from the union", other, False),
                                           ("transaction", mine + other, True)):
            chosen = [c for c in pool if c["transactional"] == transactional and c["tool"] in episode.services.tools]
            if chosen:
                call = chosen[0]
                arguments = {p["slot"]: p["value"] for p in call["arguments"]}
                timings[label].append(seconds(lambda: episode.call(call["tool"], arguments)))
    return {label: 1000 * statistics.median(values) for label, values in timings.items() if values}


def run(data_dir, split="train", repeat=3, calls=2000, verification_mode="no_checks", out=print):
    options = {"verification_mode": verification_mode}
    measured = [builds(data_dir, split, options) for _ in range(repeat)]
    unified, config, sqlite = (statistics.median(m[k] for m in measured) for k in range(3))
    out(f"SGD {split}, median of {repeat} builds in a fresh cache")
    out(f"unified build (baseline)            {unified:8.3f} s   1.00x")
    out(f"database config from unified       {config:8.3f} s   {config / unified:.2f}x")
    out(f"SQLite file from the config         {sqlite:8.3f} s   {sqlite / unified:.2f}x")
    out(f"database, config and file           {config + sqlite:8.3f} s   {(config + sqlite) / unified:.2f}x")
    cache = tempfile.mkdtemp(prefix="bench-environment-")
    try:
        medians = per_call(data_dir, split, {**options, "cache_dir": cache}, calls)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    for label, value in medians.items():
        out(f"{label:<35} {value:8.3f} ms (median of the first {calls} episodes)")
    return {"unified": unified, "database_config": config, "sqlite": sqlite, **medians}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.bench_environment",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, help="an SGD copy in the upstream layout")
    parser.add_argument("--split", default="train", help="the split (default: train)")
    parser.add_argument("--repeat", type=int, default=3, help="builds of each kind (default 3)")
    parser.add_argument("--calls", type=int, default=2000, help="episodes whose calls are timed (default 2000)")
    args = parser.parse_args(argv)
    run(args.data_dir, args.split, args.repeat, args.calls)


if __name__ == "__main__":
    main()
