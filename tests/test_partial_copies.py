"""One word for a partial or changed copy on every surface: ``verify=False`` in Python
(streamed or not: tests/corpus_case's ``CorpusTestCase``, for every corpus), ``--no-verify``
on every command that loads a corpus (``--no-checks``, its older name, still works and is
not listed), ``"verify": false`` in lm-eval's metadata; every error where it is the fix
names it in the surface's own form, a changed file's size or sha256 mismatch included."""

import json
import shutil
import subprocess
import sys

import pytest
from conftest import TESTS, checksums, fixture_dir, write_predictions

from unified_dialogue import load
from unified_dialogue.core.errors import ChecksumError, MissingFilesError, MissingSplitError

pytestmark = pytest.mark.both_lines


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """The SGD fixtures without one test file: a partial copy."""
    copy = tmp_path_factory.mktemp("partial") / "sgd"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").unlink()  # the test split's one file
    return copy


def run(module, *arguments):
    return subprocess.run([sys.executable, "-m", module, *arguments], capture_output=True, text=True, timeout=600,
                          cwd=TESTS.parent)


def copy_flags(copy, cache):
    return ["--data-dir", str(copy), "--checksums", checksums("sgd"), "--cache-dir", str(cache)]


def scoring(copy, cache, predictions, *flags):
    return run("unified_dialogue.scoring", "--corpus", "sgd", "--config", "dst-chat", "--split", "validation",
               *copy_flags(copy, cache), "--predictions", str(predictions), *flags)


def test_the_scoring_command_names_no_verify_and_takes_it_and_its_older_name(partial, dst_chat_gold, tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    refused = scoring(partial, tmp_path / "a", predictions)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert refused.stderr.rstrip().endswith("test/dialogues_001.json. To load a partial copy, pass --no-verify")
    for flag in ("--no-verify", "--no-checks"):
        done = scoring(partial, tmp_path / flag, predictions, flag)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["#ALL_SERVICES"]["joint_goal_accuracy"] == 1.0
    listed = run("unified_dialogue.scoring", "--config", "dst-chat", "--help").stdout
    assert "--no-verify" in listed and "--no-checks" not in listed


@pytest.mark.parametrize("module, arguments", [
    ("unified_dialogue.testing.server", ["--corpus", "sgd", "--config", "dst-chat", "--split", "validation"]),
    ("unified_dialogue.tools.agent_check", []),
])
def test_other_commands_name_no_verify_and_take_it(partial, tmp_path, module, arguments):
    refused = run(module, *arguments, *copy_flags(partial, tmp_path / "a"))
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert refused.stderr.rstrip().endswith("pass --no-verify")
    assert "--no-verify" in run(module, "--help").stdout


def test_the_export_command_takes_no_verify(tmp_path):
    copy = tmp_path / "sgd"
    shutil.copytree(fixture_dir("sgd"), copy, ignore=shutil.ignore_patterns("test"))  # no test split
    done = run("unified_dialogue.tools.export", "sgd", "--out", str(tmp_path / "out"), "--no-variants",
               *copy_flags(copy, tmp_path / "cache"), "--no-verify")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "README.md").is_file()


def test_python_names_verify_false_for_a_missing_and_a_changed_file(partial, tmp_path):
    with pytest.raises(MissingFilesError, match="To load a partial copy, pass verify=False$"):
        load("sgd", "dst-chat", split="validation", data_dir=str(partial), checksums=checksums("sgd"),
             cache_dir=str(tmp_path))
    changed = tmp_path / "changed"
    shutil.copytree(fixture_dir("sgd"), changed)
    schema = changed / "dev" / "schema.json"
    schema.write_text(schema.read_text() + "\n")
    with pytest.raises(ChecksumError, match="size mismatch for dev/schema.json: .*differs from the published files, "
                                            "pass verify=False$"):
        load("sgd", "dst", split="validation", data_dir=str(changed), checksums=checksums("sgd"),
             cache_dir=str(tmp_path), streaming=True)
    streamed = load("sgd", "dst", split="validation", data_dir=str(changed), checksums=checksums("sgd"),
                    streaming=True, verify=False)
    assert len(list(streamed)) > 0


def test_lm_eval_metadata_names_verify_false_and_takes_it(partial, tmp_path):
    pytest.importorskip("lm_eval")
    from unified_dialogue.harness.task import rows

    metadata = {"corpus": "sgd", "config": "dst-chat", "split": "validation", "data_dir": {"sgd": str(partial)},
                "checksums": {"sgd": checksums("sgd")}, "cache_dir": str(tmp_path)}
    with pytest.raises(MissingFilesError, match="""To load a partial copy, pass --metadata '\\{"verify": false\\}'$"""):
        rows(**metadata)
    assert rows(**metadata, verify=False)["validation"].num_rows > 0


@pytest.mark.parametrize("streaming", [False, True])
def test_a_split_a_partial_copy_has_no_file_of_is_named_with_the_splits_it_gives(partial, tmp_path, streaming):
    with pytest.raises(MissingSplitError, match=f"^data_dir {partial} has no file of the split 'test' \\(it gives the "
                                                "splits train, validation\\): add that split's files, or choose one it "
                                                "gives \\(split='validation'\\)$"):
        load("sgd", "dst", split="test", data_dir=str(partial), verify=False, cache_dir=str(tmp_path),
             streaming=streaming)
