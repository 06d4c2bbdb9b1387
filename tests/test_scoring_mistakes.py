"""A new user's mistakes with the scoring command and its files, each answered by one line
that names the file, line, field or flag and the fix, before the work where it can be: a
predictions file in another shape (empty, one JSON object for every row, an lm-eval samples
file, a byte order mark, a line cut short), a checksum table that is none, an output that
cannot be written, flags that do not go together. In process (``main``), on the SGD
fixtures."""

import json
import os

import pytest

from conftest import checksums, fixture_dir, write_predictions
from unified_dialogue.core.errors import ConfigError
from unified_dialogue.core.sources import read_checksum_table
from unified_dialogue.scoring import score
from unified_dialogue.scoring.__main__ import main
from unified_dialogue.scoring.rows import ScoringError, pair, read_predictions


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def command(cache, *flags, table=None):
    return ["--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir", str(fixture_dir("sgd")),
            "--checksums", table or checksums("sgd"), "--cache-dir", cache, *flags]


def one_line(capsys, cache, *flags, table=None):
    """The command's one line on stderr, after it ended with exit status 2."""
    with pytest.raises(SystemExit) as exit_:
        main(command(cache, *flags, table=table))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    return err


def lines(path, *texts):
    path.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the predictions file

def test_an_empty_predictions_file_is_named_before_any_row_loads(tmp_path, capsys):
    fresh = str(tmp_path / "cache")
    err = one_line(capsys, fresh, "--predictions", str(lines(tmp_path / "p.jsonl")), "--only-predicted")
    assert "p.jsonl: no prediction: the file is empty" in err
    assert not os.path.exists(fresh)


def test_one_json_object_for_every_row_is_named_as_such(tmp_path, dst_chat_gold):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(dst_chat_gold), encoding="utf-8")
    with pytest.raises(ScoringError, match=r"p.json, line 1: no 'id' \(its keys: .*\); one \{id: text\} object for "
                                           r"every row: write one \{\"id\": \.\.\., \"text\": \.\.\.\} object a line"):
        read_predictions(path)


def test_an_lm_eval_samples_file_is_named_with_the_command_that_converts_it(tmp_path):
    sample = {"doc_id": 0, "doc": {"id": "sgd/validation/1_00000/0"}, "target": "x", "arguments": {},
              "resps": [["a"]], "filtered_resps": ["a"], "filter": "none"}
    path = lines(tmp_path / "samples_sgd_dst_chat.jsonl", json.dumps(sample))
    with pytest.raises(ScoringError, match="line 1: no 'id' .*; an lm-eval samples file: turn it into predictions "
                                           "with python -m unified_dialogue.harness samples-to-predictions"):
        read_predictions(path)


def test_a_line_without_text_lists_the_keys_it_has(tmp_path):
    path = lines(tmp_path / "p.jsonl", '{"id": "a", "prediction": "x"}')
    with pytest.raises(ScoringError, match=r"line 1: no 'text' \(its keys: 'id', 'prediction'\); each line is "
                                           r"\{\"id\": <row id>, \"text\": <model output>\}"):
        read_predictions(path)


