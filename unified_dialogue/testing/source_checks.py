"""The checks of where the source files come from, part of ``CorpusTestCase``: a local copy
(a changed file read again, a file the checksum table lacks, a copy lacking a file, a folder
without the corpus) and downloads from a server on 127.0.0.1 (verified, corrupted, cut short,
silent, offline)."""

import re
import shutil
import time
from urllib.parse import urlparse

import pytest

from .. import load
from ..core.errors import ChecksumError, DownloadError, MissingFilesError, SourceFormatError
from .mirror import Mirror, SilentServer, closed_url


class SourceChecks:
    """Local copies and downloads; ``CorpusTestCase`` holds the declarations these read."""

    # ------------------------------------------------------------ a local copy

    def test_a_changed_local_file_is_read_again_not_served_from_the_cache(self, tmp_path):
        copy = self.copy(tmp_path)
        cache = str(tmp_path / "cache")
        first = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=cache)
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        path = copy / relpath
        path.write_bytes(path.read_bytes().rstrip() + b" \n")  # same records, other bytes
        with pytest.raises(ChecksumError, match=f"{relpath}.*differs from the published files, pass verify=False"):
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=cache)
        again = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=cache,
                     verification_mode="no_checks")
        assert {s: d.to_list() for s, d in again.items()} == {s: d.to_list() for s, d in first.items()}
        # that unchecked build must not answer a load that asks for the checks
        with pytest.raises(ChecksumError, match=relpath):
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=cache)

    def test_a_data_file_the_table_does_not_list_is_an_error(self, build, tmp_path):
        copy = self.copy(tmp_path)
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        source = copy / relpath
        stray = source.with_name(f"{source.stem} (copy){source.suffix}")
        shutil.copy(source, stray)
        stray_relpath = stray.relative_to(copy).as_posix()
        if not any(self.info.files_of_split(s, [stray_relpath]) for s in self.info.splits):
            # no file the loader reads: ignored
            built = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "c"))
            assert {s: d.to_list() for s, d in built.items()} == {s: d.to_list() for s, d in build(self.corpus).items()}
            return
        with pytest.raises(ChecksumError, match=f"{re.escape(stray_relpath)}.*not in the checksum table"):
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "c"))

    def test_a_copy_lacking_a_file_loads_with_verify_false(self, tmp_path):
        copy = self.copy(tmp_path)
        split = list(self.expected_counts)[-1]
        relpath = self.data_files(split)[-1]
        (copy / relpath).unlink()
        if sum(len(self.data_files(s)) for s in self.expected_counts) == 1:  # nothing left to load
            with pytest.raises(MissingFilesError, match="holds none of the files"):
                load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, verify=False,
                     cache_dir=str(tmp_path / "a"))
            return
        for streaming in (False, True):  # one word, streamed or not
            with pytest.raises(MissingFilesError, match=f"{relpath}.*To load a partial copy, pass verify=False$"):
                load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "a"),
                     streaming=streaming)
        partial = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "b"),
                       verify=False)
        whole = sum(c["dialogues"] for c in self.expected_counts.values())
        assert 0 < sum(ds.num_rows for ds in partial.values()) < whole
        unchecked = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "b"),
                         verification_mode="no_checks")  # datasets' own argument
        assert {s: ds.to_list() for s, ds in unchecked.items()} == {s: ds.to_list() for s, ds in partial.items()}
        with pytest.raises(MissingFilesError, match=relpath):  # the partial build is not reused
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "b"))
        streamed = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, streaming=True, verify=False)
        assert {s: list(ds) for s, ds in streamed.items()} == {s: ds.to_list() for s, ds in partial.items()}

    @pytest.mark.parametrize("mode", ["basic_checks", "no_checks"])
    def test_a_data_dir_without_the_corpus_is_an_error_naming_it(self, tmp_path, mode):
        missing = tmp_path / "nowhere"
        with pytest.raises(MissingFilesError, match=f"{missing} does not exist"):
            load(self.corpus, data_dir=str(missing), cache_dir=str(tmp_path / "a"), verification_mode=mode)
        empty = tmp_path / "empty"
        empty.mkdir()
        (empty / "README.md").write_text("not the corpus")
        with pytest.raises(MissingFilesError, match=f"{empty} holds none of the files"):
            load(self.corpus, data_dir=str(empty), cache_dir=str(tmp_path / "b"), verification_mode=mode)

    # ------------------------------------------------------------ downloads

    @pytest.fixture
    def mirror(self):
        """A server on 127.0.0.1 serving the fixtures in the upstream URL layout."""
        server = Mirror(self.fixtures, urlparse(self.info.base_url).path)
        yield server
        server.close()

    def test_download_verifies_and_builds_the_same_records(self, build, tmp_path, mirror):
        downloaded = load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path))
        streamed = load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, streaming=True)
        for split, ds in build(self.corpus).items():
            assert downloaded[split].to_list() == ds.to_list() == list(streamed[split]), split

    def test_a_corrupted_download_fails_and_is_not_kept(self, tmp_path, mirror):
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        mirror.corrupted.add(relpath)
        with pytest.raises(ChecksumError, match=f"{relpath}.*Loading again downloads it again; if the published file "
                                                "itself has changed, pass verify=False"):
            load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path))
        mirror.corrupted.clear()  # the mirror is fixed: the same cache must not fail again
        fixed = load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path))
        assert fixed.num_rows == {s: c["dialogues"] for s, c in self.expected_counts.items()}

    def test_a_corrupted_download_read_without_checks_is_not_kept_either(self, tmp_path, mirror):
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        mirror.corrupted.add(relpath)  # its closing bracket is overwritten: not JSON
        with pytest.raises(SourceFormatError, match=f"^{re.escape(relpath)}: whole file"):
            load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path),
                 verification_mode="no_checks")
        mirror.corrupted.clear()
        fixed = load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path),
                     verification_mode="no_checks")
        assert fixed.num_rows == {s: c["dialogues"] for s, c in self.expected_counts.items()}

    def test_a_transfer_cut_short_is_a_download_error_naming_the_url(self, tmp_path, mirror):
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        mirror.cut_short.add(relpath)
        with pytest.raises(DownloadError, match=f"{mirror.url}/{relpath}"):
            load(self.corpus, base_url=mirror.url, checksums=self.checksum_table, cache_dir=str(tmp_path))

    @pytest.mark.parametrize("streaming", [False, True])
    def test_a_server_that_never_answers_fails_in_bounded_time(self, tmp_path, streaming):
        server = SilentServer()
        started = time.monotonic()
        try:
            with pytest.raises(DownloadError, match=server.url):
                built = load(self.corpus, base_url=server.url, checksums=self.checksum_table, cache_dir=str(tmp_path),
                             download_timeout=0.5, streaming=streaming)
                for ds in built.values():
                    list(ds)
        finally:
            server.close()
        assert time.monotonic() - started < 10  # far below the default timeout (30 s): the option was used

    @pytest.mark.parametrize("streaming", [False, True])
    def test_offline_fails_at_the_first_file_with_the_local_copy_hint(self, tmp_path, streaming):
        url = closed_url()
        started = time.monotonic()
        with pytest.raises(DownloadError, match=f"could not download {url}/.*data_dir='path/to/copy'") as caught:
            built = load(self.corpus, base_url=url, checksums=self.checksum_table, cache_dir=str(tmp_path),
                         streaming=streaming)
            for ds in built.values():
                list(ds)
        assert "load_dataset" not in str(caught.value)  # load(), not load_dataset, was called
        assert time.monotonic() - started < 10
