"""The tiny model (unified_dialogue.testing.tiny_model): built by its command on the
fixtures, loaded by its folder with transformers' Auto classes, its tokenizer trained on the
corpus's texts (which it reads back exactly), its chat template TRL's Qwen 2.5 one (tools,
calls and results shown); the command's mistakes; without torch, an error that says where
to get it (this one runs in every environment)."""

import json
import subprocess
import sys

import pytest
from conftest import TESTS, checksums, fixture_dir

from unified_dialogue.testing import tiny_model

transformers = pytest.importorskip("transformers")


def command(*arguments, prelude=""):
    start = f"{prelude}from unified_dialogue.testing.tiny_model import main; main({list(arguments)!r})"
    return subprocess.run([sys.executable, "-c", start], capture_output=True, text=True, timeout=600, cwd=TESTS.parent)


def fixture_arguments(tmp_path, config="agent-call-chat", split="train"):
    return ["--corpus", "sgd", "--config", config, "--split", split, "--data-dir", str(fixture_dir("sgd")),
            "--checksums", checksums("sgd"), "--cache-dir", str(tmp_path / "cache")]


def test_without_torch_the_command_says_which_environment_has_it(tmp_path):
    done = command("--out", str(tmp_path / "m"), *fixture_arguments(tmp_path), prelude="import sys; "
                   "sys.modules['torch'] = None; ")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "the tiny model needs torch" in done.stderr and "make env-rl" in done.stderr
    assert not (tmp_path / "m").exists()


@pytest.fixture(scope="module")
def built(tmp_path_factory, build):
    """The model built on the fixtures' agent-call-chat rows, where torch is installed (the RL
    environment); the tests below are skipped elsewhere."""
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("tiny") / "model"
    cache = tmp_path_factory.mktemp("cache")
    done = command("--out", str(out), *fixture_arguments(cache), "--vocab", "400", "--layers", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    return out, build("sgd", "agent-call-chat")["train"]


def test_it_loads_by_its_folder_and_generates(built):
    out, rows = built
    model = transformers.AutoModelForCausalLM.from_pretrained(out)
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    assert model.config.num_hidden_layers == 2 and model.config.unified_dialogue_tiny_model == \
        "sgd agent-call-chat train"
    assert len(tokenizer) == model.config.vocab_size == 400 + len(tiny_model.MARKUP)
    ids = tokenizer.apply_chat_template(rows[0]["prompt"], add_generation_prompt=True, return_tensors="pt",
                                        return_dict=True)
    generated = model.generate(**ids, max_new_tokens=5, do_sample=False)
    assert generated.shape[1] > ids["input_ids"].shape[1]


def test_its_tokenizer_reads_the_corpus_texts_back_and_keeps_the_templates_markup_whole(built):
    out, rows = built
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    for text in tiny_model.texts(rows):
        assert tokenizer.decode(tokenizer.encode(text)) == text
    for piece in tiny_model.MARKUP + tiny_model.SPECIAL:
        assert len(tokenizer.encode(piece)) == 1, piece


def test_its_chat_template_is_trls_qwen_2_5_with_tools_calls_and_results(built):
    out, rows = built
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    assert tokenizer.chat_template == tiny_model.template_path().read_text(encoding="utf-8")
    row = next(row for row in rows if any(m["role"] == "tool" for m in row["prompt"]))
    from unified_dialogue.chat.agent import plain_messages, plain_tools

    text = tokenizer.apply_chat_template(plain_messages(row["prompt"]), tools=plain_tools(row["tools"]), tokenize=False,
                                         add_generation_prompt=True)
    assert "<tools>" in text and all(t["function"]["name"] in text for t in row["tools"])
    assert "<tool_call>" in text and "<tool_response>" in text and text.endswith("<|im_start|>assistant\n")


def test_the_command_writes_again_only_a_folder_it_made(built, tmp_path):
    out, _ = built
    again = command("--out", str(out), *fixture_arguments(tmp_path))
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "config.json").read_text())["num_hidden_layers"] == 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    done = command("--out", str(other), *fixture_arguments(tmp_path))
    assert done.returncode == 2 and "holds files this command did not write" in done.stderr
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("extra, words", [
    (["--vocab", "100"], "--vocab 100: at least 259"),
    (["--layers", "0"], "--layers 0: at least 1"),
    (["--out", str(TESTS / "conftest.py")], "a file; give a folder"),
    (["--data-dir", "nowhere"], "--data-dir nowhere: no such folder"),
    (["--config", "nope"], "no config 'nope'"),
])
def test_a_mistake_is_one_line_before_any_work(tmp_path, extra, words):
    pytest.importorskip("torch")  # without it, the error is that torch is missing
    done = command("--out", str(tmp_path / "m"), *fixture_arguments(tmp_path), *extra)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr
    assert not (tmp_path / "m").exists()
