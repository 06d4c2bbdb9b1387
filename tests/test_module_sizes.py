"""No module of the project (the package, the loaders, the tests) is over 450 lines: past
that a module holds more than one concern (the house rule)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
MODULES = sorted(path for folder in ("unified_dialogue", "loaders", "tests") for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_module_is_at_most_450_lines(module):
    assert len(module.read_text(encoding="utf-8").splitlines()) <= 450
