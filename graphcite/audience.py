"""The one audience decision: what an audience may see of a source, revision, unit, claim, record and judgement.

Two audiences. ``internal`` sees everything. ``public`` sees nothing of a *restricted* source: a source
whose current visibility is restricted, or any of whose revisions ever was (the more restrictive
reading wins, so the old public revisions of a source that is restricted now are hidden too). Every
path that answers the public (the command line, the HTTP API, the review pages, every export, the
graph questions, ``answerable``, ``check-summary``) asks this module, so the answer cannot drift
between them. What it decides:

* **sources, revisions, units** (:meth:`AudienceView.sees_source`, ``sees_revision``, ``sees_unit``):
  for the public a restricted one does not exist. A request for it gets the words a missing one gets
  (:func:`missing_unit`), and a verdict is computed as if it were not in the store.
* **verdicts** (:func:`verdict_may_use_restricted`): a public verdict may not depend on restricted
  content at all, not even through a finding that says "withheld" (that would be an oracle: try
  figures until the finding appears). The restricted-origin test runs for the internal audience only.
* **stored things shown to the public** (:class:`Redactor`): restricted sources named by stored
  claims, records and lineage keep their place under placeholders (``restricted-source-1``) but lose
  every identifier, title and text. What an answer a public check stored holds is its asker's own words
  (:func:`asked_publicly`) and is shown as written (:func:`as_written`): a placeholder there would tell
  that a name the asker gave is a restricted source.
* **claims** (:meth:`AudienceView.claim_text`): a stored claim whose text launders a restricted
  figure is withheld (the reason comes from :func:`graphcite.graph.redact.withheld_claims`).
* **verification records** (:meth:`AudienceView.sees_record`): a record carries the audience it was
  made for; a verdict made for one audience is never another audience's latest.
* **judgements** (:meth:`AudienceView.judgement`): a reviewer's rationale on a withheld claim is
  withheld with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphcite.errors import GraphciteError, NotFoundError, make_error
from graphcite.store import Store

__all__ = [
    "AUDIENCES",
    "CITATION_IDS",
    "INTERNAL",
    "ORIGIN_RULE",
    "PUBLIC",
    "UNATTRIBUTED",
    "WITHHELD_RATIONALE",
    "WITHHELD_REASON",
    "WITHHELD_TEXT",
    "AudienceView",
    "Redactor",
    "RestrictedIds",
    "RestrictedSet",
    "as_written",
    "asked_publicly",
    "audience_view",
    "check_audience",
    "is_restricted_citation",
    "missing_unit",
    "record_audience",
    "restricted_keys",
    "restricted_set",
    "scrub_report",
    "verdict_may_use_restricted",
    "visible_unit",
    "withheld_report",
]

PUBLIC = "public"
INTERNAL = "internal"
AUDIENCES = (PUBLIC, INTERNAL)
#: A record written before records carried their audience (schema < 4) that cannot be told apart: it is
#: no audience's verdict (never the public's, and never the internal audience's latest).
UNATTRIBUTED = "unattributed"

WITHHELD_TEXT = "[claim text withheld for the public audience]"
WITHHELD_RATIONALE = "[rationale withheld with the claim's text]"


def check_audience(audience: str, where: str = "--audience") -> str:
    """The audience, or E104 when it is neither public nor internal."""
    if audience not in AUDIENCES:
        raise make_error("E104", where=where, audience=audience)
    return audience


def verdict_may_use_restricted(audience: str) -> bool:
    """Whether a verdict for ``audience`` may read restricted content (internal: yes; public: never).

    A public verdict is the verdict a store without the restricted sources would give: no status,
    finding, score or timing of it may change when a restricted figure changes.
    """
    return check_audience(audience) == INTERNAL


def record_audience(record: Mapping[str, Any]) -> str:
    """The audience a verification record (a row or its report) was made for; internal when unsaid.

    A stored record an upgrade could not attribute says :data:`UNATTRIBUTED`, and stays so: it speaks
    for no audience. Any other value (a report in memory without the field) is the internal audience's.
    """
    audience = record.get("audience")
    return audience if audience in AUDIENCES or audience == UNATTRIBUTED else INTERNAL


# ----------------------------------------------------------------------------------------------
# what is restricted
# ----------------------------------------------------------------------------------------------


class RestrictedIds:
    """The restricted ids of one kind (revisions or units) that an output asks about, read as it asks.

    Every unit of the restricted sources would grow with their size, while a public answer names a few
    ids: so the store is asked about each id the first time it is asked (:meth:`prefetch` asks for many
    in one statement) and the answer is kept. ``read(ids)`` gives the restricted ids among ``ids``;
    ``known`` ids are restricted without asking (with no ``read``, the ids are exactly ``known``).
    ``maybe`` says whether any id may be restricted (the store has restricted sources): its truth value.
    It cannot be iterated: nothing may depend on how many restricted ids the store holds.
    """

    __slots__ = ("_maybe", "_no", "_read", "_yes")

    def __init__(self, read: Callable[[set[str]], set[str]] | None = None, *, known: Iterable[str] = (),
                 maybe: bool = False) -> None:
        self._read = read
        self._yes = set(known)
        self._no: set[str] = set()
        self._maybe = maybe or bool(self._yes)

    def unknown(self, ids: Iterable[Any]) -> set[str]:
        """The ids among ``ids`` the store would have to be asked about (none when nothing is asked)."""
        if self._read is None:
            return set()
        return {i for i in ids if isinstance(i, str) and i and i not in self._yes and i not in self._no}

    def learn(self, asked: Iterable[str], restricted: Iterable[str]) -> None:
        """Keep what is known of ``asked`` ids without a read: those in ``restricted`` are restricted, the rest not."""
        found = set(restricted)
        self._yes |= found
        self._no |= set(asked) - found

    def prefetch(self, ids: Iterable[Any]) -> None:
        """Ask the store about the ids among ``ids`` not asked about before, in one statement."""
        ask = self.unknown(ids)
        if ask and self._read is not None:
            self.learn(ask, self._read(ask) & ask)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str) or not value:
            return False
        if value in self._yes:
            return True
        if self._read is None or value in self._no:
            return False
        self.prefetch((value,))
        return value in self._yes

    def __bool__(self) -> bool:
        return self._maybe


@dataclass(slots=True)
class RestrictedSet:
    """The store's restricted sources (keys and titles), and the restricted revisions and units an output asks about.

    A source counts as restricted when its current visibility is restricted or when any of its
    revisions was: the more restrictive reading wins, also for records made before a change.
    ``titles`` are the restricted revisions' titles that are not their source's own.
    """

    keys: dict[str, str | None] = field(default_factory=dict)  # key -> title
    revisions: RestrictedIds = field(default_factory=RestrictedIds)
    units: RestrictedIds = field(default_factory=RestrictedIds)
    titles: set[str] = field(default_factory=set)
    #: ``read(ids) -> (restricted revisions, restricted units)`` among ids, in one statement (None: all known)
    read: Callable[[set[str]], tuple[set[str], set[str]]] | None = None

    def prefetch(self, value: Any) -> None:
        """Ask about every id ``value`` (a JSON value, or ids) names, in one statement: the membership
        tests that follow need no read of their own."""
        if not self.keys or self.read is None:
            return
        ids = set(_ids_in(value))
        ask = self.revisions.unknown(ids) | self.units.unknown(ids)
        if ask:
            revisions, units = self.read(ask)
            self.revisions.learn(ask, revisions & ask)
            self.units.learn(ask, units & ask)

    def learn_rows(self, *, units: Iterable[Mapping[str, Any]] = (), revisions: Iterable[Mapping[str, Any]] = (),
                   current: Iterable[Mapping[str, Any]] = ()) -> None:
        """Keep, without a read, whether the units and revisions of rows already read are restricted: a unit or
        revision is restricted exactly when its source is (``current``: source rows and their current revision)."""
        if not self.keys:
            return
        for row in units:
            self.units.learn((row["unit_id"],), (row["unit_id"],) if row["source_key"] in self.keys else ())
        for row in revisions:
            self.revisions.learn((row["revision_id"],),
                                 (row["revision_id"],) if row["source_key"] in self.keys else ())
        for row in current:
            revision = row.get("current_revision")
            if revision:
                self.revisions.learn((revision,), (revision,) if row["key"] in self.keys else ())


def restricted_keys(store: Store) -> frozenset[str]:
    """The keys of the store's restricted sources (one query): enough to filter rows that carry a key."""
    from graphcite.store.queries import graph as q

    return _once(store, "restricted keys", lambda: frozenset(r["key"] for r in q.restricted_sources(store)))


