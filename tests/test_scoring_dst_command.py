"""The DST scorer's command line, as the DSTC8 evaluator's (absl flags, its files, its
output's bytes): end to end on a small data dir, as a module, and on the official
evaluator's own output for the fixtures (tests/fixtures/dst_official, see its NOTICE.md)."""

import copy
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES
from dst_cases import (ALL, HOTELS, PREDICTION, REFERENCE, RESTAURANTS, SCHEMAS, TRAIN_SCHEMAS, approx,
                       expected_groups, score_dialogues, write_json)
from unified_dialogue.scoring.dst import __main__ as dst_command, files as dst_files

# ---------------------------------------------------------------- the command line

@pytest.fixture
def data_dir(tmp_path):
    """A tiny data dir in the upstream layout, and a prediction dir (which also holds a per-frame
    file as the evaluator leaves one, to be skipped)."""
    write_json(tmp_path / "data" / "train" / "schema.json", TRAIN_SCHEMAS)
    write_json(tmp_path / "data" / "dev" / "schema.json", SCHEMAS)
    write_json(tmp_path / "data" / "dev" / "dialogues_001.json", [REFERENCE])
    write_json(tmp_path / "predictions" / "model.json", [PREDICTION])
    write_json(tmp_path / "predictions" / dst_files.PER_FRAME_FILE, {"1_00000": "not a dialogue"})
    return tmp_path


def run_main(root, *flags, out="metrics.json"):
    output = root / out
    dst_command.main(["--dstc8_data_dir", str(root / "data"), "--prediction_dir", str(root / "predictions"),
              "--eval_set", "dev", "--output_metric_file", str(output), *flags])
    return output.read_text()


def test_command_writes_the_metrics_as_the_evaluator_does(data_dir):
    text = run_main(data_dir)
    metrics = json.loads(text)
    assert metrics == approx(expected_groups(ALL, RESTAURANTS, HOTELS))
    assert text == json.dumps(metrics, indent=2, separators=(",", ": "), sort_keys=True)  # no final newline
    assert text.startswith('{\n  "#ALL_SERVICES": {\n    "active_intent_accuracy": 0.666')


@pytest.mark.parametrize("flags, fuzzy, across", [
    ([], True, False),
    (["--use_fuzzy_match"], True, False),
    (["--nouse_fuzzy_match"], False, False),
    (["--use_fuzzy_match=false"], False, False),
    (["-use_fuzzy_match=F"], False, False),
    (["--use_fuzzy_match=0", "--use_fuzzy_match"], True, False),  # the last one counts
    (["--joint_acc_across_turn"], True, True),
    (["--joint_acc_across_turn=True", "--nojoint_acc_across_turn"], True, False),
    (["-joint_acc_across_turn=1", "--use_fuzzy_match=f"], False, True),
])
def test_command_takes_absl_boolean_spellings(data_dir, flags, fuzzy, across):
    expected = score_dialogues([PREDICTION], [REFERENCE], use_fuzzy_match=fuzzy, joint_acc_across_turn=across)
    assert json.loads(run_main(data_dir, *flags)) == expected


@pytest.mark.parametrize("flags", [["--use_fuzzy_match", "false"], ["--use_fuzzy_match=maybe"], ["--use_fuzzy"]])
def test_command_refuses_what_absl_would_read_otherwise(data_dir, flags):
    with pytest.raises(SystemExit) as exit_info:
        run_main(data_dir, *flags)
    assert exit_info.value.code == 2


def test_command_reports_predictions_that_do_not_match(data_dir, capsys):
    def error_line():
        with pytest.raises(SystemExit) as exit_info:
            run_main(data_dir)
        assert exit_info.value.code == 2
        return capsys.readouterr().err

    prediction = copy.deepcopy(PREDICTION)
    prediction["turns"][2]["utterance"] = "Something else"
    write_json(data_dir / "predictions" / "model.json", [prediction])
    assert error_line() == "dst: dialogue 1_00000, turn 2: the utterance differs from the reference's\n"
    prediction = copy.deepcopy(PREDICTION)
    prediction["services"] = ["Restaurants_1"]
    write_json(data_dir / "predictions" / "model.json", [prediction])
    assert error_line().startswith("dst: dialogue 1_00000: the predicted services")
    write_json(data_dir / "predictions" / "model.json", [{**PREDICTION, "dialogue_id": "9_00000"}])
    assert "not in the references: 9_00000" in error_line()
    assert not (data_dir / "metrics.json").exists()


