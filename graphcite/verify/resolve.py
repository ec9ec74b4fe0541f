"""Citation integrity: resolve every citation of an answer against the store in a few bulk queries.

Checks, in order: the source or unit exists (else "invented identifier"), the pinned revision exists
(a non-current revision stays valid and is noted), the span lies inside the unit or document, and the quote equals the stored text at the offsets (drift and
paraphrase are reported). The quote shown to users is always rendered from the stored revision.
For the public audience a restricted source, its revisions (old public ones too) and its units do not
exist (:func:`graphcite.audience.verdict_may_use_restricted`): a citation of one is GC101 in the words
a missing one gets, and GC103 never names a restricted revision.

A quote that is not verbatim may still stand when it makes its changes explicit (ellipses, bracketed
insertions) or differs only typographically (curly quotes, dashes, spaces): see
:mod:`graphcite.verify.quotes`. Its pieces must be verbatim, in order, in one unit or adjacent units of
one section (GC108 notes the transformation, GC109 fails pieces that do not belong together, GC110
names what matching normalised).

A citation whose offsets or pages could not be read (negative, reversed, not integers, beyond
2^63 - 1, a malformed marker such as ``[policy.md:-5-10]``) arrives with a ``defect``: it fails
GC105 like a span past the end, its claim is ``invalid``, and the other citations are still checked.

A citation that names a source, a unit or pages but gives neither offsets nor a quote passes the same
checks and then has its evidence located in the cited source for its claim (:mod:`graphcite.verify.locate`;
``located``, ``rank_score``, ``located_spans``); cited pages with no unit fail GC105. A name that is not a
source key (a producer's file name, path, URL or title) is matched to the one source it fits
(:func:`source_aliases`); a name that fits several is GC101, never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from graphcite.audience import restricted_keys, verdict_may_use_restricted
from graphcite.models import CitationRef, ExtractedValue
from graphcite.store import Store
from graphcite.store.queries import resolve as reads
from graphcite.store.queries.verify_memo import memo_of
from graphcite.verify.catalogue import CODES
from graphcite.verify.evidence import Evidence, lead_in_of
from graphcite.verify.locate import (
    LONG_SPAN,
    Candidate,
    ElsewhereQuery,
    LocateQuery,
    find_elsewhere,
    rank_units,
)
from graphcite.verify.quotes import QuoteMatch, QuoteProblem, RenderedQuote, match_quote, scope_problem
from graphcite.verify.registry import Finding

__all__ = ["ResolvedCitation", "prefetch_citations", "resolve_citations", "source_aliases"]

SMALL_REVISION_SET = 16

INTEGRITY_RULES: dict[str, str] = {code: entry.symbol for code, entry in CODES.items() if entry.family == "integrity"}


@dataclass(slots=True)
class ResolvedCitation:
    """A citation after integrity checks; ``evidence`` is None when it is invalid."""

    ref: CitationRef
    valid: bool
    findings: list[Finding] = field(default_factory=list)
    source_key: str | None = None
    revision_id: str | None = None
    unit_id: str | None = None
    start: int | None = None  # document offsets
    end: int | None = None
    quote: str | None = None  # rendered from the store
    page: int | None = None
    symbol: str | None = None
    heading_path: tuple[str, ...] = ()
    unit_status: str | None = None
    evidence: Evidence | None = None
    revision_row: dict[str, Any] | None = None
    located: bool = False  # no span was given: the evidence was located in the cited source
    rank_score: float | None = None  # how well the located span matches the claim (0-1)
    located_spans: list[dict[str, Any]] | None = None  # every unit of a located claim that needed several
    elsewhere: dict[str, Any] | None = None  # an uncited unit that holds the claim (reported, never support)
    joint_units: list[dict[str, Any]] = field(default_factory=list)  # the located units after the first
    quote_match: QuoteMatch | None = None  # a transformed quote's pieces (document offsets)

    def fail(self, code: str, detail: str) -> None:
        self.findings.append(Finding(code, INTEGRITY_RULES[code], "fail", detail, "insufficient"))
        self.valid = False

    def note(self, code: str, detail: str) -> None:
        self.findings.append(Finding(code, INTEGRITY_RULES[code], "note", detail))


def _value(row: dict[str, Any], offset: int) -> ExtractedValue:
    return ExtractedValue(
        start=row["start"] - offset, end=row["end"] - offset, surface=row["surface"], magnitude=row["magnitude"],
        unit=row["unit"], dimensionality=row["dimensionality"], kind=row["kind"],
        counted_noun=row["counted_noun"], bound=row["bound"], low=row["low"], high=row["high"], role=row["role"],
        measured=row["measured"])


class _Fetched:
    """The store rows one answer needs, fetched in bulk."""

    def __init__(self, store: Store, refs: Sequence[CitationRef], hidden: frozenset[str] = frozenset()) -> None:
        """``hidden``: keys of sources the audience may not see; their rows are left out as if never stored."""
        chunk_ids = {r.chunk_id for r in refs if r.chunk_id}
        keys = {r.source for r in refs if r.source}
        pinned = {r.revision for r in refs if r.revision}
        self.units: dict[str, dict[str, Any]] = {row["unit_id"]: row for row in reads.units_by_id(store, chunk_ids)
                                                 if row["source_key"] not in hidden}
        keys |= {u["source_key"] for u in self.units.values()}
        self.sources: dict[str, dict[str, Any]] = {row["key"]: row for row in reads.sources_by_key(store, keys - hidden)}
        self.aliases, self.alias_problems = source_aliases(store, keys - set(self.sources), hidden=hidden)
        for row in reads.sources_by_key(store, set(self.aliases.values()) - set(self.sources)):
            self.sources[row["key"]] = row
        revision_ids = {s["current_revision"] for s in self.sources.values()}
        revision_ids |= {u["revision_id"] for u in self.units.values()}
        self.revisions: dict[str, dict[str, Any]] = {
            row["revision_id"]: row for row in reads.revisions_by_id(store, revision_ids | pinned)
            if row["source_key"] not in hidden}
        # a revision pinned by a content-hash prefix (rare): one query per prefix
        for prefix in sorted(p for p in pinned if p not in self.revisions and len(p) >= 8):
            for row in reads.revisions_by_hash_prefix(store, prefix):
                if row["source_key"] not in hidden:
                    self.revisions[row["revision_id"]] = row
        self.by_content = {r["content_hash"]: rid for rid, r in self.revisions.items()}
        self.rev_units: dict[str, list[dict[str, Any]]] = {}
        self.values: dict[str, list[dict[str, Any]]] = {}
        self.superseded_by: dict[str, list[tuple[str, str | None]]] = {}
        for row in reads.supersessions(store, self.sources):
            if row["from_key"] in hidden:  # a restricted source's supersession is its own text
                continue
            pair = (row["from_key"], row["effective"])
            if pair not in self.superseded_by.setdefault(row["to_key"], []):
                self.superseded_by[row["to_key"]].append(pair)

    def load_spans(self, store: Store, spans: Sequence[tuple[str, int, int]]) -> None:
        """Fetch only the units that overlap the cited spans, and their typed values (two queries)."""
        if not spans:
            return
        wanted: dict[str, list[tuple[int, int]]] = {}
        for rid, start, end in spans:
            wanted.setdefault(rid, []).append((start, end))
        if len(wanted) <= SMALL_REVISION_SET:  # a few documents: index lookup, filter the spans here
            rows = [u for u in reads.units_of_revisions(store, wanted)
                    if any(u["start"] < e and u["end"] > s for s, e in wanted[u["revision_id"]])]
        else:  # many documents: one span join, so whole documents are not shipped to Python
            rows = reads.units_overlapping(store, spans)
        for row in rows:
            self.rev_units.setdefault(row["revision_id"], []).append(row)
            self.units.setdefault(row["unit_id"], row)
        for row in reads.values_of_units(store, {r["unit_id"] for r in rows} | set(self.units)):
            self.values.setdefault(row["unit_id"], []).append(row)

    def revision_for(self, ref: CitationRef, key: str) -> dict[str, Any] | None:
        if ref.revision:
            if ref.revision in self.revisions:
                return self.revisions[ref.revision]
            for content_hash, rid in self.by_content.items():
                if len(ref.revision) >= 8 and content_hash.startswith(ref.revision):
                    return self.revisions[rid]
            return None
        source = self.sources.get(key)
        return self.revisions.get(source["current_revision"]) if source else None


def source_aliases(store: Store, names: set[str], *,
                   hidden: frozenset[str] = frozenset()) -> tuple[dict[str, str], dict[str, str]]:
    """Source keys for names that are not keys, as producers cite: ``({name: key}, {name: problem})``.

    A URL matches the ``url:`` in a source's front matter; a path matches the source key it ends with
    (``/data/corpus/decisions/dr-017.md`` -> ``decisions/dr-017.md``); a bare file name matches the
    source with that file name (or, failing that, that name without its extension); anything else
    matches a source's title. A name that fits several sources is a problem (GC101), never a guess.
    Sources in ``hidden`` (restricted, for the public audience) are not matched, listed or counted.
    """
    if not names:
        return {}, {}
    rows = [r for r in reads.source_alias_rows(store) if r["key"] not in hidden]
    aliases: dict[str, str] = {}
    problems: dict[str, str] = {}
    for name in sorted(names):
        found = _alias_candidates(name.strip(), rows)
        if len(found) == 1:
            aliases[name] = found[0]
        elif len(found) > 1:
            shown = ", ".join(found[:3]) + (" ..." if len(found) > 3 else "")
            problems[name] = (f"{name!r} fits {len(found)} sources ({shown}); map it to one key with a source map "
                              "(--source-map)")
    return aliases, problems


def _url(value: str) -> str:
    return value.split("#", 1)[0].rstrip("/").lower()


def _alias_candidates(name: str, rows: list[dict[str, Any]]) -> list[str]:
    if not name:
        return []
    if "://" in name and not name.lower().startswith("file://"):
        found = [r["key"] for r in rows if r["url"] and _url(r["url"]) == _url(name)]
        if found:
            return found
    path = name.split("://", 1)[1] if name.lower().startswith("file://") else name
    path = path.replace("\\", "/")
    if "/" in path:
        found = [r["key"] for r in rows if path == r["key"] or path.endswith("/" + r["key"])]
        if found:
            longest = max(len(k) for k in found)
            return [k for k in found if len(k) == longest]
    else:
        found = [r["key"] for r in rows if r["key"].rsplit("/", 1)[-1] == path]
        if not found:
            found = [r["key"] for r in rows if r["key"].rsplit("/", 1)[-1].rsplit(".", 1)[0] == path]
        if found:
            return found
    return [r["key"] for r in rows if r["title"] and r["title"].strip().lower() == name.lower()]


def _locate(haystack: str, quote: str) -> list[int]:
    hits, at = [], haystack.find(quote)
    while at != -1 and len(hits) < 3:
        hits.append(at)
        at = haystack.find(quote, at + 1)
    return hits


def _check_offsets(cit: ResolvedCitation, start: Any, end: Any, length: int) -> bool:
    for name, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            cit.fail("GC105", f"{name} must be a non-negative integer, got {value!r}")
            return False
    if start is not None and end is not None and start > end:
        cit.fail("GC105", f"start {start} is after end {end}")
        return False
    if end is not None and end > length:
        cit.fail("GC105", f"end {end} is beyond the cited text ({length} code points)")
        return False
    return True


def _resolve_one(ref: CitationRef, fetched: _Fetched, audience: str) -> ResolvedCitation:
    cit = ResolvedCitation(ref=ref, valid=True)
    base_offset = 0
    if ref.source is None and ref.chunk_id is None:  # the answer could not tie this citation to a document
        cit.fail("GC105" if ref.defect else "GC101", ref.defect or "the citation names no source")
        return cit
    if ref.chunk_id:
        unit = fetched.units.get(ref.chunk_id)
        if unit is None:
            cit.fail("GC101", f"no evidence unit {ref.chunk_id!r} in the store")
            return cit
        revision = fetched.revisions[unit["revision_id"]]
        scope_text, base_offset = unit["text"], unit["start"]
    else:
        key = ref.source or ""
        if key in fetched.alias_problems:
            cit.fail("GC101", fetched.alias_problems[key])
            return cit
        key = fetched.aliases.get(key, key)
        if key not in fetched.sources:
            cit.fail("GC101", f"no source {key!r} in the store")
            return cit
        revision = fetched.revision_for(ref, key)
        if revision is None:
            cit.fail("GC102", f"source {key!r} has no revision {ref.revision!r}")
            return cit
        scope_text = revision["text"]
    source = fetched.sources[revision["source_key"]]
    cit.source_key, cit.revision_id = revision["source_key"], revision["revision_id"]
    if revision["revision_id"] != source["current_revision"]:
        cit.note("GC103", f"cites revision {revision['revision_id']} (seq {revision['seq']}); "
                          f"current is {source['current_revision']}")
    if ref.defect:
        cit.fail("GC105", ref.defect)
        return cit
    if ref.start is None and ref.end is None and ref.quote is None:
        cit.located, cit.revision_row = True, revision  # located with the others in resolve_citations
        return cit
    if not _check_offsets(cit, ref.start, ref.end, len(scope_text)):
        return cit
    quote = ref.quote
    if quote is not None and not quote:
        cit.fail("GC106", "the quote is empty")
        return cit
    start, end = ref.start, ref.end
    if quote is not None and not _verbatim(scope_text, quote, start, end):
        placed = match_quote(scope_text, quote, start, end)
        if placed is not None:
            return _placed_quote(cit, placed, revision, scope_text, base_offset)
    if start is None or end is None:
        if quote is None:
            cit.fail("GC105", "give both start and end, or a quote")
            return cit
        hits = _locate(scope_text, quote)
        if not hits:
            cit.fail("GC107", "the quote does not occur in the cited text (paraphrased?)")
            return cit
        if len(hits) > 1 and start is None and end is None:
            cit.fail("GC107", f"the quote occurs {len(hits)}+ times; give start and end to pick one")
            return cit
        if (start is not None and start not in hits) or (end is not None and end - len(quote) not in hits):
            cit.fail("GC106", "the given offset does not match where the quote occurs")
            return cit
        start = start if start is not None else (end - len(quote) if end is not None else hits[0])
        end = start + len(quote)
    stored = scope_text[start:end]
    if quote is not None and stored != quote:
        hits = _locate(scope_text, quote)
        if hits:
            cit.fail("GC106", f"quote drifted: it is at {hits[0] + base_offset}-"
                              f"{hits[0] + base_offset + len(quote)}, not {start + base_offset}-{end + base_offset}")
        else:
            cit.fail("GC106", "the quote differs from the stored text at those offsets (paraphrased?)")
        return cit
    if not stored.strip():
        cit.fail("GC105", "the span is empty or whitespace")
        return cit
    cit.start, cit.end, cit.quote = start + base_offset, end + base_offset, stored
    cit.revision_row = revision
    return cit


def _verbatim(text: str, quote: str, start: int | None, end: int | None) -> bool:
    if start is not None and end is not None:
        return text[start:end] == quote
    return quote in text


def _placed_quote(cit: ResolvedCitation, placed: QuoteMatch | QuoteProblem, revision: dict[str, Any],
                  text: str, offset: int) -> ResolvedCitation:
    """A quote placed by :func:`match_quote` (pieces, normalisation) or the reason it cannot be."""
    if isinstance(placed, QuoteProblem):
        cit.fail(placed.code, placed.detail)
        return cit
    placed = placed.shifted(offset)
    cit.start, cit.end = placed.start, placed.end
    if placed.parsed.transformed:
        cit.quote, cit.quote_match = RenderedQuote.of(placed, text, offset), placed
    else:
        cit.quote = text[placed.start - offset:placed.end - offset]
    if placed.normalised:
        cit.note("GC110", f"matched only after normalising {' and '.join(placed.normalised)}; the stored "
                          "characters are shown")
    cit.revision_row = revision
    return cit


def _transformed_evidence(cit: ResolvedCitation, units: list[dict[str, Any]], fetched: _Fetched) -> bool:
    """Check a transformed quote's pieces belong together (GC109) and make its evidence of the pieces alone."""
    placed, revision = cit.quote_match, cit.revision_row
    assert placed is not None and revision is not None and cit.evidence is not None
    if not cit.ref.chunk_id:
        problem = scope_problem(placed.pieces, units)
        if problem:
            cit.evidence = None
            cit.fail("GC109", problem)
            return False
    kinds = [t.kind for t in placed.parsed.transformations]
    text, pieces_at = revision["text"], placed.pieces
    inserted = []
    for t in placed.parsed.transformations:
        if t.kind == "insertion":
            stands_for = text[pieces_at[t.at - 1].end:pieces_at[t.at].start].strip() \
                if 0 < t.at < len(pieces_at) and not any(o.kind == "ellipsis" and o.at == t.at
                                                         for o in placed.parsed.transformations) else ""
            inserted.append(f"[{t.text}]" + (f" for {stands_for!r}" if stands_for else ""))
    cit.note("GC108", f"{len(placed.pieces)} verbatim piece{'s' if len(placed.pieces) != 1 else ''} in order"
                      f"{' in one unit' if len({u['unit_id'] for u in units}) == 1 else ' in adjacent units'}; "
                      + ", ".join(filter(None, [
                          f"{kinds.count('ellipsis')} ellipsis" if "ellipsis" in kinds else "",
                          f"inserted {' '.join(inserted)}" if inserted else ""])))
    pieces = [{"row": next(u for u in units if u["start"] < p.end and u["end"] > p.start), "start": p.start,
               "end": p.end} for p in placed.pieces]
    cit.evidence = _joint_evidence(cit.evidence, pieces, revision["text"], fetched, sep=" ")
    return True