def restricted_set(store: Store) -> RestrictedSet:
    """The store's restricted sources, and its restricted revisions and units as they are asked about.

    One query: the restricted keys with their titles and the titles their revisions hold besides.
    Whether a revision or unit id is restricted is asked of the store for the ids an output names
    (:class:`RestrictedIds`; one is restricted exactly when its source is), so a public answer reads as
    many rows as it names ids, however large the restricted content. Inside a batch's or the service's evidence memo
    (whose store does not change while it is held, and which outlives one request's store) every
    restricted revision and unit id is read once instead and kept.
    """
    from graphcite.store.queries import graph as q
    from graphcite.store.queries.verify_memo import memo_of

    def read() -> RestrictedSet:
        found = RestrictedSet()
        keys, titles = q.restricted_names(store)
        if not keys:
            return found
        found.keys = {r["key"]: r["title"] for r in keys}
        found.titles = titles
        if memo_of(store) is not None:  # kept for many requests: every id, read once
            found.revisions = RestrictedIds(known=(r["revision_id"] for r in q.restricted_revisions(store)),
                                            maybe=True)
            found.units = RestrictedIds(known=q.restricted_unit_ids(store), maybe=True)
            return found
        hidden = found.keys

        def read_ids(ids: set[str]) -> tuple[set[str], set[str]]:  # restricted exactly when its source is
            revisions, units = q.sources_of_ids(store, ids)
            return ({i for i, key in revisions.items() if key in hidden},
                    {i for i, key in units.items() if key in hidden})

        found.revisions = RestrictedIds(lambda ids: read_ids(ids)[0], maybe=True)
        found.units = RestrictedIds(lambda ids: read_ids(ids)[1], maybe=True)
        found.read = read_ids
        return found

    return _once(store, "restricted set", read)


