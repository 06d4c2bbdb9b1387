"""Compare the ``d3st`` rows of a split with a TSV file written by the D3ST authors' generator
(``create_sgd_schemaless_data.py``, run on the split's files one at a time and the outputs
concatenated in file order), line by line.

    python -m unified_dialogue.tools.d3st_compare --data-dir DATA --split validation \\
        --upstream dev.tsv --option level=dst_intent --option multiple_choice=1a [--variant v1]

The generator writes one line per frame of each user turn:
``<input> \\t<target>\\t<dialogue id>\\t<turn index>\\t<frame index>``, lowercased whole with
``--lowercase``. A row is written in that layout and compared with the line of the same
position. With ``upstream_compat`` every frame of a turn is compared with the line the
generator writes for it, which names the turn's last frame. Prints the counts, and the first
differences.
"""

import argparse
import sys

import pyarrow as pa

from ..views import d3st


def option(text):
    name, equals, value = text.partition("=")
    if not equals:
        raise argparse.ArgumentTypeError(f"{text!r}: give NAME=VALUE")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    return name, int(value) if value.lstrip("-").isdigit() and name == "seed" else value


def lines(rows, lowercase, compat):
    """The rows (a list) in the generator's line layout."""
    last = {}
    for row in rows:
        key = (row["dialogue_id"], row["turn_index"])
        last[key] = max(last.get(key, 0), row["frame_index"])
    for row in rows:
        frame = last[row["dialogue_id"], row["turn_index"]] if compat else row["frame_index"]
        ids = f"{row['original_id']}\t{row['turn_index']}\t{frame}"
        yield f"{row['input']} \t{row['target']}\t{ids.lower() if lowercase else ids}"


def rows_of(dataset, options, batch_size=256):
    table = dataset.data.table
    for batch in table.to_batches(max_chunksize=batch_size):
        yield from d3st.table(pa.Table.from_batches([batch]), **options).select(
            ["dialogue_id", "original_id", "turn_index", "frame_index", "input", "target"]).to_pylist()


def compare(ours, theirs, show=3, out=print):
    """(equal lines, our line count, their line count), printing the first ``show`` differences."""
    equal = total = their_total = shown = 0
    ours, theirs = iter(ours), iter(theirs)
    while True:
        mine, their = next(ours, None), next(theirs, None)
        if mine is None and their is None:
            break
        total += mine is not None
        their_total += their is not None
        if mine == their:
            equal += 1
        elif shown < show:
            shown += 1
            out(f"line {max(total, their_total)}:\n  ours:     {(mine or '')[-300:]!r}\n  upstream: {(their or '')[-300:]!r}")
    return equal, total, their_total


def main(argv=None):
    from .. import load

    p = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.d3st_compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", required=True, help="the SGD copy (upstream layout)")
    p.add_argument("--split", required=True)
    p.add_argument("--variant", help="an SGD-X variant, v1 to v5")
    p.add_argument("--upstream", required=True, help="the generator's TSV output for the split")
    p.add_argument("--option", action="append", type=option, default=[], help="a d3st view option, NAME=VALUE")
    p.add_argument("--cache-dir")
    p.add_argument("--show", type=int, default=3, help="differences to print")
    args = p.parse_args(argv)
    options = {**d3st.DEFAULTS, **dict(args.option)}
    unified = load("sgd", "unified", split=args.split, data_dir=args.data_dir, cache_dir=args.cache_dir,
                   verification_mode="no_checks", **({"variant": args.variant} if args.variant else {}))
    with open(args.upstream, encoding="utf-8") as f:
        theirs = (line.rstrip("\n") for line in f)
        equal, total, their_total = compare(lines(list(rows_of(unified, options)), options["lowercase"],
                                                  options["upstream_compat"]), theirs, args.show)
    print(f"{equal} of {total} rows equal the upstream lines ({their_total} lines)")
    return 0 if equal == total == their_total else 1


if __name__ == "__main__":
    sys.exit(main())
