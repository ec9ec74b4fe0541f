"""The support chain of one claim as an SVG picture, drawn on the server from :func:`graphcite.graph.chain`.

Columns, left to right: the claim, its citations, the evidence units they point to, the revisions
those units belong to, the sources, and the sources' lineage up to the primary authorities.
Contradicting evidence hangs off the claim; a superseding source hangs off the source it replaced.

Every edge carries its meaning as words on the picture (``supports``, ``contradicted by``,
``superseded by …``, ``derived from``) and in its ``<title>``; contradicting and superseded edges are
also dashed and marked with the relation's symbol / ⚠, so nothing is told by colour alone. All text comes from documents and
is escaped; characters XML cannot hold become U+FFFD and bidirectional controls are shown as
``[U+202E]`` instead of reordering the label. The picture uses presentation attributes only (no
``style``, no script, no external reference), so it renders under the review pages' strict CSP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from graphcite.models import RELATION_DISPLAY, STATUS_DISPLAY, UNVERIFIED_DISPLAY, Relation

__all__ = ["EDGE_STYLES", "chain_svg", "clean_text"]

NODE_W, NODE_H, COL_GAP, ROW_GAP, MARGIN = 230, 62, 180, 30, 20
LABEL_CHARS = 25
LINE_CHARS = 34
MAX_LINEAGE_DEPTH = 8
MAX_NODES = 400

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

#: edge kind -> (stroke colour, dash pattern or "", mark shown before the label)
EDGE_STYLES: dict[str, tuple[str, str, str]] = {
    "cites": ("#374151", "", ""),
    "supports": ("#166534", "", RELATION_DISPLAY[Relation.SUPPORTS][0] + " "),
    "contradicts": ("#991b1b", "6 4", RELATION_DISPLAY[Relation.CONTRADICTS][0] + " "),
    "contradicted_by": ("#991b1b", "6 4", RELATION_DISPLAY[Relation.CONTRADICTS][0] + " "),
    "superseded_by": ("#92400e", "2 4", "⚠ "),
    "contextualizes": ("#374151", "", RELATION_DISPLAY[Relation.CONTEXTUALIZES][0] + " "),
    "mentions": ("#374151", "", RELATION_DISPLAY[Relation.MENTIONS][0] + " "),
    "insufficient": ("#6b21a8", "", RELATION_DISPLAY[Relation.INSUFFICIENT][0] + " "),
    "in": ("#6b7280", "", ""),
    "of": ("#6b7280", "", ""),
    "lineage": ("#1e3a8a", "", ""),
}
NODE_FILL = {"claim": "#f3f4f6", "citation": "#ffffff", "unit": "#f9fafb", "revision": "#ffffff",
             "source": "#eff6ff", "against": "#fef2f2"}


def clean_text(value: Any) -> str:
    """Text safe to put in XML: invalid characters replaced, bidi controls made visible."""
    text = "" if value is None else str(value)
    text = _XML_INVALID.sub("\ufffd", text)
    return _BIDI.sub(lambda m: f"[U+{ord(m.group(0)):04X}]", text)


def _lines(text: str, count: int = 3, width: int = LINE_CHARS) -> list[str]:
    words = clean_text(text).split()
    lines: list[str] = []
    current = ""
    for word in words:
        if len(word) > width:
            word = word[: width - 1] + "…"
        candidate = f"{current} {word}".strip()
        if len(candidate) <= width:
            current = candidate
            continue
        lines.append(current)
        current = word
        if len(lines) == count:
            break
    if len(lines) < count and current:
        lines.append(current)
    if len(lines) == count and (len(" ".join(lines)) < len(" ".join(words))):
        last = lines[-1]
        lines[-1] = (last[: width - 1] if len(last) >= width else last) + "…"
    return lines or [""]


@dataclass(slots=True)
class _Node:
    key: str
    kind: str
    column: int
    title: str
    lines: list[str]
    row: int = 0


@dataclass(slots=True)
class _Picture:
    nodes: dict[str, _Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)  # (from, to, label, style kind)
    next_row: dict[int, int] = field(default_factory=dict)

    def node(self, key: str, kind: str, column: int, title: str, text: str, *, near: str | None = None,
             min_row: int = 0) -> str:
        if key in self.nodes or len(self.nodes) >= MAX_NODES:
            return key
        row = max(self.next_row.get(column, 0), min_row)
        if near in self.nodes:
            row = max(row, self.nodes[near].row)
        self.next_row[column] = row + 1
        width = LINE_CHARS - 4 if kind == "claim" else LINE_CHARS  # bold text is wider
        self.nodes[key] = _Node(key, kind, column, clean_text(title), _lines(text, width=width), row)
        return key

    def edge(self, source: str, target: str, label: str, style: str) -> None:
        """Add an edge; a second edge between the same two nodes joins the first (one line, both labels)."""
        if source not in self.nodes or target not in self.nodes:
            return
        for i, (a, b, known, kind) in enumerate(self.edges):
            if (a, b) == (source, target):
                if clean_text(label) not in known.split(" · "):
                    self.edges[i] = (a, b, f"{known} · {clean_text(label)}", kind)
                return
        self.edges.append((source, target, clean_text(label), style))


def _source_text(source: dict[str, Any]) -> tuple[str, str]:
    flags = []
    if source.get("primary"):
        flags.append("primary authority")
    if source.get("missing"):
        flags.append("not ingested")
    if source.get("restricted"):
        flags.append("restricted")
    if source.get("status") and source["status"] != "current":
        flags.append(str(source["status"]))
    kind = f" ({source['kind']})" if source.get("kind") else ""
    text = f"source {source['key']}{kind}" + (f" · {', '.join(flags)}" if flags else "")
    title = text + (f" — {source['title']}" if source.get("title") else "")
    return text, title


def _add_source(pic: _Picture, source: dict[str, Any], column: int, near: str, depth: int = 0) -> str:
    text, title = _source_text(source)
    key = pic.node(f"source:{source['key']}", "source", column, title, text, near=near)
    for newer in source.get("superseded_by", []):
        label = f"source {newer['key']}" + (f", effective {newer['effective']}" if newer.get("effective") else "")
        other = pic.node(f"source:{newer['key']}", "source", column + 1, label, label, near=key)
        pic.edge(key, other, newer.get("note") or f"superseded by {newer['key']}", "superseded_by")
    if depth >= MAX_LINEAGE_DEPTH:
        return key
    for link in source.get("lineage", []):
        parent = link["source"]
        relation = str(link["relation"]).replace("_", " ")
        if parent.get("cycle"):
            other = pic.node(f"source:{parent['key']}", "source", column + 1, f"source {parent['key']}",
                             f"source {parent['key']}", near=key)
            pic.edge(key, other, f"{relation} (lineage cycle)", "lineage")
            continue
        other = _add_source(pic, parent, column + 1, key, depth + 1)
        pic.edge(key, other, relation, "lineage")
    return key


def _add_unit(pic: _Picture, unit: dict[str, Any], near: str, kind: str = "unit", min_row: int = 0,
              cited: str | None = None) -> str:
    """The unit's node (the cited span first, when a citation gives one), its revision and its source."""
    heading = unit.get("heading_path") or ""
    if isinstance(heading, list):
        heading = " > ".join(heading)
    snippet = unit.get("text") or ""
    where = f"unit {unit['unit_id']}" + (f" · {heading}" if heading else "")
    status = f" · section {unit['status']}" if unit.get("status") and unit["status"] != "current" else ""
    shown = f"“{cited}” · {where}{status}" if cited else f"{where}{status}: {snippet}"
    title = f"{where}{status}: cites “{cited}” in: {snippet}" if cited else f"{where}{status}: {snippet}"
    key = pic.node(f"unit:{unit['unit_id']}", kind, 2, title, shown, near=near,
                   min_row=min_row)
    revision = unit.get("revision")
    if revision:
        state = "latest" if revision.get("current") else f"not the latest ({revision.get('current_revision')})"
        text = f"revision {revision.get('seq')} {revision.get('revision_id')} · {revision.get('status')} · {state}"
        rev = pic.node(f"revision:{revision['revision_id']}", "revision", 3, text, text, near=key)
        pic.edge(key, rev, "in revision", "in")
        if revision.get("source"):
            src = _add_source(pic, revision["source"], 4, rev)
            pic.edge(rev, src, "of source", "of")
    return key


