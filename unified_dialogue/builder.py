"""What every corpus builder shares: configs, fetching (download or ``data_dir``), verified
reads, turning mapped records into Arrow tables in batches, and converting source files
to tables file by file (parallel.py: in this process, or in several with ``num_proc``)."""

import contextlib
import functools
import gc
import hashlib
import itertools
import json
import os
from dataclasses import dataclass
from typing import Callable, List, NamedTuple, Optional

import datasets
import msgspec
import pyarrow as pa
from datasets.utils.info_utils import VerificationMode

from .errors import SourceFormatError
from .parallel import WorkerPool, convert_here
from .sources import FileRecord, download, local_files, mapped_file, read_checksum_table, verify_bytes

LONE_SURROGATE = "a string with a lone surrogate, which is not Unicode text"

# Dialogues per Arrow table: big enough to amortise Arrow's per-call cost, small enough
# that memory is bounded by one file plus one batch.
BATCH_SIZE = 256


@functools.lru_cache(maxsize=None)
def package_hash():
    """A hash of this package's code and checksum tables."""
    digest = hashlib.sha256()
    root = os.path.dirname(os.path.abspath(__file__))
    for folder, _, names in sorted(os.walk(root)):
        for name in sorted(n for n in names if n.endswith((".py", ".tsv"))):
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(name.encode() + f.read())
    return digest.hexdigest()


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector. Parsed JSON and mapped records hold no reference
    cycles, so reference counting frees them; but while a file's million objects are alive,
    every collection would scan them all again, which costs more than the mapping itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_json_list(data, relpath):
    """A source file holding a JSON list, parsed; errors name the file."""
    if not isinstance(data, (str, bytes, bytearray)):  # a mapped file, which json cannot read
        data = bytes(data)
    try:
        with gc_paused():
            records = json.loads(data)
    except ValueError as error:
        raise SourceFormatError(relpath, "whole file", "(json)", f"invalid JSON: {error}") from None
    if not isinstance(records, list):
        raise SourceFormatError(relpath, "whole file", "(top level)", f"expected a list, got {type(records).__name__}")
    return records


# A JSON list's items left undecoded: each is decoded when its record is asked for.
JSON_ITEMS = msgspec.json.Decoder(List[msgspec.Raw])


def decode_json_list(data, relpath, decoder, validate):
    """The records of a JSON list, one at a time as they are asked for, each parsed and
    type-checked in one pass by ``decoder`` (a ``msgspec`` decoder of one record's
    documented types), several times faster than parsing, then checking. One at a time,
    a record is mapped while it is still in the processor's cache: converting SGD took
    9–15% less CPU time than when the whole file was decoded first.

    If the decoder refuses the file or a record, the file is parsed again and every record
    goes through ``validate(record, relpath, index)``, whose errors name the file, the
    record and the field (checked_json_list); if nothing is wrong there, the records from
    that one on are json's.
    """
    try:
        items = JSON_ITEMS.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):  # bytes that are not UTF-8 too
        yield from checked_json_list(data, relpath, validate)
        return
    for index, item in enumerate(items):
        try:
            record = decoder.decode(item)
        except (msgspec.DecodeError, UnicodeDecodeError):
            yield from checked_json_list(data, relpath, validate)[index:]
            return
        yield record


def checked_json_list(data, relpath, validate):
    """A JSON list parsed by ``json``, every record checked by ``validate`` and for a string
    holding a lone surrogate (``"\\ud800"``), which the fast decoder refuses and Arrow
    cannot store either."""
    records = parse_json_list(data, relpath)
    for index, record in enumerate(records):
        validate(record, relpath, index)
        field = not_utf8(record)
        if field is not None:
            raise SourceFormatError(relpath, f"record #{index}", field, LONE_SURROGATE)
    return records


def lazy_batches(items, size):
    """``items`` in batches of ``size``, each an iterator that takes its items only as it
    is consumed; each batch must be consumed wholly before the next is asked for."""
    items = iter(items)
    for first in items:
        yield itertools.chain([first], itertools.islice(items, size - 1))


def not_utf8(value, path=""):
    """The path of the first string in ``value`` (parsed JSON) that UTF-8 cannot encode,
    or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(value)"
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            found = not_utf8(key, f"{where} (the key)") or not_utf8(item, where)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = not_utf8(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def read_verified(path, relpath, record, mapped=False):
    """The bytes of a source file, checked against its checksum table row (None: unchecked).
    With ``mapped``, a local file comes memory-mapped (sources.mapped_file): a bytes-like
    object that json.loads, unlike msgspec, does not take."""
    data = mapped_file(path) if mapped else None
    if data is None:
        with open(path, "rb") as f:  # datasets makes this `open` read URLs when streaming
            data = f.read()
    if record is not None:
        verify_bytes(data, record, path)
    return data


def batched_tables(records, schema, source="(records)"):
    """pa.Tables of BATCH_SIZE records each, made as they are asked for. A string Arrow
    cannot store (a lone surrogate, which JSON allows) is a SourceFormatError naming
    ``source`` (the file), the record's position in it and the field of the record."""
    for start, lazy_batch in zip(itertools.count(0, BATCH_SIZE), lazy_batches(records, BATCH_SIZE)):
        with gc_paused():  # while a batch is mapped and converted, not across the yield
            batch = list(lazy_batch)
            try:
                table = pa.Table.from_pylist(batch, schema=schema)
            except UnicodeEncodeError:
                for offset, record in enumerate(batch):
                    field = not_utf8(record)
                    if field is not None:
                        raise SourceFormatError(source, f"record #{start + offset}", field, LONE_SURROGATE) from None
                raise
        yield table


