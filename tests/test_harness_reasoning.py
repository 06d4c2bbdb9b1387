"""A reasoning model behind lm-eval's chat backend: its thinking, blank lines and all, reaches
the scorer whole, which reads the answer after it (``core.answer``); a plain-text run still
stops at the end of the assistant's turn. Skipped without lm-eval (``make test-harness``)."""

import pytest

lm_eval = pytest.importorskip("lm_eval")

import lm_eval.models.openai_completions  # noqa: E402,F401  (registers the server backends)
from conftest import checksums, fixture_dir  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from unified_dialogue import load  # noqa: E402
from unified_dialogue.harness import TASKS, prompts  # noqa: E402
from unified_dialogue.testing.server import StandInServer, from_predictions  # noqa: E402

# Qwen3's shape: a thinking block with blank lines in it (where "\n\n" used to stop the answer)
THINKING = "<think>\nThe user asks for something.\n\nLet me draft: nothing.\n\nDone.\n</think>\n\n"
TASKS_RUN = {"sgd_dst_chat": ("dst-chat", "joint_goal_accuracy"), "sgd_nlu_chat": ("nlu-chat", "frame_exact_match"),
             "sgd_agent_call": ("agent-call-chat", "joint_accuracy")}


def run(tmp_path, task, backend, path, chat, **extra):
    """lm-eval's server backend on the stand-in server answering every row of ``task`` with
    its gold text after a thinking block: ``(results, requests the server received)``."""
    metadata = {"data_dir": str(fixture_dir("sgd")), "checksums": checksums("sgd"), "cache_dir": str(tmp_path)}
    rows = load("sgd", TASKS_RUN[task][0], split="test", data_dir=metadata["data_dir"],
                checksums=metadata["checksums"], cache_dir=metadata["cache_dir"])
    predictions = {row["id"]: THINKING + prompts.doc_to_target(row) for row in rows}
    with StandInServer(from_predictions(rows, predictions)) as server:
        results = lm_eval.simple_evaluate(
            model=backend, model_args={"model": "stand-in", "base_url": f"{server.base_url}/{path}",
                                       "max_retries": 1, **extra},
            tasks=[task], task_manager=TaskManager(include_path=TASKS, metadata=metadata), apply_chat_template=chat)
        return results["results"][task], server.requests


@pytest.mark.parametrize("task", list(TASKS_RUN))
def test_through_a_chat_template_a_reasoning_models_thinking_is_not_cut_and_its_answer_is_scored(tmp_path, task):
    results, requests = run(tmp_path, task, "local-chat-completions", "chat/completions", True)
    assert (results[f"{TASKS_RUN[task][1]},none"], results["malformed,none"]) == (1.0, 0.0)
    # lm-eval's chat backend adds its own end-of-text stop; none of a plain-text prompt's
    assert requests and all(not set(request.get("stop") or ()) & set(prompts.PLAIN_TEXT_STOPS) for request in requests)


def test_without_a_chat_template_the_answer_ends_at_the_plain_text_turns_end(tmp_path):
    _, requests = run(tmp_path, "sgd_dst_chat", "local-completions", "completions", False, tokenizer_backend="none", batch_size=4)
    assert requests and all(set(prompts.PLAIN_TEXT_STOPS) <= set(request["stop"]) for request in requests)
