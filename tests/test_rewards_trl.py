"""One GRPOTrainer step with the rewards of ``dst-chat``, on the tiny model
(``unified_dialogue.testing.tiny_model``: a one-layer Llama, its tokenizer trained on the
fixtures' rows), loaded by its folder, on the CPU; the rewards handed over pickled, as TRL's
asynchronous trainer hands them; a training set cut to its prompts and completions refused at
the first rewards, naming the fix. Runs where trl and torch are installed: ``make test-rl``
makes that environment (requirements/rl.txt)."""

import pickle

import pytest

from conftest import checksums, fixture_dir

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")

from unified_dialogue import load, rewards  # noqa: E402
from unified_dialogue.scoring import ScoringError  # noqa: E402
from unified_dialogue.testing import tiny_model  # noqa: E402


def tiny_setup(tmp_path):
    """``(rows, options, model)``: four dst-chat rows of the fixtures and the tiny model's folder."""
    options = dict(data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), cache_dir=str(tmp_path / "cache"))
    rows = load("sgd", "dst-chat", split="validation", **options).select(range(4))
    return rows, options, tiny_model.build(str(tmp_path / "model"), rows)


def grpo_args(tmp_path, weights):
    return trl.GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=1, per_device_train_batch_size=4,
                          num_generations=2, max_completion_length=8, learning_rate=1e-3, logging_steps=1,
                          report_to="none", reward_weights=weights, save_strategy="no", seed=0)


def test_one_grpo_step_calls_the_rewards_with_the_rows_ids_and_logs_them_by_name(tmp_path):
    rows, options, model = tiny_setup(tmp_path)
    made = rewards.reward("sgd", "dst-chat", "validation", metric=["joint_goal_accuracy", "requested_slots_f1"],
                          **options)
    functions = pickle.loads(pickle.dumps(made))  # as TRL's asynchronous trainer hands them over
    seen = []

    def spy(**kwargs):  # what GRPOTrainer hands a reward function, recorded
        seen.append(kwargs)
        return [None] * len(kwargs["completions"])  # None: not scored by this one (TRL ignores it)

    trainer = trl.GRPOTrainer(model=model, reward_funcs=[*functions, spy], args=grpo_args(tmp_path, [1.0, 0.5, 0.0]),
                              train_dataset=rows)
    trainer.train()
    assert seen and set(seen[0]["id"]) <= set(rows["id"]) and isinstance(seen[0]["completions"][0], list)
    logged = {key: value for entry in trainer.state.log_history for key, value in entry.items()}
    for function in functions:
        assert 0.0 <= logged[f"rewards/{function.__name__}/mean"] <= 1.0
        assert 0.0 <= logged[f"{function.__name__}/malformed"] <= 1.0  # through GRPOTrainer's log_metric
    assert trainer.state.global_step == 1


def test_a_dataset_cut_to_prompt_and_completion_fails_at_the_first_rewards_naming_the_fix(tmp_path):
    rows, options, model = tiny_setup(tmp_path)
    function = rewards.reward("sgd", "dst-chat", "validation", **options)
    trainer = trl.GRPOTrainer(model=model, reward_funcs=[function], args=grpo_args(tmp_path, [1.0]),
                              train_dataset=rows.select_columns(["prompt", "completion"]))
    with pytest.raises(ScoringError, match=r"no 'id' column.*" r'\.select_columns\(\["prompt", "id"\]\)'):
        trainer.train()
