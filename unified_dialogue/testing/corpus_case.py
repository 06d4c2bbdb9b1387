"""The shared corpus test case, ``CorpusTestCase``: every check a corpus must pass, on both
``datasets`` lines, run on a small excerpt of the corpus that its test declares.

It is a pytest test class (a subclass named ``Test<Name>`` is collected by pytest; its
``pytest_generate_tests`` parametrizes the tests by config, view and bad input), so this
module imports pytest: it can be imported where pytest is installed, which the package
itself does not need.
"""

import json
import os
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import datasets
import pytest

from .. import UNIFIED_FEATURES, load, registry
from ..core.errors import ChecksumError, DownloadError, MissingFilesError, SourceFormatError
from ..core.sources import write_checksum_table
from .mirror import Mirror, SilentServer, closed_url
from .mutations import KINDS

DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
ONLY_DATASETS_3 = pytest.mark.skipif(
    DATASETS_MAJOR >= 4, reason="datasets >= 4 cannot run loading scripts; the import entry point is tested instead"
)
ONLY_DATASETS_4_PLUS = pytest.mark.skipif(DATASETS_MAJOR < 4, reason="datasets 3.x still runs loading scripts")
# The name of a copy's checksum table, in the copy's folder.
FIXTURE_CHECKSUMS = "SHA256SUMS.tsv"

# Builds of the fixtures, made once per process: ``(corpus, fixtures, checksums, config,
# options)`` -> the DatasetDict.
_BUILDS = {}


def build_once(tmp_path_factory, corpus, fixtures, checksums, config="unified", **options):
    """``load(corpus, config, **options)`` of the copy in ``fixtures`` with its checksum
    table, built once per process (later calls return the same DatasetDict)."""
    key = (corpus, str(fixtures), str(checksums), config, tuple(sorted(options.items())))
    if key not in _BUILDS:
        cache_dir = tmp_path_factory.mktemp(f"{corpus}-{config}")
        _BUILDS[key] = load(corpus, config, data_dir=str(fixtures), checksums=str(checksums),
                            cache_dir=str(cache_dir), **options)
    return _BUILDS[key]


def read_json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