def _layout(tree: dict[str, Any]) -> _Picture:
    pic = _Picture()
    symbol, word, _ = STATUS_DISPLAY.get(tree.get("status", ""), UNVERIFIED_DISPLAY)
    claim_text = f"{symbol} {word}: {tree.get('text') or ''}"
    claim = pic.node("claim", "claim", 0, f"claim {tree.get('claim_id')} — {claim_text}", claim_text)
    for cit in tree.get("citations", []):
        n = cit["index"] + 1
        relation = cit.get("relation") or "unchecked"
        state = "valid" if cit.get("valid") else ("invalid citation" if cit.get("valid") is False else "not checked")
        where = "restricted source (withheld)" if cit.get("restricted") else (cit.get("source") or "unknown source")
        text = f"[{n}] {relation} · {state} · {where}"
        node = pic.node(f"citation:{n}", "citation", 1, text, text, near=claim)
        pic.edge(claim, node, f"cites [{n}]", "cites")
        label = relation + (" (invalid)" if cit.get("valid") is False else "")
        if cit.get("superseded"):
            label += " · superseded evidence"
        style = relation if relation in EDGE_STYLES else "cites"
        if cit.get("unit"):
            target = _add_unit(pic, cit["unit"], node, cited=cit.get("quote"))
            pic.edge(node, target, label, style)
        elif cit.get("revision") and isinstance(cit.get("revision"), dict):
            rev = cit["revision"]
            text = f"revision {rev.get('seq')} {rev.get('revision_id')}"
            target = pic.node(f"revision:{rev.get('revision_id')}", "revision", 3, text, text, near=node)
            pic.edge(node, target, label, style)
            if rev.get("source"):
                pic.edge(target, _add_source(pic, rev["source"], 4, target), "of source", "of")
        elif isinstance(cit.get("source"), dict):
            pic.edge(node, _add_source(pic, cit["source"], 4, node), label, style)
    below = max((pic.next_row.get(column, 0) for column in (1, 2)), default=0)  # keep row clear in column 1
    for item in tree.get("contradicting_evidence", []):
        label = "contradicted by" + (f" ({item['status']})" if item.get("status") else "")
        if item.get("superseded"):
            label += " · superseded"
        target = _add_unit(pic, item["unit"], claim, kind="against", min_row=below)
        pic.edge(claim, target, label, "contradicted_by")
    return pic


