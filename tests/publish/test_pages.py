"""The press of every printed page (tracker/publish/pages.py): a value a template prints is
escaped for the page's language by the environment itself, never left to the template, and no
template or page module marks a value as already escaped."""

from __future__ import annotations

import html
import re
from pathlib import Path

from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.publish import pages

PUBLISH = Path(pages.__file__).parent
# Typed text at its worst: markup, Markdown, quotes, entities, line breaks, C1 and bidi controls.
PIECES = [*"<>&\"'`*_[]|~\\#-. \n\tabz", "\x85", "\u202e", "&amp;", "é", "[b]x[/b]", "<script>"]
HOSTILE = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
CALLER = (
    "{% macro bold(x) %}<b>{{ x }}</b>{% endmacro %}"
    '<p title="{{ x }}">{{ x }}</p>{{ bold(x) }}{% set kept %}{{ x }}{% endset %}{{ kept }}'
)


@settings(max_examples=examples(200), derandomize=True, database=None)
@given(text=HOSTILE)
def test_html_prints_every_value_escaped_once(text: str) -> None:
    escaped = html.escape(text, quote=True)
    page = pages._environment(html.escape).from_string(CALLER).render(x=text)
    assert page == f'<p title="{escaped}">{escaped}</p><b>{escaped}</b>{escaped}'


@settings(max_examples=examples(200), derandomize=True, database=None)
@given(text=HOSTILE)
def test_markdown_prints_every_value_escaped_once(text: str) -> None:
    escaped = pages.markdown_escape(text)
    page = pages._environment(pages.markdown_escape).from_string(CALLER).render(x=text)
    assert page == f'<p title="{escaped}">{escaped}</p><b>{escaped}</b>{escaped}'
    # What Markdown would read as markup is never left bare, nor a line break.
    assert not re.search(r"(?<!\\)[`*_\[\]<>|&~]", escaped.replace("<br>", "")), escaped
    assert "\n" not in escaped


def test_no_template_or_page_module_marks_text_as_escaped() -> None:
    """Only the drawn plot (pygal's SVG, no player's text in it) is markup made in Python."""
    for template in (PUBLISH / "templates").iterdir():
        source = template.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe|autoescape|Markup", source), template.name
    for module in PUBLISH.glob("*.py"):
        made = re.findall(r"\bMarkup\(", module.read_text(encoding="utf-8"))
        assert len(made) == {"pages.py": 1, "plots.py": 1}.get(module.name, 0), module.name
