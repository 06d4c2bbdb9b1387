"""Export: a folder of Parquet shards and a card that ``load_dataset`` reads back into the
builder's records, streaming and not, on every datasets line."""

import dataclasses
import json
import os
import shutil
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from conftest import checksums, fixture_dir
from unified_dialogue import UNIFIED_FEATURES, registry
from unified_dialogue.core.errors import SourceFormatError
from unified_dialogue.testing.loads import shared_temp
from unified_dialogue.tools import export, shards

pytestmark = pytest.mark.both_lines

AVAILABLE = [c for c in registry.corpora().values() if c.package.startswith(f"{registry.BUNDLED}.")]
SGD = registry.get("sgd")


def fixture_options(corpus_list, variants=False):
    return {
        "data_dirs": {c.name: str(fixture_dir(c.name)) for c in corpus_list},
        "checksums": {c.name: checksums(c.name) for c in corpus_list},
        "variants": variants,  # the variant configs have a test of their own
    }


def files_of(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """A datasets cache for the exports of the fixtures whose builds may be reused: each
    config is built once for all of them, in the run's folder that every pytest-xdist worker
    shares (datasets locks a build against another process's).
    test_exporting_again_writes_identical_bytes builds afresh, and compares."""
    return str(shared_temp(tmp_path_factory) / "export-builds")


@pytest.fixture(scope="module")
def exported(tmp_path_factory, builds):
    """Every available corpus exported alone, and all of them together (with JSON Lines)."""
    root = tmp_path_factory.mktemp("export")
    folders = {}
    for corpus in AVAILABLE:
        folders[corpus.name] = export.export([corpus], str(root / corpus.name), log=lambda *a: None, cache_dir=builds,
                                             **fixture_options([corpus]))
    folders["all"] = export.export(AVAILABLE, str(root / "all"), combined=True, jsonl=True, log=lambda *a: None,
                                   cache_dir=builds, **fixture_options(AVAILABLE))
    return folders


def load_folder(folder, config, tmp_path, **kwargs):
    return datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"), **kwargs)


@pytest.mark.parametrize("corpus", AVAILABLE, ids=lambda c: c.name)
def test_the_export_loads_back_into_the_builders_records(exported, build, tmp_path, corpus):
    for config in corpus.config_names:
        built = build(corpus.name, config)
        loaded = load_folder(exported[corpus.name], config, tmp_path)
        assert list(loaded) == list(built), config
        for split in built:
            # Json values (datasets 4.7 and later) are exported as their JSON text
            expected = built[split].cast(shards.portable(built[split].features))
            assert loaded[split].features == expected.features, (config, split)
            assert loaded[split].to_list() == expected.to_list(), (config, split)
            streamed = load_folder(exported[corpus.name], config, tmp_path, split=split, streaming=True)
            assert list(streamed) == expected.to_list(), (config, split)


def test_the_default_config_loads_without_a_name(exported, build, tmp_path):
    loaded = datasets.load_dataset(str(exported["sgd"]), cache_dir=str(tmp_path / "c"))
    assert loaded["validation"].to_list() == build("sgd")["validation"].to_list()


def test_folder_holds_the_shards_and_the_card(exported):
    assert files_of(exported["sgd"]) == ["README.md"] + sorted(
        f"{config}/{split}-00000-of-00001.parquet"
        for config in SGD.config_names for split in ("test", "train", "validation"))


def test_every_variant_of_every_config_is_exported_as_a_config(build, builds, tmp_path):
    folder = export.export([SGD], str(tmp_path / "variants"), log=lambda *a: None, cache_dir=builds,
                           **fixture_options([SGD], variants=True))
    configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(Path(folder) / "README.md").data)
    assert list(configs) == list(SGD.config_names) + [f"{c}_{v}" for v in SGD.variants for c in SGD.config_names]
    for config, variant in (("dst", "v3"), ("schema", "v5"), ("unified", "v1")):
        loaded = load_folder(folder, f"{config}_{variant}", tmp_path)
        for split, ds in build("sgd", config, variant=variant).items():
            assert loaded[split].to_list() == ds.to_list(), (config, variant, split)


