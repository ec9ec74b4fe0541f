"""Selections and bulk reads: everything the evidence graph of a question needs, in a few queries.

A question names a claim, an answer, a source or the whole store; :func:`select` turns it into parent
claim ids and :func:`fetch` reads their latest verification records, the cited and contradicting
units, the sources above them and every revision of those sources, through the query functions of
:mod:`graphcite.store.queries.graph` (each an index lookup on both engines).

Lineage is read from the source_lineage table ingest keeps (:mod:`graphcite.ingest.lineage`): one
index lookup gives each start key's source card and the links of its upward closure, and the cards of
the keys those links name when the card holds them (``closure``); otherwise a second lookup reads
those cards, whatever the depth. A start key without a row (a store written
before the table, or rows written around ingest) has its closure computed from source_link instead,
level by level, and a key without a row is read from the source tables. The old walk, one index
lookup per lineage level and one for the supersession links into every key visited, is kept
(``LINEAGE_QUERY = "levels"``) as the reference the table's reads are tested against; at 1M claims
on DuckDB it made a support chain 12 statements of about 77 index probes (about 6 for the levels),
the table makes it 5 (4 with closure cards). A link counts only while the revision that declared it is the
current revision of its declaring source (always one of the link's two ends); that check and the
final closure are done in Python over the fetched links.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from graphcite.audience import (
    RestrictedSet,
    asked_publicly,
    check_audience,
    restricted_set,
    verdict_may_use_restricted,
)
from graphcite.errors import InputError, NotFoundError
from graphcite.models import LINEAGE_RELATIONS, SOURCE_RELATIONS
from graphcite.store import Store
from graphcite.store.queries import graph as q
from graphcite.store.queries import lineage as lineage_q
from graphcite.store.queries.graph import ids_filter, rows_for_ids
from graphcite.store.queries.lineage import MAX_LINEAGE_LEVELS

__all__ = [
    "LINEAGE_RELATIONS",
    "MAX_LINEAGE_LEVELS",
    "SOURCE_RELATIONS",
    "Fetched",
    "RestrictedSet",
    "Selection",
    "fetch",
    "ids_filter",
    "latest_verifications",
    "resolve_claims",
    "resolve_ref",
    "restricted_set",
    "rows_for_ids",
    "select",
]



# ----------------------------------------------------------------------------------------------
# selection
# ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Selection:
    """What a question is about: parent claim ids in answer order, plus the answer when there is one."""

    kind: str  # claim, answer, source, all
    claim_ids: list[str]
    answer_rev: str | None = None
    answer_id: str | None = None
    source_key: str | None = None
    rows: list[dict[str, Any]] | None = None  # the claims' rows when resolving the reference read them already


def resolve_ref(store: Store, ref: str, *, answer_ids: bool = True) -> Selection:
    """A claim id (parent or atomic part), an answer revision or an answer id (its latest revision).

    ``answer_ids=False`` leaves a parent claim's ``answer_id`` unread (None in its graph): for the support
    chain and the independence audit of one claim, which do not show it (one index lookup less).
    """
    ref = ref.strip()
    row = q.claim_ref(store, ref, answer=answer_ids)
    if row is not None:
        if row["part"] is not None:
            return Selection("claim", [row["parent_id"]])
        claim = {k: row.get(k) for k in ("claim_id", "answer_rev", "ordinal", "text", "claim_type", "answer_id")}
        return Selection("claim", [row["claim_id"]], rows=[claim])
    answer = q.newest_answer(store, ref)
    if answer is not None:
        ids = q.answer_claim_ids(store, answer["answer_rev"])
        return Selection("answer", ids, answer["answer_rev"], answer["answer_id"])
    raise NotFoundError(f"no claim or answer {ref!r}", where="ID",
                        fix="take a claim_id from `graphcite check --json` or an answer id from `graphcite answers`")


def resolve_claims(store: Store, refs: Iterable[str]) -> list[str]:
    """Parent claim ids for claim ids (atomic parts map to their parent), in the given order; one query."""
    wanted = list(dict.fromkeys(r.strip() for r in refs))
    found = q.claim_parents(store, wanted)
    missing = [r for r in wanted if r not in found]
    if missing:
        raise NotFoundError(f"no claim {missing[0]!r}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
                            where="CLAIM", fix="take a claim_id from `graphcite check --json`")
    return list(dict.fromkeys(found[r] for r in wanted))


def select(store: Store, *, claim: str | None = None, answer: str | None = None, source: str | None = None,
           all: bool = False) -> Selection:
    """Exactly one of claim, answer, source or all, resolved to parent claim ids."""
    given = [name for name, value in (("--claim", claim), ("--answer", answer), ("--source", source),
                                      ("--all", all)) if value]
    if len(given) != 1:
        raise InputError("choose exactly one of --claim, --answer or --all" if not given
                             else f"{' and '.join(given)} cannot be combined", where="selection",
                             fix="pass one of --claim ID, --answer ID or --all", code="E106")
    if claim:
        try:
            selection = resolve_ref(store, claim)
        except NotFoundError:
            selection = Selection("none", [])
        if selection.kind != "claim":
            raise NotFoundError(f"no claim {claim!r}", where="--claim",
                                fix="take a claim_id from `graphcite check --json`; use --answer for answers")
        return selection
    if answer:
        try:
            selection = resolve_ref(store, answer)
        except NotFoundError:
            selection = Selection("none", [])
        if selection.kind != "answer":
            raise NotFoundError(f"no answer {answer!r}", where="--answer",
                                fix="run `graphcite answers` to list stored answers; use --claim for claims")
        return selection
    if source:
        return _source_selection(store, source)
    return Selection("all", q.all_parent_claim_ids(store))


def _source_selection(store: Store, key: str) -> Selection:
    if not q.source_exists(store, key):
        raise NotFoundError(f"no source {key!r}", where="SOURCE", fix="run `graphcite sources` to list the keys")
    return Selection("source", q.claims_about_source(store, key), source_key=key)


# ----------------------------------------------------------------------------------------------
# fetching
# ----------------------------------------------------------------------------------------------


def latest_verifications(store: Store, claim_ids: Iterable[str], *, record: bool = True,
                         audience: str = "internal") -> dict[str, dict[str, Any]]:
    """The latest verification record of each claim made for ``audience`` (records are appended; the newest
    one counts, and a record made for another audience never does).

    ``record=False`` leaves out the record's ``record_id`` and ``answer_rev`` (a graph shows neither).
    """
    out: dict[str, dict[str, Any]] = {}
    for row in q.latest_verification_rows(store, claim_ids, record=record, audience=check_audience(audience)):
        row["report"] = json.loads(row.pop("result_json"))
        out[row["claim_id"]] = row
    return out


@dataclass(slots=True)
class Fetched:
    """Everything the graph of a selection needs, fetched in bulk."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    given_citations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    units: dict[str, dict[str, Any]] = field(default_factory=dict)
    revisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[dict[str, str]] = field(default_factory=list)
    dangling: list[dict[str, str]] = field(default_factory=list)
    truncated: bool = False
    restricted: RestrictedSet | None = None  # filled for the public audience
    #: public audience: the answer revisions a public check stored (their asker's own words, shown as written)
    own_words: set[str] = field(default_factory=set)


