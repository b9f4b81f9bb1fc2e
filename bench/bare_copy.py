"""Figure 13's baseline: a bare Textual copy of a tracker screen as it is shown.

The copy has the same widget tree (each widget as the Textual class it is built on, with the
same id and classes), the same rows in its tables, the same texts, the same styles (the
tracker's style files, whose rules name the screen by its class name, which the copy takes)
and the same keys in its footer; and nothing of the tracker's own: no reads, no services, no
handlers. Opening it is the floor a screen of that shape costs in Textual; the tracker's own
opening of the screen, against it, is what the tracker adds.

    blueprint = copy_of(app.screen)     # while the tracker's screen is shown
    app.push_screen(blueprint.build())  # any number of times
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

from textual import containers
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Footer,
    Header,
    Input,
    OptionList,
    Select,
    Static,
    Tree,
)
from textual.widgets._footer import FooterKey
from textual.widgets.tree import TreeNode


def textual_class(widget: Widget) -> type[Widget]:
    """The Textual class a widget is built on: itself when it is Textual's own."""
    for kind in type(widget).__mro__:
        if kind.__module__.startswith("textual.") and issubclass(kind, Widget):
            return kind
    return Widget


@dataclass
class Part:
    """One widget of the copy: how to make it (with its children made), what to put in it
    once it is mounted, and its children."""

    make: Callable[[list[Widget]], Widget]
    fill: Callable[[Widget], None] | None = None
    children: list[Part] = field(default_factory=list)
    look: dict[str, Any] = field(default_factory=dict)  # border titles, compact

    def build(self) -> Widget:
        widget = self.make([child.build() for child in self.children])
        for name, value in self.look.items():
            setattr(widget, name, value)
        widget._bare_fill = self.fill  # type: ignore[attr-defined]
        return widget


def _names(widget: Widget) -> dict[str, Any]:
    return {"id": widget.id, "classes": " ".join(widget.classes) or None}


def _table(widget: DataTable[Any]) -> Part:
    columns = [(column.label, None if column.auto_width else column.width)
               for column in widget.ordered_columns]  # fmt: skip
    rows = [list(widget.get_row_at(index)) for index in range(widget.row_count)]
    cursor, zebra, header = widget.cursor_type, widget.zebra_stripes, widget.show_header
    fixed = widget.fixed_columns

    def fill(table: Widget) -> None:
        assert isinstance(table, DataTable)
        for label, width in columns:
            table.add_column(label, width=width)
        table.add_rows(rows)

    return Part(lambda _: DataTable(cursor_type=cursor, zebra_stripes=zebra, show_header=header,
                                    fixed_columns=fixed, **_names(widget)), fill)  # fmt: skip


def _tree(widget: Tree[Any]) -> Part:
    def shape(node: TreeNode[Any]) -> tuple[Any, bool, list[Any]]:
        return node.label, node.is_expanded, [shape(child) for child in node.children]

    label, expanded, children = shape(widget.root)

    def fill(tree: Widget) -> None:
        assert isinstance(tree, Tree)

        def add(node: TreeNode[Any], kids: list[Any]) -> None:
            for kid_label, kid_expanded, grandchildren in kids:
                added = node.add(kid_label, expand=kid_expanded, allow_expand=bool(grandchildren))
                add(added, grandchildren)

        add(tree.root, children)
        if expanded:
            tree.root.expand()

    show_root = widget.show_root

    def fill_shown(tree: Widget) -> None:
        assert isinstance(tree, Tree)
        tree.show_root = show_root
        fill(tree)

    return Part(lambda _: Tree(label, **_names(widget)), fill_shown)


def part_of(widget: Widget) -> Part | None:
    """The copy of one shown widget and of what it holds, with its border titles and
    compactness; None for what Textual adds by itself to every screen (toasts, the tooltip),
    which the copy's screen gets alike."""
    part = _part_of(widget)
    if part is not None:
        looks = ("border_title", "border_subtitle", "compact", "display")
        part.look = {name: getattr(widget, name) for name in looks if hasattr(widget, name)}
    return part