def test_card_has_the_build_dataset_info_and_configs_matching_the_shards(exported, build):
    folder = Path(exported["sgd"])
    card = DatasetCard.load(folder / "README.md")
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    for name, config in configs.items():
        for entry in config["data_files"]:
            matched = sorted(str(p.relative_to(folder)) for p in folder.glob(entry["path"]))
            assert matched == [f"{name}/{entry['split']}-00000-of-00001.parquet"]
    infos = {info["config_name"]: info for info in card.data.to_dict()["dataset_info"]}
    assert list(infos) == list(SGD.config_names)
    for config, info in infos.items():
        built = build("sgd", config)
        if shards.has_json(built["train"].features):  # in the Parquet metadata only (3.6 reads every entry)
            assert "features" not in info
        else:
            assert datasets.Features._from_yaml_list(info["features"]) == shards.portable(built["train"].features)
        assert [(s["name"], s["num_examples"]) for s in info["splits"]] == [(k, v.num_rows) for k, v in built.items()]
        assert info["download_size"] == sum(p.stat().st_size for p in (folder / config).glob("*.parquet"))


def test_card_statistics_come_from_the_exported_data_and_name_their_files(exported):
    text = (Path(exported["sgd"]) / "README.md").read_text()
    assert "a local copy of 7 files, verified against a checksum table given for the build, not the upstream one" in text
    assert ("`dev/`: `schema.json`, `dialogues_001.json`; `test/`: `schema.json`, `dialogues_001.json`; "
            "`train/`: `schema.json`, `dialogues_001–002.json`") in text
    assert "| dialogues | 5 | 3 | 3 |" in text
    assert "not the whole corpus" in text
    assert "size_categories" not in text  # not the complete corpus


def test_parquet_metadata_is_readable_by_every_datasets_line(exported):
    """5.x serialises lists as {"_type": "List"}, which 3.x cannot read: the shards carry
    the 3.x form, which both read, so a repository exported with either loads with both
    (but for a Json value, which 3.x does not have: docs/publishing.md)."""
    for path in Path(exported["sgd"]).rglob("*.parquet"):
        meta = pq.read_schema(path).metadata[b"huggingface"].decode()
        assert '"List"' not in meta and '"Sequence"' not in meta
        assert ('"Json"' in meta) == (hasattr(datasets, "Json") and path.parent.name.startswith("agent-"))
        features = datasets.Features.from_dict(json.loads(meta)["info"]["features"])
        if path.parent.name == "unified":
            assert features == UNIFIED_FEATURES


def test_exported_tool_calls_load_as_load_gives_them_and_render_once_encoded(exported, build, tmp_path):
    """The published agent-call-chat loaded the way a Hub user loads it, plain
    ``load_dataset``: on a line with Json, arguments and parameters are objects as from
    ``load``, and TRL's Qwen 2.5 chat template writes each call's arguments as an object,
    never as a JSON string; on 3.6, JSON text, which the documented conversion
    (``chat.agent.plain_messages``, ``plain_tools``) turns into the same objects."""
    import importlib.util

    from unified_dialogue.chat import agent

    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    trl = importlib.util.find_spec("trl")  # its templates are files; trl itself is not imported (no torch)
    if trl is None:
        pytest.skip("trl is not installed (requirements/templates.txt, make test installs it)")
    template = (Path(trl.submodule_search_locations[0]) / "chat_templates" / "qwen2_5.jinja").read_text()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")))
    loaded = load_folder(exported["sgd"], "agent-call-chat", tmp_path)
    built = build("sgd", "agent-call-chat")
    for split in built:
        assert loaded[split].to_list() == built[split].to_list(), split
        for row in loaded[split]:
            (call,) = row["completion"][0]["tool_calls"]
            parameters = row["tools"][0]["function"]["parameters"]
            messages, tools = row["prompt"] + row["completion"], row["tools"]
            if agent.HAS_JSON:  # as they are: what SFTTrainer is given
                assert isinstance(call["function"]["arguments"], dict) and isinstance(parameters, dict)
            else:
                assert isinstance(call["function"]["arguments"], str) and isinstance(parameters, str)
                messages, tools = agent.plain_messages(messages), agent.plain_tools(tools)
            text = tokenizer.apply_chat_template(messages, tools=tools, chat_template=template, tokenize=False)
            rendered = json.loads(text[text.rindex("<tool_call>\n") + 12:text.rindex("\n</tool_call>")])
            assert rendered == {"name": call["function"]["name"],
                                "arguments": agent.loaded(call["function"]["arguments"])}, row["id"]


def test_exporting_again_writes_identical_bytes(exported, tmp_path):
    again = export.export([SGD], str(tmp_path / "again"), log=lambda *a: None, **fixture_options([SGD]))
    assert files_of(again) == files_of(exported["sgd"])
    for name in files_of(again):
        assert (Path(again) / name).read_bytes() == (Path(exported["sgd"]) / name).read_bytes(), name


