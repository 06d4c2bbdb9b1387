"""A tiny tool-calling model for a real server: a Qwen2-architecture ``transformers`` model
(hidden size 64, two layers) with the tiny model's kind of tokenizer and chat template
(``tiny_model``: a byte-level BPE trained on the rows' texts, here also as the template
renders them, and Qwen 2.5's template from TRL's file), trained offline on SGD's
``agent-call-chat`` rows until greedy decoding gives each row's calls, as
``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` then ``<|im_end|>``.

It exists for what a random model cannot show: servers parse the tool calls of a model
family they know from its text (``transformers serve`` those of Qwen2's ``model_type``,
vLLM with ``--tool-call-parser hermes``), and a random model never writes one. It knows
only what it learnt by heart: on a prompt it was not trained on it writes the markup of a
call around JSON that does not parse, which ``transformers serve`` 5.24 answers with an HTTP
500. So a run against it plays turns it learnt: ``recorder`` records an agent's turns (the
gold agent's, behind the stand-in server) as rows to train it on. Its weights are built
where it is used, never kept in the repository.

    python -m unified_dialogue.testing.tool_model --out DIR [--split train] [--data-dir DIR] \\
        [--checksums TSV] [--no-verify] [--cache-dir DIR] [--max-seconds 600]

Needs torch, transformers and TRL's template file (``make env-serve``, requirements/serve.txt).
"""

import argparse
import json
import os
import time

from ..api import load
from ..cli import add_copy_flags, copy_options, run_command
from ..core.errors import ConfigError
from .tiny_model import MARK, add_out_flag, check_out, missing_dependency, texts, tiny_model, trained_tokenizer

PROG = "python -m unified_dialogue.testing.tool_model"
CONFIG = "agent-call-chat"
# A larger vocabulary than the tiny model's, learnt from the prompts as the chat template
# renders them: the tools' JSON is most of each prompt, and short sequences are what make a
# minute of training on a CPU enough.
VOCAB = 4096
LAYERS = 2
LEARNING_RATE = 1e-2
# Training stops when greedy decoding gives every row's calls (about a minute of CPU on the
# fixtures), or after MAX_SECONDS, a bound for a machine many times slower.
MAX_SECONDS = 600


def chat_texts(tokenizer, rows):
    """``(prompt, completion)`` texts of each row, as the chat template renders them: the
    prompt with the tools and the assistant's opening, the completion the calls to the end
    of the turn."""
    made = []
    for row in rows:
        prompt = tokenizer.apply_chat_template(list(row["prompt"]), tools=list(row["tools"]), tokenize=False,
                                               add_generation_prompt=True)
        whole = tokenizer.apply_chat_template(list(row["prompt"]) + list(row["completion"]), tools=list(row["tools"]),
                                              tokenize=False)
        if not whole.startswith(prompt):
            raise ConfigError(f"{CONFIG} row {row['id']}: the chat template renders the call's turn apart from its "
                              f"prompt; the tool model cannot be trained on it")
        made.append((prompt, whole[len(prompt):].rstrip("\n")))
    return made


def plain_message(message):
    """A chat message as ``transformers serve`` hands it to the chat template: its text (none
    beside tool calls), its calls' arguments as JSON objects, nothing else."""
    calls = message.get("tool_calls") or []
    made = {"role": message["role"], "content": "" if calls else (message.get("content") or "")}
    if calls:
        made["tool_calls"] = []
        for call in calls:
            function = call.get("function") or {}
            arguments = function.get("arguments")
            made["tool_calls"].append({"type": "function", "function": {
                "name": function.get("name"),
                "arguments": json.loads(arguments) if isinstance(arguments, str) else arguments or {}}})
    return made


def recorder(answer, rows):
    """An answer function for ``server.StandInServer`` that answers as ``answer`` does and
    appends each request with its answer to ``rows``, a row to train on as ``agent-call-chat``
    rows are (``id``, ``prompt``, ``completion``, ``tools``): an agent's turns, recorded where
    the stand-in server plays it (the gold agent, ``environment.gold.answerer``), for the
    tool model to learn by heart."""
    def recording(request):
        message = answer(request)
        rows.append({"id": f"recorded/{len(rows)}", "prompt": [plain_message(m) for m in request["messages"]],
                     "completion": [plain_message({**message, "role": "assistant"})],
                     "tools": list(request.get("tools") or [])})
        return message

    return recording


def examples(tokenizer, pairs):
    """Token ids and labels (-100 on the prompt: only the calls are learned) of each pair."""
    made = []
    for prompt, completion in pairs:
        prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        completion_ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
        made.append((prompt_ids + completion_ids, [-100] * len(prompt_ids) + completion_ids))
    return made


