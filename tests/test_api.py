"""load(): the arguments of load_dataset that apply are passed on, the others refused by
name, and unknown options are named."""

import datasets
import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import load
from unified_dialogue.api import load_builder
from unified_dialogue.core.errors import ConfigError

pytestmark = pytest.mark.both_lines


def fixture_load(tmp_path, **kwargs):
    return load("sgd", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), cache_dir=str(tmp_path), **kwargs)


@pytest.mark.parametrize("argument, value", [("data_files", "x.json"), ("features", None), ("revision", "main"),
                                             ("save_infos", True)])
def test_load_dataset_arguments_without_meaning_here_are_refused_by_name(tmp_path, argument, value):
    with pytest.raises(ConfigError, match=f"load\\(\\) does not take {argument}: "):
        fixture_load(tmp_path, **{argument: value})


def test_an_unknown_option_is_named_with_the_options_there_are(tmp_path):
    with pytest.raises(ConfigError, match=r"sgd takes no option 'strict_offsets' \(its options: base_url, checksums"):
        fixture_load(tmp_path, strict_offsets=True)


def test_an_unknown_config_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"sgd has no config 'dst2': did you mean 'dst'\? \(its configs: unified, original, schema"):
        load("sgd", "dst2", data_dir=str(fixture_dir("sgd")))


def test_a_download_timeout_alone_builds_a_declared_config_on_every_datasets_line(tmp_path):
    # it is no part of the config's id (the download's cache is the same): datasets 4 and later then
    # compare the config with the declared one, which must not tell them apart
    builder = load_builder("sgd", "dst", cache_dir=str(tmp_path), download_timeout=3)
    assert (builder.config.name, builder.config.download_timeout) == ("dst", 3)


def test_download_mode_keep_in_memory_and_trust_remote_code_are_taken(tmp_path):
    first = fixture_load(tmp_path, split="test")
    again = fixture_load(tmp_path, split="test", download_mode="force_redownload", keep_in_memory=True,
                         trust_remote_code=True)
    assert again.to_list() == first.to_list()
    assert isinstance(again.data, datasets.table.InMemoryTable)
    assert isinstance(first.data, datasets.table.MemoryMappedTable)


def test_download_timeout_does_not_change_the_cache(tmp_path):
    fixture_load(tmp_path)
    built = fixture_load(tmp_path, download_timeout=5)
    assert all(isinstance(ds.data, datasets.table.MemoryMappedTable) for ds in built.values())
    assert len(list(tmp_path.glob("sgd/*"))) == 1  # one config folder: the first build was reused


def test_storage_options_reach_the_downloads_and_are_left_as_given(tmp_path):
    import copy
    from urllib.parse import urlparse

    from unified_dialogue.testing import Mirror
    from unified_dialogue.registry import get

    mirror = Mirror(fixture_dir("sgd"), urlparse(get("sgd").base_url).path)
    local = fixture_load(tmp_path / "local", split="test").to_list()
    try:
        for n, options in enumerate([{"http": {"client_kwargs": {"headers": {"X-Asked-By": "test"}}}},
                                     {"headers": {"X-Asked-By": "test"}}]):  # for every protocol
            given = copy.deepcopy(options)
            mirror.headers.clear()
            downloaded = load("sgd", split="test", base_url=mirror.url, checksums=checksums("sgd"),
                              cache_dir=str(tmp_path / str(n)), storage_options=options)
            streamed = load("sgd", split="test", base_url=mirror.url, checksums=checksums("sgd"), streaming=True,
                            storage_options=options)
            assert list(streamed) == downloaded.to_list() == local
            assert mirror.headers and all(h.get("X-Asked-By") == "test" for h in mirror.headers), options
            assert options == given
        # with a download_config of its own too, as load_dataset merges them
        mirror.headers.clear()
        load("sgd", split="test", base_url=mirror.url, checksums=checksums("sgd"), cache_dir=str(tmp_path / "dc"),
             storage_options=options, download_config=datasets.DownloadConfig(max_retries=1))
        assert mirror.headers and all(h.get("X-Asked-By") == "test" for h in mirror.headers)
    finally:
        mirror.close()