def test_small_shard_size_splits_a_split_into_ordered_shards(build, builds, tmp_path):
    folder = export.export([SGD], str(tmp_path / "sharded"), max_shard_size=12_000, log=lambda *a: None, cache_dir=builds,
                           **fixture_options([SGD]))
    shards = [n for n in files_of(folder) if n.startswith("unified/train-")]
    assert shards == ["unified/train-00000-of-00002.parquet", "unified/train-00001-of-00002.parquet"]
    loaded = load_folder(folder, "unified", tmp_path)
    for split, ds in build("sgd").items():
        assert loaded[split].to_list() == ds.to_list(), split


def test_combined_export_configs_share_the_unified_features(exported, build, tmp_path):
    folder = exported["all"]
    configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(Path(folder) / "README.md").data)
    expected = ["unified", "response", "nlu", "response-chat", "nlu-chat"] + [corpus.name if c == corpus.default_config else f"{corpus.name}_{c}"
                                                 for corpus in AVAILABLE for c in corpus.config_names]
    assert list(configs) == expected
    responses = load_folder(folder, "response", tmp_path, split="validation")
    assert responses.to_list() == [row for corpus in AVAILABLE if "validation" in corpus.splits
                                   for row in build(corpus.name, "response")["validation"].to_list()]
    chats = load_folder(folder, "response-chat", tmp_path, split="validation")  # chat rows of every corpus
    assert chats.to_list() == [row for corpus in AVAILABLE if "validation" in corpus.splits
                               for row in build(corpus.name, "response-chat")["validation"].to_list()]
    parts = []
    for corpus in AVAILABLE:
        one = load_folder(folder, corpus.name, tmp_path, split="train")
        assert one.features == UNIFIED_FEATURES
        assert one.to_list() == build(corpus.name)["train"].to_list()
        parts.append(one)
        for config in corpus.config_names[1:]:
            other = load_folder(folder, f"{corpus.name}_{config}", tmp_path)
            built = build(corpus.name, config)["train"]
            assert other["train"].to_list() == built.cast(shards.portable(built.features)).to_list()
    together = datasets.concatenate_datasets(parts)
    every = load_folder(folder, "unified", tmp_path, split="train")
    assert every.to_list() == together.to_list()
    streamed = load_folder(folder, "unified", tmp_path, split="train", streaming=True)
    assert list(streamed) == together.to_list()
    for corpus in AVAILABLE:
        assert (Path(folder) / "cards" / f"{corpus.name}.md").exists()


def restore(value, feature):
    """Fill the keys a spec-shaped JSON value leaves out back in as None, from the features."""
    if isinstance(feature, dict):
        return {key: None if key not in value else restore(value[key], sub) for key, sub in feature.items()}
    if isinstance(feature, list) or type(feature).__name__ == "List":
        inner = feature[0] if isinstance(feature, list) else feature.feature
        return [restore(item, inner) for item in value]
    return value


def test_jsonl_has_the_spec_shape_and_loses_nothing(exported, build):
    folder = Path(exported["all"])
    for corpus in AVAILABLE:
        for split, ds in build(corpus.name).items():
            (path,) = folder.glob(f"jsonl/{corpus.name}/{split}-*.jsonl")
            lines = [json.loads(line) for line in path.read_text().splitlines()]
            assert len(lines) == ds.num_rows
            for line, record in zip(lines, ds):
                assert "null" not in json.dumps(line)  # absent keys are left out, never null
                knowledge = line.get("knowledge")
                if knowledge is not None and "value" in knowledge:  # the spec's value[type]
                    knowledge["value"] = {knowledge["type"]: knowledge["value"]}
                assert restore(line, dict(UNIFIED_FEATURES)) == record, record["dialogue_id"]


def test_sgd_jsonl_turns_leave_out_what_sgd_does_not_annotate(exported):
    (path,) = Path(exported["all"]).glob("jsonl/sgd/validation-*.jsonl")
    record = json.loads(path.read_text().splitlines()[0])
    user, system = record["dialog"][0], record["dialog"][1]
    assert "belief_state" in user and "belief_state" not in system
    assert "summary" not in record and "segments" not in user
    assert record["knowledge"]["type"] == "schema" and isinstance(record["knowledge"]["value"], list)


