"""The lm-evaluation-harness tasks (unified_dialogue.harness): run offline on the fixtures
with a model that answers gold or perturbed text (tests/harness_oracle.py), lm-eval's
numbers equal the scoring command's on the same texts for every task; the prompts; the
samples file as predictions. Skipped without lm-eval (``make test-harness`` installs it)."""

import json
import subprocess
import sys

import pytest

lm_eval = pytest.importorskip("lm_eval")

import harness_oracle  # noqa: E402  (registers the model; needs lm-eval)
from conftest import TESTS, checksums, fixture_dir  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from unified_dialogue import scoring  # noqa: E402
from unified_dialogue.harness import TASKS  # noqa: E402
from unified_dialogue.harness import prompts  # noqa: E402
from unified_dialogue.harness.samples import read_samples  # noqa: E402
from unified_dialogue.harness.task import load_arguments  # noqa: E402

DST = {name: ("#ALL_SERVICES", name) for name in (
    "joint_goal_accuracy", "average_goal_accuracy", "active_intent_accuracy", "requested_slots_f1")}
GENERATION = {"bleu": ("all", "bleu"), "chrf": ("all", "chrf"), "rougeL": ("all", "rougeL", "fmeasure")}
NLU = {"frame_exact_match": ("frame_exact_match",), "slot_f1": ("slot_f1",), "malformed": ("malformed",)}
# Each task: (corpus, config, variant, {metric lm-eval reports: where the scorer's result has it}).
TASK_SPECS = {
    "sgd_dst_chat": ("sgd", "dst-chat", None, {**DST, "malformed": ("malformed",)}),
    "sgd_d3st": ("sgd", "d3st", None, {**DST, "malformed": ("malformed",)}),
    "sgd_agent_call": ("sgd", "agent-call-chat", None, {
        "call_accuracy": ("call_accuracy",), "joint_accuracy": ("joint_accuracy",),
        "argument_f1": ("argument_f1",), "malformed": ("malformed",)}),
    "sgd_nlg": ("sgd", "nlg-chat", None, {**GENERATION, "ser": ("all", "ser")}),
    "sgd_response": ("sgd", "response-chat", None, GENERATION),
    "faithdial_response": ("faithdial", "response-chat", None, {**GENERATION, "knowledge_f1": ("all", "knowledge_f1")}),
    "faithdial_critic": ("faithdial", "critic-chat", None, {
        "accuracy": ("accuracy",), "macro_precision": ("macro", "precision"), "macro_recall": ("macro", "recall"),
        "macro_f1": ("macro", "f1"), "hallucination_precision": ("labels", "Hallucination", "precision"),
        "hallucination_recall": ("labels", "Hallucination", "recall"),
        "hallucination_f1": ("labels", "Hallucination", "f1"), "malformed": ("malformed",)}),
    "sgd_nlu_chat": ("sgd", "nlu-chat", None, {**NLU, "intent_accuracy": ("intent_accuracy",)}),
    "ccpe_nlu_chat": ("ccpe", "nlu-chat", None, NLU),  # CCPE-M annotates no intents
    "ccpe_response": ("ccpe", "response-chat", None, GENERATION),
    "sgd_user_chat": ("sgd", "user-chat", None, {**GENERATION, "informed_values_said": ("all", "informed_values_said"),
                                                 "stop_accuracy": ("all", "stop_accuracy")}),
    **{f"sgd_dst_chat_v{v}": ("sgd", "dst-chat", f"v{v}", {**DST, "malformed": ("malformed",)}) for v in range(1, 6)},
}
GROUPS = ["unified_dialogue", "unified_dialogue_sgd_x"]
# The group of every SGD-X variant runs one task on them all (tests/test_harness_sgdx.py): here each variant alone.
RUN = ["unified_dialogue"] + [task for task in TASK_SPECS if TASK_SPECS[task][2]]
ALL_VARIANTS = "sgd_dst_chat_sgd_x"