def fetch(store: Store, selection: Selection, *, audience: str = "internal") -> Fetched:
    """The rows the graph of ``selection`` is built from: claims, latest verdicts, units, sources, lineage.

    For the public audience the store's restricted sources are read too (:func:`restricted_set`) and
    every link a restricted revision declares is left out, so a restricted document's own lineage
    (``derived_from: hidden-upstream.md``) is never walked or shown.
    """
    got = Fetched(restricted=None if verdict_may_use_restricted(audience) else restricted_set(store))
    ids = selection.claim_ids
    got.claims = [dict(r) for r in selection.rows] if selection.rows is not None else q.claim_rows(store, ids)
    answer_ids = q.answer_ids_of(store, {c["answer_rev"] for c in got.claims if "answer_id" not in c})
    for claim in got.claims:
        if "answer_id" not in claim:  # read with the claim when the reference named it
            claim["answer_id"] = answer_ids.get(claim["answer_rev"])
    got.verdicts = latest_verifications(store, ids, record=False, audience=audience)
    unverified = [c["claim_id"] for c in got.claims if c["claim_id"] not in got.verdicts]
    for row in q.given_citations(store, unverified):
        got.given_citations.setdefault(row["claim_id"], []).append(row)
    if got.restricted is not None and got.restricted.keys:
        got.own_words = asked_publicly(store, ((c["answer_rev"], c["claim_id"]) for c in got.claims))
        if got.own_words:  # what a public asker's claims name is looked up below: asked about in one statement
            got.restricted.prefetch([(got.verdicts.get(c["claim_id"]) or {}).get("report") for c in got.claims
                                     if c["answer_rev"] in got.own_words])
    unit_ids: dict[str, None] = {}  # in the order the claims name them (an order only public structure decides)
    revision_ids: set[str] = set()
    keys: set[str] = set()
    for claim in got.claims:
        verdict = got.verdicts.get(claim["claim_id"])
        report = verdict["report"] if verdict else {}
        named = _Named(unit_ids, revision_ids, keys,
                       got.restricted if claim["answer_rev"] in got.own_words else None)
        for cit in report.get("citations", []):
            named.add(unit=cit.get("unit_id"), revision=cit.get("revision"), key=cit.get("source"))
        for item in report.get("contradicting_evidence", []):
            named.add(unit=item["unit_id"])
        for cit in got.given_citations.get(claim["claim_id"], []):
            named.add(unit=cit.get("chunk_id"), key=cit.get("source_key"))
    if selection.source_key:
        keys.add(selection.source_key)
    # The rows come back in the store's physical order, which depends on ingest timing (and so on how
    # long restricted documents took to parse): the graph keeps the claims' order instead.
    rows = {row["unit_id"]: row for row in q.unit_rows(store, unit_ids)}
    for unit_id in unit_ids:
        if unit_id in rows:
            got.units[unit_id] = rows[unit_id]
            keys.add(rows[unit_id]["source_key"])
    revision_ids -= {u["revision_id"] for u in got.units.values()}
    keys |= q.revision_source_keys(store, revision_ids)
    _fetch_lineage(store, got, keys, downstream=selection.source_key)
    return got