def batch(data, pad):
    """Tensors of ``examples``: ids padded with ``pad``, labels with -100, the attention mask."""
    import torch

    width = max(len(ids) for ids, _ in data)
    ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in data])
    labels = torch.tensor([labels + [-100] * (width - len(labels)) for _, labels in data])
    mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in data])
    return ids, labels, mask


def train(model, tokenizer, pairs, max_seconds=MAX_SECONDS, log=None):
    """Train ``model`` on ``pairs``, all of them in each step, until greedy decoding
    completes every pair or ``max_seconds`` pass; the pairs it completes and the steps taken.

    Greedy decoding completes a pair when each token of its completion is the most likely
    one after the tokens before it: teacher forcing gives greedy decoding's choices exactly,
    as long as every earlier choice was right. Only the completion's positions go through
    the output layer (the prompt's logits are never needed), which keeps a step cheap.
    ``log(step, completed, loss)`` is called after each step where given."""
    import torch

    # One thread: for a model this small, threads waiting for each other on a busy machine
    # cost far more than they save (30 times the time of a step, measured on 2 shared cores).
    torch.set_num_threads(1)
    ids, labels, mask = batch(examples(tokenizer, pairs), tokenizer.pad_token_id)
    targets = labels[:, 1:]
    rows, positions = (targets != -100).nonzero(as_tuple=True)
    wanted = targets[rows, positions]
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    model.train()
    started, step = time.monotonic(), 0
    while True:
        hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = model.lm_head(hidden[rows, positions])
        wrong = torch.zeros(len(pairs), dtype=torch.long).index_add_(0, rows, (logits.argmax(-1) != wanted).long())
        right = int((wrong == 0).sum())
        if right == len(pairs) or time.monotonic() - started > max_seconds:
            break  # judged before this step's update: the weights saved are the ones judged
        loss = torch.nn.functional.cross_entropy(logits, wanted)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        if log:
            log(step, right, float(loss))
    model.eval()
    return right, step


def build(out, rows, *, max_seconds=MAX_SECONDS, trained_on=""):
    """Make the tokenizer and the model, train it on ``rows`` (``agent-call-chat`` rows, or
    any with their ``prompt``, ``completion`` and ``tools``), save both to ``out``.

    Returns:
        ``{"rows", "completed", "steps", "seconds"}``: the rows greedy decoding completes.

    Raises:
        ConfigError where torch, transformers or TRL's template file is missing.

    Example:
        >>> build("tool-model", load("sgd", "agent-call-chat", split="train", data_dir="tests/fixtures/sgd"))  # doctest: +SKIP
    """
    problem = missing_dependency()
    if problem:
        raise ConfigError(f"the tool model {problem.replace('make env-rl', 'make env-serve')}")
    import transformers

    rows = list(rows)
    if not rows:
        raise ConfigError(f"no {CONFIG} rows to train the tool model on")
    started = time.monotonic()
    # the texts as the template renders them, through a first tokenizer (whose pieces do not matter)
    rendered = [prompt + completion for prompt, completion in chat_texts(trained_tokenizer(texts(rows)), rows)]
    made = trained_tokenizer(texts(rows) + rendered, VOCAB)
    # Qwen2: the model_type whose tool calls transformers serve parses
    model = tiny_model(made, LAYERS, architecture="qwen2")
    setattr(model.config, MARK, trained_on or "rows given in Python")
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)
    made.save_pretrained(out)
    # Trained with the tokenizer as the server loads it: transformers gives a Qwen2 folder its
    # Qwen2 tokenizer class, which splits the text into words its own way before the pieces.
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    pairs = chat_texts(tokenizer, rows)
    right, steps = train(model, tokenizer, pairs, max_seconds)
    model.save_pretrained(out)
    return {"rows": len(pairs), "completed": right, "steps": steps, "seconds": round(time.monotonic() - started, 1)}


def parser():
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                description="Build a tiny Qwen2 trained on SGD's agent-call-chat rows until it "
                                            "writes their tool calls, saved with save_pretrained.")
    add_out_flag(p)
    p.add_argument("--split", default="train", help="the split whose rows train it (default: train)")
    add_copy_flags(p)
    p.add_argument("--max-seconds", type=float, default=MAX_SECONDS,
                   help=f"stop training after this long (default: {MAX_SECONDS})")
    return p


def run(args):
    problem = missing_dependency()
    if problem:
        raise ConfigError(f"the tool model {problem.replace('make env-rl', 'make env-serve')}")
    if args.max_seconds <= 0:
        raise ConfigError(f"--max-seconds {args.max_seconds}: give a number of seconds above 0")
    check_out(args.out)
    rows = load("sgd", CONFIG, split=args.split, **copy_options(args))
    made = build(args.out, rows, max_seconds=args.max_seconds, trained_on=f"sgd {CONFIG} {args.split}")
    print(json.dumps({"out": args.out, **made}))


def main(argv=None):
    run_command(parser(), run, argv, name=PROG, flag_hints=True)


if __name__ == "__main__":
    main()