def _finish(cit: ResolvedCitation, fetched: _Fetched) -> ResolvedCitation:
    """Phase two: attach the units, heading path, status and values around a located span."""
    ref, revision = cit.ref, cit.revision_row
    assert revision is not None and cit.start is not None and cit.end is not None and cit.quote is not None
    source = fetched.sources[revision["source_key"]]
    stored = cit.quote
    units = [u for u in fetched.rev_units.get(revision["revision_id"], [])
             if u["start"] < cit.end and u["end"] > cit.start]
    if ref.chunk_id:
        units = [fetched.units[ref.chunk_id]]
    if not units:
        cit.fail("GC105", "the span falls between evidence units (front matter or blank space)")
        return cit
    primary = units[0]
    cit.unit_id, cit.page, cit.symbol = primary["unit_id"], primary["page"], primary["symbol"]
    cit.heading_path = tuple(json.loads(primary["heading_path_json"] or "[]"))
    superseded = tuple(fetched.superseded_by.get(revision["source_key"], ()))
    statuses = [u["status"] for u in units]
    worst = next((s for s in ("forbidden", "rejected", "superseded", "historical", "proposal", "draft")
                  if s in statuses), primary["status"])
    cit.unit_status = "superseded" if superseded and worst == "current" else worst
    context = "\n".join(u["text"] for u in units)
    ctx_start = units[0]["start"]
    quote_values = tuple(_value(v, cit.start) for u in units for v in fetched.values.get(u["unit_id"], [])
                         if v["start"] >= cit.start and v["end"] <= cit.end)
    context_values = tuple(_value(v, ctx_start) for u in units for v in fetched.values.get(u["unit_id"], []))
    cue = next((u["status_cue"] for u in units if u["status"] == worst), primary["status_cue"])
    cit.evidence = Evidence(
        quote=stored, context=context, heading_path=cit.heading_path, status=cit.unit_status, status_cue=cue,
        kind=revision["kind"], format=revision["format"], build_role=revision["build_role"],
        visibility=revision["visibility"], source_key=revision["source_key"], title=revision["title"],
        symbol=cit.symbol, page=cit.page, revision_id=revision["revision_id"],
        is_current_revision=revision["revision_id"] == source["current_revision"], values=quote_values,
        context_values=context_values, superseded_by=superseded, source_text=revision["text"],
        effective=str(revision["effective"]) if revision["effective"] else None,
        block_type=primary["block_type"],
        table_headers=tuple(json.loads(primary["table_headers_json"])) if primary["table_headers_json"] else (),
        lead_in=lead_in_of(revision["text"], primary["start"], primary["block_type"])
        if revision["format"] in {"markdown", "text"} else "")
    if cit.joint_units:
        pieces = [{"row": primary, "start": cit.start, "end": cit.end}, *cit.joint_units]
        cit.evidence = _joint_evidence(cit.evidence, pieces, revision["text"], fetched)
    if cit.quote_match is not None:
        _transformed_evidence(cit, units, fetched)
    return cit


