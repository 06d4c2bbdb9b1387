"""Generation scoring: every number of GEM-metrics' own output on the fixture predictions
(tests/fixtures/gem_official, see its NOTICE.md), GEM-metrics' tokeniser and numpy 1.x's
sums on values it produced, the knowledge overlap on hand-computed cases, grouping, the
row kinds (nlg, response, -chat, Dataset) and the errors."""

import json
import math
import random
from types import SimpleNamespace

import datasets
import numpy as np
import pytest

from conftest import FIXTURES
from unified_dialogue.scoring import gem, knowledge
from unified_dialogue.scoring.rows import ScoringError
from unified_dialogue.scoring.generation import references_of, score_generation

GEM = FIXTURES / "gem_official"
SETS = sorted(path.name for path in GEM.iterdir() if path.is_dir())
CASES = [(name, variant.name) for name in SETS for variant in sorted((GEM / name).iterdir()) if variant.is_dir()]


def read_rows(name):
    return json.loads((GEM / name / "rows.json").read_text(encoding="utf-8"))


def read_predictions(path):
    with open(path, encoding="utf-8") as f:
        return {record["id"]: record["text"] for record in map(json.loads, f)}


# Which digits of GEM-metrics' output are reproducible. Every key is compared to the last
# printed digit except those that sum logarithms (entropy-n, cond_entropy-n: numpy's log2;
# nist: the C library's log and exp). numpy picks its float64 log2 loop by CPU (its AVX-512
# loop, or the C library's log2 elsewhere), and the C library has FMA variants of log and exp,
# so those last digits differ between machines whatever versions are pinned: GEM-metrics' own
# output is reproducible only to the error of log2 summed over the n-grams. Every term off by
# up to 4 ulps moves the fixtures' values by at most 2e-14 (test_log_sums_hold_at_any_cpu's
# perturbation), so these keys are compared to 1e-12, 50 times that. The other keys use only
# IEEE arithmetic (+ - * / and sqrt, correctly rounded everywhere: gem.numpy1_sum is plain
# Python) and the pinned sacrebleu, rouge-score and nltk (setup.cfg), so they stay exact.
LOG_SUMS = ("entropy-", "cond_entropy-", "nist")
LOG_SUM_TOLERANCE = 1e-12


def same(a, b, key=""):
    """Equal as GEM-metrics prints them: same JSON type and value, NaN equal to NaN; the
    sums of logarithms (LOG_SUMS) to LOG_SUM_TOLERANCE."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], k) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, float) and isinstance(b, float) and key.startswith(LOG_SUMS):
        return abs(a - b) <= LOG_SUM_TOLERANCE
    return type(a) is type(b) and a == b


def gem_output(name, variant):
    output = json.loads((GEM / name / variant / "gem.json").read_text(encoding="utf-8"))
    for key in ("predictions_file", "references_file"):
        output.pop(key)
    return output


# ---------------------------------------------------------------- GEM-metrics' numbers

@pytest.mark.parametrize("name,variant", CASES)
def test_every_number_equals_gem_metrics_output(name, variant):
    predictions = read_predictions(GEM / name / variant / "predictions.jsonl")
    result = score_generation(predictions, read_rows(name), metrics=gem.LEXICAL_METRICS)
    expected = gem_output(name, variant)
    ours = json.loads(json.dumps(result["all"]))
    assert set(ours) == set(expected)
    assert [key for key in expected if not same(ours[key], expected[key], key)] == []


def off_by_ulps(function, ulps, seed=0):
    """``function`` with each result moved by a random 0..``ulps`` units in the last place, up
    or down: another CPU's or C library's logarithm."""
    rng = random.Random(seed)

    def moved(*args):
        value = float(function(*args))
        step = rng.choice((math.inf, -math.inf))
        for _ in range(rng.randint(0, ulps)):
            value = math.nextafter(value, step)
        return value
    return moved


@pytest.mark.parametrize("name,variant", [case for case in CASES if case[1] in ("gold", "perturbed", "long")])
def test_log_sums_hold_at_any_cpu(monkeypatch, name, variant):
    """The entropies and NIST computed with a logarithm a few ulps off, as on a CPU where
    numpy or the C library picks another loop, still equal GEM-metrics' output."""
    called = []

    def counted(function):
        def call(*args):
            called.append(function)
            return function(*args)
        return call

    log2, log, exp = (counted(off_by_ulps(f, 4)) for f in (np.log2, math.log, math.exp))
    monkeypatch.setattr(gem.diversity, "np", SimpleNamespace(log2=log2, median=np.median))
    monkeypatch.setattr(gem.mteval, "math", SimpleNamespace(**{**vars(math), "log": log, "exp": exp}))
    test_every_number_equals_gem_metrics_output(name, variant)
    assert called  # the entropies and NIST were computed with the moved logarithms