@dataclass(slots=True)
class _Named:
    """What one claim's citations name, added to the ids :func:`fetch` reads. For a public asker's own
    words (``hidden`` set) a restricted name is left out, as a missing one is: no node stands for it."""

    units: dict[str, None]
    revisions: set[str]
    keys: set[str]
    hidden: RestrictedSet | None = None

    def add(self, *, unit: str | None = None, revision: str | None = None, key: str | None = None) -> None:
        hidden = self.hidden
        if unit and (hidden is None or unit not in hidden.units):
            self.units[unit] = None
        if revision and (hidden is None or revision not in hidden.revisions):
            self.revisions.add(revision)
        if key and (hidden is None or key not in hidden.keys):
            self.keys.add(key)


# "table" (the source_lineage rows kept by ingest, the default) or "levels" (walk source_link level by level).
LINEAGE_QUERY = "table"


def _walk_levels(store: Store, got: Fetched, start: set[str], downstream: str | None) -> list[dict[str, Any]]:
    """Every link declared by or superseding the keys reachable from ``start`` (in force or not).

    One index lookup per lineage level for the links the level declares, then one for the
    supersession links into every key visited (and the links into ``downstream``).
    """
    found: list[dict[str, Any]] = []
    visited: set[str] = set()
    frontier = set(start)
    level = 0
    while frontier:
        if level >= MAX_LINEAGE_LEVELS:
            got.truncated = True
            break
        level += 1
        visited |= frontier
        rows = q.links_from(store, frontier)
        found += rows
        frontier = {r["to_key"] for r in rows if r["relation"] in LINEAGE_RELATIONS} - visited
    return found + q.links_into(store, visited, downstream)


@dataclass(slots=True)
class _Cards:
    """Sources and their revisions as source_lineage keeps them; ``unknown`` keys have no row there."""

    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    revisions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    unknown: set[str] = field(default_factory=set)

    def add(self, row: dict[str, Any]) -> None:
        """One source_lineage row: its key's card, and the cards of its closure's keys when the row holds them."""
        if row["source_json"] is None:
            self.seen.add(row["key"])
            return
        card = json.loads(row["source_json"])
        self._card(row["key"], card)
        for key, other in card.get("closure", {}).items():  # null: a key never ingested
            if key not in self.seen:
                self._card(key, other)

    def _card(self, key: str, card: dict[str, Any] | None) -> None:
        self.seen.add(key)
        if card is not None:
            self.sources[key] = card["source"]
            self.revisions[key] = card["revisions"]


def _closures(store: Store, got: Fetched, start: set[str], cards: _Cards) -> list[list[Any]]:
    """The closure links of every start key: its source_lineage row, or for a key without one the same
    links computed from source_link (a store written before the table, or rows written around ingest)."""
    closures: list[list[Any]] = []
    rows = lineage_q.lineage_rows(store, start)
    for row in rows:
        cards.add(row)
        closures += json.loads(row["links_json"])
    missing = start - {row["key"] for row in rows}
    if missing:
        # graphcite.ingest (the package) imports ingest's heavy stages (spaCy, pint): only for this fallback
        from graphcite.ingest import lineage

        cards.unknown |= missing
        index = lineage.walk_up(store, missing)
        for key in sorted(missing):
            closures += lineage.closure_links(key, index)
    return closures


