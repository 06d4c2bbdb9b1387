"""Scores of d3st outputs (``scoring.d3st``): gold targets score 1.0, malformed and missing
outputs are counted with their ids, ids the legend lacks are unknown rather than malformed,
and the scoring command gives the same numbers with the rows' options."""

import pytest

from d3st_cases import SPLITS, assert_all_one, fixture_rows, options_of, rows_of
from d3st_cases import unified  # noqa: F401 (a fixture)
from unified_dialogue.scoring.d3st import score_d3st
from unified_dialogue.scoring.rows import ScoringError
from unified_dialogue.views import d3st
from unified_dialogue.views.d3st_text import Legend, parse


@pytest.mark.parametrize("corpus", ["sgd", "v2"])
@pytest.mark.parametrize("combo", [("dst_intent", "full_desc", "1a", True), ("dst", "item_name", "a", False)])
def test_gold_targets_score_1_on_every_metric(unified, corpus, combo):
    for split in SPLITS:
        rows = fixture_rows(unified, corpus, split, **options_of(*combo))
        metrics = score_d3st({r["id"]: r["target"] for r in rows}, rows)
        assert_all_one(metrics)
        assert ("active_intent_accuracy" in metrics["#ALL_SERVICES"]) == (combo[0] != "dst")


def test_malformed_and_missing_outputs_are_counted_with_their_ids(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    predictions = {r["id"]: r["target"] for r in rows}
    bad, gone = rows[0]["id"], rows[1]["id"]
    predictions[bad] = "I think the user wants food"
    del predictions[gone]
    with pytest.raises(ScoringError, match="no prediction"):
        score_d3st(predictions, rows)
    metrics = score_d3st(predictions, rows, allow_missing=True)
    assert metrics["malformed_ids"] == [bad] and metrics["missing_ids"] == [gone]
    assert metrics["malformed_problems"][bad] == ["no [states]"]
    assert metrics["#ALL_SERVICES"]["joint_goal_accuracy"] < 1.0
    with pytest.raises(ScoringError, match="name no row"):
        score_d3st({**predictions, "sgd/validation/nope/0/0": "[states]"}, rows, allow_missing=True)


def test_the_scoring_command_scores_d3st_outputs_with_the_rows_options(build, tmp_path):
    from conftest import checksums, fixture_dir
    from unified_dialogue.scoring.__main__ import main
    from unified_dialogue.scoring.rows import load_json

    rows = build("sgd", "d3st", variant="v2", level="dst", multiple_choice="a")["validation"]
    predictions = tmp_path / "p.jsonl"
    texts = {r["id"]: r["target"] for r in rows}
    texts[rows[0]["id"]] = "[states] nonsense"
    predictions.write_text("".join(f'{{"id": "{i}", "text": "{t}"}}\n' for i, t in texts.items()), encoding="utf-8")
    output = tmp_path / "metrics.json"
    main(["--corpus", "sgd", "--config", "d3st", "--split", "validation", "--variant", "v2",
          "--option", "level=dst", "--option", "multiple_choice=a", "--data-dir", str(fixture_dir("sgd")),
          "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "cache"), "--predictions", str(predictions),
          "--output", str(output), "--no-use-fuzzy-match"])
    metrics = load_json(output)
    assert metrics["malformed_ids"] == [rows[0]["id"]] and metrics["missing"] == 0
    assert "active_intent_accuracy" not in metrics["#ALL_SERVICES"]
    assert metrics == score_d3st(texts, rows, use_fuzzy_match=False)


def test_ids_the_legend_lacks_are_counted_unknown_not_malformed(unified):
    rows = rows_of(unified["sgd"]["validation"], **d3st.DEFAULTS)
    predictions = {r["id"]: r["target"] for r in rows}
    slot, intent, broken = rows[0]["id"], rows[1]["id"], rows[2]["id"]
    predictions[slot] = rows[0]["target"].replace("[states]", "[states] 99=x")
    predictions[intent] = rows[1]["target"].replace("[intents]", "[intents] i99")
    predictions[broken] = rows[2]["target"].replace("[states]", '[states] 0="open')
    metrics = score_d3st(predictions, rows)
    assert metrics["unknown_slots_ids"] == [slot] and metrics["unknown_slots"] == 1
    assert metrics["unknown_intents_ids"] == [intent] and metrics["unknown_intents"] == 1
    assert metrics["malformed_ids"] == [broken]
    assert metrics["malformed_problems"][slot] == ["[states]: slot id 99 is not in the legend"]
    _, (problem,) = parse(predictions[slot], Legend.from_row(rows[0]["legend"]))
    assert (problem.kind, problem.name) == ("unknown_slot", "99")