#: the longest string :meth:`RestrictedSet.prefetch` asks about whole (ids are short and have no spaces)
_ID_MAX = 200


def _ids_in(value: Any) -> Iterable[str]:
    """Every string of a JSON value that is or holds an id (a key of a dict too), as :class:`Redactor`
    reads them: hex ids inside text, and whole strings."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) <= _ID_MAX and not any(c.isspace() for c in item):
                yield item
            if len(item) > 16:
                yield from _HEX_ID.findall(item)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


def _once(store: Store, kind: str, read: Any) -> Any:
    """``read()``, kept in the store's evidence memo when one is held (callers never change the result)."""
    from graphcite.store.queries.verify_memo import memo_of

    memo = memo_of(store)
    return memo.once(kind, read) if memo is not None else read()


def asked_publicly(store: Store, claims: Iterable[tuple[str, str]]) -> set[str]:
    """Of ``(answer_rev, claim_id)`` pairs, the answer revisions whose words are the public's own.

    An answer a public check stored (its first verification record was made for the public audience,
    as a check stores its answer and records in one transaction) holds what a public asker wrote: like
    a question, its claims are never withheld, or storing answers with different figures and seeing
    which is withheld would be a value oracle. Two small reads per answer revision, whatever the
    restricted content holds.
    """
    from graphcite.store.queries.check import claim_history

    first_claim: dict[str, str] = {}
    for rev, claim_id in claims:
        first_claim.setdefault(rev, claim_id)
    out = set()
    for rev, claim_id in first_claim.items():
        public = claim_history(store, claim_id, PUBLIC)
        if not public:
            continue
        earlier = [r["verified_at"] for audience in (INTERNAL, UNATTRIBUTED)
                   for r in claim_history(store, claim_id, audience)[:1]]
        if all(public[0]["verified_at"] < other for other in earlier):
            out.add(rev)
    return out


