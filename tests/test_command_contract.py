"""The commands' contract, run as a user runs them (a subprocess): a mistake is one line on
stderr and exit status 2, found before any work where it can be; an input file is never
written; a result that is almost surely a mistake exits 0 with a ``warning:`` line; a clean
gold run writes nothing on stderr. On the SGD fixtures."""

import json
import os
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue.scoring.suspicious import warnings

SCORING = [sys.executable, "-m", "unified_dialogue.scoring"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One datasets cache for the module: each config is built once."""
    return str(tmp_path_factory.mktemp("cache"))


def run(*args):
    return subprocess.run([*args], capture_output=True, text=True, timeout=600)


def scoring(cache, predictions, *flags, split="validation", config="dst-chat"):
    return run(*SCORING, "--corpus", "sgd", "--config", config, "--split", split, "--data-dir",
               str(fixture_dir("sgd")), "--checksums", checksums("sgd"), "--cache-dir", cache,
               "--predictions", str(predictions), *flags)


def one_line_error(done, *words):
    """The run ended with exit status 2 and one line on stderr holding every one of ``words``."""
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)
    return done.stderr


def files_of(folder):
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


# ---------------------------------------------------------------- mistakes

def test_a_split_the_corpus_lacks_lists_its_splits(tmp_path, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    fresh = tmp_path / "cache"
    done = scoring(str(fresh), predictions, split="dev")
    one_line_error(done, "--split 'dev'", "train, validation, test")
    assert not fresh.exists()  # found before any row is loaded


@pytest.mark.parametrize("where", ["missing-folder", "a-folder", "the-predictions", "a-checksum-table"])
def test_an_output_that_cannot_or_must_not_be_written_is_refused_before_the_work(tmp_path, dst_chat_gold, where):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    table = tmp_path / "table.tsv"
    shutil.copy(checksums("sgd"), table)
    output = {"missing-folder": tmp_path / "nowhere" / "m.json", "a-folder": tmp_path,
              "the-predictions": predictions, "a-checksum-table": table}[where]
    before = files_of(tmp_path)
    fresh = tmp_path / "cache"
    done = run(*SCORING, "--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir",
               str(fixture_dir("sgd")), "--checksums", str(table), "--cache-dir", str(fresh),
               "--predictions", str(predictions), "--output", str(output))
    one_line_error(done, f"--output {output}")
    assert files_of(tmp_path) == before and not fresh.exists()


def test_an_output_onto_a_file_of_the_local_copy_is_refused(tmp_path, cache, dst_chat_gold):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd"), copy)
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    before = files_of(copy)
    done = run(*SCORING, "--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir",
               str(copy), "--checksums", checksums("sgd"), "--cache-dir", cache, "--predictions", str(predictions),
               "--output", str(copy / "dev" / "schema.json"))
    one_line_error(done, "an input of the command")
    assert files_of(copy) == before


def test_a_partial_copy_without_a_split_scoring_reads_names_it(tmp_path, dst_chat_gold):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd") / "dev", copy / "dev")  # no train/schema.json: no seen services
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    done = run(*SCORING, "--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir", str(copy),
               "--no-verify", "--cache-dir", str(tmp_path / "cache"), "--predictions", str(predictions))
    one_line_error(done, "reads the schema rows of split 'train', which data_dir", f"{copy} has no file of (it gives "
                   "the splits validation): add that split's files\n")


def test_the_metrics_replace_an_earlier_file_whole_and_leave_no_temporary_file(tmp_path, cache, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    output = tmp_path / "metrics.json"
    output.write_text("an earlier run's metrics, much longer than these will be " * 500)
    before = predictions.read_bytes()
    done = scoring(cache, predictions, "--output", str(output))
    assert done.returncode == 0 and done.stderr == "", done.stderr  # a clean gold run: no warning, no bar
    assert json.loads(output.read_text())["#ALL_SERVICES"]["joint_goal_accuracy"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json", "p.jsonl"]
    assert predictions.read_bytes() == before


def test_options_and_flags_are_named_as_the_command_spells_them(tmp_path, cache, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dict(list(dst_chat_gold.items())[1:]))
    message = one_line_error(scoring(cache, predictions), "1 row(s) have no prediction", "--allow-missing")
    assert "allow_missing" not in message
    one_line_error(scoring(cache, predictions, "--option", "level=dst"), "'level'", "level is an option of d3st")
    one_line_error(scoring(cache, predictions, "--option", "instruction"), "'instruction' is not NAME=VALUE")
    one_line_error(scoring(cache, predictions, "--no-such-flag"), "unrecognized arguments: --no-such-flag")
    one_line_error(scoring(cache, predictions, "--config", "summary"), "no scorer for config 'summary'", "dst-chat")
    one_line_error(scoring(cache, tmp_path / "absent.jsonl"), "--predictions", "no such file")


def test_a_typed_error_says_an_int(tmp_path, cache):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": 7, "text": "x"}\n')
    one_line_error(scoring(cache, predictions), "line 1: 'id' is an int, not a str")


def test_ids_of_another_split_say_which(tmp_path, cache, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)
    one_line_error(scoring(cache, predictions, split="test"), "name no row",
                   "they look like ids of the split validation, not test")


def test_ids_of_another_config_say_so(tmp_path, cache, build):
    nlg = {r["id"]: r["completion"][0]["content"] for r in build("sgd", "nlg-chat")["validation"]}
    predictions = write_predictions(tmp_path / "p.jsonl", nlg)  # system turns, scored as dst-chat's user turns
    one_line_error(scoring(cache, predictions), "name no row", "ids of another config")
    d3st = {r["id"]: r["target"] for r in build("sgd", "d3st")["validation"]}
    predictions = write_predictions(tmp_path / "p.jsonl", d3st)  # one id per frame
    one_line_error(scoring(cache, predictions), "name no row", "another shape than this config's ids")


def punkt_installed():
    nltk = pytest.importorskip("nltk")
    try:
        nltk.word_tokenize(".")
    except LookupError:
        return False
    return True


def test_an_unavailable_or_unknown_tokenizer_is_refused_before_the_work(tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", {"sgd/validation/2_00125/1": "Hi."})
    fresh = tmp_path / "cache"
    unknown = scoring(str(fresh), predictions, "--tokenizer", "spacy", config="nlg")
    one_line_error(unknown, "--tokenizer", "'spacy'", "'fallback', 'punkt'")
    if punkt_installed():
        pytest.skip("NLTK's Punkt data is installed here: --tokenizer punkt is then accepted")
    done = scoring(str(fresh), predictions, "--tokenizer", "punkt", config="nlg")
    one_line_error(done, "--tokenizer punkt needs NLTK's Punkt data", "--tokenizer fallback")
    assert not fresh.exists()


def test_scorer_flags_have_help(tmp_path):
    done = run(*SCORING, "--config", "dst-chat", "--help")
    assert done.returncode == 0
    help_text = " ".join(done.stdout.split())
    assert "--use-fuzzy-match, --no-use-fuzzy-match compare non-categorical values" in help_text
    assert "(default: True)" in help_text and "joint accuracies across the services" in help_text


# ---------------------------------------------------------------- warnings

def test_no_prediction_at_all_is_a_warning(tmp_path, cache):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("")
    done = scoring(cache, predictions, "--allow-missing")
    assert done.returncode == 0 and done.stderr.startswith("warning: none of the 13 rows"), done.stderr
    assert done.stderr.count("\n") == 1 and json.loads(done.stdout)["missing"] == 13


def test_texts_of_another_variant_are_a_warning(tmp_path, cache, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)  # base SGD texts scored as SGD-X v3
    done = scoring(cache, predictions, "--variant", "v3")
    assert done.returncode == 0, done.stderr
    # readable texts naming services v3 renames: unknown services, not unreadable text
    assert done.stderr.startswith("warning: unknown_services is 13 for 13 predictions") and "variant" in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("metrics, predicted, expected", [
    ({"malformed": 0, "missing": 0, "unknown_services": 0}, 10, []),
    ({"malformed": 0, "missing": 0, "unknown_services": 6, "unknown_services_ids": []}, 10,
     ["warning: unknown_services is 6 for 10 predictions"]),
    ({"malformed": 0, "missing": 0, "unknown_services": 5}, 10, []),  # half is not most
    ({"misses": {"count": 4, "ids": []}, "malformed": {"count": 0, "ids": []}}, 0, ["warning: none of the 4 rows"]),
    ({"malformed": 3, "missing": 1, "unknown_tools": 3}, 3, ["warning: none of the 3 predicted texts",
                                                             "warning: unknown_tools is 3 for 3 predictions"]),
])
def test_warnings_read_the_counts_every_scorer_reports(metrics, predicted, expected):
    lines = warnings(metrics, predicted, what="sgd dst-chat validation")
    assert len(lines) == len(expected) and all(line.startswith(start) for line, start in zip(lines, expected))


# ---------------------------------------------------------------- progress

def on_a_terminal(args):
    """What a command writes to stderr when stderr is a terminal 80 columns wide (a new one
    is 0 wide, and a bar then has no room)."""
    pty = pytest.importorskip("pty")
    fcntl, termios = pytest.importorskip("fcntl"), pytest.importorskip("termios")
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=follower, timeout=600)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert done.returncode == 0
    return seen.decode("utf-8", "replace")


def test_progress_shows_on_a_terminal_only_and_never_with_quiet(tmp_path, dst_chat_gold):
    predictions = write_predictions(tmp_path / "p.jsonl", dst_chat_gold)

    def command(*flags):
        return [*SCORING, "--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir",
                str(fixture_dir("sgd")), "--checksums", checksums("sgd"), "--cache-dir",
                str(tmp_path / f"cache{len(flags)}"), "--predictions", str(predictions), *flags]

    assert "examples" in on_a_terminal(command())  # datasets' own bars, as a build shows them
    assert on_a_terminal(command("--quiet")) == ""


def test_a_scorers_loop_over_the_rows_shows_progress_past_two_seconds():
    slow = ("import time\nfrom unified_dialogue.scoring.rows import pair\n"
            "for row, text in pair({'0': 'x'}, [{'id': str(i)} for i in range(30)], allow_missing=True):\n"
            "    time.sleep(0.1)\n")
    shown = on_a_terminal([sys.executable, "-c", slow])
    assert "Scoring: " in shown and "30/30" in shown


# ---------------------------------------------------------------- export, publish, cards

@pytest.mark.parametrize("args, words", [
    (["export", "nosuch"], ["unknown corpus 'nosuch'", "sgd"]),
    (["publish", "nosuch", "--repo", "a/b"], ["unknown corpus 'nosuch'"]),
    (["publish", "sgd"], ["required: --repo"]),
    (["export", "sgd", "--num-proc", "x"], ["--num-proc", "'x'"]),
    (["cards", "--out", "{tmp}/nowhere"], ["--out", "no such folder"]),
    (["cards", "--out", "{tmp}/file.txt"], ["--out", "a file, not a folder"]),
    (["export", "sgd", "--no-variants", "--out", "{tmp}/file.txt", "--data-dir", "{copy}"], ["is a file"]),
    (["export", "sgd", "--no-variants", "--out", "{tmp}/project", "--data-dir", "{copy}"], ["not an earlier export"]),
    (["export", "sgd", "--no-variants", "--out", "{copy}/out", "--data-dir", "{copy}"], ["inside an input"]),
    (["export", "sgd", "--no-variants", "--out", "{tmp}/out", "--data-dir", "{copy}", "--checksums", "{tmp}/none.tsv"],
     ["none.tsv: no such file"]),
])
def test_the_tools_end_a_mistake_in_one_line(tmp_path, args, words):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_dir("sgd") / "dev", copy / "dev")
    (tmp_path / "file.txt").write_text("keep me")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("keep me too")
    before = files_of(tmp_path)
    command, *rest = args
    done = run(sys.executable, "-m", f"unified_dialogue.tools.{command}",
               *[a.format(tmp=tmp_path, copy=copy) for a in rest])
    one_line_error(done, *words)
    assert files_of(tmp_path) == before