class CorpusTestCase:
    """The checks every corpus passes. A corpus's test is a subclass that declares its data.

    You must set:

    - ``corpus``: the corpus's name in the registry (a corpus of your own is found through
      ``UNIFIED_DIALOGUE_CORPORA``, which must be set before pytest collects the test: the
      parametrization asks the registry);
    - ``fixtures``: the folder of a small excerpt of the corpus in the upstream layout,
      holding its checksum table ``SHA256SUMS.tsv`` (the columns of ``checksums.tsv``);
    - ``expected_counts``: ``{split: {"dialogues": n, "turns": n}}`` of the ``unified``
      config, for every split the excerpt has;
    - ``expected_record``: the path of a JSON file holding one ``unified`` record, written
      out in full;
    - ``mutations``: the catalogue of bad inputs (``Mutation``), at least one of each kind
      in ``KINDS`` that the format can have;
    - where the corpus has task views: ``source_rows(view, split)``, the rows a view has in
      a split counted in the source files, and ``prefixes(record)``, how a source record is
      cut after each turn (see their docstrings).

    You may set:

    - ``checksums``: another checksum table of the excerpt;
    - ``expected_rows``: ``{config: {split: rows}}`` of the other configs;
    - ``reverse``: ``{config: function(Dataset of a split) -> the split's source records}``,
      checked to rebuild the source files (as JSON, or byte for byte with ``dump``, a
      function from a file's source records to its text);
    - ``data_configs``: the configs that read the data files, where not all do (the
      mutations apply to them by default);
    - ``spans``: False where the source annotates no character spans;
    - ``impossible``: ``{kind: why}`` for the kinds of bad input the format cannot have.

    Tests of what only the corpus has go in the subclass too; they may use the ``build``
    fixture, ``build(corpus, config="unified", **options)``, a load of the excerpt made
    once per process.
    """

    corpus = None
    fixtures = None
    checksums = None
    expected_counts = {}
    expected_rows = {}
    expected_record = None
    reverse = {}
    dump = None
    data_configs = None
    spans = True
    mutations = ()
    impossible = {}

    # ------------------------------------------------------------ parametrisation

    def pytest_generate_tests(self, metafunc):
        corpus = registry.get(self.corpus)
        if "view" in metafunc.fixturenames:
            metafunc.parametrize("view", [config.name for config in corpus.views])
        elif "mutation" in metafunc.fixturenames:
            cases = [(m, config, streaming) for m in self.mutations
                     for config in (m.configs or self.data_configs or corpus.config_names)
                     for streaming in (False, True)]
            metafunc.parametrize("mutation,config,streaming", cases,
                                 ids=[f"{m.kind}-{c}-{'stream' if s else 'prepared'}" for m, c, s in cases])
        elif "config" in metafunc.fixturenames:
            rebuilt = metafunc.function.__name__ == "test_round_trip_rebuilds_the_source"
            metafunc.parametrize("config", list(self.reverse) if rebuilt else corpus.config_names)

    @property
    def info(self):
        return registry.get(self.corpus)

    @property
    def checksum_table(self):
        return str(self.checksums or os.path.join(self.fixtures, FIXTURE_CHECKSUMS))

    @pytest.fixture
    def build(self, tmp_path_factory):
        """``build(corpus, config="unified", **options)``: the excerpt loaded, once per process."""
        def _build(corpus, config="unified", **options):
            assert corpus == self.corpus, f"the {self.corpus} test case builds {self.corpus}, not {corpus}"
            return build_once(tmp_path_factory, corpus, self.fixtures, self.checksum_table, config, **options)
        return _build

    def load(self, *args, **kwargs):
        kwargs.setdefault("data_dir", str(self.fixtures))
        kwargs.setdefault("checksums", self.checksum_table)
        return load(self.corpus, *args, **kwargs)

    def copy(self, tmp_path):
        copy = tmp_path / "copy"
        shutil.copytree(self.fixtures, copy)
        return copy

    def data_files(self, split):
        """Relative paths of the fixture files of a split."""
        fixtures = Path(self.fixtures)
        relpaths = [p.relative_to(fixtures).as_posix() for p in fixtures.rglob("*") if p.is_file()]
        return self.info.files_of_split(split, relpaths)

    # ------------------------------------------------------------ the built data

    def test_features_are_the_declared_ones(self, build, config):
        for split, ds in build(self.corpus, config).items():
            assert ds.features == self.info.config(config).features, split
        if config == "unified":
            assert self.info.config(config).features == UNIFIED_FEATURES

    def test_exact_counts_per_split(self, build):
        dsd = build(self.corpus)
        assert sorted(dsd) == sorted(self.expected_counts)
        for split, ds in dsd.items():
            turns = sum(len(r["dialog"]) for r in ds)
            assert (ds.num_rows, turns) == (self.expected_counts[split]["dialogues"],
                                            self.expected_counts[split]["turns"]), split
        for config, rows in self.expected_rows.items():
            assert {s: ds.num_rows for s, ds in build(self.corpus, config).items()} == rows, config

    def source_rows(self, view, split):
        """The rows ``view`` has in ``split``, counted in the source fixture files (the
        turns of the role it is about)."""
        raise NotImplementedError(f"{self.corpus}: count the rows of {view} in the source")

    def test_each_view_has_as_many_rows_as_the_source_has_turns_for_it(self, build, view):
        for split, ds in build(self.corpus, view).items():  # a chat config has its view's rows
            assert ds.num_rows == self.source_rows(view.removesuffix("-chat"), split) > 0, split

    def prefixes(self, record):
        """``(t, cut, its id, the record's id)`` for each turn t of a source record (parsed
        JSON) that views have rows for: the record cut after turn t, under an id of its own;
        ids as the unified records' ``original_id``."""
        raise NotImplementedError(f"{self.corpus}: say how a source record is cut after a turn")

    def test_view_rows_use_nothing_after_their_turn(self, build, tmp_path, view):
        """The row of turn t built from the source dialogue cut after t (mapped to the
        unified schema, canonical values and all, then viewed) is the row built from the
        whole dialogue. A row about a whole dialogue (no turn) is checked on the cut after
        the dialogue's last turn."""
        copy = self.copy(tmp_path)
        origin = {}  # (split, id of a cut) -> (id of its dialogue, t)
        last = {}  # (split, id of a dialogue) -> its last turn with a cut
        for split in self.expected_counts:
            for relpath in self.data_files(split):
                cuts = []
                for record in json.loads((copy / relpath).read_text(encoding="utf-8")):
                    for t, cut, cut_id, record_id in self.prefixes(record):
                        cuts.append(cut)
                        origin[(split, cut_id)] = (record_id, t)
                        last[(split, record_id)] = max(t, last.get((split, record_id), t))
                (copy / relpath).write_text(json.dumps(cuts, ensure_ascii=False), encoding="utf-8")
        built = load(self.corpus, view, data_dir=str(copy), checksums=write_checksums(copy),
                     cache_dir=str(tmp_path / "cache"))
        checked = 0
        for split, ds in build(self.corpus, view).items():
            # A turn may have several rows (d3st: one per frame), told apart by the end of their ids.
            whole = {(original_of(row), turn_of(row), within_turn(row)): without_ids(row) for row in ds}
            for row in built[split]:
                dialogue, t = origin[(split, original_of(row))]
                turn = turn_of(row)
                if turn == t or (turn is None and t == last[(split, dialogue)]):
                    assert without_ids(row) == whole[(dialogue, turn, within_turn(row))], (split, dialogue, t)
                    checked += 1
            assert checked, split
        assert checked == sum(ds.num_rows for ds in build(self.corpus, view).values())

    def test_splits_are_declared_in_order(self, build):
        assert list(build(self.corpus)) == [s for s in self.info.splits if s in self.expected_counts]

    def test_ids_unique_and_consistent(self, build):
        seen = set()
        for split, ds in build(self.corpus).items():
            for position, record in enumerate(ds):
                assert record["dialogue_id"] not in seen
                seen.add(record["dialogue_id"])
                assert (record["corpus"], record["split"]) == (self.corpus, split)
                original = record["original_id"]
                own_id = original if original is not None else f"#{position}"
                assert record["dialogue_id"] == f"{self.corpus}/{split}/{own_id}"

    def test_every_span_text_equals_its_value(self, build):
        checked = 0
        for ds in build(self.corpus).values():
            for record in ds:
                for t, turn in enumerate(record["dialog"]):
                    for field, value, start, end in spans_of(turn):
                        assert turn["utterance"][start:end] == value, (record["dialogue_id"], t, field)
                        checked += 1
        assert checked > 0 if self.spans else checked == 0

    def test_no_dialogue_in_two_plain_splits(self, build):
        owner = {}
        for split, ds in build(self.corpus).items():
            if split in self.info.split_unions:
                continue
            for record in ds:
                key = content_key(record)
                assert key not in owner, f"{record['dialogue_id']} also in {owner.get(key)}"
                owner[key] = split

    def test_union_splits_hold_exactly_their_parts(self, build):
        dsd = build(self.corpus)
        for union, parts in self.info.split_unions.items():
            in_parts = sum((Counter(content_key(r) for r in dsd[part]) for part in parts), Counter())
            assert Counter(content_key(r) for r in dsd[union]) == in_parts, union
            assert all(count == 1 for count in in_parts.values()), union

    def test_whole_record_matches_the_expected_one(self, build):
        expected = read_json(self.expected_record)
        split = expected["split"]
        (record,) = [r for r in build(self.corpus)[split] if r["dialogue_id"] == expected["dialogue_id"]]
        assert record == expected

    def test_round_trip_rebuilds_the_source(self, build, config):
        for split, ds in build(self.corpus, config).items():
            rebuilt = self.reverse[config](ds)
            start = 0
            for relpath in self.data_files(split):
                text = (Path(self.fixtures) / relpath).read_text(encoding="utf-8")
                source = json.loads(text)
                part, start = rebuilt[start:start + len(source)], start + len(source)
                if self.dump is not None:
                    assert self.dump(part) == text, relpath  # byte for byte
                else:
                    assert json.dumps(part) == json.dumps(source), relpath  # the same JSON, key order included
            assert start == len(rebuilt), split

    def test_streaming_yields_the_prepared_records(self, build, config):
        for split, ds in build(self.corpus, config).items():
            streamed = self.load(config, split=split, streaming=True)
            assert isinstance(streamed, datasets.IterableDataset)
            assert list(streamed) == ds.to_list(), split

    def test_two_processes_give_the_same_records(self, build, config):
        one, two = build(self.corpus, config), build(self.corpus, config, num_proc=2)
        for split in one:
            assert two[split].to_list() == one[split].to_list(), split

    def test_each_streaming_shard_is_a_file_of_its_own(self):
        from datasets.distributed import split_dataset_by_node

        for split in self.expected_counts:
            files = self.data_files(split)
            streamed = self.load(split=split, streaming=True)
            assert streamed.n_shards == len(files), split
            if len(files) < 2:
                continue
            ranks = [list(split_dataset_by_node(streamed, rank=r, world_size=2)) for r in range(2)]
            assert all(ranks), split  # each rank reads files of its own
            assert {r["dialogue_id"] for r in ranks[0]}.isdisjoint(r["dialogue_id"] for r in ranks[1])
            assert sorted(r["dialogue_id"] for rank in ranks for r in rank) == \
                sorted(r["dialogue_id"] for r in streamed)

    # ------------------------------------------------------------ bad input

    def test_the_catalogue_covers_every_kind_of_bad_input(self):
        assert set(KINDS) - set(self.impossible) <= {m.kind for m in self.mutations}

    def test_bad_input_is_an_error_naming_file_record_and_field(self, tmp_path, mutation, config, streaming):
        copy = self.copy(tmp_path)
        path = copy / mutation.file
        path.write_bytes(mutation.change(path.read_bytes()))
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
        copy = self.copy(tmp_path)
        path = copy / mutation.file
        path.write_bytes(mutation.change(path.read_bytes()))
        with pytest.raises(SourceFormatError) as caught:
            load(self.corpus, data_dir=str(copy), checksums=write_checksums(copy), cache_dir=str(tmp_path / "c"),
                 num_proc=2)
        assert (caught.value.file, caught.value.record, caught.value.field) == \
            (mutation.file, mutation.record, mutation.field)

    @ONLY_DATASETS_3
    def test_load_dataset_shows_the_loaders_own_error(self, tmp_path):
        mutation = next(m for m in self.mutations if m.kind == "missing key")
        copy = self.copy(tmp_path)
        path = copy / mutation.file
        path.write_bytes(mutation.change(path.read_bytes()))
        with pytest.raises(SourceFormatError) as caught:  # not datasets' DatasetGenerationError
            datasets.load_dataset(self.info.folder, data_dir=str(copy), checksums=write_checksums(copy),
                                  cache_dir=str(tmp_path / "c"), trust_remote_code=True)
        assert (caught.value.file, caught.value.field) == (mutation.file, mutation.field)
        assert caught.value.__cause__ is None and caught.value.__suppress_context__

    # ------------------------------------------------------------ a local copy

    def test_a_changed_local_file_is_read_again_not_served_from_the_cache(self, tmp_path):
        copy = self.copy(tmp_path)
        cache = str(tmp_path / "cache")
        first = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=cache)
        relpath = self.data_files(next(iter(self.expected_counts)))[0]
        path = copy / relpath
        path.write_bytes(path.read_bytes().rstrip() + b" \n")  # same records, other bytes
        with pytest.raises(ChecksumError, match=relpath):
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

    def test_a_copy_lacking_a_file_needs_no_checks(self, tmp_path):
        copy = self.copy(tmp_path)
        split = list(self.expected_counts)[-1]
        relpath = self.data_files(split)[-1]
        (copy / relpath).unlink()
        if sum(len(self.data_files(s)) for s in self.expected_counts) == 1:  # nothing left to load
            with pytest.raises(MissingFilesError, match="holds none of the files"):
                load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, verification_mode="no_checks",
                     cache_dir=str(tmp_path / "a"))
            return
        with pytest.raises(MissingFilesError, match=f"{relpath}.*verification_mode='no_checks'"):
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "a"))
        with pytest.raises(MissingFilesError, match=f"{relpath}.*verify=False"):
            load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, streaming=True)
        partial = load(self.corpus, data_dir=str(copy), checksums=self.checksum_table, cache_dir=str(tmp_path / "b"),
                       verification_mode="no_checks")
        whole = sum(c["dialogues"] for c in self.expected_counts.values())
        assert 0 < sum(ds.num_rows for ds in partial.values()) < whole
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
        with pytest.raises(ChecksumError, match=relpath):
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

    # ------------------------------------------------------------ the two datasets lines

    @ONLY_DATASETS_3
    def test_load_dataset_script_gives_the_entry_point_records(self, build, tmp_path, config):
        scripted = datasets.load_dataset(self.info.folder, config, data_dir=str(self.fixtures),
                                         checksums=self.checksum_table, cache_dir=str(tmp_path), trust_remote_code=True)
        for split, ds in build(self.corpus, config).items():
            assert scripted[split].to_list() == ds.to_list(), split

    @ONLY_DATASETS_4_PLUS
    def test_load_dataset_refuses_the_script_so_the_entry_point_is_needed(self):
        with pytest.raises(RuntimeError, match="no longer supported"):
            datasets.load_dataset(self.info.folder, data_dir=str(self.fixtures))