def as_written(red: Redactor, own_words: bool) -> Redactor:
    """The redactor for what one stored answer holds: none for a public asker's own words.

    Such an answer (:func:`asked_publicly`) holds only what its asker wrote, and the public sees only its
    public records, verdicts given as if no restricted source existed: there is nothing restricted to
    replace. A placeholder there would be an oracle: a cited name or id shown as ``restricted-unit-1``
    where a missing one is shown as written tells that it is a restricted source.
    """
    return Redactor() if own_words else red


# ----------------------------------------------------------------------------------------------
# placeholders for stored things that name a restricted source
# ----------------------------------------------------------------------------------------------

# unit and revision ids are 16 lowercase hex digits
_HEX_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])")


def _names_pattern(keys: Sequence[str], titles: Sequence[str]) -> re.Pattern[str] | None:
    """One pattern for whole keys and titles inside text: ``a.md`` is not found inside ``data.md``."""
    alternatives = []
    if keys:
        listed = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
        alternatives.append(rf"(?<![\w.\-])(?:{listed})(?![\w\-])")
    if titles:
        listed = "|".join(re.escape(t) for t in sorted(titles, key=len, reverse=True))
        alternatives.append(rf"(?<!\w)(?:{listed})(?!\w)")
    return re.compile("|".join(alternatives)) if alternatives else None


class _Placeholders:
    """Placeholder names of one kind, numbered in the order an output first names them.

    The number depends only on where the output names the thing (public structure), never on the
    restricted keys themselves: not on how many there are, nor on how they sort.
    """

    __slots__ = ("names", "prefix", "restricted")

    def __init__(self, prefix: str, restricted: Iterable[str] | RestrictedIds) -> None:
        self.prefix = prefix
        self.restricted = restricted if isinstance(restricted, RestrictedIds) else frozenset(restricted)
        self.names: dict[str, str] = {}

    def __contains__(self, value: object) -> bool:
        return value in self.restricted

    def __bool__(self) -> bool:
        return bool(self.restricted)

    def name(self, value: str) -> str:
        """The placeholder of a restricted ``value`` (the next number on first sight); others unchanged."""
        if value not in self.restricted:
            return value
        found = self.names.get(value)
        if found is None:
            found = self.names[value] = f"{self.prefix}-{len(self.names) + 1}"
        return found


