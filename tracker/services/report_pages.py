"""The campaign's story on paper: the reports as a self-contained HTML page, or as Markdown.

Like the printed record sheet (services.printing): inline CSS and SVG only, no script and nothing
fetched, A4 or Letter, black and grey, and no block that fits on one page split across two. The
plots (services.story_plots) are drawn by pygal (a small, pure-Python SVG charting library) as
the history plot (h) draws them: Structure and Flotation at each scenario's start and end, with
their 1/3 lines, each saying what it counts. Player-typed text is escaped
(`html.escape`, or a backslash for Markdown), so a ship called `<b>Exeter</b>` prints as typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from tracker import safe_output
from tracker.db import SessionFactory
from tracker.rules.smr import third_text
from tracker.services import reports
from tracker.services.errors import InvalidInput
from tracker.services.printing import (
    PAGE_CSS,
    PAPERS,
    _boxes_svg,
    _e,
    _md,
    _md_table,
    campaign_file,
    check_output,
)
from tracker.services.reports import (
    AfterActionReport,
    CampaignReport,
    ServiceRecord,
    ShipInAction,
    SideTally,
)
from tracker.services.story_plots import AXIS, THIRD, Series, key_html, plot_svg

CSS = (
    PAGE_CSS
    + """header { border-bottom: 2px solid #000; padding-bottom: 1mm; margin-bottom: 2.5mm; }
h1 { font-size: 15pt; margin: 0; }
h2 { font-size: 10pt; text-transform: uppercase; letter-spacing: .06em; margin: 3mm 0 1mm;
  border-bottom: 1px solid #000; break-after: avoid; page-break-after: avoid; }
h3 { font-size: 9.5pt; margin: 0 0 .8mm; }
.meta { margin: .5mm 0 0; }
.keep { break-inside: avoid; page-break-inside: avoid; margin-bottom: 2.5mm; }
.report { break-before: page; page-break-before: always; }
table { border-collapse: collapse; width: 100%%; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
th { text-align: left; font-weight: normal; color: #444; border-bottom: 1px solid #000;
  padding: .3mm 2mm .3mm 0; vertical-align: bottom; }
td { padding: .4mm 2mm .4mm 0; vertical-align: top; border-bottom: 1px dotted #999; }
td.n, th.n { text-align: right; white-space: nowrap; }
.lost { font-weight: bold; }
.plots { display: flex; flex-wrap: wrap; gap: 2mm 4mm; }
.plot { break-inside: avoid; page-break-inside: avoid; width: calc(50%% - 2mm); }
.plot.wide { width: 100%%; }
.plot svg { width: 100%%; height: auto; display: block; }
.track svg { display: inline-block; vertical-align: middle; overflow: visible; }
.notes-text { white-space: pre-wrap; margin: 0; }
.legend { font-size: 7pt; color: #333; margin: 1.5mm 0 0; }
.plot-title { font-weight: bold; text-align: center; margin: 0; }
.plot .legend { margin: 0; }
.key .sample { white-space: nowrap; margin-right: 2mm; }
.plot .key svg { width: 16px; height: 6px; display: inline-block; vertical-align: middle; }
"""
)

LEGEND = (
    "Tracks: one box per point; black boxes were left at the end, grey crossed ones were lost in "
    "this scenario, white ones were already missing at its start. The thick line marks 1/3. "
    "Criticals: every one in force in the scenario, those carried in from an earlier one too."
)


def _page(title: str, paper: str, body: Sequence[str]) -> str:
    size, width = PAPERS[paper]
    return "".join((
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS % {'size': size, 'width': width}}</style>",
        "</head><body>", *body, "</body></html>\n",
    ))  # fmt: skip


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: frozenset[int]) -> str:
    """A table of cells already escaped (or drawn), with its heading on every page it spans."""
    head = "".join(f'<th class="n">{_e(label)}</th>' if i in numeric else f"<th>{_e(label)}</th>"
                   for i, label in enumerate(header))  # fmt: skip
    body = "".join(
        "<tr>" + "".join(f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
                         for i, cell in enumerate(row)) + "</tr>"
        for row in rows
    )  # fmt: skip
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _track(name: str, start: int, end: int, maximum: int) -> str:
    """Start → end of a track as boxes: left at the end, lost in the scenario, missing before."""
    end = min(end, maximum)
    start = max(min(start, maximum), end)
    states = ["full"] * end + ["lost"] * (start - end) + ["empty"] * (maximum - start)
    label = f"{name} {start} to {end} of {maximum}, 1/3 at {maximum // 3}"
    svg = _boxes_svg(states, label=label, mark_after=maximum // 3)
    return f'<span class="track">{svg}</span><br>{start} → <b>{end}</b> / {maximum}'


def _ship_row(ship: ShipInAction) -> list[str]:
    fate = "SUNK" if ship.sunk else ship.fate
    mines = f"{ship.mines_struck} struck, fuel -{ship.fuel_lost}" if ship.mines_struck else ""
    return [
        f"<b>{_e(ship.name)}</b> {_e(ship.type_abbrev)}<br>{_e(ship.side)} · {_e(ship.squadron)}",
        _track("Structure", ship.start[0], ship.end[0], ship.structure_max),
        _track("Flotation", ship.start[1], ship.end[1], ship.flotation_max),
        "<br>".join(_e(c.text) for c in ship.criticals) or "-",
        str(ship.fire_markers), _e(mines) or "-",
        f'<span class="lost">{_e(fate)}</span>' if fate else "",
    ]  # fmt: skip


SIDE_PLOT = "all its ships"
CRITICALS = "Criticals in force"
SHIP_COLUMNS = ["Ship", "Structure", "Flotation", CRITICALS, "Fire", "Mines", "Fate"]


def _after_action_html(report: AfterActionReport, *, heading: str = "h1") -> list[str]:
    sides = "; ".join(f"{name}: correction factor {factor or '-'}" for name, factor in report.sides)
    lost = [s for s in report.ships if s.lost]
    parts = [
        f"<header><{heading}>After-action report: {report.position}. {_e(report.title)}"
        f"</{heading}>",
        f'<p class="meta">Campaign: {_e(report.campaign)} · Date: {_e(report.date or "-")} · '
        f"{report.turns} turn{'s' * (report.turns != 1)} · For: {_e(report.viewer)}</p>",
        f'<p class="meta">{_e(sides)}</p></header>',
        '<div class="keep"><h2>Outcome</h2>',
        f"<p>{_e(report.outcome or 'No outcome given.')}</p>",
        f'<p class="notes-text">{_e(report.notes)}</p>' if report.notes else "",
        "</div><h2>Ships taking part</h2>",
        _table(SHIP_COLUMNS, [_ship_row(ship) for ship in report.ships], frozenset({4})),
        f'<p class="legend">{_e(LEGEND)}</p>',
        '<div class="keep"><h2>Losses</h2><ul>',
        *(f"<li>{_e(s.name)} ({_e(s.side)}): {_e('sunk' if s.sunk else s.fate)}</li>"
          for s in lost),
        *(f"<li>Commander {_e(c.name or '(unnamed)')} of {_e(c.squadron)} ({_e(c.side)}) lost"
          f"{' with ' + _e(c.ship) if c.ship else ''}, turn {c.turn}</li>"
          for c in report.commanders_lost),
        *(f"<li>{_e(m.ship)} ({_e(m.side)}) struck a mine, turn {m.turn}: {_e(m.dice)}, "
          f"{_e(m.effects)}{f', fuel {m.fuel_lost} lost' if m.fuel_lost else ''}</li>"
          for m in report.mines),
        "" if lost or report.commanders_lost or report.mines else "<li>None.</li>",
        "</ul></div>",
        "<h2>Turn by turn</h2>",
    ]  # fmt: skip
    for turn, lines in _by_turn(report):
        rows = [[str(line.entry_id), _e(line.side), _e(line.ship), _e(line.summary),
                 _e(line.dice)] for line in lines]  # fmt: skip
        parts.append(f'<div class="keep"><h3>{_e(turn)}</h3>')
        parts.append(_table(["#", "Side", "Ship", "What happened", "Dice"], rows, frozenset({0})))
        parts.append("</div>")
    return parts


def _by_turn(report: AfterActionReport) -> list[tuple[str, list[reports.StoryLine]]]:
    """The journal in runs of one turn each, in order."""
    runs: list[tuple[str, list[reports.StoryLine]]] = []
    for line in report.journal:
        label = f"Turn {line.turn}" if line.turn is not None else "At the close"
        if not runs or runs[-1][0] != label:
            runs.append((label, []))
        runs[-1][1].append(line)
    return runs


# --- the campaign -------------------------------------------------------------------------------


def _ships(count: int) -> str:
    return f"{count} ship{'s' * (count != 1)}"


def _side_html(tally: SideTally) -> str:
    rows = [[f"{row.position}. {_e(row.scenario)}", _e(", ".join(row.ships_lost) or "-"),
             str(row.points_lost), f"S {row.carried[0]} F {row.carried[1]}",
             f"S {row.repaired[0]} F {row.repaired[1]}"] for row in tally.scenarios]  # fmt: skip
    s, f = tally.repaired
    rows.append(["<b>All</b>", f"<b>{_ships(tally.ships_lost)}</b>",
                 f"<b>{tally.points_lost}</b>", "", f"<b>S {s} F {f}</b>"])  # fmt: skip
    header = ["Scenario", "Ships lost", "Points lost", "Damage carried out", "Repaired after"]
    return (f'<div class="keep"><h3>{_e(tally.side)}</h3>'
            f"{_table(header, rows, frozenset({2}))}</div>")  # fmt: skip


def _plot_html(series: Series, title: str) -> str:
    """A plot under its title, over its key and what it counts."""
    note = f"<br>{_e(series.note)}" if series.note else ""
    return (f'<div class="plot"><p class="plot-title">{_e(title)}</p>{plot_svg(series)}'
            f'<p class="legend">{key_html()}{note}</p></div>')  # fmt: skip


def _record_html(record: ServiceRecord) -> str:
    rows = [
        [f"{line.position}. {_e(line.scenario)}", f"S {line.start[0]} F {line.start[1]}",
         f"S {line.end[0]} F {line.end[1]}" if line.end else "-", str(line.criticals),
         f'<span class="lost">{_e(line.fate)}</span>' if line.fate else "",
         f"S {line.repaired[0]} F {line.repaired[1]}" if any(line.repaired) else ""]
        for line in record.lines
    ]  # fmt: skip
    sunk = ' · <span class="lost">SUNK</span>' if record.sunk else ""
    head = (f"{_e(record.name)} <small>{_e(record.type_abbrev)} · {_e(record.side)} · "
            f"S {record.structure_max} F {record.flotation_max} · {record.points} points "
            f"(crew {record.crew_percent:+d}%)</small>{sunk}")  # fmt: skip
    table = (_table(["Scenario", "Start", "End", "Criticals taken", "Fate", "Repaired after"], rows,
                    frozenset({3})) if rows else "<p>Has not fought yet.</p>")  # fmt: skip
    return f'<div class="keep"><h3>{head}</h3>{table}</div>'


def campaign_html(report: CampaignReport, *, paper: str = "a4") -> str:
    """The campaign report, then each closed scenario's after-action report, each on new pages."""
    scenarios = [[str(s.position), _e(s.title), _e(s.date), _e(s.status.replace("_", " ")),
                  _e(s.outcome)] for s in report.scenarios]  # fmt: skip
    body = [
        f"<header><h1>{_e(report.campaign)}: the campaign's story</h1>",
        f'<p class="meta">For: {_e(report.viewer)} · Printed {date.today().isoformat()}</p>',
        f'<p class="notes-text">{_e(report.notes)}</p>' if report.notes else "",
        "</header>",
        '<div class="keep"><h2>Scenarios</h2>',
        _table(["#", "Scenario", "Date", "Status", "Outcome"], scenarios, frozenset({0})),
        "</div><h2>What each side paid</h2>",
        *(_side_html(tally) for tally in report.sides),
        "<h2>Structure and Flotation over the campaign</h2>",
        f'<p class="legend">{_e(AXIS)}. {_e(THIRD)}</p><div class="plots">',
        *(_plot_html(series, f"{series.name}, {SIDE_PLOT}") for series in report.side_series),
        *(_plot_html(series, series.name) for series in report.ship_series if series.labels),
        "</div><h2>Service records</h2>",
        *(_record_html(record) for record in report.records),
    ]  # fmt: skip
    for after_action in report.after_actions:
        body += ['<section class="report">', *_after_action_html(after_action, heading="h1"),
                 "</section>"]  # fmt: skip
    return _page(f"{report.campaign}: the campaign's story", paper, body)


def after_action_html(report: AfterActionReport, *, paper: str = "a4") -> str:
    """One scenario's after-action report as a page of its own."""
    title = f"{report.title}: after-action report"
    return _page(title, paper, [*_after_action_html(report), f'<p class="meta">Printed '
                                f"{date.today().isoformat()}</p>"])  # fmt: skip


# --- Markdown -----------------------------------------------------------------------------------


def _after_action_md(report: AfterActionReport, level: str = "#") -> list[str]:
    lines = [
        f"{level} After-action report: {report.position}. {_md(report.title)}", "",
        f"Campaign: {_md(report.campaign)} · Date: {_md(report.date or '-')} · {report.turns} "
        f"turn{'s' * (report.turns != 1)} · For: {_md(report.viewer)}", "",
        " · ".join(f"{_md(name)}: correction factor {_md(factor or '-')}"
                   for name, factor in report.sides), "",
        f"**Outcome:** {_md(report.outcome or 'No outcome given.')}", "",
    ]  # fmt: skip
    if report.notes:
        lines += [_md(report.notes), ""]
    lines += [f"{level}# Ships taking part", ""]
    lines += _md_table(
        ["Ship", "Side", "Squadron", "Structure", "Flotation", CRITICALS, "Fire", "Mines",
         "Fate"],
        ([s.name, s.side, s.squadron,
          f"{s.start[0]} → {s.end[0]} / {s.structure_max}",
          f"{s.start[1]} → {s.end[1]} / {s.flotation_max}",
          "; ".join(c.text for c in s.criticals) or "-",
          str(s.fire_markers), f"{s.mines_struck} struck, fuel -{s.fuel_lost}"
          if s.mines_struck else "-", "SUNK" if s.sunk else s.fate] for s in report.ships),
    )  # fmt: skip
    lines += [f"{level}# Losses", ""]
    losses = [f"- {_md(s.name)} ({_md(s.side)}): {_md('sunk' if s.sunk else s.fate)}"
              for s in report.ships if s.lost]  # fmt: skip
    losses += [f"- Commander {_md(c.name or '(unnamed)')} of {_md(c.squadron)} ({_md(c.side)}) "
               f"lost{' with ' + _md(c.ship) if c.ship else ''}, turn {c.turn}"
               for c in report.commanders_lost]  # fmt: skip
    losses += [f"- {_md(m.ship)} ({_md(m.side)}) struck a mine, turn {m.turn}: {_md(m.dice)}, "
               f"{_md(m.effects)}{f', fuel {m.fuel_lost} lost' if m.fuel_lost else ''}"
               for m in report.mines]  # fmt: skip
    lines += [*(losses or ["None."]), "", f"{level}# Turn by turn", ""]
    for turn, run in _by_turn(report):
        lines += [f"{level}## {turn}", ""]
        rows = ([str(x.entry_id), x.side, x.ship, x.summary, x.dice] for x in run)
        lines += _md_table(["#", "Side", "Ship", "What happened", "Dice"], rows)
    return lines


def campaign_markdown(report: CampaignReport) -> str:
    """The campaign report in Markdown; the plots' figures as tables."""
    lines = [f"# {_md(report.campaign)}: the campaign's story", "",
             f"For: {_md(report.viewer)} · Printed {date.today().isoformat()}", ""]  # fmt: skip
    if report.notes:
        lines += [_md(report.notes), ""]
    lines += ["## Scenarios", ""]
    lines += _md_table(["#", "Scenario", "Date", "Status", "Outcome"],
                       ([str(s.position), s.title, s.date, s.status.replace("_", " "), s.outcome]
                        for s in report.scenarios))  # fmt: skip
    lines += ["## What each side paid", ""]
    for tally in report.sides:
        lines += [f"### {_md(tally.side)}", ""]
        lines += _md_table(
            ["Scenario", "Ships lost", "Points lost", "Damage carried out", "Repaired after"],
            [*([f"{r.position}. {r.scenario}", ", ".join(r.ships_lost) or "-", str(r.points_lost),
                f"S {r.carried[0]} F {r.carried[1]}", f"S {r.repaired[0]} F {r.repaired[1]}"]
               for r in tally.scenarios),
             ["All", _ships(tally.ships_lost), str(tally.points_lost), "",
              f"S {tally.repaired[0]} F {tally.repaired[1]}"]],
        )  # fmt: skip
    lines += ["## Structure and Flotation over the campaign", "", f"{AXIS}. {THIRD}", ""]
    for series in (*report.side_series, *report.ship_series):
        if series.labels:
            side = f", {SIDE_PLOT}" if series in report.side_series else ""
            lines += [f"### {_md(series.name)}{side}", ""]
            lines += [_md(series.note), ""] if series.note else []
            lines += _md_table(["", *series.labels], _figures(series))
    lines += ["## Service records", ""]
    for record in report.records:
        sunk = " · **SUNK**" if record.sunk else ""
        lines += [f"### {_md(record.name)}", "",
                  f"{_md(record.type_abbrev)} · {_md(record.side)} · S {record.structure_max} "
                  f"F {record.flotation_max} · {record.points} points (crew "
                  f"{record.crew_percent:+d}%){sunk}", ""]  # fmt: skip
        lines += _md_table(
            ["Scenario", "Start", "End", "Criticals taken", "Fate", "Repaired after"],
            ([f"{x.position}. {x.scenario}", f"S {x.start[0]} F {x.start[1]}",
              f"S {x.end[0]} F {x.end[1]}" if x.end else "-", str(x.criticals), x.fate,
              f"S {x.repaired[0]} F {x.repaired[1]}" if any(x.repaired) else ""]
             for x in record.lines),
        )  # fmt: skip
    for after_action in report.after_actions:
        lines += _after_action_md(after_action, level="##")
    return "\n".join(lines).rstrip("\n") + "\n"


def _figures(series: Series) -> list[list[str]]:
    """A plot's figures as the rows of a table: each track, then its 1/3 line."""
    return [["Structure", *map(str, series.structure)],
            ["Flotation", *map(str, series.flotation)],
            ["1/3 Structure", *map(third_text, series.structure_full)],
            ["1/3 Flotation", *map(third_text, series.flotation_full)]]  # fmt: skip


def after_action_markdown(report: AfterActionReport) -> str:
    return "\n".join(_after_action_md(report)).rstrip("\n") + "\n"


# --- writing a file -----------------------------------------------------------------------------


def write_report(
    factory: SessionFactory,
    *,
    campaign_id: int,
    path: str | Path,
    scenario_id: int | None = None,
    side_id: int | None = None,
    passphrase: str | None = None,
    fmt: str = "html",
    paper: str = "a4",
    replace: bool = False,
    new_only: bool = False,
) -> Path:
    """Write the campaign report (or one scenario's after-action report) to a file, whole or not
    at all, through safe_output: never over the campaign file or a backup, over another file
    only when `replace` says the player confirmed; returns the path written."""
    check_output(fmt, paper, path)

    def content() -> str:
        if scenario_id is None:
            story = reports.campaign_report(factory, campaign_id=campaign_id, side_id=side_id,
                                            passphrase=passphrase)  # fmt: skip
            return campaign_html(story, paper=paper) if fmt == "html" else campaign_markdown(story)
        report = reports.after_action_report(factory, scenario_id=scenario_id, side_id=side_id,
                                             passphrase=passphrase)  # fmt: skip
        return (after_action_html(report, paper=paper) if fmt == "html"
                else after_action_markdown(report))  # fmt: skip

    try:
        # A side's report shows its own secrets: the player's alone (RULES.md §Secrets).
        return safe_output.write_text(path, content, campaign=campaign_file(factory),
                                      replace=replace, new_only=new_only,
                                      private=side_id is not None)  # fmt: skip
    except safe_output.OutputRefused as exc:
        raise InvalidInput({"path": str(exc)}) from exc
