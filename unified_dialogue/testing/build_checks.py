"""The checks of how a corpus is built, part of ``CorpusTestCase``: streamed as prepared, by
two processes as by one, one streaming shard per file, and through ``datasets.load_dataset``
on each ``datasets`` line (the loading script on 3.x; refused on 4.x and later)."""

import datasets
import pytest

from .loads import ONLY_DATASETS_3, ONLY_DATASETS_4_PLUS


class BuildChecks:
    """The ways of building the excerpt agree; ``CorpusTestCase`` holds the declarations these read."""

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
