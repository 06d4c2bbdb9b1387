"""No module of the scoring package, the rewards, the argument sorter or the lm-eval tasks
is over 450 lines: past that a module holds more than one concern (the house rule)."""

from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "unified_dialogue"
MODULES = sorted({*PACKAGE.glob("scoring/**/*.py"), *PACKAGE.glob("harness/*.py"), PACKAGE / "rewards.py",
                  PACKAGE / "api.py"})


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_module_is_at_most_450_lines(module):
    assert len(module.read_text(encoding="utf-8").splitlines()) <= 450
