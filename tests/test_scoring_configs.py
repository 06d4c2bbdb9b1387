"""The declaration of each scored config (``scoring.configs``): it matches its scorer, and the
scoring command, ``scoring.score`` and the rewards are derived from it, so that a new scored
config is one record (the lm-eval half: tests/test_harness.py)."""

import inspect

import pytest

from conftest import checksums, fixture_dir
from unified_dialogue import rewards, scoring
from unified_dialogue.core.options import Option
from unified_dialogue.scoring import configs
from unified_dialogue.scoring.__main__ import main, parser
from unified_dialogue.scoring.per_row import own_rows


@pytest.mark.parametrize("name", sorted(configs.CONFIGS))
def test_each_declaration_matches_its_scorer(name):
    declaration = configs.CONFIGS[name]
    parameters = inspect.signature(declaration.scorer).parameters
    for option in declaration.settings:
        assert parameters[option.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[option.name].default == option.default and isinstance(option.default, option.type)
        assert option.description
    assert set(declaration.row_settings) <= {option.name for option in declaration.settings}
    assert {"allow_missing", "per_row"} <= set(parameters)
    names = [metric.name for metric in declaration.metrics]
    assert len(names) == len(set(names)) and all(metric.path for metric in declaration.metrics)
    # a config whose predictions are texts has rewards; one of scores (preference) none
    assert bool(declaration.row_metrics) == (declaration.prepare is not None) == declaration.predicts_text


def test_the_flags_help_is_the_declarations_text(capsys):
    for name, declaration in configs.CONFIGS.items():
        help_text = " ".join(parser(name).format_help().split())
        for option in declaration.settings:
            flag = "--" + option.name.replace("_", "-")
            assert flag in help_text and " ".join(option.description.split()) in help_text, (name, flag)


def test_a_config_scored_from_scores_reads_its_file_so_and_has_no_reward(tmp_path):
    from unified_dialogue.scoring.preference import read_scores

    assert configs.CONFIGS["preference"].read is read_scores and not configs.CONFIGS["preference"].predicts_text
    with pytest.raises(scoring.ScoringError, match="no reward for config 'preference': it is scored from a model's "
                                                   "scores"):
        rewards.reward("faithdial", "preference", "test")
    with pytest.raises(scoring.ScoringError, match="did you mean 'critic'"):
        rewards.reward("faithdial", "critc", "test")


def test_a_metric_is_found_at_its_place_in_the_result():
    metric = configs.CONFIGS["nlg"].metric("rougeL")
    assert metric.of({"all": {"rougeL": {"fmeasure": 0.5}}}) == 0.5
    assert metric.of({"all": {}}) is None and configs.CONFIGS["nlg"].metric("ser").higher_is_better is False


# ---------------------------------------------------------------- a new scored config is one record

def score_capitals(predictions, rows, *, allow_missing=False, per_row=False, shout=False):
    """A scorer for the test: the share of the rows whose text is in capitals (any text with
    ``shout`` False)."""
    values = [float(text.isupper() or not shout) for text in predictions.values()]
    result = {"capitals": sum(values) / len(values)}
    if per_row:
        result["per_row"] = [{"id": i, "capitals": v} for i, v in zip(predictions, values)]
    return result


def capitals_of_row(text, row, shout=False):
    return {"capitals": float(text.isupper() or not shout)}, []


SHOUT = Option("shout", bool, False, "count only the texts in capitals")
CAPITALS = configs.Scored("agent-chat", score_capitals, "agent-chat", (configs.Metric("capitals", ("capitals",)),),
                          own_rows(capitals_of_row, columns=("id",)), ("capitals",), (SHOUT,), ("shout",))


@pytest.fixture
def with_capitals(monkeypatch):
    monkeypatch.setitem(configs.CONFIGS, "agent-chat", CAPITALS)


def test_a_new_record_gives_the_command_its_flags_and_score_its_settings(with_capitals, build, tmp_path, capsys):
    assert scoring.flags("agent-chat") == {"shout": False} and scoring.scorer("agent-chat") is score_capitals
    with pytest.raises(SystemExit):
        main(["--config", "agent-chat", "--help"])
    assert "--shout" in capsys.readouterr().out
    rows = build("sgd", "agent-chat")["validation"]
    texts = {row["id"]: "HELLO" if k % 2 else "hello" for k, row in enumerate(rows)}
    common = dict(data_dir=str(fixture_dir("sgd")), load_options={"checksums": checksums("sgd"),
                                                                  "cache_dir": str(tmp_path / "cache")})
    assert scoring.score("sgd", "agent-chat", "validation", texts, **common)["capitals"] == 1.0
    assert scoring.score("sgd", "agent-chat", "validation", texts, shout=True, **common)["capitals"] < 1.0


def test_a_new_record_gives_its_rewards(with_capitals, build, tmp_path):
    rows = build("sgd", "agent-chat")["validation"]
    reward = rewards.reward("sgd", "agent-chat", "validation", shout=True, data_dir=str(fixture_dir("sgd")),
                            checksums=checksums("sgd"), cache_dir=str(tmp_path / "cache"))
    ids = [rows[0]["id"], rows[1]["id"]]
    assert reward.__name__ == "agent-chat_capitals"
    assert reward(prompts=[[], []], completions=["LOUD", "quiet"], id=ids) == [1.0, 0.0]