def _joint_evidence(evidence: Evidence, pieces: list[dict[str, Any]], text: str, fetched: _Fetched,
                    sep: str = "\n") -> Evidence:
    """One evidence of several spans of one revision: quotes (joined by ``sep``) and units joined, values re-based.

    Used for a claim located in several units and for the verbatim pieces of a transformed quote.
    """
    quotes: list[str] = []
    values: list[ExtractedValue] = []
    at = 0
    for piece in pieces:
        values += [_value(v, piece["start"] - at) for v in fetched.values.get(piece["row"]["unit_id"], [])
                   if v["start"] >= piece["start"] and v["end"] <= piece["end"]]
        quotes.append(text[piece["start"]:piece["end"]])
        at += len(quotes[-1]) + len(sep)
    units = list({p["row"]["unit_id"]: p["row"] for p in pieces}.values())
    context: list[str] = []
    context_values: list[ExtractedValue] = []
    at = 0
    for unit in units:
        context_values += [_value(v, unit["start"] - at) for v in fetched.values.get(unit["unit_id"], [])]
        context.append(unit["text"])
        at += len(unit["text"]) + 1
    headings = tuple(dict.fromkeys(h for u in units for h in json.loads(u["heading_path_json"] or "[]")))
    statuses = [u["status"] for u in units]
    worst = next((s for s in ("forbidden", "rejected", "superseded", "historical", "proposal", "draft")
                  if s in statuses), evidence.status)
    return replace(evidence, quote=sep.join(quotes), context="\n".join(context), heading_path=headings,
                   values=tuple(values), context_values=tuple(context_values),
                   status=worst if evidence.status == "current" else evidence.status)


