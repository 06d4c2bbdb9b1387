"""The shared corpus test case itself (``unified_dialogue.testing.CorpusTestCase``): each
check runs over the values that the argument it takes names, drawn from what a corpus's
test declares, whatever the check is called."""

import pytest

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
