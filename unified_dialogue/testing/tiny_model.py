"""A tiny causal language model for examples, smoke runs and tests: a randomly initialised
Llama-architecture ``transformers`` model (hidden size 64, one layer by default) with a
byte-level BPE tokenizer trained on a corpus config's own texts (offline, in seconds) and
Qwen 2.5's chat template, which takes tools, read from the file TRL ships
(``trl/chat_templates/qwen2_5.jinja``). It is saved with ``save_pretrained``, so
``AutoModelForCausalLM.from_pretrained(DIR)``, TRL's trainers and lm-eval's ``hf`` backend
load it by its folder. Its answers are noise: it shows that a pipeline runs, not how well a
model does.

    python -m unified_dialogue.testing.tiny_model --out DIR [--corpus sgd] [--config dst-chat] [--split train] \\
        [--data-dir DIR] [--checksums TSV] [--no-verify] [--cache-dir DIR] [--layers 1] [--vocab 512]

Needs torch, transformers and TRL's template file: the RL environment (``make env-rl``,
requirements/rl.txt) or lm-eval's ``hf`` one (``make env-harness-hf``).
"""

import argparse
import importlib.util
import json
import os
from pathlib import Path

from ..api import load
from ..cli import add_copy_flags, copy_options, run_command
from ..core.errors import ConfigError

PROG = "python -m unified_dialogue.testing.tiny_model"
# TRL's file of the chat template (Qwen 2.5's: system, user, assistant, tools, tool calls
# and tool results) and the pieces of its markup that are tokens of their own.
TEMPLATE = "qwen2_5.jinja"
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MARKUP = ["<tools>", "</tools>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
HIDDEN, HEADS, CONTEXT = 64, 4, 8192
# The tokenizer is trained on the texts of this many rows at most (the split's first ones):
# enough for a vocabulary of a few hundred pieces, in seconds on any split.
ROWS = 5000
# Where config.json says which rows the tokenizer was trained on; a folder whose config
# says so is one this command made, and may be written again.
MARK = "unified_dialogue_tiny_model"


def missing_dependency():
    """The sentence saying what is missing to build the model, or None."""
    absent = [name for name in ("torch", "transformers", "tokenizers") if importlib.util.find_spec(name) is None]
    if absent:
        return (f"needs {', '.join(absent)}: install requirements/rl.txt (make env-rl) or requirements/harness-hf.txt "
                f"(make env-harness-hf)")
    if not template_path().is_file():
        return f"needs TRL's chat template file {TEMPLATE}: pip install trl==1.16.0 (requirements/rl.txt)"
    return None


def template_path():
    spec = importlib.util.find_spec("trl")  # found, not imported: trl's own imports are slow and need torch
    return Path(spec.submodule_search_locations[0] if spec else "trl") / "chat_templates" / TEMPLATE


def texts(rows, limit=ROWS):
    """The distinct strings in the first ``limit`` rows (every column, nested ones too)."""
    seen = {}

    def walk(value):
        if isinstance(value, str):
            seen.setdefault(value, None)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for position, row in enumerate(rows):
        if position >= limit:
            break
        walk(row)
    return list(seen)


def trained_tokenizer(corpus_texts, vocab=512):
    """A byte-level BPE tokenizer of ``vocab`` pieces trained on ``corpus_texts``, with the
    chat template's markup as tokens and the template itself.

    Example:
        >>> tokenizer = trained_tokenizer(["I would like to watch a movie."] * 3)  # doctest: +SKIP
        >>> tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], tokenize=False)  # doctest: +SKIP
    """
    import tokenizers
    import transformers
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tokenizer = tokenizers.Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(corpus_texts, trainer)
    made = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<|endoftext|>",
                                                eos_token="<|im_end|>")
    made.add_tokens(MARKUP)
    made.chat_template = template_path().read_text(encoding="utf-8")
    return made


# The architectures a tiny model can have: transformers' config and model class names.
ARCHITECTURES = {"llama": ("LlamaConfig", "LlamaForCausalLM"), "qwen2": ("Qwen2Config", "Qwen2ForCausalLM")}


