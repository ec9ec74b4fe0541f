"""Write the example corpus's one PDF: the July 2024 relay backlog incident report.

The text lives here, one string per printed line, so that a quote taken from one line of the PDF is
also a substring of what pypdf extracts from that page. Run from anywhere:

    .venv/bin/python scripts/build_example_pdf.py

The output is deterministic (fixed creation date), so re-running it only changes the file when the
text below changes.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from fpdf import FPDF

OUT = Path(__file__).resolve().parents[1] / "graphcite" / "examples" / "corpus" / "incidents" / "inc-2024-07-relay-backlog.pdf"

PAGES: list[list[str]] = [
    [
        "# Incident report INC-2024-07-18: webhook relay backlog",
        "Severity 2. Status: final. Owner: relay team. Report date: 2024-07-24.",
        "",
        "## Summary",
        "On 18 July 2024 the webhook relay fell behind for 47 minutes.",
        "Merchants received delayed events; no events were lost.",
        "The backlog peaked at 38,400 undelivered events at 10:22 UTC.",
        "p99 delivery latency peaked at 4.2 s, against the objective limit of 2 s.",
        "Label creation, tracking and the merchant dashboard were not affected.",
        "",
        "## Timeline (UTC)",
        "09:51 A large merchant endpoint began taking about 25 s to answer each request.",
        "09:58 Relay workers were saturated by open connections to that endpoint.",
        "10:05 Status page updated: deliveries delayed for some merchants.",
        "10:22 Backlog peaked; the relay on-call was paged by the backlog alert.",
        "10:31 Connections to the slow endpoint were capped by hand at 50.",
        "10:38 The relay was scaled out from 12 to 30 workers.",
        "10:45 Backlog shrinking; new events delivered within seconds.",
        "11:05 Backlog cleared; status page marked resolved.",
        "",
        "## Detection",
        "The backlog alert fired at 10:22, about half an hour after the slow endpoint appeared.",
        "The latency alert did not fire earlier because it is evaluated over 15 minutes.",
    ],
    [
        "## Impact",
        "Webhook events for all merchants were delayed by up to 40 minutes.",
        "Delivery attempts for the slow merchant followed DR-017: five attempts, then parking.",
        "1,912 events for that merchant were parked and later replayed within the 72-hour window.",
        "No merchant reported a missing event after the replay.",
        "",
        "## Causes",
        "The relay had no limit on open connections per merchant endpoint.",
        "A single slow endpoint could therefore hold most relay workers at once.",
        "A summer sale had started that morning; the relay ran 12 workers, not the 20 the runbook asks for.",
        "",
        "## What went well",
        "The status page was updated within 14 minutes of the first delayed event.",
        "Scaling out worked as documented and took about four minutes.",
        "",
        "## Actions",
        "1. Add a per-endpoint connection limit of 50 (done 2024-07-25).",
        "2. Evaluate the latency alert over 5 minutes instead of 15 (done 2024-07-29).",
        "3. Adaptive backoff (PROP-031) was discussed; it is not part of this fix.",
        "",
        "Investigation time: responders spent about three hours on the day and two more",
        "hours on the review. Reviewed by Zoe Lindqvist and Ravi Castellanos.",
    ],
]


def build(out: Path = OUT) -> Path:
    """Render PAGES into a two-page PDF at ``out`` and return the path."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(dt.datetime(2024, 7, 24, 9, 0, tzinfo=dt.UTC))
    pdf.set_title("INC-2024-07-18: webhook relay backlog")
    pdf.set_author("Larkspur relay team")
    pdf.set_auto_page_break(auto=False)
    for lines in PAGES:
        pdf.add_page()
        for line in lines:
            if line.startswith("# "):
                pdf.set_font("Helvetica", "B", 14)
                pdf.cell(0, 9, line[2:], new_x="LMARGIN", new_y="NEXT")
            elif line.startswith("## "):
                pdf.set_font("Helvetica", "B", 11)
                pdf.cell(0, 8, line[3:], new_x="LMARGIN", new_y="NEXT")
            else:
                pdf.set_font("Helvetica", "", 10)
                pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    out.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(out))
    return out


if __name__ == "__main__":
    sys.stdout.write(f"{build()}\n")
