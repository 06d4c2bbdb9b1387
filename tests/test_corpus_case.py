"""The shared corpus test case itself (``unified_dialogue.testing.CorpusTestCase``): each
check runs over the values that the argument it takes names, drawn from what a corpus's
test declares, whatever the check is called; and it runs from a non-editable install of the
package, as for a corpus of your own."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import TESTS

pytestmark = pytest.mark.both_lines

ROOT = TESTS.parent

DECLARED = '''
from unified_dialogue.testing import CorpusTestCase, Mutation, become


class TestDeclared(CorpusTestCase):
    corpus = "tiny"
    reverse = {"original": None}
    mutations = (Mutation("empty file", "train.json", become(b""), "whole file", "(json)", configs=("unified",)),)

    def test_a_check_of_its_own(self, reversible_config, view):
        pass

    def test_another_one(self, config):
        pass
'''


@pytest.fixture
def collected(pytester):
    """The ids of the checks of a test case declaring a corpus, its reverse mappings and
    one mutation, by check: ``{name: [the parameters of each run]}``."""
    pytester.makepyfile(test_declared=DECLARED)
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    assert result.ret == 0, result.outlines
    runs = {}
    for line in result.outlines:
        if "::" in line:
            name, _, parameters = line.split("::")[-1].partition("[")
            runs.setdefault(name, []).append(parameters.rstrip("]"))
    return runs


def test_each_check_runs_over_what_its_argument_names(collected):
    configs = ["unified", "original", "response"]  # tiny's
    assert collected["test_features_are_the_declared_ones"] == configs
    assert collected["test_another_one"] == configs
    assert collected["test_each_view_has_as_many_rows_as_the_source_has_turns_for_it"] == ["response"]
    assert collected["test_round_trip_rebuilds_the_source"] == ["original"]
    assert collected["test_a_check_of_its_own"] == ["response-original"]
    assert collected["test_bad_input_is_an_error_naming_file_record_and_field"] == [
        "empty file-unified-prepared", "empty file-unified-stream"]
    assert collected["test_exact_counts_per_split"] == [""]  # no argument: one run


# ---------------------------------------------------------------- from an install

# What setup.cfg builds the package from.
PACKAGE_FILES = ("setup.cfg", "pyproject.toml", "README.md", "LICENSE")
PACKAGES = ("unified_dialogue", "loaders")
# In the installed package: the shared test case runs the tiny corpus's checks of each group,
# and the registry finds a bundled corpus's strategies.
FROM_THE_INSTALL = """
import sys

import pytest
import unified_dialogue
from unified_dialogue import registry
from unified_dialogue.testing import strategies

site = sys.argv[1]
for module in (unified_dialogue, strategies, registry.strategies("sgd")):
    assert module.__file__.startswith(site), module.__file__
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[2], "-k", sys.argv[3]]))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(source, site)``: a copy of the package's files, and the folder ``pip install``
    put the package in, from a wheel built offline from that copy."""
    tmp_path = tmp_path_factory.mktemp("install")
    source = tmp_path / "source"
    source.mkdir()
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-build-isolation",
                    "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)
    return source, site


def test_the_install_holds_every_file_of_the_packages(installed):
    """Every file of the packages, data included (chat instructions, task files, templates,
    checksum tables, cards), is in the install: a file setup.cfg forgets to ship is missed
    only outside an editable install."""
    source, site = installed
    files = {path.relative_to(source) for package in PACKAGES for path in (source / package).rglob("*")
             if path.is_file() and path.suffix != ".pyc"}
    missing = sorted(str(path) for path in files if not (site / path).is_file())
    assert not missing, f"not shipped (setup.cfg, [options.package_data]): {missing}"


def test_the_shared_corpus_tests_run_from_a_non_editable_install(installed, tmp_path):
    """A corpus of your own is tested with the installed package (not this source tree):
    ``pip install`` of a wheel built offline from the package's own files, then the tiny
    corpus's test case (a corpus outside the package, found on ``PYTHONPATH``) with checks
    of each group."""
    _, site = installed
    checks = ("features_are_the_declared_ones or streaming_yields or bad_input_is_an_error or download_verifies "
              "or view_rows_use_nothing_after")
    done = subprocess.run([sys.executable, "-c", FROM_THE_INSTALL, str(site), str(TESTS / "test_tiny.py"), checks],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(TESTS)])},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and " failed" not in done.stdout
