"""Load the bundled sample of every corpus (its test fixtures) and print, for each, its
shortest dialogue, one row of each of its task views and one chat row (``response-chat``):
``python -m unified_dialogue.tools.demo`` (``make demo``), from the repository root."""

import argparse
import os

import datasets

from unified_dialogue import chat, load, registry
from unified_dialogue.cli import run_command
from unified_dialogue.printing import compact, show


# The chat config shown: every corpus has it.
CHAT_EXAMPLE = "response-chat"


def load_sample(corpus, config):
    """A config of a corpus's bundled sample: through the loading script on datasets 3.x,
    through ``load`` on later lines."""
    data_dir = corpus.bench_source if os.path.isdir(corpus.bench_source) else os.path.dirname(corpus.bench_source)
    options = {"data_dir": data_dir, "checksums": os.path.join(data_dir, "SHA256SUMS.tsv")}
    if int(datasets.__version__.split(".")[0]) < 4:
        return datasets.load_dataset(corpus.folder, config, trust_remote_code=True, **options)
    return load(corpus.name, config, **options)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", action="append", help="only this corpus (repeatable)")
    run_command(parser, show_samples, argv, name="demo")


def show_samples(args):
    """Print each corpus's shortest sample dialogue, a row of each of its views and a chat row."""
    print(f"datasets {datasets.__version__}: the unified config of each corpus's bundled sample\n")
    for name, corpus in registry.corpora().items():
        if args.corpus and name not in args.corpus:
            continue
        dsd = load_sample(corpus, "unified")
        sizes = ", ".join(f"{split} {ds.num_rows}" for split, ds in dsd.items())
        print(f"== {corpus.short_name} ({sizes} dialogues)\n")
        first = next(iter(dsd.values()))
        shortest = min(range(first.num_rows), key=lambda i: len(first[i]["dialog"]))
        print(show(first[shortest]))
        for view in corpus.views:
            if view.name.endswith(chat.SUFFIX):
                continue
            rows = next(iter(load_sample(corpus, view.name).values()))
            print(f"\n-- {view.name}: {view.description}\n")
            fullest = max(rows.select(range(min(10, rows.num_rows))), key=lambda row: len(compact(row)))
            print(show(fullest, rows.features))
        if CHAT_EXAMPLE in corpus.config_names:
            rows = next(iter(load_sample(corpus, CHAT_EXAMPLE).values()))
            print(f"\n-- {CHAT_EXAMPLE}: {corpus.config(CHAT_EXAMPLE).description}\n")
            # the row with the most grounding (parts of its system message) among the first ones
            sample = rows.select(range(min(20, rows.num_rows)))
            print(show(max(sample, key=lambda row: row["prompt"][0]["content"].count("\n\n"))))
        print()


if __name__ == "__main__":
    main()
