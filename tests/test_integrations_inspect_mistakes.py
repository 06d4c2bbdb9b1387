"""inspect-ai's tasks of the environment found by name through the package's entry point, each
mistake in their arguments or roles one line naming the fix and exit status 2 before any
episode runs, and the order of their samples across domains (``make test-inspect``)."""

import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from conftest import TESTS, checksums, fixture_dir  # noqa: E402
from unified_dialogue.environment.leftout import judged  # noqa: E402
from unified_dialogue.environment.runs import across_domains  # noqa: E402
from unified_dialogue.integrations.inspect import TaskError, sgd_ticket  # noqa: E402

INSPECT = str(Path(sys.executable).parent / "inspect")


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """The SGD fixtures without the test split's one file: a partial copy."""
    copy = tmp_path_factory.mktemp("partial") / "sgd"
    shutil.copytree(fixture_dir("sgd"), copy)
    (copy / "test" / "dialogues_001.json").unlink()
    return copy


def inspect_eval(task, tmp_path, *arguments):
    return subprocess.run([INSPECT, "eval", f"unified_dialogue/{task}", "--model", "mockllm/model", "--log-dir",
                           str(tmp_path / "logs"), "--display", "plain", "-T", f"cache_dir={tmp_path / 'cache'}",
                           *arguments], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})


def test_the_entry_point_names_the_tasks_module():
    (found,) = [point for point in entry_points(group="inspect_ai") if point.name == "unified_dialogue"]
    assert found.value == "unified_dialogue.integrations.inspect"
    assert {"sgd_ticket", "sgd_replay", "sgd_simulated"} <= set(dir(found.load()))


@pytest.mark.parametrize("task, arguments, line", [
    ("sgd_simulated", ["-T", "data_dir={copy}", "-T", "verify=false"],
     "error: sgd_simulated: give the simulated user's model with --model-role user=<model> "
     "(Python: eval(..., model_roles={{'user': ...}}))"),
    ("sgd_ticket", ["-T", "data_dir={copy}", "-T", f"checksums={checksums('sgd')}"],
     "error: data_dir {copy} lacks 1 file(s) of the checksum table: test/dialogues_001.json. To load a partial "
     "copy, pass -T verify=false"),
    ("sgd_ticket", ["-T", "data_dir={copy}", "-T", "verify=false", "-T", "split=test"],
     "error: data_dir {copy} has no file of the split 'test' (it gives the splits train, validation): add that "
     "split's files, or choose one it gives (-T split=\"validation\")"),
    ("sgd_replay", ["-T", "split=dev"],
     "error: split 'dev': the environment plays one split of SGD at a time, one of train, validation, test"),
    ("sgd_replay", ["-T", "variant=v9"],
     "error: variant 'v9': the environment plays SGD's own names (no variant) or an SGD-X variant's, one of v1, v2, "
     "v3, v4, v5"),
    ("sgd_ticket", ["-T", "data_dir={copy}", "-T", "verify=false", "-T", "max_steps=0"],
     "error: -T max_steps=0: give a whole number of at least 1"),
])
def test_each_mistake_is_one_line_naming_the_fix_and_status_2(partial, tmp_path, task, arguments, line):
    done = inspect_eval(task, tmp_path, *(argument.format(copy=partial) for argument in arguments))
    shown = [text for text in re.split(r"[\r\n]", done.stderr)  # datasets' progress bars aside
             if text.strip() and not text.startswith("Generating ")]
    assert (done.returncode, shown) == (2, [line.format(copy=partial)]), done.stderr[-3000:]
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())  # no episode ran


def test_in_python_a_mistake_is_a_task_error_with_the_same_line(partial):
    with pytest.raises(TaskError, match="^-T max_steps=0: give a whole number of at least 1$"):
        sgd_ticket(data_dir=str(partial), verify=False, max_steps=0)


def row(services, key):
    return {"id": key, "services": services}


def test_samples_are_ordered_across_domains_each_domains_in_its_own_order():
    rows = [row(["Alarm_1"], "a1"), row(["Alarm_1"], "a2"), row(["Alarm_1"], "a3"), row(["Movies_2", "Alarm_1"], "m1"),
            row(["Banks_1"], "b1"), row(["Movies_1"], "m2")]
    assert [r["id"] for r in across_domains(rows)] == ["a1", "b1", "m1", "a2", "m2", "a3"]
    assert across_domains([]) == []


def test_a_row_left_out_of_the_judged_set_is_no_sample():
    assert judged({"id": "x"}) and judged({"id": "x", "left_out": ""}) and judged({"id": "x", "left_out": None})
    assert not judged({"id": "x", "left_out": "a reason"})


def test_the_tasks_module_is_imported_by_nothing_of_the_core():
    package = TESTS.parent / "unified_dialogue"
    importers = [path for path in package.rglob("*.py") if "integrations" not in path.parts
                 and ("integrations" in path.read_text(encoding="utf-8") or "inspect_ai" in path.read_text(encoding="utf-8"))]
    assert importers == []