# ---------------------------------------------------------------- helpers

def write_checksums(folder):
    """A checksum table of every file of ``folder`` (a changed copy), next to it."""
    return write_checksum_table(folder, folder.parent / "changed.tsv", exclude=(FIXTURE_CHECKSUMS,))


def spans_of(turn):
    """(field, value, start, end) of every span-annotated value of a unified turn."""
    for act in turn["dialog_acts"] or []:
        for entry in act["slot_value_table"] or []:
            for v in entry["values"]:
                if v["start"] is not None or v["end"] is not None:
                    yield "dialog_acts", v["value"], v["start"], v["end"]
    for entity in turn["named_entity_recognition"] or []:
        for v in entity["values"]:
            if v["start"] is not None:
                yield "named_entity_recognition", v["value"], v["start"], v["end"]
    for aspect in turn["aspects"] or []:
        for part in ("target", "opinion"):
            if aspect[part] is not None and aspect[part]["start"] is not None:
                yield f"aspects.{part}", aspect[part]["value"], aspect[part]["start"], aspect[part]["end"]
    for span in turn["characters"] or []:
        yield "characters", span["value"], span["start"], span["end"]
    for segment in turn["segments"] or []:
        yield "segments", segment["text"], segment["start"], segment["end"]


ID_FIELDS = ("id", "dialogue_id", "original_id", "dialog_id", "gem_id")


def original_of(row):
    """The source id of the dialogue a view row is about."""
    if row.get("original_id") is not None:
        return row["original_id"]
    if "dialog_id" in row:  # GEM's name
        return row["dialog_id"]
    return row["dialogue_id"].split("/", 2)[2]


def turn_of(row):
    return row.get("turn_index", row.get("turn_id"))


def within_turn(row):
    """What tells apart the rows of one turn: the end of the row's id after
    ``<dialogue_id>/<turn>`` (d3st's ``/<frame_index>``, critic's ``/original``), "" where
    the id ends there; None for a row about no turn or without a ``dialogue_id``."""
    dialogue, turn = row.get("dialogue_id"), turn_of(row)
    if dialogue is None or turn is None:
        return None
    return row["id"][len(f"{dialogue}/{turn}"):]


def without_ids(row):
    return {key: value for key, value in row.items() if key not in ID_FIELDS}


def content_key(record):
    return tuple((tuple(t["roles"]), t["utterance"]) for t in record["dialog"])