def _part_of(widget: Widget) -> Part | None:
    kind = textual_class(widget)
    names = _names(widget)
    if kind.__module__ in ("textual.widgets._toast", "textual.widgets._tooltip"):
        return None
    if isinstance(widget, DataTable):
        return _table(widget)
    if isinstance(widget, Tree):
        return _tree(widget)
    if isinstance(widget, Header):
        return Part(lambda _: Header(**names))
    if isinstance(widget, Footer):
        compact = widget.compact
        return Part(lambda _: Footer(compact=compact, **names))
    if isinstance(widget, Input):
        value, placeholder, password = widget.value, widget.placeholder, widget.password
        return Part(lambda _: Input(value, placeholder, password=password, **names))
    if isinstance(widget, OptionList):
        prompts = [widget.get_option_at_index(i).prompt for i in range(widget.option_count)]
        return Part(lambda _: OptionList(*prompts, **names))
    if isinstance(widget, Select):
        blank = widget._allow_blank
        choices = [(prompt, value) for prompt, value in widget._options if value != Select.NULL]
        chosen, prompt = widget.value, widget.prompt
        return Part(lambda _: Select(choices, value=chosen, allow_blank=blank, prompt=prompt,
                                     **names))  # fmt: skip
    if isinstance(widget, Checkbox):
        ticked = widget.value
        box_label = widget.label
        return Part(lambda _: Checkbox(box_label, ticked, **names))
    if isinstance(widget, Button):
        button_label = widget.label
        return Part(lambda _: Button(button_label, **names))
    if isinstance(widget, Static):
        content, static = widget.content, cast(type[Static], kind)
        return Part(lambda _: static(content, markup=False, **names))
    if kind is Widget or kind.__module__ == containers.__name__:
        children = [copy for child in widget.children if (copy := part_of(child))]
        return Part(lambda made: kind(*made, **names), children=children)
    return Part(lambda _: kind(**names))


@dataclass
class Blueprint:
    """A shown screen's copy, ready to be built any number of times."""

    name: str
    classes: frozenset[str]
    bindings: list[Any]
    parts: list[Part]
    titles: tuple[str, str]  # the screen's title and sub-title
    focused: str | None  # the id of the widget that has the focus

    def build(self) -> Screen[None]:
        """A new screen of the copy (its class made once, as the tracker's screens are)."""
        screen: Screen[None] = self.kind()
        screen.add_class(*self.classes)
        return screen

    @cached_property
    def kind(self) -> type[Screen[None]]:
        parts, titles, focused = self.parts, self.titles, self.focused

        def compose(screen: Screen[None]) -> ComposeResult:
            for part in parts:
                yield part.build()

        def on_mount(screen: Screen[None]) -> None:
            screen.title, screen.sub_title = titles
            for widget in screen.walk_children(Widget):
                fill = getattr(widget, "_bare_fill", None)
                if fill is not None:
                    fill(widget)
                if focused is not None and widget.id == focused:
                    widget.focus()

        # The tracker's name: its style rules name the screen by its class.
        return type(self.name, (Screen,), {"BINDINGS": self.bindings, "compose": compose,
                                           "on_mount": on_mount})  # fmt: skip


def copy_of(screen: Screen[Any]) -> Blueprint:
    """The blueprint of the screen as it is shown now."""
    # The screen's keys that its footer shows (from its class and its bases), and those it
    # never shows: what the footer of the copy shows is what the tracker's showed.
    shown = {key.key for key in screen.query(FooterKey)}
    declared = [binding for kind in reversed(type(screen).__mro__)
                for binding in kind.__dict__.get("BINDINGS", [])]  # fmt: skip
    bindings = [binding for binding in Binding.make_bindings(declared)
                if not binding.show or binding.key in shown]  # fmt: skip
    return Blueprint(
        name=type(screen).__name__,
        classes=frozenset(screen.classes),
        bindings=bindings,
        parts=[copy for child in screen.children if (copy := part_of(child))],
        titles=(str(screen.title or ""), str(screen.sub_title or "")),
        focused=screen.focused.id if screen.focused is not None else None,
    )
