"""Arrow tables in and out of a build: source records made into tables a batch at a time,
and the columns of a split file datasets wrote read back a batch at a time."""

import contextlib
import gc
import itertools

import pyarrow as pa

from .errors import SourceFormatError
from .validation import lone_surrogate

# Records per Arrow table: big enough to amortise Arrow's per-call cost. A file's tables
# are all made before they are written (builder.CorpusBuilder._generate_tables), so memory holds one source
# file, its records as Python objects while they are mapped, and its tables.
BATCH_SIZE = 256


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


def lazy_batches(items, size):
    """``items`` in batches of ``size``, each an iterator that takes its items only as it
    is consumed; each batch must be consumed wholly before the next is asked for."""
    items = iter(items)
    for first in items:
        yield itertools.chain([first], itertools.islice(items, size - 1))


def batched_tables(records, schema, file):
    """pa.Tables of BATCH_SIZE records each, made as they are asked for. A string Arrow
    cannot store is a SourceFormatError naming ``file``, the record's position and field."""
    for start, lazy_batch in zip(itertools.count(0, BATCH_SIZE), lazy_batches(records, BATCH_SIZE)):
        batch = list(lazy_batch)
        try:
            table = pa.Table.from_pylist(batch, schema=schema)
        except UnicodeEncodeError:
            for offset, record in enumerate(batch):
                field = lone_surrogate(record)
                if field is not None:
                    raise SourceFormatError(file, f"record #{start + offset}", field,
                                            "a string with a lone surrogate, which is not Unicode text") from None
            raise
        yield table


def read_columns(fs, path, columns):
    """Record batches of ``columns`` of a split file written by datasets (Arrow stream or
    Parquet), one batch in memory at a time."""
    with fs.open(path, "rb") as f:
        if path.endswith(".parquet"):
            import pyarrow.parquet as pq

            yield from pq.ParquetFile(f).iter_batches(columns=list(columns))
        else:
            for batch in pa.ipc.open_stream(f):
                yield batch.select(list(columns))
