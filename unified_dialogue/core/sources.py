"""Where the source files come from, and checking that they are the published ones.

A checksum table (TSV: ``path``, ``num_bytes``, ``sha256``) lists every upstream file of a
corpus, relative to the corpus's pinned base URL; it is also the list of files to fetch.
``unknown`` in a column means the figure is not known yet: that check is skipped, visibly.
"""

import contextlib
import contextvars
import csv
import glob
import hashlib
import json
import mmap
import os
from dataclasses import dataclass

import datasets

from .errors import ChecksumError, ConfigError, DownloadError, MissingFilesError

UNKNOWN = "unknown"
# The columns of a checksum table, in the order its files write them.
TABLE_COLUMNS = ("path", "num_bytes", "sha256")
# Seconds a download may wait for the server (to connect, or for the next bytes) before it
# fails; a corpus config's ``download_timeout`` changes it.
DOWNLOAD_TIMEOUT = 30.0
# How the loader was called, so that a hint names what works there: ``load_dataset`` (a
# loading script, datasets 3.x), ``load`` (unified_dialogue.load), ``cli`` (the commands)
# ``lm-eval`` (the harness tasks, whose load options are lm-eval's metadata) or ``inspect``
# (the inspect-ai tasks, whose load options are task arguments, ``-T name=value``). Set by
# those entry points.
CALLER = contextvars.ContextVar("caller", default=None)


@contextlib.contextmanager
def called_from(name):
    """Hints name what works in ``name`` (a ``CALLER`` value) for the loads made inside."""
    token = CALLER.set(name)
    try:
        yield
    finally:
        CALLER.reset(token)


def caller():
    default = "load_dataset" if int(datasets.__version__.split(".")[0]) < 4 else "load"
    return CALLER.get() or default


def local_copy_hint(corpus, called_by):
    """How to load a local copy instead of downloading, for where the user is."""
    hint = {
        "load_dataset": f"load_dataset('loaders/{corpus}', data_dir='path/to/copy', trust_remote_code=True)",
        "load": f"unified_dialogue.load('{corpus}', data_dir='path/to/copy')",
        "cli": "--data-dir path/to/copy",
        "lm-eval": f"--metadata '{{\"data_dir\": {{\"{corpus}\": \"path/to/copy\"}}}}'",
        "inspect": "-T data_dir=path/to/copy",
    }[called_by]
    return f"Without network, load a local copy in the upstream layout: {hint}"


def argument(name, value=True):
    """How the user sets argument ``name`` where they are: the command's flag
    (``--allow-missing``), lm-eval's metadata (``--metadata '{"checksums": ...}'``) or the
    function's keyword (``allow_missing=True``)."""
    if caller() == "cli":
        flag = "--" + name.replace("_", "-")
        return flag if value is True else f"{flag} {value}"
    if caller() == "lm-eval":
        return f"--metadata '{json.dumps({name: value})}'"
    if caller() == "inspect":
        return f"-T {name}={json.dumps(value)}"
    return f"{name}={value!r}"


def no_verify(called_by):
    """How the user turns the checks of sizes, sha256 and the list of files off where they
    are (a partial or changed copy): one word, ``verify``, in each surface's form. In
    Python it is the corpus option ``verify=False``, which works streamed and not (datasets
    gives its own ``verification_mode`` to no streaming build)."""
    return {"load_dataset": "verify=False", "load": "verify=False", "cli": "--no-verify",
            "lm-eval": "--metadata '{\"verify\": false}'", "inspect": "-T verify=false"}[called_by]


def partial_copy_hint(called_by):
    """How to load a copy that lacks files of the checksum table, for where the user is."""
    return f"pass {no_verify(called_by)}"


def mismatch_hint(local, called_by):
    """What to do about a file that is not the published one: turn the checks off for a
    local copy changed on purpose; a download is fetched again (or the published file changed)."""
    if local:
        return f". To load a copy that differs from the published files, pass {no_verify(called_by)}"
    return f". Loading again downloads it again; if the published file itself has changed, pass {no_verify(called_by)}"


