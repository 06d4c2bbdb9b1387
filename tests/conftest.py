"""What the tests share: where the fixtures are, the corpora defined under tests/ (made
visible to the registry), and ``build``, each corpus's fixtures loaded once per session."""

import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

# A Hub and datasets cache folder of each test process's own, set before datasets reads it on
# import: a load without cache_dir (and the commands the tests start, which inherit it)
# writes nothing into the user's cache nor into another pytest-xdist worker's or run's.
HF_HOME = tempfile.mkdtemp(prefix="unified-dialogue-tests-hf-")
os.environ["HF_HOME"] = HF_HOME
atexit.register(shutil.rmtree, HF_HOME, ignore_errors=True)

import datasets  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

from unified_dialogue.testing import ONLY_DATASETS_3, build_once  # noqa: E402

# pytester: tests/test_corpus_case.py collects test modules of its own.
pytest_plugins = ("pytester",)

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
EXPECTED = TESTS / "expected"
# The corpora defined under tests/: the registry finds them through this variable, as it
# would find a user's own corpora (also in the processes tests start). Set before the
# tests are collected, as the corpus test cases ask the registry while collected.
os.environ["UNIFIED_DIALOGUE_CORPORA"] = "tiny_corpora"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

datasets.disable_progress_bars()

# The property-based tests' budget: ``ci`` (the default) runs a bounded number of examples,
# the same ones every run, and reports a failure as found (shrinking an example that builds
# datasets can take minutes); ``thorough`` many more, without a deadline, shrinking each
# failure to a minimal example (docs/testing.md). Chosen by the environment variable
# HYPOTHESIS_PROFILE.
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=_SLOW,
                          print_blob=True, phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=_SLOW,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A test that only datasets 3.x runs is one ``make test`` runs under 3.6: marked
    ``both_lines`` wherever it is (before ``-m`` selects)."""
    for item in items:
        if any(mark == ONLY_DATASETS_3.mark for mark in item.iter_markers("skipif")):
            item.add_marker(pytest.mark.both_lines)


def fixture_dir(corpus):
    return FIXTURES / corpus


def checksums(corpus):
    return str(FIXTURES / corpus / "SHA256SUMS.tsv")


def write_predictions(path, predictions):
    """A predictions file of ``{id: text}``, as the scoring command reads it."""
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in predictions.items()), encoding="utf-8")
    return path


@pytest.fixture
def bundled_only(monkeypatch):
    """The registry sees the bundled corpora only (loaders/)."""
    monkeypatch.delenv("UNIFIED_DIALOGUE_CORPORA")


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """Build a corpus config from its fixtures once per session (through ``load``); the
    corpus test cases share these builds."""
    def _build(corpus, config="unified", **kwargs):
        return build_once(tmp_path_factory, corpus, fixture_dir(corpus), checksums(corpus), config, **kwargs)

    return _build


@pytest.fixture(scope="session")
def dst_chat_gold(build):
    """``{id: gold text}`` of the SGD fixtures' ``dst-chat`` validation rows: a predictions
    file that scores 1.0 everywhere."""
    return {r["id"]: r["completion"][0]["content"] for r in build("sgd", "dst-chat")["validation"]}