def split_of(corpus):
    return "train" if corpus == "ccpe" else "test"  # CCPE-M's tasks run on its one split
CORPORA = ("sgd", "faithdial", "ccpe")


@pytest.fixture(scope="session")
def metadata(tmp_path_factory):
    """The run's metadata: the fixtures as each corpus's local copy, a cache of the tests' own."""
    return {"data_dir": {c: str(fixture_dir(c)) for c in CORPORA},
            "checksums": {c: checksums(c) for c in CORPORA},
            "cache_dir": str(tmp_path_factory.mktemp("harness-cache"))}


def evaluate(metadata, tasks, perturb, chat=False, **kwargs):
    return lm_eval.simple_evaluate(model=harness_oracle.NAME, model_args={"perturb": perturb}, tasks=tasks,
                                   task_manager=TaskManager(include_path=TASKS, metadata=metadata),
                                   log_samples=True, apply_chat_template=chat, **kwargs)


@pytest.fixture(scope="session")
def runs(metadata):
    """Every task run with gold answers (plain-text prompts) and with perturbed ones (chat
    prompts): ``{perturb: lm-eval's results}``."""
    return {False: evaluate(metadata, RUN, False), True: evaluate(metadata, RUN, True, chat=True)}


def predictions_of(samples):
    return {sample["doc"]["id"]: sample["filtered_resps"][0] for sample in samples}


def dig(metrics, path):
    for key in path:
        metrics = metrics[key]
    return float(metrics)


def command_metrics(metadata, corpus, config, variant, predictions):
    """What the scoring command's function gives for these texts on the fixtures."""
    return scoring.score(corpus, config, split_of(corpus), predictions, variant=variant, data_dir=metadata["data_dir"][corpus],
                         load_options={"checksums": metadata["checksums"][corpus], "cache_dir": metadata["cache_dir"]})


@pytest.mark.parametrize("perturb", [False, True], ids=["gold", "perturbed"])
@pytest.mark.parametrize("task", sorted(TASK_SPECS))
def test_lm_eval_reports_what_the_scorer_reports_on_the_same_texts(runs, metadata, task, perturb):
    results = runs[perturb]
    corpus, config, variant, metrics = TASK_SPECS[task]
    samples = results["samples"][task]
    predictions = predictions_of(samples)
    expected_texts = {s["doc"]["id"]: prompts.doc_to_target(s["doc"]) for s in samples}
    if perturb:
        expected_texts = {i: harness_oracle.perturbed(i, t) for i, t in expected_texts.items()}
    assert predictions == expected_texts  # the texts scored are the model's, every row once
    assert len(predictions) == len(samples) > 0
    scored = command_metrics(metadata, corpus, config, variant, predictions)
    reported = {key.split(",")[0]: value for key, value in results["results"][task].items()
                if key.endswith(",none") and "_stderr" not in key}
    assert reported == {metric: dig(scored, path) for metric, path in metrics.items()}


def figures_table(text):
    """``{(task, metric): (gold, perturbed)}`` of docs/harness.md's Figures table."""
    table = text.split("## Figures", 1)[1]
    rows = [line.strip("|").split("|") for line in table.splitlines() if line.startswith("| `")]
    return {(task.strip(" `"), metric.strip(" `")): (float(gold), float(perturbed))
            for task, metric, gold, perturbed in rows}


def test_the_docs_figures_are_this_runs_on_every_task_and_metric(runs):
    documented = figures_table((TESTS.parent / "docs" / "harness.md").read_text())
    measured = {(task, metric): tuple(round(runs[perturb]["results"][task][f"{metric},none"], 4)
                                      for perturb in (False, True))
                for task, (_, _, _, metrics) in TASK_SPECS.items() for metric in metrics}
    assert documented == measured


