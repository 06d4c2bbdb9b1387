"""One cache folder, both datasets lines: a config built under one line, then loaded under
the other with the same ``cache_dir``, gives that line's documented features (``Json``
objects for tool-call arguments and tool parameters on 4.7 and later, JSON text on 3.6),
both ways. The other line is the other environment the Makefile creates (``.venv``:
datasets 3.6, ``.venv-datasets5``: 5.x, at the repository's root); the test runs it in a
subprocess and is skipped only when that environment is absent."""

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from conftest import checksums, fixture_dir

pytestmark = pytest.mark.both_lines

ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENTS = {"3": ROOT / ".venv", "5": ROOT / ".venv-datasets5"}  # the Makefile's VENV and VENV5
THIS = datasets.__version__.split(".")[0]
OTHER = ENVIRONMENTS["5" if THIS == "3" else "3"]
OTHER_PYTHON = OTHER / "bin" / "python"

# Load agent-call-chat of the fixtures into the cache folder argv[1]; print what the
# loading line is and the types of the first call's arguments and first tool's parameters.
SCRIPT = """
import json, sys, datasets
from unified_dialogue import load
rows = load("sgd", "agent-call-chat", split="train", data_dir=sys.argv[2], checksums=sys.argv[3], cache_dir=sys.argv[1])
row = rows[0]
print(json.dumps({"line": datasets.__version__, "json": hasattr(datasets, "Json"),
                  "arguments": type(row["completion"][0]["tool_calls"][0]["function"]["arguments"]).__name__,
                  "parameters": type(row["tools"][0]["function"]["parameters"]).__name__}))
"""


def load_in(python, cache_dir):
    """SCRIPT under ``python`` with this repository's code first on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
           "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run([str(python), "-c", SCRIPT, str(cache_dir), str(fixture_dir("sgd")), checksums("sgd")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def documented(seen):
    """The features the docs promise on the line that loaded: objects with Json, text without."""
    expected = "dict" if seen["json"] else "str"
    return seen["arguments"] == seen["parameters"] == expected


@pytest.fixture
def other_line():
    if not OTHER_PYTHON.exists():
        pytest.skip(f"the other datasets line's environment is absent ({OTHER}: make setup creates it)")
    return OTHER_PYTHON


@pytest.mark.parametrize("first", ["other", "this"])
def test_a_cache_built_by_one_line_is_loaded_right_by_the_other(tmp_path, other_line, first):
    order = [other_line, sys.executable] if first == "other" else [sys.executable, other_line]
    seen = [load_in(python, tmp_path / "cache") for python in order]
    assert seen[0]["line"].split(".")[0] != seen[1]["line"].split(".")[0]
    assert all(documented(s) for s in seen), seen
