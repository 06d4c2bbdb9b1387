"""Statistics of a corpus, computed from its ``unified`` build and its task views, with a
record of the source files they were computed from, and kept in the card folder's
``stats/<corpus>.json``. Cards show these; nothing in a card's figures is typed in."""

import glob
import json
import os
import tempfile
from collections import Counter

from ..api import load
from ..core.sources import UNKNOWN, file_sha256, read_checksum_table

SHARED_MEASURES = (("dialogues", "dialogues"), ("turns", "turns"), ("dialog_acts", "dialog acts"))
# Columns the counting reads; ``knowledge`` (large for SGD) is left out.
COLUMNS = ("dialog", "domain", "unseen_domains")


def _new_accumulator(corpus):
    acc = {key: 0 for key, _ in SHARED_MEASURES}
    for measure in corpus.measures:
        acc[measure.key] = {"count": 0, "distinct": set(), "labels": Counter()}[measure.kind]
    return acc


def _finish(acc):
    out = {}
    for key, value in acc.items():
        if isinstance(value, set):
            out[key] = len(value)
        elif isinstance(value, Counter):
            out[key] = dict(sorted(value.items()))
        else:
            out[key] = value
    return out


def split_statistics(corpus, dataset):
    """The figures of one split (a unified ``Dataset`` or ``IterableDataset``)."""
    acc = _new_accumulator(corpus)
    columns = [c for c in COLUMNS if c in dataset.column_names]
    for record in dataset.select_columns(columns):
        acc["dialogues"] += 1
        acc["turns"] += len(record["dialog"])
        acc["dialog_acts"] += sum(len(turn["dialog_acts"] or []) for turn in record["dialog"])
        corpus.count(record, acc)
    return _finish(acc)


def statistics(corpus, dataset_dict):
    """``{split: figures}`` in the corpus's split order, for the splits that were built."""
    return {split: split_statistics(corpus, dataset_dict[split]) for split in corpus.splits if split in dataset_dict}


def _check(record, digest):
    """How a file compares with its row of the checksum table."""
    if record is None:
        return "not listed"
    if record.sha256 == UNKNOWN:
        return "unknown"
    return "match" if record.sha256 == digest else "differs"


def local_source(corpus, path, checksums=None):
    """The files of a local copy that the loader reads, each compared with its row of the
    checksum table (the bundled upstream table unless ``checksums`` names another).

    ``path`` is a copy in the upstream layout, or a single file that stands in for the
    corpus's one source file (e.g. a sample of CCPE's data.json).
    """
    table = read_checksum_table(checksums or corpus.checksums_path)
    if os.path.isfile(path):
        found = [(os.path.basename(path), path, corpus.local_patterns[0])]
    else:
        found = []
        for file in sorted(f for pattern in corpus.local_patterns for f in glob.glob(os.path.join(path, pattern))):
            relpath = os.path.relpath(file, path).replace(os.sep, "/")
            found.append((relpath, file, relpath))
    files = []
    for name, file, read_as in found:
        digest = file_sha256(file)
        entry = {"path": name, "num_bytes": os.path.getsize(file), "sha256": digest,
                 "check": _check(table.get(read_as), digest)}
        if read_as != name:
            entry["read_as"] = read_as
        files.append(entry)
    matching = {f.get("read_as", f["path"]) for f in files if f["check"] == "match"}
    # Complete: every upstream file is there, verified unchanged. A copy checked against
    # another table (a test excerpt, a mirror) is never the complete corpus.
    return {
        "kind": "local copy",
        "table": "upstream" if checksums is None else "given",
        "table_files": len(table),
        "complete": checksums is None and matching >= set(table),
        "files": files,
    }


def download_source(corpus, base_url, checksums=None):
    """The files a build downloads: every file of the checksum table, which the loader
    verifies where the table knows the size and sha256."""
    table = read_checksum_table(checksums or corpus.checksums_path)
    files = [{"path": r.path, "num_bytes": r.num_bytes, "sha256": r.sha256,
              "check": "unknown" if r.sha256 == UNKNOWN else "match"} for r in table.values()]
    return {
        "kind": "download",
        "table": "upstream" if checksums is None else "given",
        "base_url": base_url,
        "table_files": len(table),
        "complete": checksums is None and all(f["check"] == "match" for f in files),
        "files": files,
    }


def view_statistics(dataset_dict):
    """``{split: {rows, context_turns}}`` of a task view's build: its rows, and the mean
    number of turns of their context (where rows have one)."""
    import pyarrow.compute as pc

    figures = {}
    for split, ds in dataset_dict.items():
        entry = {"rows": ds.num_rows}
        if "context" in ds.column_names and ds.num_rows:
            mean = pc.mean(pc.list_value_length(ds.data.column("context"))).as_py()
            entry["context_turns"] = round(mean, 2)
        if "left_out" in ds.column_names:  # the environment's episodes: those not judged, by reason
            reasons = [reason for reason in ds.data.column("left_out").to_pylist() if reason]
            entry["left_out"] = {reason: reasons.count(reason) for reason in sorted(set(reasons))}
        figures[split] = entry
    return figures


# ---------------------------------------------------------------- a local copy's statistics, stored

def compute_stats(corpus, path, checksums=None, cache_dir=None):
    """Statistics of a local copy: build ``unified`` and the task views from it, count, and
    record its files.

    ``path`` is a copy in the upstream layout or one file standing in for the corpus's
    single source file. It is built without the loader's checks (a partial copy or a sample
    loads); each file is compared with the checksum table here instead, and the card says
    how it compares.
    """
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = path
        if os.path.isfile(path):
            data_dir = os.path.join(tmp, "copy")
            os.makedirs(data_dir)
            os.symlink(os.path.abspath(path), os.path.join(data_dir, corpus.local_patterns[0]))

        def build(config):
            return load(corpus.name, config, data_dir=data_dir, checksums=checksums,
                        cache_dir=cache_dir or os.path.join(tmp, "cache"), verification_mode="no_checks")

        return {
            "corpus": corpus.name,
            "config": "unified",
            "source": local_source(corpus, path, checksums),
            "splits": statistics(corpus, build("unified")),
            "views": {view.name: view_statistics(build(view.name)) for view in corpus.views},
        }


def stats_path(card_dir, corpus):
    return os.path.join(card_dir, "stats", f"{corpus.name}.json")


def read_stats(card_dir, corpus):
    """The statistics stored for a corpus in ``card_dir``, or None."""
    path = stats_path(card_dir, corpus)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_stats(card_dir, corpus, figures):
    """Store a corpus's statistics in ``card_dir``; returns the file's path."""
    path = stats_path(card_dir, corpus)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    return path