@dataclass(frozen=True)
class FileRecord:
    path: str
    num_bytes: object  # int, or UNKNOWN
    sha256: str  # hex digest, or UNKNOWN


def read_checksum_table(path):
    """Rows of a checksum table, keyed by relative path; a table that cannot be read (no
    such file, a folder, another format, such as ``sha256sum``'s) is a ConfigError naming
    the file and line, where the user gave it (``checksums``)."""
    where = argument('checksums', str(path))
    if os.path.isdir(path):
        raise ConfigError(f"{where}: a folder; give the checksum table (a TSV file with the columns "
                          f"{', '.join(TABLE_COLUMNS)})")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where}: cannot be read ({error.strerror or error})") from None
    rows = csv.DictReader(lines, delimiter="\t")
    if not set(TABLE_COLUMNS) <= set(rows.fieldnames or ()):
        raise ConfigError(f"{where}, line 1: not a checksum table: its first line names the tab-separated columns "
                          f"{', '.join(TABLE_COLUMNS)} (as loaders/<corpus>/checksums.tsv does)")
    table = {}
    for number, row in enumerate(rows, start=2):
        size = row["num_bytes"]
        if not row["sha256"] or not (size == UNKNOWN or str(size).isdigit()):
            raise ConfigError(f"{where}, line {number}: not path, num_bytes and sha256 separated by tabs "
                              f"(num_bytes a number of bytes or {UNKNOWN!r})")
        table[row["path"]] = FileRecord(row["path"], size if size == UNKNOWN else int(size), row["sha256"])
    return table


