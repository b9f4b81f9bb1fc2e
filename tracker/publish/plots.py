"""The campaign report's plots, drawn by pygal (a small, pure-Python SVG charting library) as the
history plot (h) draws them: Structure and Flotation at each scenario's start and end, with their
1/3 lines (services.campaign_story counts the figures), each line as LINES says.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from markupsafe import Markup

from tracker.services.campaign_story import Series

AXIS = "Ns, Ne: start and end of scenario N"
THIRD = "1/3: a third of full Structure or Flotation; at or below it, a morale test (SMR2 §2)."
# Each line of a plot: its name, colour, dashes and width; the plots and their key draw from it.
LINES = (
    ("Structure", "#000", "", 1.6),
    ("Flotation", "#777", "6, 3", 1.6),
    ("1/3 Structure", "#000", "2, 3", 1.3),
    ("1/3 Flotation", "#777", "2, 3", 1.3),
)
GRID = "#e6e6e6"  # solid and faint: never read as a track


def plot_svg(series: Series, *, width: int = 340, height: int = 170) -> Markup:
    """The plot as inline SVG, its lines as LINES says (the key names them), the grid solid and
    faint, the axis saying what its codes mean. Its script (tooltips, for a browser) is taken
    out: the page holds none. Markup: no player's text is drawn in it (the names are LINES')."""
    import pygal
    from pygal.style import Style

    style = Style(background="white", plot_background="white", foreground="#000",
                  foreground_strong="#000", foreground_subtle=GRID,
                  colors=tuple(colour for _, colour, _, _ in LINES), guide_stroke_color=GRID,
                  major_guide_stroke_color=GRID, guide_stroke_dasharray="none",
                  major_guide_stroke_dasharray="none",
                  font_family="DejaVu Sans, Arial, sans-serif", title_font_size=10,
                  label_font_size=10, major_label_font_size=10)  # fmt: skip
    s_third, f_third = series.thirds
    top = max([*series.structure, *series.flotation, *s_third, *f_third, 1]) + 1
    chart = pygal.Line(js=[], disable_xml_declaration=True, width=width, height=height,
                       style=style, range=(0, top), show_legend=False, dots_size=2.5,
                       x_title=AXIS, margin=4, include_x_axis=True, max_scale=6,
                       show_x_guides=False)  # fmt: skip
    chart.x_labels = list(series.labels)
    values = (series.structure, series.flotation, s_third, f_third)
    for (name, _, dashes, stroke), points in zip(LINES, values, strict=True):
        chart.add(name, list(points), show_dots=not name.startswith("1/3"),
                  stroke_style={"width": stroke, "dasharray": dashes or "none"})  # fmt: skip
    tree = chart.render_tree()
    for parent in list(tree.iter()):
        for child in list(parent):
            if str(child.tag).rsplit("}", 1)[-1] == "script":
                parent.remove(child)
    svg = ElementTree.tostring(tree, encoding="unicode")
    return Markup(re.sub(r"<!--.*?-->", "", svg, flags=re.S))
