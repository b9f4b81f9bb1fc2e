"""rules/ is pure: the standard library and rules/ itself, callable without the app."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "tracker" / "rules"


@pytest.mark.parametrize("module", sorted(RULES.glob("*.py")), ids=lambda path: path.name)
def test_rules_import_only_the_standard_library(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module.name} makes a relative import"
            if (node.module or "").startswith("tracker.rules"):
                continue
            imported.add((node.module or "").split(".")[0])
    outside = {name for name in imported if name not in sys.stdlib_module_names}
    assert outside <= {"__future__"}, f"{module.name} imports {sorted(outside)}"
