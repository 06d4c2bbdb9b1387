"""Benchmark: what scoring generated text costs next to sacrebleu's corpus BLEU alone.

``python -m unified_dialogue.tools.bench_scoring [--data-dir DIR] [--size N]`` scores N
predictions (10,000 by default) of SGD ``nlg`` rows: the rows of SGD's validation split
read from DIR (an SGD copy in the upstream layout), or else made-up rows of SGD-like
sentences; each prediction is its reference with seeded word edits. It prints the time of
``score_generation`` with every lexical metric, of each metric alone (tokenisation
included), of SER, and of the baseline: ``sacrebleu.metrics.BLEU().corpus_score`` alone.
Times are wall-clock and CPU seconds of one run in this process, imports excluded.
"""

import argparse
import random
import time

WORDS = ("I found 3 restaurants in San Jose . Shall I book a table at 6:30 pm for 2 people ? "
         "The flight leaves at 10 am from SFO and costs $245 . Your ride is on its way , it's a Toyota . "
         "Which city are you in ? Do you want to hear Bohemian Rhapsody by Queen on the TV ?").split()


def made_up_rows(size, rnd):
    rows = []
    for k in range(size):
        text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(4, 25)))
        rows.append({"id": f"sgd/validation/{k // 10}_{k:05d}/{k % 10}", "references": [text], "service": "Restaurants_1",
                     "dialog_acts": [{"act": 0, "slot": "city", "values": ["San Jose"]}]})
    return rows


def sgd_rows(data_dir, size):
    from unified_dialogue import load

    rows = load("sgd", "nlg", split="validation", data_dir=data_dir, verification_mode="no_checks")
    rows = rows.select(range(min(size, len(rows)))).to_list()
    return [dict(row, id=f"sgd/validation/{row['dialog_id']}/{row['turn_id']}") for row in rows]


def edited(text, rnd):
    words = [word for word in text.split() if rnd.random() > 0.1]
    return " ".join(rnd.choice(WORDS) if rnd.random() < 0.1 else word for word in words)


def timed(function):
    """Wall-clock and CPU seconds of one call (CPU time: stable on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - start, time.process_time() - cpu


def run(rows, out=print):
    import sacrebleu.metrics

    from ..scoring.gem import LEXICAL_METRICS
    from ..scoring.generation import score_generation

    rnd = random.Random(29)
    predictions = {row["id"]: edited(row["references"][0], rnd) for row in rows}
    schemas = [{"service_name": "Restaurants_1", "slots": [{"name": "city", "is_categorical": False}]}]
    hypotheses = list(predictions.values())
    references = [[row["references"][0] for row in rows]]
    timings = [("sacrebleu corpus BLEU alone (baseline)",
                timed(lambda: sacrebleu.metrics.BLEU(lowercase=True).corpus_score(hypotheses, references)))]
    timings.append(("score_generation, every lexical metric", timed(lambda: score_generation(predictions, rows))))
    for metric in LEXICAL_METRICS:
        timings.append((f"  {metric} alone", timed(lambda: score_generation(predictions, rows, metrics=[metric]))))
    timings.append(("  ser alone (seen/unseen groups)", timed(lambda: score_generation(
        predictions, rows, metrics=["ser"], schemas=schemas, upstream_compat=True))))
    out(f"{len(rows)} predictions{'':<26} {'wall':>8}   {'CPU':>8}")
    for label, (wall, cpu) in timings:
        out(f"{label:<42} {wall:8.2f} s {cpu:8.2f} s")
    return timings


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.bench_scoring",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", help="an SGD copy in the upstream layout (default: made-up rows)")
    parser.add_argument("--size", type=int, default=10_000, help="number of predictions (default 10000)")
    args = parser.parse_args(argv)
    rows = sgd_rows(args.data_dir, args.size) if args.data_dir else made_up_rows(args.size, random.Random(0))
    run(rows)


if __name__ == "__main__":
    main()
