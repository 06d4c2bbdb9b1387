"""Benchmark: what building a corpus costs next to reading its JSON.

``python -m unified_dialogue.tools.bench [--data DIR] [--scale N] [--repeat R]`` (``make
bench``) times, on the same files of each corpus: the floor (stdlib ``json.load`` of every
file, touching every dialogue), the floor shared out among two processes, ``datasets``'
own JSON loader, builds of the first two configs into a fresh cache with one process and
with ``num_proc=2``, a build of each task view the corpus offers (one process, next to the
unified build), streaming (first and last record) and loading again from the cache.

Each corpus's input is its copy in ``DIR`` (found as ``make cards DATA=`` finds it), or
else its test fixtures, replicated by the corpus (``Corpus.replicate``) to about its
upstream size times N: to show how time and memory grow with the corpus.

Every measurement runs in a fresh Python process, so that its peak RSS is its own; the
time is that of the operation alone (imports excluded), as is the CPU time (user and
system, of every process of the operation: what ``num_proc`` spends in all). Each row
gives the median over ``--repeat`` runs, interleaved. The peak RSS of a multi-process
build is that of its largest process. Linux only (peak RSS comes from /proc).
"""

import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

MIB = 1024 * 1024


# ---------------------------------------------------------------- inputs

@dataclass
class BenchInput:
    """A benchmark input: a data_dir for the loader, its checksum table, and the source
    files as the loader reads them (the floor parses the same files)."""

    name: str
    data_dir: str
    checksums: str
    json_files: dict  # split -> paths
    configs: tuple
    views: tuple = ()  # task views: builds with one process, next to the unified build

    @property
    def num_bytes(self):
        return sum(os.path.getsize(p) for files in self.json_files.values() for p in files)

    @property
    def several_files_a_split(self):
        return any(len(files) > 1 for files in self.json_files.values())


def prepare_input(corpus, source, workdir, scale):
    """The corpus's input: ``source`` replicated (``corpus.replicate``) to about its
    upstream size times ``scale``, with a checksum table of its own."""
    from unified_dialogue.core.errors import MissingFilesError
    from unified_dialogue.core.sources import write_checksum_table

    data_dir = os.path.join(workdir, corpus.name)
    json_files = corpus.replicate(source, data_dir, scale)
    if not json_files:
        raise MissingFilesError(f"{corpus.name}: {source} holds no input in the upstream layout")
    table = write_checksum_table(data_dir, os.path.join(workdir, f"{corpus.name}.tsv"))
    return BenchInput(corpus.name, data_dir, table, json_files, corpus.config_names[:2],
                  tuple(view.name for view in corpus.views))


def sources_of(data):
    """``{corpus: its input}``: a copy in ``data`` where there is one (as ``make cards
    DATA=`` finds it), else the corpus's bench source (its test fixtures)."""
    from unified_dialogue import registry

    return {corpus.name: (data and corpus.local_copy(data)) or corpus.bench_source
            for corpus in registry.corpora().values()}


# ---------------------------------------------------------------- measurements (child side)

def _peak_rss():
    # ru_maxrss of this process would still hold its parent's peak from before exec.
    with open("/proc/self/status", encoding="ascii") as f:
        own = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, workers) * 1024  # both in KiB