def test_fixture_cases_cover_the_hard_inputs():
    variants = {variant for _, variant in CASES}
    assert {"gold", "perturbed", "empty", "whitespace", "unicode", "punct", "long", "mixed"} <= variants
    # several references per item, of varying number
    assert {len(row["references"]) for row in read_rows("sgd_dev_multiref")} == {1, 2, 3}


# GEM-metrics' tokenize.dumb_tokenize on these strings.
GEM_TOKENS = {
    "I'm at 6:30, don't wait...": ["I", "'m", "at", "6:30,", "do", "n't", "wait", "..."],
    "": [""],
    "   ": [""],
    "Café ☕🎉 “quoted” — ok!": ["Café", "☕🎉", "“", "quoted", "”", "—", "ok", "!"],
    "It costs $45.50/night (2-3 people).": ["It", "costs", "$", "45.50/", "night", "(", "2-3", "people", ")", "."],
    "Gonna wanna 'tis cannot": ["Gonna", "wan", "na", "'", "tis", "cannot"],
    "e-mail x -5 3 - 4 a+b 1+2 C++": ["e-mail", "x", "-5", "3", "-", "4", "a", "+", "b", "1", "+", "2", "C++"],
    "'60s rock'n'roll": ["'60s", "rock'n'roll"],
    "http://x.com/a?b=c": ["http", ":", "/", "/", "x", ".", "com", "/", "a", "?", "b=c"],
    "... ? !": ["...", "?", "!"],
}


@pytest.mark.parametrize("text", list(GEM_TOKENS))
def test_fallback_tokenizer_is_gem_metrics(text):
    assert gem.fallback_tokenize(text) == GEM_TOKENS[text]


def test_sums_are_numpy_1_sums():
    # numpy 1.23.5's np.add.reduce, np.mean and np.std of these lists: numpy 2 differs in the
    # last digit for some of them, GEM-metrics cannot run on numpy 2.
    values = [(k * 0.1) ** 1.5 for k in range(20000)]
    assert gem.numpy1_sum(values) == 715497031.9985938
    assert gem.numpy1_mean(values) == 35774.85159992969
    assert gem.numpy1_std(values) == 26832.070326439745
    assert gem.numpy1_std(list(range(0, 30000, 7))) == 8660.831152377928
    assert gem.numpy1_sum([0.1] * 7) == 0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1  # short: one by one


def test_tokenizer_choice():
    assert gem.tokenizer_of("fallback") is gem.fallback_tokenize
    assert gem.tokenizer_of(str.split)("a b") == ["a", "b"]
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        gem.tokenizer_of("spacy")
    try:
        gem.punkt_tokenize(".")
    except LookupError:
        with pytest.raises(ValueError, match="Punkt data"):
            gem.tokenizer_of("punkt")
    else:
        assert gem.tokenizer_of("punkt") is gem.punkt_tokenize


def test_tokenization_changes_only_the_metrics_that_read_tokens():
    rows = read_rows("sgd_dev")
    predictions = read_predictions(GEM / "sgd_dev" / "perturbed" / "predictions.jsonl")
    fallback = score_generation(predictions, rows)["all"]
    spaces = score_generation(predictions, rows, tokenizer=str.split)["all"]
    changed = {key.split("-")[0] for key in fallback if not same(fallback[key], spaces[key])}
    assert changed <= {"rouge1", "rouge2", "rougeL", "rougeLsum", "local_recall", "msttr", "total_length",
                       "mean_pred_length", "std_pred_length", "median_pred_length", "min_pred_length",
                       "max_pred_length", "distinct", "vocab_size", "unique", "entropy", "cond_entropy"}
    for key in ("bleu", "chrf", "chrf+", "chrf++", "ter", "nist", "ttr", "yules_i"):
        assert same(fallback[key], spaces[key])


