"""Loading a corpus's excerpt in tests: the name of an excerpt's checksum table, a table of
a changed copy, loads made once per process, and the marks of the checks that only one
``datasets`` line can run (3.x runs loading scripts, 4.x and later refuse them)."""

import hashlib
import json
import os
from pathlib import Path

import datasets
import pytest
# filelock: a dependency of datasets', whose own cache takes the same locks.
from filelock import FileLock

from .. import load
from ..core.sources import write_checksum_table

DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
ONLY_DATASETS_3 = pytest.mark.skipif(
    DATASETS_MAJOR >= 4, reason="datasets >= 4 cannot run loading scripts; the import entry point is tested instead"
)
ONLY_DATASETS_4_PLUS = pytest.mark.skipif(DATASETS_MAJOR < 4, reason="datasets 3.x still runs loading scripts")
# The name of a copy's checksum table, in the copy's folder.
FIXTURE_CHECKSUMS = "SHA256SUMS.tsv"

# Builds of the fixtures, made once per run and loaded once per process: ``(corpus, fixtures, checksums, config,
# options)`` -> the DatasetDict.
_BUILDS = {}


def build_once(tmp_path_factory, corpus, fixtures, checksums, config="unified", **options):
    """``load(corpus, config, **options)`` of the copy in ``fixtures`` with its checksum
    table, built once per run (later calls return the same DatasetDict). Under pytest-xdist
    each worker is a process of its own: the build goes into a cache folder of the run's
    that all workers share, one worker building it under a file lock while the others wait,
    then load it from the cache (memory-mapped, as datasets reloads any build)."""
    key = (corpus, str(fixtures), str(checksums), config, tuple(sorted(options.items())))
    if key not in _BUILDS:
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
        cache_dir = shared_temp(tmp_path_factory) / "builds" / f"{corpus}-{config}-{digest}"
        cache_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(cache_dir) + ".lock"):
            _BUILDS[key] = load(corpus, config, data_dir=str(fixtures), checksums=str(checksums),
                                cache_dir=str(cache_dir), **options)
    return _BUILDS[key]


def shared_temp(tmp_path_factory):
    """The run's temporary folder: a worker's parent under pytest-xdist (which names each
    worker in PYTEST_XDIST_WORKER), the session's own otherwise."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def read_json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_checksums(folder):
    """A checksum table of every file of ``folder`` (a changed copy), next to it."""
    return write_checksum_table(folder, folder.parent / "changed.tsv", exclude=(FIXTURE_CHECKSUMS,))