def _cpu_seconds():
    """User and system time of this process and of its children that have ended (a
    build's workers are joined before it returns)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load_file(path):
    with open(path, "rb") as f:
        dialogues = json.load(f)
    return sum(len(dialogue) > 0 for dialogue in dialogues)


def measure_floor(spec):
    """The floor; with ``num_proc``, the files shared out among that many processes, which
    shows how much faster the machine makes a job that needs no coordination at all."""
    paths = [path for files in spec["json_files"].values() for path in files]
    num_proc = spec.get("num_proc")
    started = time.perf_counter()
    if not num_proc:
        records = sum(map(_load_file, paths))
    else:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(num_proc) as pool:
            records = sum(pool.imap_unordered(_load_file, paths))
    return {"seconds": time.perf_counter() - started, "records": records}


def measure_datasets_json(spec):
    import datasets

    started = time.perf_counter()
    try:
        dsd = datasets.load_dataset("json", data_files=spec["json_files"], cache_dir=spec["cache_dir"])
    except Exception as error:  # the row says why the installed datasets cannot read the files
        cause = error.__cause__ or error
        return {"error": f"{type(cause).__name__}: {cause}".splitlines()[0][:70]}
    return {"seconds": time.perf_counter() - started, "records": sum(ds.num_rows for ds in dsd.values())}


def _load(spec, **kwargs):
    from unified_dialogue import load

    return load(spec["corpus"], spec["config"], data_dir=spec["data_dir"], checksums=spec["checksums"],
                cache_dir=spec["cache_dir"], **kwargs)


def measure_build(spec):
    started = time.perf_counter()
    dsd = _load(spec, num_proc=spec.get("num_proc"))
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "records": sum(ds.num_rows for ds in dsd.values())}


def _arrow_files(folder):
    return {path: os.path.getmtime(path) for path in glob.glob(os.path.join(folder, "**", "*.arrow"), recursive=True)}


def measure_reload(spec):
    from datasets.table import MemoryMappedTable

    before = _arrow_files(spec["cache_dir"])
    started = time.perf_counter()
    dsd = _load(spec)
    seconds = time.perf_counter() - started
    mapped = all(isinstance(ds.data, MemoryMappedTable) for ds in dsd.values())
    note = "memory-mapped" if mapped else "NOT memory-mapped"
    if _arrow_files(spec["cache_dir"]) != before:
        # e.g. the package's code changed between the build and this load
        note += "; REBUILT, the cache was not used"
    return {"seconds": seconds, "records": sum(ds.num_rows for ds in dsd.values()), "note": note}


def measure_stream(spec):
    started = time.perf_counter()
    first, records = None, 0
    for split in _load(spec, streaming=True).values():
        for _ in split:
            records += 1
            if first is None:
                first = time.perf_counter() - started
    return {"seconds": time.perf_counter() - started, "first": first, "records": records}


MEASURES = {
    "floor": measure_floor,
    "datasets_json": measure_datasets_json,
    "build": measure_build,
    "reload": measure_reload,
    "stream": measure_stream,
}


def child_main(spec):
    if spec["measure"] != "floor":  # imports are not part of what is timed
        from unified_dialogue import registry
        from unified_dialogue.cli import quiet_progress

        quiet_progress()
        registry.builder_class(spec["corpus"])
    cpu_before = _cpu_seconds()
    result = MEASURES[spec["measure"]](spec)
    result["cpu"] = _cpu_seconds() - cpu_before
    result["peak_rss"] = _peak_rss()
    print(json.dumps(result))


# ---------------------------------------------------------------- runs (parent side)

@dataclass
class Row:
    label: str
    spec: dict
    needs_cache: bool = False  # reload: a build into the same cache first, untimed
    results: list = field(default_factory=list)


def rows_for(corpus):
    base = {"corpus": corpus.name, "data_dir": corpus.data_dir, "checksums": corpus.checksums,
            "json_files": corpus.json_files}
    rows = [
        Row(f"{corpus.name}: floor, json.load", {**base, "measure": "floor"}),
    ]
    if corpus.several_files_a_split:
        rows.append(Row(f"{corpus.name}: floor, 2 processes", {**base, "measure": "floor", "num_proc": 2}))
    rows += [
        Row(f"{corpus.name}: datasets' json loader", {**base, "measure": "datasets_json"}),
    ]
    for config in corpus.configs:
        spec = {**base, "config": config, "measure": "build"}
        rows.append(Row(f"{corpus.name} {config}: build, 1 process", spec))
        if corpus.several_files_a_split:  # otherwise a second process has nothing to do
            rows.append(Row(f"{corpus.name} {config}: build, num_proc=2", {**spec, "num_proc": 2}))
    for view in corpus.views:
        rows.append(Row(f"{corpus.name} {view}: build, 1 process", {**base, "config": view, "measure": "build"}))
    spec = {**base, "config": corpus.configs[0]}
    rows.append(Row(f"{corpus.name} {corpus.configs[0]}: streaming", {**spec, "measure": "stream"}))
    rows.append(Row(f"{corpus.name} {corpus.configs[0]}: reload from cache", {**spec, "measure": "reload"},
                    needs_cache=True))
    return rows


def run_child(spec, env):
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
                          env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark step {spec['measure']} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_row(row, workdir, env):
    cache_dir = tempfile.mkdtemp(prefix="cache-", dir=workdir)
    try:
        spec = {**row.spec, "cache_dir": cache_dir}
        if row.needs_cache:
            run_child({**spec, "measure": "build"}, env)
        row.results.append(run_child(spec, env))
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)


def _median(row, key):
    values = [r[key] for r in row.results if r.get(key) is not None]
    return statistics.median(values) if values else None


def format_table(rows):
    lines = [f"{'':<40}{'median s':>10}{'CPU s':>9}{'× floor':>9}{'peak RSS MiB':>14}{'records':>9}  note", "-" * 109]
    floors, one_process = {}, {}
    for row in rows:
        errors = [r["error"] for r in row.results if "error" in r]
        if errors:
            lines.append(f"{row.label:<40}{'-':>10}{'-':>9}{'-':>9}{'-':>14}{'-':>9}  cannot read the files: {errors[0]}")
            continue
        seconds, cpu, rss = _median(row, "seconds"), _median(row, "cpu"), _median(row, "peak_rss")
        corpus, measure = row.spec["corpus"], row.spec["measure"]
        if measure == "floor" and not row.spec.get("num_proc"):
            floors[corpus] = seconds
        ratio = f"{seconds / floors[corpus]:.2f}" if floors.get(corpus) else ""
        records = "/".join(str(n) for n in sorted({r["records"] for r in row.results}))
        notes = sorted({r["note"] for r in row.results if "note" in r})
        if measure == "stream":
            notes.append(f"first record after {_median(row, 'first'):.3f} s")
        if measure in ("floor", "build"):
            key = (corpus, row.spec.get("config"))
            unified = one_process.get((corpus, "unified"))
            if not row.spec.get("num_proc") and row.spec.get("config") not in (None, "unified", "original") and unified:
                notes.append(f"{seconds / unified[0]:.2f}× the unified build")
            config = row.spec.get("config") or ""
            view = one_process.get((corpus, config.removesuffix("-chat")))
            if not row.spec.get("num_proc") and config.endswith("-chat") and view:
                notes.append(f"{seconds / view[0]:.2f}× the view's build")
            if not row.spec.get("num_proc"):
                one_process[key] = seconds, cpu
            elif key in one_process:
                one_seconds, one_cpu = one_process[key]
                notes.append(f"speed-up over 1 process: {one_seconds / seconds:.2f}×, "
                             f"CPU time {cpu / one_cpu:.2f}× that of 1 process")
        lines.append(f"{row.label:<40}{seconds:>10.3f}{cpu:>9.3f}{ratio:>9}{rss / MIB:>14.0f}{records:>9}  "
                     f"{'; '.join(notes)}")
    return "\n".join(lines)


def child_env(workdir):
    env = dict(os.environ)
    # Nothing outside the work folder: no network, no user cache.
    env.update(HF_HOME=os.path.join(workdir, "hf-home"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    return env


def prepare(sources, scale, workdir, out):
    """The inputs to measure, one per corpus of ``sources`` (``{corpus: source path}``)."""
    from unified_dialogue import registry

    inputs = []
    for name, source in sources.items():
        if source is None or not os.path.exists(source):
            out(f"{name}: input {source} not found, no rows")
            continue
        corpus = prepare_input(registry.get(name), source, workdir, scale)
        files = sum(len(f) for f in corpus.json_files.values())
        out(f"{name}: {source} × {scale}: {files} source files, {corpus.num_bytes / MIB:.1f} MiB")
        inputs.append(corpus)
    return inputs


def run(sources, scale=1, repeat=5, out=print):
    """Prepare the inputs (``{corpus: path}``), run every row ``repeat`` times, interleaved,
    and return the table."""
    import datasets

    workdir = tempfile.mkdtemp(prefix="unified-dialogue-bench-")
    try:
        corpora = prepare(sources, scale, workdir, out)
        out(f"datasets {datasets.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores; "
            f"median of {repeat} run(s), each in a fresh process")
        env = child_env(workdir)
        rows = [row for corpus in corpora for row in rows_for(corpus)]
        for corpus in corpora:  # bring the files into the page cache before timing anything
            run_child(rows_for(corpus)[0].spec, env)
        for number in range(repeat):
            for row in rows:
                run_row(row, workdir, env)
            out(f"  run {number + 1}/{repeat} done")
        table = format_table(rows)
        out(table)
        return table
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv=None):
    from unified_dialogue.cli import run_command

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a folder with copies of the corpora, found as `make cards DATA=` finds "
                                       "them (sgd/, ccpe/data.json, faithdial/, ...); default: the test fixtures")
    parser.add_argument("--corpus", action="append", help="measure only this corpus (repeatable)")
    parser.add_argument("--scale", type=int, default=1, help="replicate every input this many times")
    parser.add_argument("--repeat", type=int, default=5, help="runs per row; the table gives medians")

    def work(args):
        if args.scale < 1 or args.repeat < 1:
            parser.error("--scale and --repeat must be at least 1")
        sources = sources_of(args.data)
        unknown = sorted(set(args.corpus or []) - set(sources))
        if unknown:
            parser.error(f"unknown corpus {', '.join(unknown)} (corpora: {', '.join(sources)})")
        sources = {name: path for name, path in sources.items() if not args.corpus or name in args.corpus}
        run(sources, args.scale, args.repeat, out=lambda line: print(line, flush=True))

    run_command(parser, work, argv, name="bench")


if __name__ == "__main__":
    if __package__:
        main()
    else:
        # A child (run_child), started as a script so that the floor imports neither this
        # package nor datasets; its folder must not shadow top-level modules.
        sys.path.remove(os.path.dirname(os.path.abspath(__file__)))
        child_main(json.loads(sys.argv[sys.argv.index("--child") + 1]))