def _walk_table(store: Store, got: Fetched, start: set[str], downstream: str | None,
                cards: _Cards) -> list[dict[str, Any]]:
    """The links :func:`_walk_levels` finds, from the start keys' source_lineage rows (one lookup).

    Their union is the walk from all start keys at once: a key is visited when some start key reaches it
    within 63 levels, and the walk is truncated when a visited key at level 63 leads to one none reaches.
    """
    closures = _closures(store, got, start, cards)
    visited = set(start) | {link[0] for link in closures if link[4] >= 0}
    visited |= {link[1] for link in closures if link[2] in LINEAGE_RELATIONS and 0 <= link[4] < MAX_LINEAGE_LEVELS - 1}
    got.truncated = any(link[4] == MAX_LINEAGE_LEVELS - 1 and link[2] in LINEAGE_RELATIONS and link[1] not in visited
                        for link in closures)
    found = [{"from_key": f, "to_key": t, "relation": r, "declared_in": d}
             for f, t, r, d in sorted({tuple(link[:4]) for link in closures})]
    if downstream is not None:
        found += q.links_into(store, set(), downstream)
    return found


def _in_force(found: list[dict[str, Any]], start: set[str], sources: dict[str, dict[str, Any]],
              downstream: str | None) -> set[tuple[str, str, str]]:
    """The links in force (declared by the current revision of one of their ends), walked again from ``start``.

    The walk in SQL follows every declared link; a link whose declaring revision is no longer current
    must neither count nor lead anywhere, so the closure is recomputed here over links in force.
    """
    current = {row["current_revision"] for row in sources.values()}
    valid = {(r["from_key"], r["to_key"], r["relation"]) for r in found if r["declared_in"] in current}
    parents: dict[str, set[str]] = {}
    for f, t, r in valid:
        if r in LINEAGE_RELATIONS:
            parents.setdefault(f, set()).add(t)
    reach, stack = set(start), list(start)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in reach:
                reach.add(parent)
                stack.append(parent)
    return {(f, t, r) for f, t, r in valid
            if f in reach or (r == "supersedes" and t in reach) or (downstream is not None and t == downstream)}


def _read_sources(store: Store, got: Fetched, keys: set[str], cards: _Cards | None) -> None:
    """``got.sources`` for ``keys``: from source_lineage (one lookup for the keys not read yet), else the source table."""
    if cards is None:
        for row in sorted(q.source_rows(store, keys - set(got.sources)), key=lambda r: r["key"]):
            got.sources[row["key"]] = row
        return
    unread = keys - cards.seen - cards.unknown
    for row in lineage_q.lineage_rows(store, unread, links=False):
        cards.add(row)
    cards.unknown |= unread - cards.seen
    for key in sorted(keys & set(cards.sources)):
        got.sources[key] = cards.sources[key]
    for row in sorted(q.source_rows(store, keys & cards.unknown), key=lambda r: r["key"]):
        got.sources[row["key"]] = row


def _read_revisions(store: Store, got: Fetched, cards: _Cards | None) -> None:
    """Every revision of ``got.sources``, by source and sequence."""
    unknown = set(got.sources) if cards is None else set(got.sources) & cards.unknown
    rows = q.revision_rows(store, unknown)
    if cards is not None:
        rows += [revision for key in got.sources if key not in unknown for revision in cards.revisions[key]]
    for row in sorted(rows, key=lambda r: (r["source_key"], r["seq"])):
        got.revisions[row["revision_id"]] = row


def _fetch_lineage(store: Store, got: Fetched, start: set[str], *, downstream: str | None = None) -> None:
    """Sources, revisions and links in force upward from ``start``; every key is visited once."""
    start = set(start)
    cards = _Cards() if LINEAGE_QUERY == "table" else None
    if not start:
        found = []
    elif cards is not None:
        found = _walk_table(store, got, start, downstream, cards)
    else:
        found = _walk_levels(store, got, start, downstream)
    if got.restricted is not None and got.restricted.revisions:
        got.restricted.prefetch([r["declared_in"] for r in found])
        found = [r for r in found if r["declared_in"] not in got.restricted.revisions]
    keys = start | {k for r in found for k in (r["from_key"], r["to_key"])}
    _read_sources(store, got, keys, cards)
    links = _in_force(found, start, got.sources, downstream)
    unreached = set(got.sources) - start - {k for link in links for k in link[:2]}
    for key in unreached:  # reached only through links no longer in force
        del got.sources[key]
    got.links = [{"from_key": f, "to_key": t, "relation": r} for f, t, r in sorted(links)]
    got.dangling = [link for link in got.links
                    if link["from_key"] not in got.sources or link["to_key"] not in got.sources]
    _read_revisions(store, got, cards)
    if got.restricted is not None and got.restricted.keys:
        # whether what the graph shows is restricted: from the rows read (a unit or revision is restricted
        # when its source is), and for the other ids the reports name, one statement
        got.restricted.learn_rows(units=got.units.values(), revisions=got.revisions.values(),
                                  current=got.sources.values())
        got.restricted.prefetch([[v["report"] for v in got.verdicts.values()], list(got.given_citations.values())])
    for source in got.sources.values():
        current = got.revisions.get(source["current_revision"], {})
        source["status"], source["effective"] = current.get("status"), current.get("effective")
