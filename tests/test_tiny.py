"""A corpus defined only under tests/ (tiny_corpora/tiny): the registry finds it, and it
passes the shared corpus test case, the export and the cards, with no shared file edited.
docs/adding-a-corpus.md walks through its files."""

import importlib
import re
import shutil
from pathlib import Path

import pytest
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from conftest import EXPECTED, FIXTURES, TESTS
from tiny_corpora.tiny import mapping
from unified_dialogue import load, registry
from unified_dialogue.core.errors import UnifiedDialogueError
from unified_dialogue.testing import (CorpusTestCase, Mutation, become, cut, edit, nested, raw, read_json, remove,
                                     replace)
from unified_dialogue.testing.strategies import generated
from unified_dialogue.tools import cards, export
from unified_dialogue.tools.layout import Layout

pytestmark = pytest.mark.both_lines

TRAIN = "train.json"
DOCS = Path(__file__).parent.parent / "docs" / "adding-a-corpus.md"


class TestTiny(CorpusTestCase):
    corpus = "tiny"
    fixtures = FIXTURES / "tiny"
    expected_counts = {"train": {"dialogues": 2, "turns": 5}, "test": {"dialogues": 1, "turns": 2}}
    expected_rows = {"original": {"train": 2, "test": 1}}
    expected_record = EXPECTED / "tiny_unified_train_c2.json"
    reverse = {
        "unified": lambda ds: [mapping.unified_to_source(r) for r in ds],
        "original": lambda ds: [mapping.original_to_source(r) for r in ds],
    }
    spans = False
    impossible = {"int32 overflow": "the format has no integer"}
    mutations = (
        Mutation("truncated", TRAIN, cut(0.5), "chat c2", "id"),
        Mutation("empty file", TRAIN, become(b""), "whole file", "(json)"),
        Mutation("empty list", TRAIN, become(b"[]"), "whole file", "(top level)"),
        Mutation("not UTF-8", TRAIN, replace(b"hello", b"hel\xfflo"), "chat c1", "lines[0].text"),
        Mutation("invalid JSON", TRAIN, replace(b'"text": "hello"', b'"text" "hello"'), "chat c1", "lines[0].text"),
        Mutation("not a list", TRAIN, become(b"{}"), "whole file", "(top level)"),
        Mutation("wrong type", TRAIN, edit("0.lines.1.text", 3), "chat c1", "lines[1].text"),
        Mutation("missing key", TRAIN, remove("1.lines.0.speaker"), "chat c2", "lines[0].speaker"),
        Mutation("unknown key", TRAIN, edit("1.lines.2.mood", "calm"), "chat c2", "lines[2].mood"),
        Mutation("unknown label", TRAIN, edit("0.lines.0.speaker", "C"), "chat c1", "lines[0].speaker"),
        Mutation("deep nesting", TRAIN, nested("1.lines"), "chat c2", "lines[0][0][0][0][0][0][0][0][0]…"),
        Mutation("lone surrogate", TRAIN, raw("1.lines.1.text", '"\\udbff"'), "chat c2", "lines[1].text"),
        Mutation("duplicate id", TRAIN, edit("1.id", "c1"), "chat c1", "id", also="train.json, chat #0"),
        Mutation("empty dialogue", TRAIN, edit("0.lines", []), "chat c1", "lines"),
    )

    def source_rows(self, view, split):
        chats = read_json(TESTS / "fixtures" / "tiny" / f"{split}.json")
        return sum(line["speaker"] == "B" for chat in chats for line in chat["lines"])

    def prefixes(self, chat):
        for t in range(len(chat["lines"])):
            yield t, {"id": f"{chat['id']}~{t}", "lines": chat["lines"][:t + 1]}, f"{chat['id']}~{t}", chat["id"]

    def test_the_registry_finds_it_beside_the_bundled_corpora(self):
        found = registry.corpora()
        assert found["tiny"].package == "tiny_corpora.tiny"
        assert list(found)[:3] == ["ccpe", "faithdial", "sgd"]  # bundled first

    def test_it_exports_alone_and_with_the_bundled_corpora(self, build, tmp_path):
        fixtures = {name: (str(TESTS / "fixtures" / name), str(TESTS / "fixtures" / name / "SHA256SUMS.tsv"))
                    for name in ("tiny", "ccpe")}
        corpora = [registry.get("ccpe"), registry.get("tiny")]
        folder = export.export(corpora, str(tmp_path / "out"), combined=True, log=lambda *a: None,
                               data_dirs={n: d for n, (d, _) in fixtures.items()},
                               checksums={n: c for n, (_, c) in fixtures.items()})
        configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(Path(folder) / "README.md").data)
        assert list(configs) == ["unified", "response", "ccpe", "ccpe_original", "ccpe_response", "ccpe_nlu",
                                 "ccpe_response-chat", "ccpe_nlu-chat", "tiny", "tiny_original", "tiny_response"]
        assert [f["path"] for f in configs["unified"]["data_files"] if f["split"] == "train"] == [
            ["ccpe/train-*.parquet", "tiny/train-*.parquet"]]
        assert (Path(folder) / "cards" / "tiny.md").read_text().startswith("# A tiny corpus")

    def test_the_registry_finds_its_strategies_in_its_folder(self):
        assert registry.strategies("tiny").__name__ == "tiny_corpora.tiny.strategies"
        assert "tiny" in generated("response") and "tiny" not in generated("nlu")

    def test_its_card_renders_from_its_folder(self):
        card = cards.corpus_card(Layout((registry.get("tiny"),), combined=False), None)
        assert "Two-speaker chats, made up for the tests" in card
        assert "`lines` → `dialog`" in card and "Not computed" in card
        assert not cards.PLACEHOLDER.search(card)

    def test_the_guide_to_adding_a_corpus_names_its_files(self):
        folder = Path(registry.get("tiny").folder)
        named = set(re.findall(r"`tests/tiny_corpora/tiny/([\w.]+)`", DOCS.read_text()))
        assert named == {p.name for p in folder.iterdir() if p.is_file() and p.suffix in (".py", ".md", ".tsv")}

    def test_the_guides_out_of_tree_test_sets_what_the_harness_documents(self):
        example = DOCS.read_text().split("class TestMychat(CorpusTestCase):", 1)[1].split("```", 1)[0]
        declared = set(re.findall(r"^    (\w+) = ", example, re.M))
        assert declared and declared <= {name for name in vars(CorpusTestCase) if not name.startswith("_")}
        assert all(f"``{name}``" in CorpusTestCase.__doc__ for name in declared)