def test_metric_subset_and_unknown_metric():
    rows = read_rows("sgd_dev")
    predictions = {row["id"]: row["target"] for row in rows}
    assert score_generation(predictions, rows, metrics=["bleu", "ttr"])["all"] == {"N": 13, "bleu": 100.0, "ttr": 0.7907}
    with pytest.raises(ScoringError, match="unknown metric"):
        score_generation(predictions, rows, metrics=["meteor"])


# ---------------------------------------------------------------- rows of each kind

def chat_row(row):
    return {"id": row["id"], "prompt": [{"role": "user", "content": "..."}],
            "completion": [{"role": "assistant", "content": references_of(row)[0]}]}


def test_chat_rows_and_datasets_score_as_their_view_rows():
    rows = read_rows("sgd_dev")
    predictions = read_predictions(GEM / "sgd_dev" / "mixed" / "predictions.jsonl")
    expected = score_generation(predictions, rows)
    assert score_generation(predictions, [chat_row(row) for row in rows]) == expected
    assert score_generation(predictions, datasets.Dataset.from_list(rows)) == expected
    response_rows = read_rows("sgd_dev_response")
    assert [row["id"] for row in response_rows] == [row["id"] for row in rows]
    assert score_generation(predictions, response_rows) == expected


def test_references_of_each_row_kind():
    assert references_of({"id": "a", "references": ["x", "y"], "target": "x"}) == ["x", "y"]
    assert references_of({"id": "a", "response": "r", "knowledge": "k"}) == ["r"]
    assert references_of({"id": "a", "completion": [{"role": "assistant", "content": "c"}]}) == ["c"]
    with pytest.raises(ScoringError, match="'a' has none of the columns"):
        references_of({"id": "a", "prompt": []})


# ---------------------------------------------------------------- errors and misses

ROWS = [{"id": "d/0/1", "response": "Where are you going to?"}, {"id": "d/0/3", "response": "Booked."}]


def test_unknown_missing_and_non_string_predictions_name_the_id():
    with pytest.raises(ScoringError, match=r"1 predicted id\(s\) name no row: 'd/9/1'"):
        score_generation({"d/0/1": "a", "d/0/3": "b", "d/9/1": "c"}, ROWS)
    with pytest.raises(ScoringError, match=r"1 row\(s\) have no prediction: 'd/0/3'"):
        score_generation({"d/0/1": "a"}, ROWS)
    with pytest.raises(ScoringError, match=r"prediction 'd/0/3': the text is a number, not a string"):
        score_generation({"d/0/1": "a", "d/0/3": 3}, ROWS)
    with pytest.raises(ScoringError, match="predictions: a list, not a dict"):
        score_generation(["a", "b"], ROWS)
    with pytest.raises(ScoringError, match="row #0: no 'id'"):
        score_generation({}, [{"response": "x"}])
    with pytest.raises(ScoringError, match="row #1: id 'd/0/1' is the id of an earlier row too"):
        score_generation({"d/0/1": "a"}, [ROWS[0], ROWS[0]])


def test_allow_missing_counts_misses_and_scores_the_rest():
    result = score_generation({"d/0/1": "Where are you going to?", "d/0/3": None}, ROWS + [{"id": "d/1/1", "response": "Hi"}],
                              allow_missing=True, metrics=["bleu"])
    assert result["all"] == {"N": 1, "bleu": 100.0}
    assert result["misses"] == {"count": 1, "ids": ["d/1/1"]}
    assert result["malformed"] == {"count": 1, "ids": ["d/0/3"]}
    nothing = score_generation({}, ROWS, allow_missing=True, metrics=["bleu"])
    assert nothing["all"] == {"N": 0} and nothing["misses"]["count"] == 2


# ---------------------------------------------------------------- grouping

