"""The press every printed page goes through: its template rendered with the escape of its
language, on its paper (a page then reaches its file through services.printing.write_file).

Escaping is the environment's, never the template's: every value a template prints passes
`finalize`, which escapes it unless it is already markup (a macro's output, a drawn plot). HTML
escapes as `html.escape` does; Markdown puts a backslash before what would change what a name
shows. So a ship called `<b>Exeter</b> & [x]` prints as typed in either.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.services.errors import check
from tracker.services.printing import FORMATS

if TYPE_CHECKING:
    import jinja2

# paper key -> the CSS @page size and the printable width (the page less two 12 mm margins).
PAPERS = {"a4": ("A4", "186mm"), "letter": ("Letter", "191mm")}

# Inline Markdown that would change what a name shows: escaped with a backslash. Line-start
# markers (#, -, 1.) never begin a line here: every typed text follows a label or a table pipe.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~])")


def markdown_escape(text: str) -> str:
    """Typed text as Markdown shows it: specials escaped, each line trimmed, lines as <br>."""
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    return "<br>".join(line.strip() for line in escaped.splitlines()) if escaped else ""


@cache
def _environment(escape: Callable[[str], str]) -> jinja2.Environment:
    # Imported here: the app starts without the template engine until something is printed.
    import jinja2
    from markupsafe import Markup

    def finalize(value: Any) -> Any:
        return value if hasattr(value, "__html__") else Markup(escape(str(value)))

    return jinja2.Environment(
        loader=jinja2.PackageLoader("tracker.publish", "templates"),
        autoescape=True, finalize=finalize, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )  # fmt: skip


def render(template: str, **context: Any) -> str:
    """The template (`*.html.j2` or `*.md.j2`) filled in, each value escaped for its language."""
    escape = markdown_escape if template.endswith(".md.j2") else html.escape
    return _environment(escape).get_template(template).render(**context)


def check_output(fmt: str, paper: str, path: str | Path | None = None) -> None:
    """Refuse a format, paper or file name no printed page can have, before anything is read."""
    errors: dict[str, str] = {}
    if fmt not in FORMATS:
        errors["fmt"] = f"must be html or markdown, got {fmt!r}"
    if paper not in PAPERS:
        errors["paper"] = f"must be a4 or letter, got {paper!r}"
    if path is not None and not str(path).strip():
        errors["path"] = "must not be blank"
    check(errors)


def page(template: str, *, fmt: str, paper: str, **context: Any) -> str:
    """A page in the format asked for: `<template>.html.j2` on the paper, or `<template>.md.j2`
    (its blank lines at the end trimmed to one newline)."""
    check_output(fmt, paper)
    if fmt == "html":
        size, width = PAPERS[paper]
        return render(f"{template}.html.j2", size=size, width=width, **context)
    return render(f"{template}.md.j2", **context).rstrip("\n") + "\n"
