"""Chat rows through the consumer that trains on them: ``transformers``' tokenizer and its
``apply_chat_template``, with a tokenizer built here (a word-level vocabulary and a
ChatML-like template; nothing is downloaded). Every message of every view and corpus
appears in the rendered text, in order, and the completion is the last assistant turn: the
prompt rendered with the generation prompt, then the completion, is the whole
conversation rendered, which is what prompt-completion training (TRL's SFTTrainer) needs."""

import pytest

transformers = pytest.importorskip("transformers")  # a test dependency only
tokenizers = pytest.importorskip("tokenizers")

TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
            "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
CONFIGS = [("sgd", "dst-chat"), ("sgd", "nlg-chat"), ("sgd", "response-chat"), ("sgd", "nlu-chat"),
           ("ccpe", "response-chat"), ("ccpe", "nlu-chat"), ("faithdial", "response-chat")]


@pytest.fixture(scope="module")
def tokenizer():
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    words = ["[UNK]", "<|im_start|>", "<|im_end|>", "system", "user", "assistant"]
    model = tokenizers.Tokenizer(WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    model.pre_tokenizer = Whitespace()
    made = transformers.PreTrainedTokenizerFast(tokenizer_object=model, unk_token="[UNK]")
    made.chat_template = TEMPLATE
    return made


@pytest.mark.parametrize("corpus, config", CONFIGS, ids=[f"{c}-{k}" for c, k in CONFIGS])
def test_every_message_is_rendered_in_order_and_the_completion_ends_the_conversation(build, tokenizer, corpus, config):
    for split, rows in build(corpus, config).items():
        for row in rows:
            whole = tokenizer.apply_chat_template(row["messages"], tokenize=False)
            position = 0
            for message in row["messages"]:
                block = f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n"
                found = whole.find(block, position)
                assert found == position, (row["id"], message["role"])  # every message, in order, nothing between
                position = found + len(block)
            assert position == len(whole)
            prompt = tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
            (completion,) = row["completion"]
            assert completion["role"] == "assistant"
            assert prompt + completion["content"] + "<|im_end|>\n" == whole, row["id"]
        ids = tokenizer.apply_chat_template(rows[:4]["messages"], tokenize=True)
        ids = ids["input_ids"] if hasattr(ids, "keys") else ids
        assert len(ids) == min(4, rows.num_rows) and all(ids), split
