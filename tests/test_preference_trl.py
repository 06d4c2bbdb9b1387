"""TRL's trainers on FaithDial's preference rows, on a model built here (tests/test_rewards_trl.py's),
on the CPU: one DPOTrainer step on ``preference``, and the DPO, KTO and reward-model examples of
docs/rl.md and of the FaithDial card run as written, with their settings (``copy``,
``model_name``, ``max_steps``) changed to the fixtures, that model and one step. Runs where trl
and torch are installed: ``make test-rl`` makes that environment (requirements/rl.txt)."""

import re
from pathlib import Path

import pytest

from conftest import TESTS, checksums, fixture_dir

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")
pytest.importorskip("transformers")

from test_rewards_trl import tiny_model  # noqa: E402

from unified_dialogue import load  # noqa: E402

ROOT = TESTS.parent
# The examples each file shows, by the trainer they run.
EXAMPLES = {ROOT / "docs" / "rl.md": ("DPOTrainer", "KTOTrainer", "RewardTrainer"),
            ROOT / "loaders" / "faithdial" / "card.md": ("DPOTrainer", "KTOTrainer")}
SETTINGS = (r"^copy = .*$", r"^model_name = .*$", r"max_steps=\d+")


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    """The model built here, saved with its tokenizer (a chat template) as a folder a trainer loads."""
    rows = load("faithdial", "preference", split="train", data_dir=str(fixture_dir("faithdial")),
                checksums=checksums("faithdial"), cache_dir=str(tmp_path_factory.mktemp("cache")))
    model, tokenizer = tiny_model([m["content"] for row in rows for side in ("prompt", "chosen", "rejected")
                                   for m in row[side]])
    folder = tmp_path_factory.mktemp("tiny-model")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_one_dpo_step_on_the_preference_rows(model_folder, tmp_path):
    rows = load("faithdial", "preference", split="train", data_dir=str(fixture_dir("faithdial")),
                checksums=checksums("faithdial"), cache_dir=str(tmp_path / "cache"))
    args = trl.DPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=1, per_device_train_batch_size=2,
                         logging_steps=1, report_to="none", save_strategy="no", seed=0)
    trainer = trl.DPOTrainer(model=model_folder, args=args, train_dataset=rows)
    trainer.train()
    logged = {key: value for entry in trainer.state.log_history for key, value in entry.items()}
    assert trainer.state.global_step == 1
    assert 0.0 <= logged["rewards/accuracies"] <= 1.0 and logged["logps/chosen"] < 0


def examples(path):
    """The Python code blocks of a Markdown file that run one of its trainers."""
    blocks = re.findall(r"^```python\n(.*?)^```", Path(path).read_text(encoding="utf-8"), flags=re.M | re.S)
    return {trainer: block for block in blocks for trainer in EXAMPLES[path] if f"{trainer}(" in block}


@pytest.mark.parametrize("path, trainer", [(p, t) for p, trainers in EXAMPLES.items() for t in trainers],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_the_documented_example_runs_as_written(model_folder, tmp_path, monkeypatch, path, trainer):
    import datasets

    code = examples(path)[trainer]
    copy = {"data_dir": str(fixture_dir("faithdial"))}  # the bundled table: FaithDial's sums are not known yet
    changed = code
    for pattern, value in zip(SETTINGS, (f"copy = {copy!r}", f"model_name = {model_folder!r}", "max_steps=1")):
        changed, count = re.subn(pattern, value, changed, flags=re.M)
        assert count == 1, (path.name, trainer, pattern)  # each setting is written once, where a reader changes it
    monkeypatch.chdir(tmp_path)  # the example's output folders and files
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))
    namespace = {"__name__": "example"}
    exec(compile(changed, f"{path.name}: the {trainer} example", "exec"), namespace)
    assert namespace["trainer"].state.global_step == 1
    if trainer == "RewardTrainer":  # the scores of both responses of every test row, as the scorer reads them
        lines = (tmp_path / "scores.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == load("faithdial", "preference", split="test", **copy).num_rows