def test_a_task_file_lists_no_metric_and_each_task_reports_its_configs_declared_metrics(runs):
    from unified_dialogue.scoring.configs import CONFIGS

    for task, (corpus, config, _, metrics) in TASK_SPECS.items():
        text = (__import__("pathlib").Path(TASKS) / f"{task}.yaml").read_text()
        assert "metric_list" not in text
        declared = {metric.name: (metric.path, metric.higher_is_better) for metric in CONFIGS[config].metrics}
        assert set(metrics) <= set(declared) and {declared[m][0] for m in metrics} == set(metrics.values())
        assert runs[False]["higher_is_better"][task] == {m: declared[m][1] for m in metrics}


def test_every_scored_config_a_model_can_be_prompted_with_has_a_task_on_every_corpus():
    import re

    import datasets

    from unified_dialogue import registry
    from unified_dialogue.scoring.configs import CONFIGS

    def promptable(config):
        """Chat messages, or D3ST's input text (nlg's GEM prompt is a string beside its acts),
        that a model answers with a text (preference is scored from a model's scores)."""
        features = config.features
        return CONFIGS[config.name].predicts_text and (
            "input" in features or ("prompt" in features and not isinstance(features["prompt"], datasets.Value)))

    named = set()
    for path in __import__("pathlib").Path(TASKS).glob("*.yaml"):
        fields = dict(re.findall(r"^  (corpus|config): (\S+)$", path.read_text(), re.M))
        if fields:
            named.add((fields["corpus"], fields["config"]))
    wanted = {(corpus.name, config.name) for corpus in registry.corpora().values() if corpus.package.startswith("loaders")
              for config in corpus.configs if config.name in CONFIGS and promptable(config)}
    assert wanted == named


def test_perturbed_texts_score_below_the_gold_ones_on_every_task(runs):
    for task, (_, _, _, metrics) in TASK_SPECS.items():
        gold, perturbed = (runs[p]["results"][task] for p in (False, True))
        changed = [m for m in metrics if gold[f"{m},none"] != perturbed[f"{m},none"]]
        assert changed, task  # the equality above is not one of constants


def test_gold_dst_and_tool_calls_score_perfectly(runs):
    results = runs[False]["results"]
    assert results["sgd_dst_chat"]["joint_goal_accuracy,none"] == 1.0
    assert results["sgd_dst_chat_v3"]["joint_goal_accuracy,none"] == 1.0
    assert results["sgd_d3st"]["joint_goal_accuracy,none"] == 1.0
    assert results["sgd_agent_call"]["joint_accuracy,none"] == 1.0
    assert results["sgd_nlg"]["bleu,none"] == 100.0


def test_a_variant_task_shows_the_variant_schemas(runs):
    samples = runs[False]["samples"]
    assert samples["sgd_dst_chat"][0]["doc"]["id"] == samples["sgd_dst_chat_v1"][0]["doc"]["id"]
    assert prompt_of(runs[False], "sgd_dst_chat") != prompt_of(runs[False], "sgd_dst_chat_v1")


def prompt_of(results, task, position=0):
    arguments = results["samples"][task][position]["arguments"]
    return arguments["gen_args_0"]["arg_0"] if isinstance(arguments, dict) else arguments[0][0]


def test_without_a_chat_template_the_prompt_is_the_conversation_as_plain_text(runs):
    doc = runs[False]["samples"]["sgd_dst_chat"][0]["doc"]
    text = prompt_of(runs[False], "sgd_dst_chat")
    system, user = doc["prompt"][0]["content"], doc["prompt"][-1]["content"]
    assert text == f"System: {system}\n\nUser: {user}\n\nAssistant:"
    assert prompt_of(runs[False], "sgd_d3st").startswith("User: ")