def test_command_reads_the_files_the_evaluator_reads(data_dir, capsys):
    """Every *.json of the folder, hidden ones too (the evaluator's glob), but those whose path
    contains the per-frame file's name anywhere."""
    expected = run_main(data_dir)
    write_json(data_dir / "predictions" / f"run1_{dst_files.PER_FRAME_FILE}", "not dialogues")
    write_json(data_dir / "predictions" / f"{dst_files.PER_FRAME_FILE}.json", "not dialogues")
    assert run_main(data_dir) == expected
    write_json(data_dir / "predictions" / ".hidden.json", [{**PREDICTION, "dialogue_id": "9_00000"}])
    with pytest.raises(SystemExit):
        run_main(data_dir)
    assert "not in the references: 9_00000" in capsys.readouterr().err


def test_command_pairs_turns_in_order_and_keeps_a_repeated_dialogue_last(data_dir):
    truncated = {**PREDICTION, "turns": PREDICTION["turns"][:1]}  # only t0 is scored
    write_json(data_dir / "predictions" / "a.json", [truncated])
    write_json(data_dir / "predictions" / "model.json", [{**PREDICTION, "services": ["Hotels_2", "Restaurants_1"]}])
    assert json.loads(run_main(data_dir)) == approx(expected_groups(ALL, RESTAURANTS, HOTELS))
    write_json(data_dir / "predictions" / "z.json", [truncated])
    assert set(json.loads(run_main(data_dir))) == {"#ALL_SERVICES", "#SEEN_SERVICES", "Restaurants_1", "Restaurants"}


def test_command_as_a_module(data_dir):
    output = data_dir / "module.json"
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring.dst",
                           f"--dstc8_data_dir={data_dir / 'data'}", f"--prediction_dir={data_dir / 'predictions'}",
                           "--eval_set=dev", f"--output_metric_file={output}", "--nouse_fuzzy_match"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "always"})
    assert done.returncode == 0, done.stderr
    assert json.loads(output.read_text()) == score_dialogues([PREDICTION], [REFERENCE], use_fuzzy_match=False)
    # the package does not import the module the command runs (runpy would warn of it)
    assert "Warning" not in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_the_command_never_writes_onto_its_inputs(data_dir):
    prediction = data_dir / "predictions" / "a.json"
    write_json(prediction, [PREDICTION])
    before = prediction.read_bytes()
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring.dst",
                           f"--dstc8_data_dir={data_dir / 'data'}", f"--prediction_dir={data_dir / 'predictions'}",
                           "--eval_set=dev", f"--output_metric_file={prediction}"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "is an input of the command" in done.stderr and prediction.read_bytes() == before


# ---------------------------------------------------------------- the official evaluator's own output

@pytest.mark.parametrize("name, flags", [
    ("fuzzy", ["--use_fuzzy_match=true", "--nojoint_acc_across_turn"]),
    ("exact", ["--use_fuzzy_match=false", "--nojoint_acc_across_turn"]),
    ("fuzzy_across", ["--use_fuzzy_match=true", "--joint_acc_across_turn"]),
    ("exact_across", ["--use_fuzzy_match=false", "--joint_acc_across_turn"]),
])
def test_command_writes_the_official_evaluators_bytes(tmp_path, name, flags):
    official = FIXTURES / "dst_official"  # see its NOTICE.md
    output = tmp_path / "metrics.json"
    dst_command.main(["--dstc8_data_dir", str(FIXTURES / "sgd"), "--prediction_dir", str(official / "predictions"),
              "--eval_set", "dev", "--output_metric_file", str(output), *flags])
    assert output.read_bytes() == (official / f"metrics_{name}.json").read_bytes()
