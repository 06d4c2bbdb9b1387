"""The run's metadata of the lm-eval tasks is checked before anything loads: each mistake is one
line naming the metadata key and showing the ``--metadata`` form of the fix; lm-eval's command
ends on it with exit status 2 and no traceback, as do the loaders' own errors. Skipped
without lm-eval (``make test-harness`` installs it)."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("lm_eval")

from conftest import TESTS, checksums, fixture_dir  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from unified_dialogue.core.errors import ConfigError  # noqa: E402
from unified_dialogue.harness import TASKS  # noqa: E402

SGD = str(fixture_dir("sgd"))
# (metadata, the words of the one line): each a mistake a user makes in --metadata
MISTAKES = [
    ({"datadir": SGD}, "--metadata key 'datadir': no task takes it (did you mean 'data_dir'?); "
                       f"e.g. --metadata '{json.dumps({'data_dir': SGD})}'"),
    ({"data_dir": {"SGD": SGD}}, "--metadata key 'data_dir': 'SGD' names no corpus (the corpora: ccpe, faithdial, "
                                 "sgd"),
    ({"data_dir": {"SGD": SGD}}, f"); e.g. --metadata '{json.dumps({'data_dir': {'sgd': SGD}})}'"),
    ({"data_dir": {"sdg": SGD}}, "'sdg' names no corpus"),
    ({"data_dir": "/no/such/folder"}, "--metadata key 'data_dir': sgd's /no/such/folder is no folder; "
                                      "e.g. --metadata '{\"data_dir\": {\"sgd\": \"path/to/sgd\"}}'"),
    ({"data_dir": SGD, "checksums": "/no/such.tsv"}, "--metadata key 'checksums': sgd's /no/such.tsv is no file"),
    ({"split": "dev"}, "--metadata key 'split': 'dev': sgd has the splits train, validation, test; "
                       "e.g. --metadata '{\"split\": \"validation\"}'"),
    ({"split": {"sgd": "valid"}}, "e.g. --metadata '{\"split\": \"validation\"}'"),
    ({"verfication_mode": "no_checks"}, "(did you mean 'verification_mode'?)"),
    ({"cachedir": "/tmp/x"}, "(did you mean 'cache_dir'?)"),
    ({"streaming": True}, "--metadata key 'streaming': not taken: the rows are scored whole, not streamed; "
                          "leave it out of --metadata"),
    ({"instruction": 3}, "--metadata key 'instruction': option instruction takes a str, not 3"),
    # a corpus option's value, its fix the value it most likely meant (the checks would stay on with "false")
    ({"verify": "false"}, "--metadata key 'verify': option verify takes a bool, not 'false'; "
                          "e.g. --metadata '{\"verify\": false}'"),
    ({"no_verify": True}, "--metadata key 'no_verify': no task takes it (did you mean 'verify'?); "
                          "e.g. --metadata '{\"verify\": false}'"),
    ({"variant": "v6"}, "--metadata key 'variant': option variant takes one of 'v1', 'v2', 'v3', 'v4', 'v5', not 'v6'; "
                        "e.g. --metadata '{\"variant\": "),
    ({"download_timeout": "60"}, "e.g. --metadata '{\"download_timeout\": 60.0}'"),
    ({"verification_mode": "no_check"}, "--metadata key 'verification_mode': verification_mode 'no_check' is none of "
                                        "all_checks, basic_checks, no_checks: did you mean 'no_checks'? (a partial or "
                                        "changed copy: --metadata '{\"verify\": false}'); "
                                        "e.g. --metadata '{\"verification_mode\": \"no_checks\"}'"),
]


def task_manager(metadata, tmp_path):
    # the project's task files alone: lm-eval's own thousands need not be indexed here
    return TaskManager(include_path=TASKS, include_defaults=False,
                       metadata={"cache_dir": str(tmp_path / "cache"), **metadata})


@pytest.mark.parametrize("metadata, words", MISTAKES)
def test_a_metadata_mistake_is_one_line_naming_the_key_and_the_fix_before_anything_loads(tmp_path, metadata, words):
    with pytest.raises(ConfigError) as refused:
        task_manager(metadata, tmp_path).load(["sgd_dst_chat"])
    assert words in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "cache").exists()  # nothing loaded


def test_a_config_options_text_is_fixed_with_the_value_it_meant(tmp_path):
    with pytest.raises(ConfigError, match="--metadata key 'lowercase': option lowercase takes a bool, not 'false'; "
                                          "e.g. --metadata '{\"lowercase\": false}'"):
        task_manager({"lowercase": "false"}, tmp_path).load(["sgd_d3st"])


def test_a_models_arguments_merged_into_the_metadata_are_not_mistakes(tmp_path):
    metadata = {"data_dir": SGD, "checksums": checksums("sgd"), "pretrained": "some/model", "num_concurrent": 4,
                "max_length": 2048, "timeout": 30, "base_url": "http://127.0.0.1:8000/v1", "seed": 1, "version": 2,
                # a server backend's: "model" is one letter from the environment's option "mode"
                "model": "stand-in", "tokenizer_backend": "none", "max_retries": 1}
    task = task_manager(metadata, tmp_path).load(["sgd_dst_chat"])["tasks"]["sgd_dst_chat"]
    assert len(task.eval_docs) == 12


def lm_eval(*arguments):
    start = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import harness_oracle; " \
            "from lm_eval.__main__ import cli_evaluate; sys.argv[0] = 'lm_eval'; cli_evaluate()"
    return subprocess.run([sys.executable, "-c", start, "run", "--model", "unified-dialogue-oracle", "--include_path",
                           TASKS, *arguments], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("metadata, words", [
    ({"datadir": SGD}, "lm_eval: task sgd_dst_chat: --metadata key 'datadir': no task takes it"),
    ({"split": "dev"}, "lm_eval: task sgd_dst_chat: --metadata key 'split': 'dev'"),
    # a loader's own error, its hint for --metadata: a copy without its checksum table's files
    ({"data_dir": str(fixture_dir("ccpe")), "checksums": checksums("sgd")},
     "lm_eval: task sgd_dst_chat: data_dir "),
])
def test_lm_evals_command_ends_on_our_one_line_with_status_2(tmp_path, metadata, words):
    done = lm_eval("--tasks", "sgd_dst_chat", "--metadata", json.dumps({"cache_dir": str(tmp_path), **metadata}))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stderr.splitlines()[-1].startswith(words), done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("lm_eval: task")]
    assert len(ours) == 1


def test_a_metric_the_scorer_does_not_give_for_the_run_is_nan_not_a_failure(tmp_path):
    import math

    import harness_oracle
    import lm_eval

    metadata = {"data_dir": SGD, "checksums": checksums("sgd"), "level": "dst"}  # D3ST without intents
    results = lm_eval.simple_evaluate(model=harness_oracle.NAME, tasks=["sgd_d3st"], limit=4,
                                      task_manager=task_manager(metadata, tmp_path))["results"]["sgd_d3st"]
    assert results["joint_goal_accuracy,none"] == 1.0 and math.isnan(results["active_intent_accuracy,none"])


@pytest.mark.parametrize("split, rows", [({"faithdial": "test_topic"}, 12), ({"sgd": "validation"}, 13),
                                         ("validation", 13), (None, 12)])
def test_a_split_given_for_another_corpus_leaves_the_task_files_own(tmp_path, split, rows):
    metadata = {"data_dir": SGD, "checksums": checksums("sgd"), **({"split": split} if split else {})}
    task = task_manager(metadata, tmp_path).load(["sgd_dst_chat"])["tasks"]["sgd_dst_chat"]
    assert len(task.eval_docs) == rows


FAITHDIAL = {"data_dir": str(fixture_dir("faithdial")), "checksums": checksums("faithdial")}


@pytest.mark.parametrize("metadata, words", [
    ({"unfaithful": "Entailment"}, "--metadata key 'unfaithful': option unfaithful='Entailment': Entailment marks "
                                   "a faithful original; name labels of unfaithful ones; e.g. --metadata "
                                   "'{\"unfaithful\": \"Hallucination\"}'"),
    ({"unfaithful": "Halucination"}, "'Halucination' is no BEGIN label of an unfaithful original"),
    ({"rewriten": False}, "--metadata key 'rewriten': no task takes it (did you mean 'rewritten'?)"),
    ({"rewritten": "no"}, "--metadata key 'rewritten': option rewritten takes a bool"),
    ({"split": {"faithdial": "dev"}}, "--metadata key 'split': 'dev': faithdial has the splits train, validation, "
                                      "test"),
])
def test_the_critic_tasks_metadata_is_checked_too(tmp_path, metadata, words):
    with pytest.raises(ConfigError) as refused:
        task_manager({**FAITHDIAL, **metadata}, tmp_path).load(["faithdial_critic"])
    assert words in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "cache").exists()  # nothing loaded


def test_the_critic_tasks_options_come_from_the_metadata(tmp_path, build):
    task = task_manager({**FAITHDIAL, "rewritten": False}, tmp_path).load(["faithdial_critic"])["tasks"]
    rows = build("faithdial", "critic-chat", rewritten=False)["test"]
    assert [doc["id"] for doc in task["faithdial_critic"].eval_docs] == rows["id"]
    assert all(identifier.endswith("/original") for identifier in rows["id"])