def prefetch_citations(store: Store, refs: Sequence[CitationRef]) -> None:
    """Read the units, sources, revisions and supersessions that many answers' citations name in one
    set of bulk queries; each answer's :func:`resolve_citations` then finds them in the evidence memo
    (a no-op outside one)."""
    if memo_of(store) is not None and refs:
        _Fetched(store, refs)


def resolve_citations(store: Store, refs: Sequence[CitationRef], *, audience: str = "internal") -> list[ResolvedCitation]:
    """Resolve and integrity-check citations in input order, with a handful of bulk queries.

    A citation without a span (a source, a unit, or a document and pages) is located: see
    :mod:`graphcite.verify.locate`.
    """
    # for the public a restricted source does not exist: its rows are never read into the verdict, so a
    # citation of one fails exactly as a citation of a missing source does (GC101, the same words)
    hidden = frozenset() if verdict_may_use_restricted(audience) else restricted_keys(store)
    fetched = _Fetched(store, refs, hidden)
    located = [_resolve_one(ref, fetched, audience) for ref in refs]
    _locate_evidence(store, located, fetched, audience)
    spans = [(c.revision_id, c.start, c.end) for c in located
             if c.valid and c.revision_id and c.start is not None and c.end is not None]
    spans += [(c.revision_id, piece["start"], piece["end"]) for c in located if c.valid and c.revision_id
              for piece in c.joint_units]
    fetched.load_spans(store, spans)
    narrowed = _narrow_long_spans(store, located, fetched)
    return [_finish_narrowed(c, fetched, narrowed[i]) if i in narrowed else
            _finish(c, fetched) if c.valid and c.revision_row is not None and c.start is not None else c
            for i, c in enumerate(located)]


