"""Benchmark: what a reward function (``unified_dialogue.rewards``) costs per GRPO step, next
to the corpus scorer on the same rows.

``python -m unified_dialogue.tools.bench_rewards --data-dir DIR [--size 1024] [--repeat 5]``
reads SGD's validation split from DIR (an SGD copy in the upstream layout; the validation
split and the train schema are enough: it loads without the checks), takes the first SIZE rows of
``dst-chat``, ``d3st``, ``agent-call-chat`` and ``nlg-chat``, and for each config times:

- the reward of the config's default metric on SIZE completions, called as GRPOTrainer calls
  it (conversational completions, the ``id`` column), after construction;
- the baseline, measured in the same run: the config's corpus scorer (``score_dst_chat``,
  ``score_d3st``, ``score_tool_calls``, ``score_generation`` with chrF alone) on the same
  texts, its references already loaded.

The completions are the gold texts, every third one replaced by another row's (so a third are
wrong), different in each repeat (a reward keeps its last batch's scores). Each figure is the
median of ``--repeat`` runs, wall-clock and CPU seconds of one core; construction (loading
and indexing the references, once) is reported apart, in CPU seconds.
"""

import argparse
import random
import statistics
import time

CONFIGS = ("dst-chat", "d3st", "agent-call-chat", "nlg-chat")


def timed(function):
    start, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - start, time.process_time() - cpu


def gold_texts(config, rows):
    from ..scoring.tool_calls import gold_text

    if config == "d3st":
        return [row["target"] for row in rows]
    if config == "agent-call-chat":
        return [gold_text(row) for row in rows]
    return [row["completion"][0]["content"] for row in rows]


def batch(texts, seed):
    """The gold texts, every third one another's (chosen by ``seed``)."""
    rnd = random.Random(seed)
    return [rnd.choice(texts) if k % 3 == 1 else text for k, text in enumerate(texts)]


def baseline(config, load, rows):
    """The corpus scorer of ``config`` as a function of ``{id: text}``, on ``rows`` (its
    references loaded here, once)."""
    from ..scoring.d3st import score_d3st
    from ..scoring.dst_chat import score_dst_chat
    from ..scoring.generation import score_generation
    from ..scoring.tool_calls import score_tool_calls

    ids = {row["id"] for row in rows}
    if config == "dst-chat":
        references = [row for row in load("dst").to_list() if row["id"] in ids]
        schemas, train = load("schema").to_list(), load("schema", "train").to_list()
        plain = [{"id": row["id"]} for row in rows]
        return lambda texts: score_dst_chat(texts, plain, references=references, schemas=schemas,
                                            train_schemas=train)
    if config == "d3st":
        return lambda texts: score_d3st(texts, rows)
    if config == "agent-call-chat":
        return lambda texts: score_tool_calls(texts, rows)
    view = [row for row in load("nlg").to_list() if row["id"] in ids]
    return lambda texts: score_generation(texts, view, metrics=["chrf"])


def run(data_dir, size=1024, repeat=5, configs=CONFIGS, verification_mode="no_checks", cache_dir=None, out=print):
    """Time each config's reward and baseline; return ``{config: {label: (wall, cpu)}}``
    (medians) and print the table."""
    from .. import load as load_config
    from ..rewards import reward

    options = {"data_dir": data_dir, "verification_mode": verification_mode, "cache_dir": cache_dir}

    def load(config, split="validation"):
        return load_config("sgd", config, split=split, **options)

    results = {}
    for config in configs:
        rows = load(config).select(range(size)).to_list()
        ids, texts = [row["id"] for row in rows], gold_texts(config, rows)
        built = {}
        construction = timed(lambda: built.setdefault("f", reward("sgd", config, "validation", **options)))
        function, scorer = built["f"], baseline(config, load, rows)
        runs = {"reward": [], "corpus scorer (baseline)": []}
        for seed in range(repeat):
            completions = batch(texts, seed)
            conversational = [[{"role": "assistant", "content": text}] for text in completions]
            runs["reward"].append(timed(lambda: function(prompts=[[]] * len(ids), completions=conversational,
                                                         completion_ids=[[0]] * len(ids), id=ids)))
            runs["corpus scorer (baseline)"].append(timed(lambda: scorer(dict(zip(ids, completions)))))
        results[config] = {label: tuple(statistics.median(t[k] for t in times) for k in (0, 1))
                           for label, times in runs.items()}
        results[config]["construction (once)"] = construction
    out(f"{size} completions, median of {repeat}  {'reward wall':>12} {'CPU':>8} {'baseline wall':>14} "
        f"{'CPU':>8} {'reward/baseline':>16} {'construction CPU':>17}")
    for config, timings in results.items():
        (wall, cpu), (base_wall, base_cpu) = timings["reward"], timings["corpus scorer (baseline)"]
        out(f"{config + ' (' + function_name(config) + ')':<34} {wall:10.3f} s {cpu:6.3f} s {base_wall:12.3f} s "
            f"{base_cpu:6.3f} s {cpu / base_cpu:15.2f}x {timings['construction (once)'][1]:15.1f} s")
    return results


def function_name(config):
    from ..scoring.configs import CONFIGS

    return CONFIGS[config].row_metrics[0]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m unified_dialogue.tools.bench_rewards",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, help="an SGD copy in the upstream layout")
    parser.add_argument("--size", type=int, default=1024, help="completions per call (default 1024)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (default 5)")
    parser.add_argument("--cache-dir", help="the datasets cache to build the rows in")
    parser.add_argument("--config", action="append", choices=CONFIGS, help="a config to time (default: all)")
    args = parser.parse_args(argv)
    run(args.data_dir, args.size, args.repeat, tuple(args.config or CONFIGS), cache_dir=args.cache_dir)


if __name__ == "__main__":
    main()