def write_checksum_table(folder, path, exclude=()):
    """Write a checksum table of every file under ``folder`` to ``path`` (paths relative to
    ``folder``, in sorted order; a file whose name is in ``exclude`` left out) and return
    ``path``. Links to one file are hashed once: a replicated input links it many times."""
    digests, rows = {}, ["\t".join(TABLE_COLUMNS)]
    files = sorted(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
                   for root, _, names in os.walk(folder) for name in names if name not in exclude)
    for relpath in files:
        real = os.path.realpath(os.path.join(folder, relpath))
        if real not in digests:
            digests[real] = (os.path.getsize(real), file_sha256(real))
        rows.append(f"{relpath}\t{digests[real][0]}\t{digests[real][1]}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    return str(path)


def verify_bytes(data, record, name, hint=""):
    """Raise ChecksumError unless ``data`` has the size and sha256 that ``record`` lists;
    its message ends with ``hint`` (what to do about it)."""
    if record.num_bytes != UNKNOWN and len(data) != record.num_bytes:
        raise ChecksumError(f"{name}: size mismatch for {record.path}: expected {record.num_bytes} bytes, "
                            f"got {len(data)}{hint}")
    if record.sha256 != UNKNOWN:
        digest = hashlib.sha256(data).hexdigest()
        if digest != record.sha256:
            raise ChecksumError(f"{name}: sha256 mismatch for {record.path}: expected {record.sha256}, "
                                f"got {digest}{hint}")


def file_sha256(path):
    """The sha256 of a file, read a block at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------- a local copy

def local_files(data_dir, patterns, table, verify, partial_hint):
    """The files of a local copy matching ``patterns``, keyed by path relative to ``data_dir``.

    Errors: a ``data_dir`` that is no folder or holds none of these files, always; with
    ``verify``, a file the checksum table does not list (it would be read unchecked) and
    files the table lists that the copy lacks.
    """
    if not os.path.isdir(data_dir):
        raise MissingFilesError(f"data_dir {data_dir} does not exist or is not a folder")
    found = {
        os.path.relpath(path, data_dir).replace(os.sep, "/"): path
        for pattern in patterns
        for path in sorted(glob.glob(os.path.join(glob.escape(data_dir), pattern)))
        if os.path.isfile(path)
    }
    if not found:
        raise MissingFilesError(f"data_dir {data_dir} holds none of the files the loader reads "
                                f"({', '.join(patterns)}, in the upstream layout)")
    if not verify:
        return found
    unlisted = sorted(set(found) - set(table))
    if unlisted:
        raise ChecksumError(f"data_dir {data_dir}: {_some(unlisted)} not in the checksum table, so it would be "
                            f"read unverified: remove it, name a table that lists it "
                            f"({argument('checksums', 'path/to/SHA256SUMS.tsv')}), or "
                            f"{partial_hint}")
    missing = sorted(set(table) - set(found))
    if missing:
        raise MissingFilesError(f"data_dir {data_dir} lacks {len(missing)} file(s) of the checksum table: "
                                f"{_some(missing)}. To load a partial copy, {partial_hint}")
    return found


def fingerprint(data_dir, patterns):
    """What identifies the state of a local copy's files: their paths, sizes and
    modification times. A changed file changes it, so a cached build is not reused."""
    digest = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(glob.escape(data_dir), pattern))):
            stat = os.stat(path)
            digest.update(f"{os.path.relpath(path, data_dir)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _some(paths, shown=5):
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


# ---------------------------------------------------------------- downloads

def with_timeout(storage_options, seconds):
    """A copy of ``datasets``' ``storage_options`` in which every wait of an HTTP transfer
    is bounded by ``seconds``, unless those options set a timeout of their own. Options
    given without a protocol apply, as in ``datasets``, to protocols without options of
    their own; proxies from the environment are used, as ``datasets`` does."""
    import aiohttp
    import fsspec

    timeout = aiohttp.ClientTimeout(total=None, sock_connect=seconds, sock_read=seconds)
    options = dict(storage_options or {})
    shared = {k: v for k, v in options.items() if k not in fsspec.available_protocols()}
    for protocol in ("http", "https"):
        own = dict(options[protocol] if protocol in options else shared)
        own["client_kwargs"] = {"trust_env": True, "timeout": timeout, **(own.get("client_kwargs") or {})}
        options[protocol] = own
    return options


def download(dl_manager, urls, hint):
    """``{relpath: local path}`` of ``urls`` (``{relpath: url}``) downloaded into the cache,
    one at a time, so that the first failure ends the download and names its URL (with
    datasets' parallel download, every other file is tried before the error shows).
    When streaming, the URLs themselves: each is read as it is needed (read_source)."""
    files = {}
    for relpath, url in urls.items():
        try:
            files[relpath] = dl_manager.download(url)
        except DownloadError:
            raise
        except Exception as error:  # fsspec, aiohttp, httpx and huggingface_hub each have their own
            raise download_error(url, hint, error) from error
    return files


def download_error(url, hint, error):
    return DownloadError(f"could not download {url} ({type(error).__name__}: {error}). {hint}")


def is_url(path):
    return "://" in str(path)


def read_source(path, storage_options=None, hint=""):
    """The bytes of a source file: a local file memory-mapped (mapped_file) where it can
    be, else read; a URL (when streaming) fetched with the ``storage_options`` of its
    protocol (see with_timeout)."""
    if is_url(path):
        import fsspec

        try:
            with fsspec.open(path, "rb", **(storage_options or {}).get(path.split("://")[0], {})) as f:
                return f.read()
        except Exception as error:
            raise download_error(path, hint, error) from error
    data = mapped_file(path)
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    return data


def mapped_file(path):
    """The bytes of a local file, memory-mapped read-only; None if it cannot be mapped (an
    empty file), or on Windows, where a mapped file cannot be replaced and an error's
    traceback can keep it mapped. Parsing from the page cache spares copying the file into
    new memory, whose first use costs a page fault every 4 KiB. (Like any mapped file, one
    truncated by another program while it is read would crash the process with SIGBUS;
    source files are not written during a build.)"""
    if os.name != "posix":
        return None
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return None
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def discard_download(path):
    """Remove a downloaded file (and datasets' notes of it) from the download cache, so
    that the next load downloads it again instead of failing on the same bytes."""
    for leftover in (path, f"{path}.json", f"{path}.lock"):
        try:
            os.remove(leftover)
        except OSError:
            pass