def _narrow_long_spans(store: Store, resolved: list[ResolvedCitation], fetched: _Fetched) -> dict[int, list[Candidate]]:
    """The sentences each long cited span (a whole document, a long unit) is read in for its claim:
    its units ranked for the claim as a located citation's are (:data:`graphcite.verify.locate.LONG_SPAN`)."""
    queries = [LocateQuery(i, (c.ref.claim or "").strip(), c.revision_id, span=(c.start, c.end))
               for i, c in enumerate(resolved)
               if c.valid and not c.located and c.quote_match is None and c.revision_id and (c.ref.claim or "").strip()
               and c.start is not None and c.end is not None and c.end - c.start > LONG_SPAN]
    if not queries:
        return {}
    titles = {rid: row["title"] for rid, row in fetched.revisions.items()}
    return {i: ranking.chosen for i, ranking in rank_units(store, queries, titles).items() if ranking.chosen}


def _finish_narrowed(cit: ResolvedCitation, fetched: _Fetched, chosen: list[Candidate]) -> ResolvedCitation:
    """A long cited span finished as the evidence of its chosen sentences (as a located citation's);
    the report keeps the cited offsets and quote and lists the sentences read in ``located_spans``."""
    assert cit.revision_row is not None
    text = cit.revision_row["text"]
    cited = cit.start, cit.end, cit.quote
    primary, *others = chosen
    cit.start, cit.end, cit.quote = primary.start, primary.end, text[primary.start:primary.end]
    cit.joint_units = [{"row": c.row, "start": c.start, "end": c.end} for c in others]
    _finish(cit, fetched)
    cit.start, cit.end, cit.quote = cited
    cit.joint_units = []
    cit.located_spans = [{"unit_id": c.unit_id, "start": c.start, "end": c.end, "quote": text[c.start:c.end],
                          "rank_score": round(c.score, 4)} for c in chosen]
    return cit