def test_a_failed_export_leaves_nothing_and_keeps_the_earlier_export(exported, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    out = tmp_path / "exports" / "sgd"
    shutil.copytree(exported["sgd"], out)  # an earlier export of the same files
    before = {name: (out / name).read_bytes() for name in files_of(out)}
    (copy / "test" / "dialogues_001.json").write_text('[{"dialogue_id": 1}]')
    with pytest.raises(SourceFormatError):
        export.export([SGD], str(out), log=lambda *a: None, data_dirs={"sgd": str(copy)},
                      verification_mode="no_checks")
    assert os.listdir(tmp_path / "exports") == ["sgd"]  # no partial folder left beside it
    assert {name: (out / name).read_bytes() for name in files_of(out)} == before


def test_a_partial_copy_exports_the_splits_it_has_and_says_so(build, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").unlink()
    unified_only = dataclasses.replace(SGD, configs=(SGD.config("unified"),))
    folder = export.export([unified_only], str(tmp_path / "partial"), log=lambda *a: None,
                           data_dirs={"sgd": str(copy)}, verification_mode="no_checks")
    card = DatasetCard.load(Path(folder) / "README.md")
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert [f["split"] for f in configs["unified"]["data_files"]] == ["train", "validation"]
    loaded = load_folder(folder, "unified", tmp_path)
    assert list(loaded) == ["train", "validation"]
    assert loaded["validation"].to_list() == build("sgd")["validation"].to_list()
    assert "no data of `test` was in them" in card.text


def test_export_command_reports_bad_input_without_a_traceback(tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "dev" / "dialogues_001.json").write_text("[")
    with pytest.raises(SystemExit) as exit:
        export.main(["sgd", "--out", str(tmp_path / "out"), "--data-dir", str(copy), "--no-checks"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == ("export: dev/dialogues_001.json: whole file: field '(json)': "
                                       "the file ends before its JSON does (cut short?)\n")
    assert not (tmp_path / "out").exists()


def test_a_missing_data_dir_fails_before_building(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "load", lambda *a, **k: pytest.fail("built although the export cannot succeed"))
    with pytest.raises(export.ExportError, match="data dir of sgd does not exist"):
        export.export([SGD], str(tmp_path / "out"), data_dirs={"sgd": str(tmp_path / "nowhere")})
    assert not (tmp_path / "out").exists()


def test_a_copy_without_the_variants_files_fails_before_building(tmp_path, monkeypatch):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy, ignore=shutil.ignore_patterns("sgd_x"))
    monkeypatch.setattr(export, "load", lambda *a, **k: pytest.fail("built although the export cannot succeed"))
    with pytest.raises(export.ExportError, match=r"sgd has no sgd_x/data/v1/\*/schema.json.*--no-variants"):
        export.export([SGD], str(tmp_path / "out"), data_dirs={"sgd": str(copy)})
    monkeypatch.undo()
    export.export([SGD], str(tmp_path / "out"), data_dirs={"sgd": str(copy)}, checksums={"sgd": checksums("sgd")},
                  variants=False, log=lambda *a: None)
    assert (tmp_path / "out" / "README.md").is_file()


def test_command_line_options(bundled_only):
    assert export.parse_size("500MB") == 500_000_000 and export.parse_size("64KiB") == 65536
    assert export.parse_size("1234") == 1234
    assert export.resolve(["all"]) == (AVAILABLE, True)
    assert export.resolve(["sgd"]) == ([SGD], False)
    assert export.parse_per_corpus(["path/a"], ["sgd"], "--data-dir") == {"sgd": "path/a"}
    assert export.parse_per_corpus(["sgd=path/a"], ["sgd", "ccpe"], "--data-dir") == {"sgd": "path/a"}
    with pytest.raises(export.ExportError, match="<corpus>=<path>"):
        export.parse_per_corpus(["path/a"], ["sgd", "ccpe"], "--data-dir")


def test_export_command_writes_the_folder(builds, tmp_path):
    out = tmp_path / "cli"
    export.main(["sgd", "--out", str(out), "--data-dir", str(fixture_dir("sgd")),
                 "--checksums", checksums("sgd"), "--jsonl", "--cache-dir", builds])
    assert "README.md" in files_of(out)
    assert "jsonl/unified/train-00000-of-00001.jsonl" in files_of(out)
    assert not any(name.startswith("jsonl/original") for name in files_of(out))


def test_export_command_hints_at_its_own_flag_for_a_partial_copy(tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").unlink()
    with pytest.raises(SystemExit):
        export.main(["sgd", "--out", str(tmp_path / "out"), "--data-dir", str(copy), "--checksums", checksums("sgd")])
    err = capsys.readouterr().err
    assert "lacks 1 file(s) of the checksum table: test/dialogues_001.json" in err and "pass --no-verify" in err
    assert "verification_mode" not in err
