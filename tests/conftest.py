import json
from pathlib import Path

import datasets
import pytest

from unified_dialogue import load

from hang_guard import pytest_configure, pytest_runtest_protocol  # noqa: F401 (pytest's hooks)

FIXTURES = Path(__file__).parent / "fixtures"
DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
ONLY_DATASETS_3 = pytest.mark.skipif(
    DATASETS_MAJOR >= 4, reason="datasets >= 4 cannot run loading scripts; the import entry point is tested instead"
)
ONLY_DATASETS_4_PLUS = pytest.mark.skipif(
    DATASETS_MAJOR < 4, reason="datasets 3.x still runs loading scripts"
)


def fixture_dir(corpus):
    return FIXTURES / corpus


def checksums(corpus):
    return str(FIXTURES / corpus / "SHA256SUMS.tsv")


def expected_counts(corpus):
    return json.loads((FIXTURES / corpus / "EXPECTED.json").read_text())


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """Build a corpus config from its fixtures once per session (through ``load``)."""
    cache = {}

    def _build(corpus, config="unified", **kwargs):
        key = (corpus, config, tuple(sorted(kwargs.items())))
        if key not in cache:
            cache_dir = tmp_path_factory.mktemp(f"{corpus}-{config}")
            cache[key] = load(corpus, config, data_dir=str(fixture_dir(corpus)), checksums=checksums(corpus),
                              cache_dir=str(cache_dir), **kwargs)
        return cache[key]

    return _build
