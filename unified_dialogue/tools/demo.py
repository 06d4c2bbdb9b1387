"""Load the bundled sample of every corpus (its test fixtures) and print, for each, its
shortest dialogue and one row of each of its task views: ``python -m
unified_dialogue.tools.demo`` (``make demo``), from the repository root."""

import argparse
import os

import datasets

from unified_dialogue import load, registry
from unified_dialogue.cli import run_command
from unified_dialogue.printing import compact, show


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
    """Print each corpus's shortest sample dialogue and a row of each of its views."""
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
            rows = next(iter(load_sample(corpus, view.name).values()))
            print(f"\n-- {view.name}: {view.description}\n")
            fullest = max(rows.select(range(min(10, rows.num_rows))), key=lambda row: len(compact(row)))
            print(show(fullest, rows.features))
        print()


if __name__ == "__main__":
    main()