def test_a_corpus_without_strategies_has_none_and_a_broken_module_is_an_error(tmp_path, monkeypatch):
    package = tmp_path / "other_corpora"
    shutil.copytree(TESTS / "tiny_corpora" / "tiny", package / "tiny", ignore=shutil.ignore_patterns("strategies.py"))
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(registry.EXTRA_VARIABLE, "other_corpora")
    assert registry.strategies("tiny") is None
    (package / "tiny" / "strategies.py").write_text("import a_module_nowhere\n")
    importlib.invalidate_caches()
    with pytest.raises(ModuleNotFoundError, match="a_module_nowhere"):  # not taken for a corpus without strategies
        registry.strategies("tiny")


def test_a_view_split_without_rows_is_an_error_naming_it(tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / TRAIN).write_bytes((TESTS / "fixtures" / "tiny" / TRAIN).read_bytes())
    (copy / "test.json").write_text('[{"id": "c1", "lines": [{"speaker": "A", "text": "bye"}]}]')  # B never answers
    assert load("tiny", data_dir=str(copy), verification_mode="no_checks", cache_dir=str(tmp_path / "a")).num_rows == \
        {"train": 2, "test": 1}
    with pytest.raises(UnifiedDialogueError, match=r"^test: the response config has no rows in this split \(.*test.json"):
        load("tiny", "response", data_dir=str(copy), verification_mode="no_checks", cache_dir=str(tmp_path / "b"))
