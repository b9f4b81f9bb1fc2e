"""Every table cell is plain text: a DataTable reads a str cell as markup, so every table in
tracker/ is a PlainTable, and a PlainTable keeps a str as typed whatever way a row, a column or
a cell reaches it."""

from __future__ import annotations

import ast
from pathlib import Path

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.coordinate import Coordinate
from textual.widgets.data_table import RowKey

import tracker
from tracker.widgets.plain import PlainTable

PACKAGE = Path(tracker.__file__).parent
# Text read as markup by Textual: tags, closers, escapes, links and actions.
MARKUP = st.lists(
    st.sampled_from(["[", "]", "[/]", "[b]", "[red]", "\\[", "[@click=app.quit]", "Ex", " "]),
    min_size=1, max_size=5,
).map("".join)  # fmt: skip


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def _problem(node: ast.AST) -> str | None:
    """What is wrong with a node that makes a table other than a PlainTable, if it does."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return "builds a DataTable: use widgets.plain.PlainTable" if name == "DataTable" else None
    subclass = isinstance(node, ast.ClassDef) and "DataTable" in _base_names(node)
    if subclass and getattr(node, "name", "") != "PlainTable":
        return "subclasses DataTable, not PlainTable"
    return None


def test_no_table_in_tracker_is_a_bare_data_table() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            problem = _problem(node)
            if problem:
                line = getattr(node, "lineno", 0)
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} {problem}")
    assert not found, "\n".join(found)


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield PlainTable()


@settings(
    max_examples=examples(25), derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(words=st.lists(MARKUP, min_size=4, max_size=4))
async def test_every_way_into_a_plain_table_keeps_the_text_as_typed(words: list[str]) -> None:
    first, second, third, fourth = words
    async with _OneTable().run_test() as pilot:
        table = pilot.app.query_one(PlainTable)
        table.add_columns(first, (second, "b"))
        table.add_column(third, key="c")
        table.add_rows([[first, second, third]])
        table.add_row(fourth, first, second, key="r", label=third)
        table.update_cell("r", "b", fourth)
        table.update_cell_at(Coordinate(0, 2), first)
        cells = [*table.get_row_at(0), *table.get_row_at(1)]
        labels = [column.label for column in table.columns.values()]
        assert all(isinstance(cell, Text) for cell in cells + labels), cells + labels
        assert [cell.plain for cell in cells] == [first, second, first, fourth, fourth, second]
        assert [label.plain for label in labels] == [first, second, third]
        label = table.rows[RowKey("r")].label
        assert isinstance(label, Text) and label.plain == third