def test_each_group_is_its_rows_scored_alone():
    rows = read_rows("sgd_dev")
    predictions = read_predictions(GEM / "sgd_dev" / "perturbed" / "predictions.jsonl")
    result = score_generation(predictions, rows, group_by="service")
    services = sorted({row["service"] for row in rows})
    assert [key for key in result if key.startswith("service=")] == [f"service={s}" for s in services]
    for service in services:
        members = [row for row in rows if row["service"] == service]
        alone = score_generation({row["id"]: predictions[row["id"]] for row in members}, members)["all"]
        assert same(result[f"service={service}"], alone)
    assert same(result["all"], score_generation(predictions, rows)["all"])


def test_split_group_from_the_dialogue_id():
    rows = read_rows("fd_test_topic") + read_rows("fd_validation")
    predictions = {row["id"]: row["response"] for row in rows}
    result = score_generation(predictions, rows, group_by="split", metrics=["bleu"])
    assert result["split=test_topic"] == {"N": 5, "bleu": 100.0}
    assert result["split=validation"] == {"N": 9, "bleu": 100.0}
    with pytest.raises(ScoringError, match="no column 'topic' to group by"):
        score_generation(predictions, rows, group_by="topic")


# ---------------------------------------------------------------- knowledge overlap

def test_normalisation_is_parlai_answer_normalisation():
    assert knowledge.normalize("The Eiffel-Tower, an iron tower; A 'big' one!") == ["eiffel", "tower", "iron", "tower",
                                                                                  "big", "one"]
    assert knowledge.normalize("  ") == []


def test_overlap_precision_recall_f1():
    # prediction: eiffel tower is tall (4 tokens); knowledge: eiffel tower is 330 metres tall
    # (6 tokens); 4 shared: precision 1, recall 4/6, F1 2 * 1 * 2/3 / (5/3) = 0.8
    assert knowledge.overlap("The Eiffel Tower is tall.", "The Eiffel Tower is 330 metres tall") == (1.0, 4 / 6, 0.8)
    # repeated tokens count as often as both sides have them: "tower tower" vs "tower"
    assert knowledge.overlap("tower tower", "tower") == (0.5, 1.0, 2 * 0.5 / 1.5)
    assert knowledge.overlap("", "The tower") == (0.0, 0.0, 0.0)
    assert knowledge.overlap("nothing shared", "The tower") == (0.0, 0.0, 0.0)


def test_faithdial_rows_get_knowledge_scores_by_default():
    rows = read_rows("fd_test")
    predictions = {row["id"]: row["knowledge"] for row in rows}
    result = score_generation(predictions, rows)["all"]
    assert (result["knowledge_precision"], result["knowledge_recall"], result["knowledge_f1"]) == (1.0, 1.0, 1.0)
    assert "bleu" in result and "rouge1" in result
    expected = [knowledge.overlap(row["response"], row["knowledge"]) for row in rows]
    gold = score_generation({row["id"]: row["response"] for row in rows}, rows, metrics=["knowledge"])["all"]
    assert gold["knowledge_f1"] == sum(f1 for _, _, f1 in expected) / len(rows)
    with pytest.raises(ScoringError, match="has no knowledge sentence"):
        score_generation(predictions, [dict(row, knowledge=None) for row in rows], metrics=["knowledge"])
    # rows without a knowledge sentence among them (SGD's, concatenated): not by default
    mixed = rows[:2] + [dict(rows[2], knowledge=None)]
    for order in (mixed, mixed[::-1]):
        assert "knowledge_f1" not in score_generation({row["id"]: "x" for row in order}, order)["all"]


def test_benchmark_runs_on_made_up_rows():
    import random

    from unified_dialogue.tools import bench_scoring

    lines = []
    timings = bench_scoring.run(bench_scoring.made_up_rows(30, random.Random(0)), out=lines.append)
    assert lines[0].startswith("30 predictions")
    assert [label for label, _ in timings][:2] == ["sacrebleu corpus BLEU alone (baseline)",
                                                   "score_generation, every lexical metric"]
    assert len(lines) == 1 + len(timings) == 1 + 2 + len(gem.LEXICAL_METRICS) + 1