def test_a_byte_order_mark_is_no_mistake(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8-sig")
    assert read_predictions(path) == {"a": "x"}


def test_a_line_cut_short_is_named_with_its_column_in_that_line(tmp_path):
    path = lines(tmp_path / "p.jsonl", '{"id": "a", "text": "x"}', '{"id": "b", "text": "y"')
    with pytest.raises(ScoringError, match=r"p.jsonl, line 2: not JSON: Expecting ',' delimiter at column 24 "
                                           r"\(JSON Lines: one JSON object a line\)$"):
        read_predictions(path)


def test_a_text_that_is_not_a_string_names_the_fix_not_only_allow_missing():
    with pytest.raises(ScoringError, match=r"the text is a list, not a string: give the model's output as one "
                                           r"string \(or allow_missing=True scores such a text as malformed\)"):
        pair({"a": ["x"]}, [{"id": "a"}])


def test_rows_without_a_prediction_point_a_sample_to_only_predicted(tmp_path, capsys, cache, dst_chat_gold):
    one = dict(list(dst_chat_gold.items())[:1])
    err = one_line(capsys, cache, "--predictions", str(write_predictions(tmp_path / "p.jsonl", one)))
    assert "have no prediction" in err
    assert "(--only-predicted scores the predicted rows alone, as an lm-eval --limit run does; --allow-missing " \
           "counts the others as misses)" in err


def test_score_takes_one_split(dst_chat_gold):
    with pytest.raises(ConfigError, match=r"split=None: a predictions file answers the rows of one split; name it "
                                          r"\(sgd has the splits train, validation, test\)"):
        score("sgd", "dst-chat", None, dst_chat_gold, data_dir=str(fixture_dir("sgd")))


def test_score_reads_the_rows_whole(dst_chat_gold):
    with pytest.raises(ConfigError, match="takes no streaming=True here: the rows are scored whole, not streamed"):
        score("sgd", "dst-chat", "validation", dst_chat_gold, data_dir=str(fixture_dir("sgd")), streaming=True)


# ---------------------------------------------------------------- the flags

def test_predictions_and_variant_predictions_together_are_named_as_such(tmp_path, capsys, cache, dst_chat_gold):
    path = str(write_predictions(tmp_path / "p.jsonl", dst_chat_gold))
    err = one_line(capsys, cache, "--predictions", path, "--variant-predictions", f"v1={path}")
    assert "--predictions and --variant-predictions together: give one" in err


def test_a_misspelt_flag_is_matched_to_a_listed_flag_not_a_hidden_older_name(tmp_path, capsys, cache, dst_chat_gold):
    path = str(write_predictions(tmp_path / "p.jsonl", dst_chat_gold))
    err = one_line(capsys, cache, "--predictions", path, "--no-checksums")
    assert "unrecognized arguments: --no-checksums (did you mean --no-verify?)" in err


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs a folder no one may write in, root included")
def test_an_output_folder_that_cannot_be_written_is_named_before_the_work(tmp_path, capsys, dst_chat_gold):
    fresh = str(tmp_path / "cache")
    path = str(write_predictions(tmp_path / "p.jsonl", dst_chat_gold))
    err = one_line(capsys, fresh, "--predictions", path, "--output", "/proc/metrics.json")
    assert "--output /proc/metrics.json: the folder /proc cannot be written" in err
    assert not os.path.exists(fresh)


# ---------------------------------------------------------------- the checksum table

@pytest.mark.parametrize("make, words", [
    (lambda folder: folder, "a folder; give the checksum table (a TSV file with the columns path, num_bytes, sha256)"),
    (lambda folder: folder / "no-such.tsv", "cannot be read (No such file or directory)"),
    (lambda folder: lines(folder / "SHA256SUMS", "0" * 64 + "  dev/schema.json"),
     "line 1: not a checksum table: its first line names the tab-separated columns path, num_bytes, sha256"),
    (lambda folder: lines(folder / "t.tsv", "path\tnum_bytes\tsha256", "dev/schema.json 12 abc"),
     "line 2: not path, num_bytes and sha256 separated by tabs"),
])
def test_a_checksum_table_that_is_none_is_one_line_before_any_row_loads(tmp_path, capsys, dst_chat_gold, make, words):
    fresh = str(tmp_path / "cache")
    table = str(make(tmp_path))
    path = str(write_predictions(tmp_path / "p.jsonl", dst_chat_gold))
    err = one_line(capsys, fresh, "--predictions", path, table=table)
    assert f"--checksums {table}" in err and words in err
    assert not os.path.exists(fresh)
    with pytest.raises(ConfigError, match=f"checksums='{table}'"):
        read_checksum_table(table)


def test_a_file_the_table_lacks_is_fixed_with_the_commands_flag(tmp_path, capsys, dst_chat_gold):
    path = str(write_predictions(tmp_path / "p.jsonl", dst_chat_gold))
    err = one_line(capsys, str(tmp_path / "cache"), "--predictions", path, table=checksums("ccpe"))
    assert "name a table that lists it (--checksums path/to/SHA256SUMS.tsv), or pass --no-verify" in err
