"""Reward functions survive ``pickle`` and ``copy.deepcopy`` (TRL's asynchronous GRPO trainer
pickles them) and give the same values after; what is pickled is the recipe (corpus, config,
split, arguments), not the rows."""

import concurrent.futures
import copy
import multiprocessing
import pickle

import pytest

from test_rewards import CASES, UNREADABLE, cache, call_as_trl, gold_texts, make  # noqa: F401  (cache: a fixture)
from unified_dialogue.scoring.configs import CONFIGS


def batch(build, corpus, config, split):
    """Gold texts, one unreadable and one cut short: values of every kind."""
    texts = gold_texts(build, corpus, config, split)
    ids = list(texts)
    texts[ids[0]] = UNREADABLE
    texts[ids[1]] = texts[ids[1]][: len(texts[ids[1]]) // 2]
    return texts


@pytest.mark.parametrize("corpus, config, split", CASES)
def test_a_reward_pickled_or_deep_copied_gives_the_same_values(build, cache, corpus, config, split):
    metrics = list(CONFIGS[config].row_metrics[:3])
    if metrics[0] == "sentence_chrf":  # generated text: the metrics of the corpus's rows
        metrics = metrics[:1] + (["knowledge_f1"] if corpus == "faithdial" else ["slot_accuracy"] if "nlg" in config
                                 else [])
    functions = make(cache, corpus, config, split, metric=metrics)
    texts = batch(build, corpus, config, split)
    expected = [call_as_trl(function, texts) for function in functions]
    pickled = pickle.dumps(functions)
    for copies in (pickle.loads(pickled), copy.deepcopy(functions)):
        assert [call_as_trl(function, texts) for function in copies] == expected
        assert [function.__name__ for function in copies] == [function.__name__ for function in functions]
        assert len({id(function.scores) for function in copies}) == 1  # pickled together: one copy of the rows
    single = pickle.loads(pickle.dumps(functions[0]))
    assert call_as_trl(single, texts) == expected[0]


def test_what_is_pickled_is_the_recipe_not_the_rows(cache):
    function = make(cache, "sgd", "dst-chat", "validation")
    pickled = pickle.dumps(function)
    index, _ = function.scores.prepared
    assert len(index) > 10 and len(pickled) < 2_000  # the rows are not in it
    copied = pickle.loads(pickled)
    assert copied.scores._prepared is None  # nothing loaded until the first call
    assert copied.scores.recipe == function.scores.recipe


def call(function, texts):
    return call_as_trl(function, texts)


def test_a_reward_sent_to_a_spawned_process_scores_there_as_here(build, cache):
    # as TRL's asynchronous GRPO trainer hands its reward functions to the rollout process it spawns
    function = make(cache, "sgd", "agent-call-chat", "validation", metric="argument_f1")
    texts = batch(build, "sgd", "agent-call-chat", "validation")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(call, function, texts).result(timeout=300) == call_as_trl(function, texts)