class FileTask(NamedTuple):
    """One source file to convert: ``convert(data, relpath)`` gives the pa.Tables of its
    bytes, in ``schema``. ``data`` is a bytes-like object: bytes, or a local file mapped
    (read_verified), which decode_json_list and parse_json_list both take."""

    convert: Callable
    schema: pa.Schema
    relpath: str
    path: str
    record: Optional[FileRecord]  # its row of the checksum table; None: not checked

    def read(self):
        return read_verified(self.path, self.relpath, self.record, mapped=True)

    def tables(self, data):
        # Paused for the whole file, not batch by batch: the file's strings, held by the
        # columns or records of a batch, are alive all along, and a collection between
        # batches would scan all of them.
        with gc_paused():
            return list(self.convert(data, self.relpath))


@dataclass
class CorpusConfig(datasets.BuilderConfig):
    """``base_url`` and ``checksums`` point the builder at a mirror and its checksum table
    (a TSV in the bundled tables' format); by default the pinned upstream and bundled table."""

    base_url: Optional[str] = None
    checksums: Optional[str] = None


class CorpusBuilder(datasets.ArrowBasedBuilder):
    CORPUS = None  # set by each corpus builder
    BASE_URL = None
    BUILDER_CONFIG_CLASS = CorpusConfig

    def __init__(self, *args, hash=None, **kwargs):
        # datasets hashes only the builder file: mix in the shared package, so that a
        # cached build never outlives a change of the mapping code.
        combined = hashlib.sha256(f"{hash}:{package_hash()}".encode()).hexdigest()[:16]
        super().__init__(*args, hash=combined, **kwargs)

    def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
        # datasets does not hand the verification mode to _split_generators: keep it.
        self._verify = verification_mode != VerificationMode.NO_CHECKS
        # datasets would give every split a pool of its own (a new pool and manager process
        # per split, files dealt out by count, not size); tables_of_tasks instead starts one
        # WorkerPool for every split's files, and each process takes the next file when free.
        self._num_proc = prepare_split_kwargs.pop("num_proc", None) or 1
        self._planned = []  # the FileTasks of every split, made by file_tasks
        try:
            return super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)
        finally:
            pool, self._pool, self._num_proc, self._planned = getattr(self, "_pool", None), None, 1, []
            if pool is not None:
                pool.close()

    @property
    def verify(self):
        return getattr(self, "_verify", True)

    def checksum_table(self):
        return read_checksum_table(self.config.checksums, corpus=self.CORPUS)

    def fetch(self, dl_manager, paths, local_pattern):
        """Local paths (or URLs when streaming) of the source files, keyed by relative path.

        With ``data_dir``, the files of the local copy that match ``local_pattern``;
        otherwise ``paths`` downloaded from the pinned base URL.
        """
        if self.config.data_dir:
            return local_files(self.config.data_dir, local_pattern, paths, self.verify)
        return download(dl_manager, self.config.base_url or self.BASE_URL, paths, self.CORPUS)

    def read_source(self, path, relpath, verify):
        """The bytes of a source file, checked against the checksum table when ``verify``."""
        return read_verified(path, relpath, self.checksum_table().get(relpath) if verify else None)

    def read_json_list(self, path, relpath, verify):
        """A source file holding a JSON list, parsed and checked."""
        return parse_json_list(self.read_source(path, relpath, verify), relpath)

    def to_tables(self, records, key_prefix):
        """Yield ``(key, pa.Table)`` pairs of BATCH_SIZE records in the builder's schema;
        ``key_prefix`` is the records' file, or their split."""
        for index, table in enumerate(batched_tables(records, self.info.features.arrow_schema, key_prefix)):
            yield f"{key_prefix}:{index}", table

    def file_tasks(self, files, convert, verify):
        """The FileTasks of ``files`` (``(relpath, path)`` pairs), for tables_of_tasks.

        ``convert(data, relpath)`` gives the pa.Tables of one file's bytes, in the builder's
        schema (for records, batched_tables gives them). With ``num_proc`` above 1, worker
        processes convert files at once, so ``convert`` must be picklable: a module-level
        function, or a ``functools.partial`` of one. The workers start on the tasks made so
        far when the first split is written: a loader that makes the tasks of every split
        in ``_split_generators`` keeps them busy from one split to the next; it must ask
        for them (tables_of_tasks) in the order it made them, none left out.
        """
        table = self.checksum_table() if verify else {}
        schema = self.info.features.arrow_schema
        tasks = [FileTask(convert, schema, relpath, path, table.get(relpath)) for relpath, path in files]
        self._planned = getattr(self, "_planned", []) + tasks
        return tasks

    def tables_of_tasks(self, tasks):
        """Yield ``(key, pa.Table)`` pairs for ``tasks`` (from file_tasks), in order."""
        num_proc, planned = getattr(self, "_num_proc", 1), getattr(self, "_planned", [])
        pool = getattr(self, "_pool", None)
        if pool is None and num_proc > 1 and len(planned) > 1:
            pool = self._pool = WorkerPool(planned, num_proc)
        converted = convert_here(tasks) if pool is None else pool.convert_in_order(tasks)
        for task, tables in zip(tasks, converted):
            for index, arrow_table in enumerate(tables):
                yield f"{task.relpath}:{index}", arrow_table
