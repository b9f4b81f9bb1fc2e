"""The campaign's story on paper: the campaign report (templates/campaign.*.j2) or one scenario's
after-action report (after_action.*.j2), as a self-contained HTML page or as Markdown.

Like the printed record sheet: inline CSS and SVG only, no script and nothing fetched, A4 or
Letter, black and grey, and no block that fits on one page split across two.
"""

from __future__ import annotations

from datetime import date
from itertools import groupby
from pathlib import Path

from tracker.publish import plots
from tracker.publish.pages import check_output, page
from tracker.rules import smr
from tracker.services import campaign_story, printing, reports
from tracker.services.campaign_story import CampaignReport
from tracker.services.common import SessionFactory
from tracker.services.reports import AfterActionReport, StoryLine


def _by_turn(report: AfterActionReport) -> list[tuple[str, list[StoryLine]]]:
    def turn(line: StoryLine) -> str:
        return f"Turn {line.turn}" if line.turn is not None else "At the close"

    return [(label, list(lines)) for label, lines in groupby(report.journal, key=turn)]


def render(
    report: CampaignReport | AfterActionReport, *, fmt: str = "html", paper: str = "a4"
) -> str:
    """The campaign report, then each closed scenario's after-action report, each from the top
    of a page; or one scenario's after-action report as a page of its own."""
    template = "campaign" if isinstance(report, CampaignReport) else "after_action"
    return page(
        template, fmt=fmt, paper=paper, report=report, today=date.today().isoformat(),
        by_turn=_by_turn, plot_svg=plots.plot_svg, lines=plots.LINES, axis=plots.AXIS,
        third=plots.THIRD, third_text=smr.third_text,
    )  # fmt: skip


def write_report(
    factory: SessionFactory, *, campaign_id: int, path: str | Path, scenario_id: int | None = None,
    side_id: int | None = None, passphrase: str | None = None, fmt: str = "html",
    paper: str = "a4", replace: bool = False, new_only: bool = False,
) -> Path:  # fmt: skip
    """Write the campaign report (or one scenario's after-action report), for a side or for
    everyone (docs/RULES.md §Secrets), to a file whole or not at all (services.printing
    .write_file says where it may go); returns the path written."""
    check_output(fmt, paper, path)

    def content() -> str:
        report = (
            campaign_story.campaign_report(factory, campaign_id=campaign_id, side_id=side_id,
                                           passphrase=passphrase)
            if scenario_id is None
            else reports.after_action_report(factory, scenario_id=scenario_id, side_id=side_id,
                                             passphrase=passphrase)
        )  # fmt: skip
        return render(report, fmt=fmt, paper=paper)

    # A side's report shows its own secrets: the player's alone (RULES.md §Secrets).
    return printing.write_file(factory, path=path, content=content, replace=replace,
                               new_only=new_only, private=side_id is not None)  # fmt: skip