def _locate_evidence(store: Store, resolved: list[ResolvedCitation], fetched: _Fetched, audience: str) -> None:
    """Give every valid citation without a span the span located for its claim (bulk, one pass)."""
    queries: list[LocateQuery] = []
    for index, cit in enumerate(resolved):
        if not (cit.valid and cit.located and cit.revision_row is not None):
            continue
        claim = (cit.ref.claim or "").strip()
        if not claim:
            cit.located = False
            cit.fail("GC107", "neither offsets nor a quote, and no claim text to locate the evidence for")
            continue
        first = cit.ref.page
        queries.append(LocateQuery(index, claim, cit.revision_row["revision_id"], first,
                                   cit.ref.page_end or first, cit.ref.chunk_id))
    if not queries:
        return
    titles = {rid: row["title"] for rid, row in fetched.revisions.items()}
    rankings = rank_units(store, queries, titles)
    doubtful: list[int] = []  # located claims whose cited source may not hold them: look elsewhere too
    for query in queries:
        cit, ranking = resolved[query.index], rankings[query.index]
        revision = cit.revision_row
        assert revision is not None
        if ranking.problem:
            cit.located = False
            pages = f"{query.first_page}" + (f"-{query.last_page}" if query.last_page != query.first_page else "")
            cit.fail("GC105", f"no evidence unit of {revision['source_key']} lies on page {pages}"
                     if query.first_page is not None else f"{revision['source_key']} has no evidence units")
            continue
        cit.rank_score = ranking.rank_score or 0.0
        source = fetched.sources[revision["source_key"]]
        if (not ranking.complete or fetched.superseded_by.get(revision["source_key"])
                or revision["revision_id"] != source["current_revision"] or revision["status"] != "current"):
            doubtful.append(query.index)
        if not ranking.chosen:
            cit.note("GC107", "located nothing: no unit of the cited source shares a content word with the claim")
            continue
        primary, *others = ranking.chosen
        cit.start, cit.end = primary.start, primary.end
        cit.quote = revision["text"][cit.start:cit.end]
        cit.joint_units = [{"row": c.row, "start": c.start, "end": c.end} for c in others]
        if others:
            cit.located_spans = [{"unit_id": c.unit_id, "start": c.start, "end": c.end,
                                  "quote": revision["text"][c.start:c.end], "rank_score": round(c.score, 4)}
                                 for c in ranking.chosen]
    if doubtful:
        _mark_elsewhere(store, resolved, doubtful, audience)


def _mark_elsewhere(store: Store, resolved: list[ResolvedCitation], indexes: list[int], audience: str) -> None:
    """Name, for each located citation, an uncited unit that holds its claim (see locate.find_elsewhere)."""
    cited: dict[str, set[str]] = {}
    for cit in resolved:
        if cit.ref.claim and cit.source_key:
            cited.setdefault(cit.ref.claim.strip(), set()).add(cit.source_key)
    queries = [ElsewhereQuery(i, (resolved[i].ref.claim or "").strip(),
                              frozenset(cited.get((resolved[i].ref.claim or "").strip(), ())))
               for i in indexes if resolved[i].valid]
    for index, unit in find_elsewhere(store, queries, audience=audience).items():
        resolved[index].elsewhere = unit
