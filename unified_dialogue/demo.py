"""Load the bundled SGD sample through the ``unified`` config; print a summary and one dialogue.

Run from the repository root: ``python -m unified_dialogue.demo [--data-dir DIR]``.
"""

import argparse
import os

import datasets

from unified_dialogue import load

SAMPLE = os.path.join("tests", "fixtures", "sgd")


def load_sample(data_dir, checksums):
    if int(datasets.__version__.split(".")[0]) < 4:
        return datasets.load_dataset("loaders/sgd", "unified", data_dir=data_dir, checksums=checksums,
                                     trust_remote_code=True)
    return load("loaders/sgd", "unified", data_dir=data_dir, checksums=checksums)


def summary_rows(dataset_dict):
    for split, ds in dataset_dict.items():
        turns = acts = spans = unseen = 0
        for record in ds:
            turns += len(record["dialog"])
            for turn in record["dialog"]:
                acts += len(turn["dialog_acts"])
                spans += sum(len(f["slots"]) for f in turn["frames"])
                unseen += sum(bool(f["unseen"]) for f in turn["frames"])
        yield split, ds.num_rows, turns, acts, spans, unseen


def describe_turn(turn):
    acts = ", ".join(
        f"{a['act']}({', '.join(e['slot'] + '=' + '|'.join(v['value'] for v in e['values']) for e in a['slot_value_table'])})"
        for a in turn["dialog_acts"]
    )
    return f"  {turn['roles'][0]:>6}: {turn['utterance']}\n          acts: {acts}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default=SAMPLE, help="a local copy in the upstream layout")
    parser.add_argument("--checksums", default=None, help="checksum table (default: the sample's, or upstream's)")
    args = parser.parse_args()
    checksums = args.checksums or (os.path.join(SAMPLE, "SHA256SUMS.tsv") if args.data_dir == SAMPLE else None)
    datasets.disable_progress_bars()
    dsd = load_sample(args.data_dir, checksums)
    print(f"SGD, unified config, from {args.data_dir} (datasets {datasets.__version__})\n")
    print(f"{'split':<12}{'dialogues':>10}{'turns':>8}{'acts':>8}{'spans':>8}{'unseen frames':>15}")
    for row in summary_rows(dsd):
        print(f"{row[0]:<12}" + "".join(f"{n:>{w}}" for n, w in zip(row[1:], (10, 8, 8, 8, 15))))
    record = dsd["validation"][0]
    print(f"\n{record['dialogue_id']}  domains: {', '.join(record['domain'])}  "
          f"unseen: {', '.join(record['unseen_domains']) or '-'}")
    for turn in record["dialog"]:
        print(describe_turn(turn))


if __name__ == "__main__":
    main()
