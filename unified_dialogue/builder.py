"""What every corpus builder shares: configs, fetching (download or ``data_dir``), verified
reads, and turning mapped records into Arrow tables in batches."""

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Optional

import datasets
import pyarrow as pa
from datasets.utils.info_utils import VerificationMode

from .errors import SourceFormatError
from .sources import download, local_files, read_checksum_table, verify_bytes

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

    def _download_and_prepare(self, dl_manager, verification_mode, **kwargs):
        # datasets does not hand the verification mode to _split_generators: keep it.
        self._verify = verification_mode != VerificationMode.NO_CHECKS
        return super()._download_and_prepare(dl_manager, verification_mode, **kwargs)

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
        with open(path, "rb") as f:  # datasets makes this `open` read URLs when streaming
            data = f.read()
        if verify:
            record = self.checksum_table().get(relpath)
            if record is not None:
                verify_bytes(data, record, path)
        return data

    def read_json_list(self, path, relpath, verify):
        """A source file holding a JSON list, parsed and checked."""
        data = self.read_source(path, relpath, verify)
        try:
            records = json.loads(data)
        except ValueError as error:
            raise SourceFormatError(relpath, "whole file", "(json)", f"invalid JSON: {error}") from None
        if not isinstance(records, list):
            raise SourceFormatError(relpath, "whole file", "(top level)", f"expected a list, got {type(records).__name__}")
        return records

    def to_tables(self, records, key_prefix):
        """Yield ``(key, pa.Table)`` pairs of BATCH_SIZE records in the builder's schema."""
        schema = self.info.features.arrow_schema
        batch, index = [], 0
        for record in records:
            batch.append(record)
            if len(batch) == BATCH_SIZE:
                yield f"{key_prefix}:{index}", pa.Table.from_pylist(batch, schema=schema)
                batch, index = [], index + 1
        if batch:
            yield f"{key_prefix}:{index}", pa.Table.from_pylist(batch, schema=schema)