@pytest.mark.parametrize("streaming", [False, True])
def test_a_base_url_of_another_protocol_than_http_is_read(tmp_path, streaming):
    base_url = fixture_dir("sgd").resolve().as_uri()  # file://
    built = load("sgd", split="test", base_url=base_url, checksums=checksums("sgd"), cache_dir=str(tmp_path / "a"),
                 streaming=streaming)
    assert list(built) == fixture_load(tmp_path / "b", split="test").to_list()


def test_a_corpus_is_found_by_name_or_by_its_own_folder_only(tmp_path):
    from unified_dialogue import registry

    sgd = registry.get("sgd")
    assert registry.get(sgd.folder) is sgd and registry.get("loaders/sgd") is sgd
    elsewhere = tmp_path / "sgd"
    elsewhere.mkdir()
    with pytest.raises(ValueError, match=f"{elsewhere} is not the folder of the registered corpus 'sgd'"):
        registry.get(str(elsewhere))
    with pytest.raises(ValueError, match="unknown corpus 'sgdx'"):
        registry.get("sgdx")
    for typo in ("loader/sgd", str(tmp_path / "nowhere" / "sgd")):
        with pytest.raises(ValueError, match="is not the folder of the registered corpus 'sgd'"):
            registry.get(typo)


def test_a_build_without_checks_is_built_again_for_a_load_with_checks(tmp_path):
    unchecked = fixture_load(tmp_path, split="test", verification_mode="no_checks")
    mark = next(tmp_path.glob("sgd/unified*/*/*/built-without-checks"))
    checked = fixture_load(tmp_path, split="test")
    assert checked.to_list() == unchecked.to_list() and not mark.exists()  # built again, checked
    folder = mark.parent
    stamp = (folder / "dataset_info.json").stat().st_mtime_ns
    fixture_load(tmp_path, split="test", verification_mode="no_checks")  # a checked build serves all
    fixture_load(tmp_path, split="test")
    assert (folder / "dataset_info.json").stat().st_mtime_ns == stamp and not mark.exists()


def test_a_build_without_checks_in_an_output_dir_is_not_reused_with_checks(tmp_path):
    from unified_dialogue.api import load_builder

    def prepare(**kwargs):
        builder = load_builder("sgd", data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"),
                               cache_dir=str(tmp_path / "cache"))
        builder.download_and_prepare(output_dir=str(tmp_path / "out"), **kwargs)

    prepare(verification_mode="no_checks")
    assert (tmp_path / "out" / "built-without-checks").exists()
    prepare()
    assert not (tmp_path / "out" / "built-without-checks").exists()


@pytest.mark.parametrize("option, value, words", [
    ("verify", "false", "option verify takes a bool, not 'false'"),  # the checks would stay on
    ("download_timeout", "60", "option download_timeout takes a float, not '60'"),
    ("variant", "v6", "option variant takes one of 'v1', 'v2', 'v3', 'v4', 'v5', not 'v6'"),
    ("verification_mode", "no_check", "verification_mode 'no_check' is none of all_checks, basic_checks, no_checks: "
                                      "did you mean 'no_checks'\\? \\(a partial or changed copy: verify=False\\)"),
])
def test_a_value_a_corpus_option_cannot_take_is_named_before_anything_is_built(tmp_path, option, value, words):
    with pytest.raises(ConfigError, match=words):
        fixture_load(tmp_path, split="test", **{option: value})
    assert not (tmp_path / "sgd").exists()


def test_a_path_may_be_a_pathlike(tmp_path):
    from pathlib import Path

    assert load("sgd", split="test", data_dir=fixture_dir("sgd"), checksums=Path(checksums("sgd")),
                cache_dir=str(tmp_path)).num_rows > 0