def test_with_a_chat_template_the_rows_messages_reach_the_template_with_the_tools_in_the_system_message(runs):
    for position, sample in enumerate(runs[True]["samples"]["sgd_agent_call"]):
        messages = json.loads(prompt_of(runs[True], "sgd_agent_call", position))
        assert [m["role"] for m in messages][0] == "system"
        assert set(messages[0]) == {"role", "content"}
        system = messages[0]["content"]
        assert system.startswith(sample["doc"]["prompt"][0]["content"])
        tool_lines = system.split(prompts.TOOLS_HEADER + "\n")[1].splitlines()
        assert [json.loads(line)["name"] for line in tool_lines] == [t["function"]["name"] for t in sample["doc"]["tools"]]
        assert all(m["role"] in ("system", "user", "assistant") for m in messages)
    chat = json.loads(prompt_of(runs[True], "sgd_dst_chat"))
    doc = runs[True]["samples"]["sgd_dst_chat"][0]["doc"]
    assert chat == [{"role": m["role"], "content": m["content"]} for m in doc["prompt"]]


def test_earlier_calls_and_results_are_written_into_the_messages():
    doc = {"prompt": [{"role": "system", "content": "S", "tool_calls": None, "name": None},
                      {"role": "assistant", "content": "", "name": None,
                       "tool_calls": [{"type": "function", "function": {"name": "A__b", "arguments": '{"x": "1"}'}}]},
                      {"role": "tool", "content": '[{"x": "1"}]', "tool_calls": None, "name": "A__b"}],
           "tools": [{"type": "function", "function": {"name": "A__b", "description": "d", "parameters": '{"type": "object"}'}}]}
    assert prompts.messages(doc, "Be brief.") == [
        {"role": "system", "content": f"Be brief.\n\nS\n\n{prompts.TOOLS_HEADER}\n"
                                      '{"name": "A__b", "description": "d", "parameters": {"type": "object"}}'},
        {"role": "assistant", "content": '<tool_call>{"name": "A__b", "arguments": {"x": "1"}}</tool_call>'},
        {"role": "user", "content": '<tool_response>[{"x": "1"}]</tool_response>'}]


def test_few_shot_is_not_offered(metadata, runs):
    # lm-eval keeps a task's num_fewshot of 0 whatever --num_fewshot says: the prompts stay the rows' own
    results = evaluate(metadata, ["sgd_nlg"], False, num_fewshot=2)
    assert results["configs"]["sgd_nlg"]["num_fewshot"] == 0
    assert prompt_of(results, "sgd_nlg") == prompt_of(runs[False], "sgd_nlg")
    # and a task asked for examples all the same refuses by name
    task = TaskManager(include_path=TASKS, metadata=metadata).load(["sgd_nlg"])["tasks"]["sgd_nlg"]
    with pytest.raises(ValueError, match="sgd_nlg: few-shot examples are not offered"):
        task.fewshot_context(task.eval_docs[0], 1)


def test_a_partial_run_is_scored_on_the_rows_it_answered(metadata):
    results = evaluate(metadata, ["sgd_response"], True, limit=5)
    predictions = predictions_of(results["samples"]["sgd_response"])
    assert len(predictions) == 5
    rows = [row for row in results["samples"]["sgd_response"]]
    expected = scoring.scorer("response-chat")(predictions, [s["doc"] for s in rows])
    assert results["results"]["sgd_response"]["bleu,none"] == expected["all"]["bleu"]


