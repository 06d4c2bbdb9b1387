"""The one scoring command (``python -m unified_dialogue.scoring``) and ``scoring.score``,
end to end on the SGD fixtures: predictions files of ``dst-chat`` texts, their metrics,
the official evaluator's numbers for the same states, and the errors that name what is
wrong."""

import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, checksums, fixture_dir, write_predictions
from unified_dialogue import scoring
from unified_dialogue.chat import state, text
from unified_dialogue.scoring import ScoringError, score
from unified_dialogue.scoring.__main__ import main
from unified_dialogue.scoring.rows import load_json

METRIC_GROUPS = "#ALL_SERVICES"


@pytest.fixture
def fixture_options(tmp_path):
    return {"data_dir": str(fixture_dir("sgd")),
            "load_options": {"checksums": checksums("sgd"), "cache_dir": str(tmp_path / "cache")}}


def command(tmp_path, predictions, *flags):
    return ["--corpus", "sgd", "--config", "dst-chat", "--split", "validation", "--data-dir", str(fixture_dir("sgd")),
            "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "cache"), "--predictions", str(predictions),
            *flags]


def gold(build, split="validation", **options):
    return {r["id"]: r["completion"][0]["content"] for r in build("sgd", "dst-chat", **options)[split]}


def groups(metrics):
    return {k: v for k, v in metrics.items() if isinstance(v, dict)}