def _attr(value: str) -> str:
    """A value for a double-quoted XML attribute (tabs and newlines kept as character references)."""
    return escape(clean_text(value), {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _text_lines(x: float, y: float, lines: list[str], *, size: int = 12, weight: str = "normal") -> str:
    spans = "".join(f'<tspan x="{x:.0f}" dy="{0 if i == 0 else 15}">{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-family="system-ui, sans-serif" font-size="{size}" '
            f'font-weight="{weight}" fill="#111827">{spans}</text>')


def chain_svg(tree: dict[str, Any], *, id_prefix: str = "chain") -> str:
    """The SVG document of one claim's support chain (a dict from :func:`graphcite.graph.chain`)."""
    pic = _layout(tree)
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", id_prefix) or "chain"
    columns = max((n.column for n in pic.nodes.values()), default=0) + 1
    rows = max((n.row for n in pic.nodes.values()), default=0) + 1
    width = MARGIN * 2 + columns * NODE_W + (columns - 1) * COL_GAP
    height = MARGIN * 2 + rows * NODE_H + (rows - 1) * ROW_GAP

    def box(node: _Node) -> tuple[float, float]:
        return MARGIN + node.column * (NODE_W + COL_GAP), MARGIN + node.row * (NODE_H + ROW_GAP)

    parts = []
    for kind, (colour, _, _) in sorted(EDGE_STYLES.items()):
        parts.append(f'<marker id="{prefix}-arrow-{kind}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                     f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/>'
                     "</marker>")
    defs = f"<defs>{''.join(parts)}</defs>"
    edges, labels, described = [], [], []
    for source, target, label, style in pic.edges:
        a, b = pic.nodes[source], pic.nodes[target]
        ax, ay = box(a)
        bx, by = box(b)
        x1, y1 = ax + NODE_W, ay + NODE_H / 2
        x2, y2 = bx, by + NODE_H / 2
        if b.column <= a.column:  # same column or backwards (a lineage cycle): loop around below
            x1, y1, x2, y2 = ax + NODE_W / 2, ay + NODE_H, bx + NODE_W / 2, by + NODE_H
            path = f"M{x1:.0f},{y1:.0f} C{x1:.0f},{y1 + 40:.0f} {x2:.0f},{y2 + 40:.0f} {x2:.0f},{y2:.0f}"
            mx, my = (x1 + x2) / 2, max(y1, y2) + 30
        elif b.column - a.column > 1:  # skips columns: drop to the target's row in the first gap, then run along it
            turn = x1 + COL_GAP * 0.8
            path = (f"M{x1:.0f},{y1:.0f} C{x1 + COL_GAP * 0.4:.0f},{y1:.0f} {x1 + COL_GAP * 0.4:.0f},{y2:.0f} "
                    f"{turn:.0f},{y2:.0f} L{x2:.0f},{y2:.0f}")
            mx, my = x2 - COL_GAP / 2, y2
        else:
            bend = (x2 - x1) / 2
            path = f"M{x1:.0f},{y1:.0f} C{x1 + bend:.0f},{y1:.0f} {x2 - bend:.0f},{y2:.0f} {x2:.0f},{y2:.0f}"
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        colour, dash, mark = EDGE_STYLES.get(style, EDGE_STYLES["cites"])
        shown = mark + label
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        sentence = f"{a.title[:120]} — {shown} → {b.title[:120]}"
        described.append(f"{shown}: {clean_text(a.key)} → {clean_text(b.key)}")
        edges.append(f'<g class="edge" data-kind="{escape(style)}" data-from="{_attr(a.key)}" '
                     f'data-to="{_attr(b.key)}"><title>{escape(sentence)}</title>'
                     f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr} '
                     f'marker-end="url(#{prefix}-arrow-{style if style in EDGE_STYLES else "cites"})"/></g>')
        rows = _lines(shown, 2, LABEL_CHARS)
        text_width = 6.4 * max(len(r) for r in rows) + 8
        top = my - 8 * len(rows) - 2
        spans = "".join(f'<tspan x="{mx:.0f}" dy="{0 if i == 0 else 14}">{escape(r)}</tspan>'
                        for i, r in enumerate(rows))
        labels.append(f'<g class="edge-label" data-kind="{escape(style)}"><rect x="{mx - text_width / 2:.0f}" '
                      f'y="{top:.0f}" width="{text_width:.0f}" height="{14 * len(rows) + 4}" rx="3" fill="#ffffff" '
                      f'stroke="{colour}" stroke-width="1"{dash_attr}/>'
                      f'<text x="{mx:.0f}" y="{top + 12:.0f}" text-anchor="middle" font-family="system-ui, sans-serif" '
                      f'font-size="11" fill="#111827">{spans}</text></g>')
    nodes = []
    for node in pic.nodes.values():
        x, y = box(node)
        border = "#991b1b" if node.kind == "against" else "#374151"
        dash = ' stroke-dasharray="6 4"' if node.kind == "against" else ""
        weight = "bold" if node.kind == "claim" else "normal"
        nodes.append(f'<g class="node" data-kind="{node.kind}"><title>{escape(node.title)}</title>'
                     f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6" fill="{NODE_FILL[node.kind]}" '
                     f'stroke="{border}" stroke-width="1.5"{dash}/>'
                     f"{_text_lines(x + 8, y + 17, node.lines, weight=weight)}</g>")
    title = clean_text(f"Support chain of claim {tree.get('claim_id')}")
    desc = clean_text(f"{len(pic.nodes)} nodes and {len(pic.edges)} labelled edges. " + "; ".join(described))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" aria-labelledby="{prefix}-title {prefix}-desc">'
            f'<title id="{prefix}-title">{escape(title)}</title><desc id="{prefix}-desc">{escape(desc)}</desc>'
            f"{defs}{''.join(edges)}{''.join(nodes)}{''.join(labels)}</svg>")
