"""Where the source files come from, and checking that they are the published ones.

A checksum table (TSV: ``path``, ``num_bytes``, ``sha256``) lists every upstream file of a
corpus, relative to the corpus's pinned base URL; it is also the list of files to fetch.
``unknown`` in a column means the figure is not known yet: that check is skipped, visibly.
"""

import csv
import glob
import hashlib
import mmap
import os
from dataclasses import dataclass
from importlib import resources

from .errors import ChecksumError, DownloadError, MissingFilesError

UNKNOWN = "unknown"


@dataclass(frozen=True)
class FileRecord:
    path: str
    num_bytes: object  # int, or UNKNOWN
    sha256: str  # hex digest, or UNKNOWN


def read_checksum_table(path=None, corpus=None):
    """Rows of a checksum table, keyed by relative path: a file path, or a corpus's bundled table."""
    if path is None:
        text = resources.files("unified_dialogue").joinpath("checksums", f"{corpus}.tsv").read_text()
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    table = {}
    for row in rows:
        size = row["num_bytes"]
        table[row["path"]] = FileRecord(row["path"], size if size == UNKNOWN else int(size), row["sha256"])
    return table


def mapped_file(path):
    """The bytes of a local file, memory-mapped read-only; None if ``path`` is not a local
    file that can be mapped (a URL, when streaming; an empty file), or on Windows, where a
    mapped file cannot be replaced, and an error's traceback can keep the file mapped (and
    so the user from fixing it) for as long as the error is kept. Parsing from the page
    cache spares copying a file into new memory, whose first use costs a page fault every
    4 KiB: a thousand for a 4 MiB file, more time than the copy itself. (Like any mapped
    file, one truncated by another program while it is read would crash the process with
    SIGBUS; source files are not written during a build.)

    (Here, not in builder.py, on purpose: datasets replaces ``open`` in a builder's modules,
    in every builder's constructor, by one that also opens URLs.)"""
    if os.name != "posix":
        return None
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return None
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # not a local file: the caller reads it the usual way
        return None


def verify_bytes(data, record, name):
    """Raise ChecksumError unless ``data`` has the size and sha256 that ``record`` lists."""
    if record.num_bytes != UNKNOWN and len(data) != record.num_bytes:
        raise ChecksumError(
            f"{name}: size mismatch for {record.path}: expected {record.num_bytes} bytes, got {len(data)}"
        )
    if record.sha256 != UNKNOWN:
        digest = hashlib.sha256(data).hexdigest()
        if digest != record.sha256:
            raise ChecksumError(
                f"{name}: sha256 mismatch for {record.path}: expected {record.sha256}, got {digest}"
            )


def file_sha256(path):
    """The sha256 of a file, read a block at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(dl_manager, base_url, paths, corpus):
    """Download ``paths`` (relative to ``base_url``); on failure say how to use ``data_dir``."""
    urls = {path: f"{base_url.rstrip('/')}/{path}" for path in paths}
    try:
        return dl_manager.download(urls)
    except (ConnectionError, OSError, TimeoutError) as error:
        raise DownloadError(
            f"could not download the {corpus} files from {base_url} ({error}). Without network, "
            f"load a local copy in the upstream layout: "
            f"load_dataset('loaders/{corpus}', data_dir='path/to/copy')"
        ) from error


def local_files(data_dir, pattern, expected_paths, check_complete):
    """Files of a local copy matching ``pattern``, keyed by path relative to ``data_dir``.

    Files the table lists but the copy lacks are an error, unless ``check_complete`` is
    False (``verification_mode="no_checks"``), which lets a partial copy load.
    """
    found = {
        os.path.relpath(path, data_dir).replace(os.sep, "/"): path
        for path in sorted(glob.glob(os.path.join(data_dir, pattern)))
    }
    missing = sorted(set(expected_paths) - set(found))
    if missing and check_complete:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise MissingFilesError(
            f"data_dir {data_dir} lacks {len(missing)} file(s) of the checksum table: {shown}. "
            f"Pass verification_mode='no_checks' to load a partial copy."
        )
    return found