def test_the_command_scores_a_predictions_file_and_writes_the_metrics(build, tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", gold(build))
    output = tmp_path / "metrics.json"
    main(command(tmp_path, predictions, "--output", str(output)))
    metrics = load_json(output)
    assert {v for g in groups(metrics).values() for v in g.values()} == {1.0}
    assert (metrics["malformed"], metrics["missing"], metrics["frames_not_predicted"]) == (0, 0, 0)
    assert not output.read_text().endswith("\n")  # as the evaluator writes its file


def test_the_command_runs_as_a_module_and_prints_the_metrics(build, tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", gold(build))
    done = subprocess.run([sys.executable, "-m", "unified_dialogue.scoring", *command(tmp_path, predictions),
                           "--no-use-fuzzy-match"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)[METRIC_GROUPS]["joint_goal_accuracy"] == 1.0


def test_an_sgdx_variant_is_scored_under_its_own_schema(build, tmp_path):
    predictions = write_predictions(tmp_path / "p.jsonl", gold(build, variant="v3"))
    output = tmp_path / "metrics.json"
    main(command(tmp_path, predictions, "--variant", "v3", "--output", str(output)))
    metrics = load_json(output)
    assert {v for g in groups(metrics).values() for v in g.values()} == {1.0}
    assert any(name.endswith("_13") for name in metrics)  # v3's service names (e.g. Media_13)


def test_malformed_and_missing_predictions_are_counted_misses(build, tmp_path, fixture_options):
    texts = gold(build)
    ids = list(texts)
    texts[ids[0]] = "I cannot tell."  # nothing readable: every frame of the turn is a miss
    texts[ids[1]] = texts[ids[1]] + "; no_such_slot=1"  # a slot of no schema: counted apart, the rest scored
    del texts[ids[2]]
    with pytest.raises(ScoringError, match=f"1 row\\(s\\) have no prediction: '{ids[2]}'"):
        score("sgd", "dst-chat", "validation", texts, **fixture_options)
    metrics = score("sgd", "dst-chat", "validation", texts, allow_missing=True, **fixture_options)
    assert (metrics["malformed"], metrics["malformed_ids"]) == (1, [ids[0]])
    assert (metrics["unknown_slots"], metrics["unknown_slots_ids"]) == (1, [ids[1]])
    assert (metrics["missing"], metrics["missing_ids"]) == (1, [ids[2]])
    assert metrics["frames_not_predicted"] >= 2
    assert 0 < metrics[METRIC_GROUPS]["joint_goal_accuracy"] < 1


def test_the_metrics_are_score_dst_of_the_parsed_states(build, fixture_options):
    from unified_dialogue.scoring.dst import score_dst

    references = build("sgd", "dst")["validation"]
    schemas = build("sgd", "schema")
    texts = {}
    for k, row in enumerate(references):  # every other turn with its intent lost and a value lower-cased
        frames = [{**f, "state": {**f["state"], "active_intent": "NONE" if k % 2 else f["state"]["active_intent"],
                                  "slot_values": [{**e, "values": [v.lower() for v in e["values"]]}
                                                  for e in f["state"]["slot_values"]]}} for f in row["frames"]]
        texts[row["id"]] = state.state_text(frames)
    parsed = [{"dialogue_id": r["dialogue_id"], "turn_index": r["turn_index"],
               "frames": state.parse(texts[r["id"]], schemas["validation"])[0]} for r in references]
    expected = score_dst(parsed, references, schemas["validation"], schemas["train"])
    metrics = score("sgd", "dst-chat", "validation", texts, **fixture_options)
    assert groups(metrics) == expected
    assert expected[METRIC_GROUPS]["active_intent_accuracy"] < 1


@pytest.mark.parametrize("flags", [{}, {"use_fuzzy_match": False}, {"joint_acc_across_turn": True}])
def test_texts_score_as_the_evaluators_files_of_the_states_read_from_them(build, tmp_path, fixture_options, flags):
    """The official fixture predictions (noisy states: intents in other cases, services
    twice, values changed) written as texts score as the evaluator's command scores the
    states read back from them, written as SGD files in the rows' order."""
    from unified_dialogue.scoring.dst.files import score_dst_files

    official = FIXTURES / "dst_official"  # see its NOTICE.md
    predicted = {d["dialogue_id"]: d for d in load_json(official / "predictions" / "predictions.json")}
    references = build("sgd", "dst")["validation"]
    texts = {}
    for row in references:
        turn = predicted[row["original_id"]]["turns"][row["turn_index"]]
        texts[row["id"]] = "\n".join(
            state.line(f["service"], f["state"]["active_intent"], f["state"]["requested_slots"],
                       [(slot, text.values(v)) for slot, v in f["state"]["slot_values"].items()])
            for f in turn["frames"])
    metrics = score("sgd", "dst-chat", "validation", texts, **fixture_options, **flags)

    schema = build("sgd", "schema")["validation"]
    dialogues = {d["dialogue_id"]: d for d in load_json(fixture_dir("sgd") / "dev" / "dialogues_001.json")}
    written = []
    for row in references:
        dialogue = dialogues[row["original_id"]]
        if not written or written[-1]["dialogue_id"] != dialogue["dialogue_id"]:
            written.append(dialogue)
        parsed = {f["service"]: f for f in state.parse(texts[row["id"]], schema)[0]}
        turn = dialogue["turns"][row["turn_index"]]
        for frame in turn["frames"]:
            got = parsed.get(frame["service"])
            frame.pop("slots")  # the texts give no spans
            frame["state"] = {"active_intent": got["state"]["active_intent"] if got else "NONE",
                              "requested_slots": got["state"]["requested_slots"] if got else [],
                              "slot_values": {e["slot"]: e["values"] for e in got["state"]["slot_values"]}
                              if got else {}}
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "dialogues_001.json").write_text(json.dumps(written))
    expected = score_dst_files(str(fixture_dir("sgd")), str(tmp_path / "files"), "dev", **flags)
    assert groups(metrics) == expected
    # texts with a slot the schema lacks: readable, counted apart (the rest of each is scored)
    assert (metrics["malformed"], metrics["unknown_slots"]) == (0, 3)


def test_the_command_names_what_is_wrong(build, tmp_path, capsys):
    texts = gold(build)
    bad_id = write_predictions(tmp_path / "a.jsonl", {**texts, "sgd/validation/nope/0": "x"})
    with pytest.raises(SystemExit) as exit_:
        main(command(tmp_path, bad_id))
    assert exit_.value.code == 2 and "'sgd/validation/nope/0'" in capsys.readouterr().err
    bad_line = tmp_path / "b.jsonl"
    bad_line.write_text('{"id": "x", "text": "y"}\nnot json\n')
    with pytest.raises(SystemExit):
        main(command(tmp_path, bad_line))
    assert f"{bad_line}, line 2: not JSON" in capsys.readouterr().err
    for flags, message in [(["--config", "summary"], "no scorer for config 'summary'"),
                           (["--option", "seed=3"], "takes no option 'seed'")]:
        with pytest.raises(SystemExit):
            main(command(tmp_path, bad_id) + flags)
        assert message in capsys.readouterr().err


def test_the_config_options_are_typed_as_the_loader_types_them(build, tmp_path):
    texts = gold(build)
    predictions = write_predictions(tmp_path / "p.jsonl", texts)
    metrics = main(command(tmp_path, predictions, "--option", "instruction=Track."))
    assert metrics[METRIC_GROUPS]["joint_goal_accuracy"] == 1.0


def test_a_config_without_a_scorer_is_an_error_naming_those_with_one():
    with pytest.raises(ScoringError, match=r"no scorer for config 'agent-chat' \(there is one for .*dst-chat"):
        scoring.scorer("agent-chat")
    assert scoring.flags("dst-chat") == {"use_fuzzy_match": True, "joint_acc_across_turn": False}


def test_score_sorts_its_arguments_and_refuses_a_misspelt_setting_before_loading(tmp_path):
    from unified_dialogue.core.errors import ConfigError

    nothing = str(tmp_path / "nothing here")
    with pytest.raises(ConfigError, match="takes no option 'use_fuzy_match': did you mean 'use_fuzzy_match'\\? "
                                          "\\(.*its scorer settings: use_fuzzy_match, joint_acc_across_turn"):
        score("sgd", "dst-chat", "validation", {}, data_dir=nothing, use_fuzy_match=False)
    with pytest.raises(ConfigError, match="^split 'dev': sgd has the splits train, validation, test$"):
        score("sgd", "dst-chat", "dev", {}, data_dir=nothing, checksums="x.tsv")
    assert not (tmp_path / "nothing here").exists()
