"""One GRPOTrainer step with the rewards of ``dst-chat``, on a model built here (a byte-level
BPE tokenizer trained on the fixtures' texts, a one-layer Llama), on the CPU. Runs where trl
and torch are installed: ``make test-rl`` makes that environment (requirements/rl.txt)."""

import pytest

from conftest import checksums, fixture_dir

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")
tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

from unified_dialogue import load, rewards  # noqa: E402

TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
SPECIAL = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]


def trained_tokenizer(texts):
    """A byte-level BPE tokenizer trained on ``texts``, with the template above."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tokenizer = tokenizers.Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    made = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<|pad|>", eos_token="<|end|>")
    made.chat_template = TEMPLATE
    return made


def tiny_model(texts):
    """``(model, tokenizer)``: a one-layer Llama and a tokenizer trained on ``texts``."""
    tokenizer = trained_tokenizer(texts)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=2, max_position_embeddings=4096, pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id, bos_token_id=None))
    return model, tokenizer


def test_one_grpo_step_calls_the_rewards_with_the_rows_ids_and_logs_them_by_name(tmp_path):
    options = dict(data_dir=str(fixture_dir("sgd")), checksums=checksums("sgd"), cache_dir=str(tmp_path / "cache"))
    rows = load("sgd", "dst-chat", split="validation", **options).select(range(4))
    model, tokenizer = tiny_model([m["content"] for row in rows for m in row["prompt"] + row["completion"]])
    functions = rewards.reward("sgd", "dst-chat", "validation", metric=["joint_goal_accuracy", "requested_slots_f1"],
                               **options)
    seen = []

    def spy(**kwargs):  # what GRPOTrainer hands a reward function, recorded
        seen.append(kwargs)
        return [None] * len(kwargs["completions"])  # None: not scored by this one (TRL ignores it)

    args = trl.GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=1, per_device_train_batch_size=4,
                          num_generations=2, max_completion_length=8, learning_rate=1e-3, logging_steps=1,
                          report_to="none", reward_weights=[1.0, 0.5, 0.0], save_strategy="no", seed=0)
    trainer = trl.GRPOTrainer(model=model, reward_funcs=[*functions, spy], args=args, train_dataset=rows,
                              processing_class=tokenizer)
    trainer.train()
    assert seen and set(seen[0]["id"]) <= set(rows["id"]) and isinstance(seen[0]["completions"][0], list)
    logged = {key: value for entry in trainer.state.log_history for key, value in entry.items()}
    for function in functions:
        assert 0.0 <= logged[f"rewards/{function.__name__}/mean"] <= 1.0
        assert 0.0 <= logged[f"{function.__name__}/malformed"] <= 1.0  # through GRPOTrainer's log_metric
    assert trainer.state.global_step == 1