@pytest.fixture(scope="session")
def server_runs(metadata):
    """Every task run through lm-eval's server backends against the stand-in server answering
    the gold texts: ``{backend: lm-eval's results}``, chat messages and plain text."""
    import lm_eval.models.openai_completions  # noqa: F401  (registers them: the test model's registration came first)

    from unified_dialogue import load
    from unified_dialogue.testing.server import StandInServer, gold

    rows = [row for corpus, config, variant, _ in TASK_SPECS.values()
            for row in load(corpus, config, split=split_of(corpus), data_dir=metadata["data_dir"][corpus],
                            checksums=metadata["checksums"][corpus], cache_dir=metadata["cache_dir"],
                            **({"variant": variant} if variant else {}))]
    with StandInServer(gold(rows)) as server:
        common = {"model": "stand-in", "num_concurrent": 4, "max_retries": 1}
        return {backend: lm_eval.simple_evaluate(
            model=backend, model_args={**common, "base_url": f"{server.base_url}/{path}", **extra}, tasks=RUN,
            task_manager=TaskManager(include_path=TASKS, metadata=metadata), apply_chat_template=chat)
            for backend, path, chat, extra in (
                ("local-chat-completions", "chat/completions", True, {}),
                ("local-completions", "completions", False, {"tokenizer_backend": "none", "batch_size": 4}))}


@pytest.mark.parametrize("backend", ["local-chat-completions", "local-completions"])
def test_lm_eval_server_backends_on_the_stand_in_server_report_the_gold_figures(runs, server_runs, backend):
    reported, gold = server_runs[backend]["results"], runs[False]["results"]
    for task, (_, _, _, metrics) in TASK_SPECS.items():
        assert {m: reported[task][f"{m},none"] for m in metrics} == {m: gold[task][f"{m},none"] for m in metrics}
    assert reported["sgd_agent_call"]["joint_accuracy,none"] == reported["sgd_dst_chat"]["joint_goal_accuracy,none"] == 1


def test_load_options_come_from_the_metadata_per_corpus_and_model_arguments_are_not_taken():
    metadata = {"corpus": "sgd", "config": "d3st", "split": "test", "variant": "v2", "lowercase": False,
                "data_dir": {"sgd": "a", "faithdial": "b"}, "base_url": "http://127.0.0.1:8000/v1",
                "pretrained": "some/model", "seed": 1234, "version": 1.0}
    assert load_arguments(metadata) == ("sgd", "d3st", "test", {"data_dir": "a", "variant": "v2"}, {"lowercase": False})
    assert load_arguments({**metadata, "corpus": "faithdial", "config": "response-chat"})[3] == {"data_dir": "b"}


# ---------------------------------------------------------------- the command line, samples

def run(*arguments, cwd=None):
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_the_package_prints_its_task_folder_and_ships_every_task_file():
    done = run("-m", "unified_dialogue.harness")
    assert done.returncode == 0 and done.stdout.strip() == TASKS
    shipped = {p.name for p in __import__("pathlib").Path(TASKS).glob("*.yaml")}
    assert {f"{task}.yaml" for task in [*TASK_SPECS, *GROUPS, ALL_VARIANTS]} == shipped


@pytest.fixture(scope="session")
def cli_run(metadata, tmp_path_factory):
    """One run of lm-eval's command line (with the test model registered first), samples logged."""
    out = tmp_path_factory.mktemp("lm-eval-out")
    start = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import harness_oracle; " \
            "from lm_eval.__main__ import cli_evaluate; sys.argv[0] = 'lm_eval'; cli_evaluate()"
    done = run("-c", start, "run", "--model", harness_oracle.NAME, "--model_args", "perturb=true",
               "--tasks", "sgd_nlg", "--include_path", TASKS, "--metadata", json.dumps(metadata),
               "--output_path", str(out), "--log_samples")
    assert done.returncode == 0, done.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    (samples,) = out.rglob("samples_sgd_nlg_*.jsonl")
    return json.loads(results.read_text()), samples


def test_the_command_line_run_rescored_from_its_samples_gives_its_numbers(cli_run, metadata, tmp_path):
    results, samples = cli_run
    predictions = tmp_path / "p.jsonl"
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(samples), "--output", str(predictions))
    assert done.returncode == 0, done.stderr
    metrics = tmp_path / "m.json"
    done = run("-m", "unified_dialogue.scoring", "--corpus", "sgd", "--config", "nlg-chat", "--split", "test",
               "--data-dir", metadata["data_dir"]["sgd"], "--checksums", metadata["checksums"]["sgd"],
               "--cache-dir", metadata["cache_dir"], "--predictions", str(predictions), "--output", str(metrics))
    assert done.returncode == 0, done.stderr
    scored = json.loads(metrics.read_text())
    reported = results["results"]["sgd_nlg"]
    for metric, path in TASK_SPECS["sgd_nlg"][3].items():
        assert reported[f"{metric},none"] == dig(scored, path), metric
    assert reported["bleu,none"] < 100


