"""The real download path, against a server on 127.0.0.1 that serves the SGD fixtures in
the upstream URL layout; and local copies through data_dir."""

import hashlib
import json
import shutil
import time

import pytest

from conftest import checksums, expected_counts, fixture_dir
from mirror import Mirror
from unified_dialogue import load, sources
from unified_dialogue.errors import ChecksumError, DownloadError, MissingFilesError

PREFIX = "google-research-datasets/dstc8-schema-guided-dialogue/2aaccde45fd85e9c7d9887280a0c7acddc605107"


@pytest.fixture
def mirror():
    server = Mirror(fixture_dir("sgd"), PREFIX)
    yield server
    server.close()


def test_download_verifies_and_builds(mirror, tmp_path):
    dsd = load("sgd", base_url=mirror.url, checksums=checksums("sgd"), cache_dir=str(tmp_path))
    expected = expected_counts("sgd")
    assert {split: ds.num_rows for split, ds in dsd.items()} == {s: c["dialogues"] for s, c in expected.items()}
    assert mirror.fetched() == sorted(
        p.relative_to(fixture_dir("sgd")).as_posix() for p in fixture_dir("sgd").glob("*/*.json")
    )


def test_streaming_reads_the_files_from_the_server(mirror, tmp_path):
    prepared = load("sgd", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), cache_dir=str(tmp_path))
    streamed = load("sgd", base_url=mirror.url, checksums=checksums("sgd"), streaming=True)
    for split, ds in prepared.items():
        assert list(streamed[split]) == ds.to_list(), split
    assert mirror.fetched() == sorted(
        p.relative_to(fixture_dir("sgd")).as_posix() for p in fixture_dir("sgd").glob("*/*.json")
    )


def test_corrupted_download_fails_naming_file_and_checksums(mirror, tmp_path):
    mirror.corrupted.add("dev/dialogues_001.json")
    with pytest.raises(ChecksumError) as error:
        load("sgd", base_url=mirror.url, checksums=checksums("sgd"), cache_dir=str(tmp_path))
    message = str(error.value)
    expected = next(line.split("\t")[2] for line in open(checksums("sgd")) if line.startswith("dev/dialogues_001.json"))
    assert "dev/dialogues_001.json" in message and expected.strip() in message
    assert message.count("expected") == 1 and "got" in message


def test_schema_config_downloads_only_the_schemas(mirror, tmp_path):
    dsd = load("sgd", "schema", base_url=mirror.url, checksums=checksums("sgd"), cache_dir=str(tmp_path))
    assert mirror.fetched() == ["dev/schema.json", "test/schema.json", "train/schema.json"]
    assert all(ds.num_rows > 0 for ds in dsd.values())


def test_no_network_fails_fast_and_names_data_dir(tmp_path):
    closed = Mirror(fixture_dir("sgd"), PREFIX)
    url = closed.url
    closed.close()  # nothing listens there any more
    started = time.monotonic()
    with pytest.raises(DownloadError) as error:
        load("sgd", base_url=url, checksums=checksums("sgd"), cache_dir=str(tmp_path))
    assert time.monotonic() - started < 60
    assert "data_dir" in str(error.value)


def test_bundled_table_lists_all_184_upstream_files():
    from unified_dialogue.sources import read_checksum_table

    table = read_checksum_table(corpus="sgd")
    assert len(table) == 184
    assert sum(p.endswith("schema.json") for p in table) == 3
    assert sum(p.startswith("train/dialogues_") for p in table) == 127


def test_partial_local_copy_needs_no_checks(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").unlink()
    with pytest.raises(MissingFilesError, match="test/dialogues_001.json"):
        load("sgd", data_dir=str(copy), checksums=checksums("sgd"), cache_dir=str(tmp_path / "a"))
    dsd = load("sgd", data_dir=str(copy), checksums=checksums("sgd"), cache_dir=str(tmp_path / "b"),
               verification_mode="no_checks")
    assert "test" not in dsd
    assert dsd["train"].num_rows == expected_counts("sgd")["train"]["dialogues"]


def test_partial_local_copy_without_a_split_folder_loads_every_config(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    shutil.rmtree(copy / "test")
    for config in ("unified", "original", "schema"):
        dsd = load("sgd", config, data_dir=str(copy), checksums=checksums("sgd"),
                   cache_dir=str(tmp_path / config), verification_mode="no_checks")
        assert sorted(dsd) == ["train", "validation"], config
    assert dsd["train"].num_rows == len(json.loads((copy / "train" / "schema.json").read_text()))


def test_local_copy_is_verified(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    path = copy / "train" / "dialogues_001.json"
    path.write_bytes(path.read_bytes().replace(b'"USER"', b'"USER" ', 1))
    with pytest.raises(ChecksumError, match="train/dialogues_001.json"):
        load("sgd", data_dir=str(copy), checksums=checksums("sgd"), cache_dir=str(tmp_path / "c"))


def test_file_sha256_reads_a_file_larger_than_one_block(tmp_path):
    data = bytes(range(256)) * 8193  # just over two 1 MiB blocks
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    assert sources.file_sha256(str(path)) == hashlib.sha256(data).hexdigest()
