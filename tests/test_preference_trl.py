"""One DPOTrainer step on FaithDial's ``preference`` rows as they load (their id, dialogue and
BEGIN columns kept), on the tiny model (``unified_dialogue.testing.tiny_model``, its tokenizer
trained on those rows), loaded by its folder, on the CPU. Runs where trl and torch are
installed: ``make test-rl`` makes that environment (requirements/rl.txt). The documented DPO,
KTO and reward-model examples run in ``tests/test_docs_examples.py``."""

import pytest

from conftest import checksums, fixture_dir

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")

from unified_dialogue import load  # noqa: E402
from unified_dialogue.testing import tiny_model  # noqa: E402


def test_one_dpo_step_on_the_preference_rows(tmp_path):
    rows = load("faithdial", "preference", split="train", data_dir=str(fixture_dir("faithdial")),
                checksums=checksums("faithdial"), cache_dir=str(tmp_path / "cache"))
    model = tiny_model.build(str(tmp_path / "model"), rows)
    args = trl.DPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=1, per_device_train_batch_size=2,
                         logging_steps=1, report_to="none", save_strategy="no", seed=0)
    trainer = trl.DPOTrainer(model=model, args=args, train_dataset=rows)
    trainer.train()
    logged = {key: value for entry in trainer.state.log_history for key, value in entry.items()}
    assert trainer.state.global_step == 1
    assert 0.0 <= logged["rewards/accuracies"] <= 1.0 and logged["logps/chosen"] < 0 and logged["logps/rejected"] < 0