def test_samples_to_predictions_round_trips_the_texts(cli_run, tmp_path):
    _, samples = cli_run
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(samples))
    written = [json.loads(line) for line in done.stdout.splitlines()]
    assert written == [{"id": s["doc"]["id"], "text": s["filtered_resps"][0]} for s in lines]
    assert {w["text"] for w in written} != {prompts.doc_to_target(s["doc"]) for s in lines}  # perturbed texts


def test_samples_to_predictions_never_writes_onto_its_input(cli_run, tmp_path):
    _, samples = cli_run
    before = samples.read_bytes()
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(samples), "--output", str(samples))
    assert done.returncode == 2 and "--output" in done.stderr and "never overwritten" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert samples.read_bytes() == before


@pytest.mark.parametrize("line, words", [
    ("not json", "line 2: not JSON"),
    (json.dumps({"doc": {"turn": 1}, "filtered_resps": ["x"]}), "line 2: field doc.id"),
    (json.dumps({"doc": {"id": "a"}, "filtered_resps": [1]}), "line 2: field filtered_resps"),
])
def test_a_bad_sample_is_one_line_naming_the_file_line_and_field(tmp_path, line, words):
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"doc": {"id": "z"}, "filtered_resps": ["t"], "filter": "none"}) + "\n" + line + "\n")
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(path), "--output", str(tmp_path / "p"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert str(path) in done.stderr and words in done.stderr
    assert not (tmp_path / "p").exists()


def test_samples_of_several_filters_need_one_chosen(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps({"doc": {"id": "a"}, "filtered_resps": [t], "filter": f}) + "\n"
                            for f, t in (("none", "x"), ("strict", "y"))))
    with pytest.raises(ValueError, match="several filters \\(none, strict\\)"):
        read_samples(path)
    assert read_samples(path, "strict") == {"a": "y"}


def test_a_results_file_given_as_samples_says_what_it_is_and_which_file_to_give(cli_run, tmp_path):
    results, samples = cli_run
    (path,) = samples.parent.glob("results_*.json")
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(path))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"{path}: an lm-eval results file" in done.stderr and samples.name in done.stderr
    alone = tmp_path / "results_2026.json"
    alone.write_text(json.dumps(results))
    done = run("-m", "unified_dialogue.harness", "samples-to-predictions", str(alone))
    assert done.returncode == 2 and "--log_samples" in done.stderr


def test_a_predictions_file_or_an_output_folder_given_as_samples_says_what_to_give(tmp_path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": "a", "text": "x"}) + "\n")
    with pytest.raises(ValueError, match="line 1: a line of a predictions file .*, not an lm-eval sample: give the "
                                         "file as it is to python -m unified_dialogue.scoring --predictions"):
        read_samples(predictions)
    with pytest.raises(ValueError, match=f"{tmp_path}: a folder; it holds no samples_<task>_<date>.jsonl file "
                                         "\\(lm-eval writes one for each task with --log_samples\\)"):
        read_samples(tmp_path)
    (tmp_path / "model").mkdir()
    samples = tmp_path / "model" / "samples_sgd_dst_chat_2026.jsonl"
    samples.write_text(json.dumps({"doc": {"id": "a"}, "filtered_resps": ["x"], "filter": "none"}) + "\n")
    with pytest.raises(ValueError, match=f"{tmp_path}: a folder; give one of the samples files in it: {samples}$"):
        read_samples(tmp_path)