class Redactor:
    """Placeholders for restricted sources, revisions and units (public audience); identity otherwise.

    ``restricted-source-N`` is the N-th restricted source *this output* names, in the order it names
    them (and likewise for revisions and units): within one output the same name is the same source,
    and nothing about the store's restricted keys (how many, how they sort) can be read from a number.
    One redactor serves one output; :meth:`scrub` replaces any restricted key, title, revision or unit
    id inside a free-text string.
    """

    def __init__(self, restricted_keys: Iterable[str] = (), restricted_revisions: Iterable[str] | RestrictedIds = (),
                 restricted_units: Iterable[str] | RestrictedIds = (), titles: Iterable[str | None] = (),
                 restricted: RestrictedSet | None = None) -> None:
        self.keys = _Placeholders("restricted-source", restricted_keys)
        self.revisions = _Placeholders("restricted-revision", restricted_revisions)
        self.units = _Placeholders("restricted-unit", restricted_units)
        self._restricted = restricted  # asked about the ids of a text in one go before they are replaced
        self.titles = sorted({t for t in titles if t and len(t) > 3}, key=len, reverse=True)
        self._named_keys = [k for k in self.keys.restricted if not _HEX_ID.fullmatch(k)]
        self._hex_keys = frozenset(k for k in self.keys.restricted if _HEX_ID.fullmatch(k))
        self._title_set = frozenset(self.titles)
        self._pattern = _names_pattern(self._named_keys, self.titles)

    @classmethod
    def from_set(cls, restricted: RestrictedSet) -> Redactor:
        return cls(restricted.keys, restricted.revisions, restricted.units,
                   [*restricted.keys.values(), *restricted.titles], restricted)

    @property
    def active(self) -> bool:
        return bool(self.keys or self.revisions or self.units)

    def prefetch(self, value: Any) -> None:
        """Ask the store in one statement about the ids ``value`` (a JSON value) names, before many of its
        strings are scrubbed or tested one by one (a redactor built from ids it holds asks nothing)."""
        if self._restricted is not None and self.active:
            self._restricted.prefetch(value)

    def key(self, key: str | None) -> str | None:
        return self.keys.name(key) if key else key

    def revision(self, revision: str | None) -> str | None:
        return self.revisions.name(revision) if revision else revision

    def unit(self, unit_id: str | None) -> str | None:
        return self.units.name(unit_id) if unit_id else unit_id

    def is_restricted(self, *, key: str | None = None, revision: str | None = None, unit: str | None = None) -> bool:
        return bool((key and key in self.keys) or (revision and revision in self.revisions)
                    or (unit and unit in self.units))

    def _name(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found in self.keys and found not in self._title_set:
            return self.keys.name(found)
        return "[restricted]"

    def _id(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found in self.revisions:
            return self.revisions.name(found)
        if found in self.units:
            return self.units.name(found)
        if found in self._hex_keys:
            return self.keys.name(found)
        return found

    def scrub(self, text: Any) -> Any:
        """Replace restricted identifiers and titles inside a string; other values unchanged."""
        if not isinstance(text, str) or not self.active:
            return text
        if self._restricted is not None:
            self._restricted.prefetch(text)
        return self._scrub(text)

    def _scrub(self, text: Any) -> Any:
        if not isinstance(text, str) or not self.active:
            return text
        if self._pattern is not None:
            text = self._pattern.sub(self._name, text)
        text = _HEX_ID.sub(self._id, text)
        return text

    def scrub_json(self, value: Any) -> Any:
        """:meth:`scrub` applied to every string (keys too) of a JSON value."""
        if self._restricted is not None and self.active:
            self._restricted.prefetch(value)
        return self._scrub_json(value)

    def _scrub_json(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self._scrub(k): self._scrub_json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_json(v) for v in value]
        return self._scrub(value)


# ----------------------------------------------------------------------------------------------
# the view of one audience
# ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class AudienceView:
    """What one audience may see of this store: every decision the module doc lists, in one place."""

    audience: str
    restricted: RestrictedSet = field(default_factory=RestrictedSet)
    redactor: Redactor = field(default_factory=Redactor)

    @property
    def public(self) -> bool:
        return self.audience == PUBLIC

    def sees_source(self, key: str | None) -> bool:
        """Whether the audience may know that source ``key`` exists (and read it)."""
        return not self.public or not key or key not in self.restricted.keys

    def sees_revision(self, revision_id: str | None, source_key: str | None = None) -> bool:
        """Whether the audience may read a revision: never one of a restricted source, however old."""
        if not self.public:
            return True
        return revision_id not in self.restricted.revisions and self.sees_source(source_key)

    def sees_unit(self, unit_id: str | None, source_key: str | None = None) -> bool:
        """Whether the audience may read an evidence unit: never one of a restricted source."""
        if not self.public:
            return True
        return unit_id not in self.restricted.units and self.sees_source(source_key)

    def sees_unit_row(self, row: Mapping[str, Any] | None) -> bool:
        """:meth:`sees_unit` of a unit row or ``show_unit`` dict; None (a missing unit) is never seen."""
        if row is None:
            return False
        if self.public and row.get("visibility") == "restricted":
            return False
        return self.sees_unit(row.get("unit_id"), row.get("source") or row.get("source_key"))

    def sees_record(self, record: Mapping[str, Any]) -> bool:
        """Whether a verification record (row or report) is shown to this audience: its own records, and
        for the internal audience (who holds every record anyway) the unattributed ones too. Which record
        is an audience's *latest* verdict is the store's query (its own records only)."""
        made_for = record_audience(record)
        return made_for == self.audience or (made_for == UNATTRIBUTED and not self.public)

    def claim_text(self, text: str, withheld: str | None) -> str:
        """A stored claim's text as the audience may read it: withheld for the public when it launders."""
        if self.public and withheld:
            return WITHHELD_TEXT
        return self.redactor.scrub(text) if self.public else text

    def judgement(self, row: Mapping[str, Any], *, claim_text: str | None = None,
                  withheld: bool = False) -> dict[str, Any]:
        """A reviewer's judgement as the audience may read it: on a withheld claim, no rationale.

        ``row`` is one annotation (``rationale``) or a citation's group of them (``judgements``, as
        :func:`graphcite.evaluate.annotations` gives them); both shapes are handled alike.
        """
        out = dict(row)
        if claim_text is not None and "claim" in out:
            out["claim"] = claim_text
        if not self.public:
            return out
        if withheld:  # the rationale, and the claim revision (a hash of the text one could guess figures against)
            hidden = {"rationale": WITHHELD_RATIONALE, "claim_revision": None}
            out.update({k: v for k, v in hidden.items() if k in out})
            if isinstance(out.get("judgements"), list):
                out["judgements"] = [{**j, **{k: v for k, v in hidden.items() if k in j}} if isinstance(j, Mapping)
                                     else j for j in out["judgements"]]
        return self.redactor.scrub_json(out)


def audience_view(store: Store | None, audience: str, *, restricted: RestrictedSet | None = None) -> AudienceView:
    """The view of ``audience`` (E104 for an unknown one); the public view reads the restricted set once."""
    check_audience(audience)
    if audience != PUBLIC:
        return AudienceView(audience)
    if restricted is None:
        if store is None:
            raise ValueError("the public view needs the store (or the restricted set) it is a view of")
        restricted = restricted_set(store)
    return AudienceView(audience, restricted, Redactor.from_set(restricted))


def missing_unit(unit_id: str, audience: str, where: str = "UNIT_ID") -> GraphciteError:
    """E503 for a unit the audience may not see: the same words whether it is missing or restricted."""
    shown = unit_id if len(unit_id) <= 80 else unit_id[:77] + "..."
    return make_error("E503", where=where, unit=shown, audience=audience)


def visible_unit(store: Store, unit_id: str, audience: str, *, where: str = "UNIT_ID") -> dict[str, Any]:
    """:func:`graphcite.ingest.show_unit` as the audience may see it; E503 for a unit it may not see.

    The internal audience gets show_unit's own not-found error; the public gets E503 for a missing
    and for a restricted unit alike (an old public revision of a now restricted source included).
    """
    from graphcite.ingest.catalog import show_unit

    view = audience_view(store, audience)
    try:
        unit = show_unit(store, unit_id)
    except NotFoundError:
        if not view.public:
            raise
        unit = None
    if not view.sees_unit_row(unit):
        raise missing_unit(unit_id, audience, where)
    assert unit is not None
    return unit


# ----------------------------------------------------------------------------------------------
# stored verification reports shown to the public
# ----------------------------------------------------------------------------------------------

WITHHELD_REASON = ("restricted-origin: the claim states a value or term found only in a restricted source, "
                   "not in the public evidence it cites")
ORIGIN_RULE = "restricted-origin"
# citation fields that may stay on a restricted citation (identifiers are replaced, the rest is verdict)
_CITATION_KEEP = ("index", "relation", "valid", "role", "support_score", "unit_status")
#: citation field -> the Redactor method that gives its placeholder
CITATION_IDS = {"source": "key", "revision": "revision", "unit_id": "unit", "chunk_id": "unit"}


def _restricted_citation(cit: Mapping[str, Any], red: Redactor) -> dict[str, Any]:
    """A restricted citation reduced to its verdict and placeholder ids (a whitelist, not a blacklist)."""
    out: dict[str, Any] = {k: cit[k] for k in _CITATION_KEEP if k in cit}
    for name, kind in CITATION_IDS.items():
        if name in cit:
            out[name] = getattr(red, kind)(cit[name]) if isinstance(cit[name], str) else None
    out["findings"] = [{"code": f.get("code"), "rule": f.get("rule"), "outcome": f.get("outcome"), "detail": ""}
                       for f in cit.get("findings") or [] if isinstance(f, Mapping)]
    out["restricted"] = True
    return out


def is_restricted_citation(cit: Mapping[str, Any], red: Redactor) -> bool:
    return red.is_restricted(key=cit.get("source") or cit.get("source_key"), revision=cit.get("revision"),
                             unit=cit.get("unit_id") or cit.get("chunk_id"))


def withheld_report(report: Mapping[str, Any], red: Redactor, reason: str) -> dict[str, Any]:
    """A claim report whose claim text must not be shown: verdicts and ids only, plus why."""
    citations = []
    for cit in report.get("citations") or []:
        if not isinstance(cit, Mapping):
            continue
        item = _restricted_citation(cit, red)
        item["restricted"] = is_restricted_citation(cit, red)
        citations.append(item)
    out = {k: report[k] for k in ("claim_id", "index", "status", "supported", "type") if k in report}
    out.update(text=WITHHELD_TEXT, withheld=True, withheld_reason=reason, citations=citations,
               parts=[{"text": WITHHELD_TEXT, "status": p.get("status")} for p in report.get("parts") or []
                      if isinstance(p, Mapping)],
               contradicting_evidence=[{"unit_id": red.unit(c.get("unit_id")), "status": c.get("status")}
                                       for c in report.get("contradicting_evidence") or [] if isinstance(c, Mapping)])
    if any(c["restricted"] for c in citations):
        out["relies_on_restricted"] = True
    return red.scrub_json(out)


def scrub_report(report: dict[str, Any], red: Redactor, *, withheld: str | None = None) -> dict[str, Any]:
    """A claim report for the public audience (see the module doc); ``withheld`` is the reason, if any."""
    if withheld:
        return withheld_report(report, red, withheld)
    report = dict(report)
    restricted_idx = set()
    citations = []
    for cit in report.get("citations") or []:
        if isinstance(cit, Mapping) and is_restricted_citation(cit, red):
            restricted_idx.add(cit.get("index"))
            cit = _restricted_citation(cit, red)
        citations.append(cit)
    if "citations" in report:
        report["citations"] = citations
    parts = []
    for part in report.get("parts") or []:
        if isinstance(part, Mapping):
            part = dict(part)
            part["citations"] = [_restricted_citation(v, red) if v.get("index") in restricted_idx else v
                                 for v in part.get("citations") or [] if isinstance(v, Mapping)]
        parts.append(part)
    if "parts" in report:
        report["parts"] = parts
    kept = []
    for item in report.get("contradicting_evidence") or []:
        if isinstance(item, Mapping) and red.is_restricted(key=item.get("source"), unit=item.get("unit_id")):
            item = {"unit_id": red.unit(item.get("unit_id")), "source": red.key(item.get("source")),
                    "status": item.get("status"), "restricted": True}
        kept.append(item)
    if "contradicting_evidence" in report:
        report["contradicting_evidence"] = kept
    if restricted_idx:
        report["relies_on_restricted"] = True
    return red.scrub_json(_blank_origin_details(report))


def _blank_origin_details(value: Any) -> Any:
    """Findings of the ``restricted-origin`` rule keep their verdict but say only "withheld"."""
    if isinstance(value, dict):
        if value.get("rule") == ORIGIN_RULE:
            return {**value, "detail": "withheld"}
        return {k: _blank_origin_details(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_origin_details(v) for v in value]
    return value