def tiny_model(tokenizer, layers=1, seed=0, architecture="llama"):
    """A randomly initialised model of ``architecture`` (``ARCHITECTURES``) for ``tokenizer``
    (weights from ``seed``)."""
    import torch
    import transformers

    configuration, model_class = (getattr(transformers, name) for name in ARCHITECTURES[architecture])
    torch.manual_seed(seed)
    config = configuration(
        vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=layers,
        num_attention_heads=HEADS, num_key_value_heads=HEADS, max_position_embeddings=CONTEXT,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=None,
        tie_word_embeddings=True)
    model = model_class(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def build(out, rows, *, layers=1, vocab=512, trained_on=""):
    """Train the tokenizer on ``rows``, make the model, save both to the folder ``out``.

    Args:
        out: the folder to write (made if absent).
        rows: the rows whose texts train the tokenizer (a ``Dataset`` or a list of dicts).
        layers: the number of decoder layers.
        vocab: the tokenizer's vocabulary size (the template's tokens besides).
        trained_on: what the rows are, kept in config.json.

    Returns:
        ``out``, which ``AutoModelForCausalLM.from_pretrained`` and
        ``AutoTokenizer.from_pretrained`` load.

    Raises:
        ConfigError where torch, transformers or TRL's template file is missing.

    Example:
        >>> build("tiny", load("sgd", "dst-chat", split="train"))  # doctest: +SKIP
        >>> GRPOTrainer(model="tiny", ...)  # doctest: +SKIP
    """
    problem = missing_dependency()
    if problem:
        raise ConfigError(f"the tiny model {problem}")
    tokenizer = trained_tokenizer(texts(rows), vocab)
    model = tiny_model(tokenizer, layers)
    setattr(model.config, MARK, trained_on or "rows given in Python")
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


# ---------------------------------------------------------------- the command

def parser():
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Build a tiny random Llama with a tokenizer trained on a corpus's rows "
                                            "and a chat template with tools, saved with save_pretrained.")
    add_out_flag(p)
    p.add_argument("--corpus", default="sgd", help="the corpus whose texts train the tokenizer (default: sgd)")
    p.add_argument("--config", default="dst-chat", help="its config (default: dst-chat)")
    p.add_argument("--split", default="train", help="its split (default: train)")
    p.add_argument("--variant", help="the corpus's variant (SGD-X: v1 ... v5)")
    add_copy_flags(p)
    p.add_argument("--layers", type=int, default=1, help="decoder layers (default: 1)")
    p.add_argument("--vocab", type=int, default=512, help="the tokenizer's vocabulary size (default: 512)")
    return p


def add_out_flag(parser):
    """``--out``, the model's folder, as ``check_out`` takes it."""
    parser.add_argument("--out", required=True, help="the folder to write the model to (new, empty, or one this "
                                                     "command wrote)")


def check_out(out):
    """Refuse a folder this command would write over that it did not make."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise ConfigError(f"--out {out}: a file; give a folder")
    if os.path.isdir(out) and os.listdir(out):
        try:
            with open(os.path.join(out, "config.json"), encoding="utf-8") as f:
                made_here = MARK in json.load(f)
        except (OSError, ValueError):
            made_here = False
        if not made_here:
            raise ConfigError(f"--out {out}: a folder that holds files this command did not write; give a new or "
                              f"empty folder")


def run(args):
    problem = missing_dependency()
    if problem:
        raise ConfigError(f"the tiny model {problem}")
    minimum = 256 + len(SPECIAL)  # the byte alphabet and the special tokens
    if args.vocab < minimum:
        raise ConfigError(f"--vocab {args.vocab}: at least {minimum} (the 256 bytes and the special tokens)")
    if args.layers < 1:
        raise ConfigError(f"--layers {args.layers}: at least 1")
    options = copy_options(args)
    check_out(args.out)
    rows = load(args.corpus, args.config, split=args.split, **options,
                **({"variant": args.variant} if args.variant else {}))
    trained_on = " ".join(filter(None, (args.corpus, args.variant, args.config, args.split)))
    build(args.out, rows, layers=args.layers, vocab=args.vocab, trained_on=trained_on)
    print(args.out)


def main(argv=None):
    run_command(parser(), run, argv, name=PROG, flag_hints=True)


if __name__ == "__main__":
    main()
