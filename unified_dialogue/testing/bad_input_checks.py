"""The checks of bad input, part of ``CorpusTestCase``: every ``Mutation`` of the catalogue,
in every config it applies to, prepared and streamed, is a ``SourceFormatError`` naming the
file, the record and the field, soon; in a worker process too, and through
``datasets.load_dataset``."""

import time
from typing import NamedTuple

import datasets
import pytest

from .. import load
from ..core.errors import SourceFormatError
from .loads import ONLY_DATASETS_3, write_checksums
from .mutations import KINDS, Mutation


class BadInput(NamedTuple):
    """One case of the bad-input check: a mutation, a config it applies to, and whether the
    config is streamed (else prepared)."""

    mutation: Mutation
    config: str
    streaming: bool

    @property
    def id(self):
        return f"{self.mutation.kind}-{self.config}-{'stream' if self.streaming else 'prepared'}"


class BadInputChecks:
    """Bad input; ``CorpusTestCase`` holds the declarations these read."""

    def bad_inputs(self):
        """Every ``BadInput`` of the catalogue: each mutation in each config it applies to
        (its own ``configs``, else ``data_configs``, else every config), prepared and streamed."""
        return [BadInput(m, config, streaming) for m in self.mutations
                for config in (m.configs or self.data_configs or self.info.config_names)
                for streaming in (False, True)]

    def mutated_copy(self, tmp_path, mutation):
        """A copy of the excerpt with ``mutation`` applied."""
        copy = self.copy(tmp_path)
        path = copy / mutation.file
        path.write_bytes(mutation.change(path.read_bytes()))
        return copy

    def test_the_catalogue_covers_every_kind_of_bad_input(self):
        assert set(KINDS) - set(self.impossible) <= {m.kind for m in self.mutations}

    def test_bad_input_is_an_error_naming_file_record_and_field(self, tmp_path, bad_input):
        mutation, config, streaming = bad_input
        copy = self.mutated_copy(tmp_path, mutation)
        table = write_checksums(copy)  # verification stays on: the error is the format's
        started = time.monotonic()
        with pytest.raises(SourceFormatError) as caught:
            if streaming:
                for ds in load(self.corpus, config, data_dir=str(copy), checksums=table, streaming=True).values():
                    list(ds)
            else:
                load(self.corpus, config, data_dir=str(copy), checksums=table, cache_dir=str(tmp_path / "cache"))
        error, file = caught.value, mutation.named_file or mutation.file
        assert (error.file, error.record, error.field) == (file, mutation.record, mutation.field), str(error)
        assert str(error).startswith(f"{file}: {mutation.record}: field '{mutation.field}': ")
        if mutation.also:
            assert mutation.also in str(error)
        assert time.monotonic() - started < 10

    def test_an_error_in_a_worker_process_names_the_place_too(self, tmp_path):
        mutation = next(m for m in self.mutations if m.kind == "wrong type")
        copy = self.mutated_copy(tmp_path, mutation)
        with pytest.raises(SourceFormatError) as caught:
            load(self.corpus, data_dir=str(copy), checksums=write_checksums(copy), cache_dir=str(tmp_path / "c"),
                 num_proc=2)
        assert (caught.value.file, caught.value.record, caught.value.field) == \
            (mutation.file, mutation.record, mutation.field)

    @ONLY_DATASETS_3
    def test_load_dataset_shows_the_loaders_own_error(self, tmp_path):
        mutation = next(m for m in self.mutations if m.kind == "missing key")
        copy = self.mutated_copy(tmp_path, mutation)
        with pytest.raises(SourceFormatError) as caught:  # not datasets' DatasetGenerationError
            datasets.load_dataset(self.info.folder, data_dir=str(copy), checksums=write_checksums(copy),
                                  cache_dir=str(tmp_path / "c"), trust_remote_code=True)
        assert (caught.value.file, caught.value.field) == (mutation.file, mutation.field)
        assert caught.value.__cause__ is None and caught.value.__suppress_context__
