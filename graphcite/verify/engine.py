"""The rule engine: integrity, then lexical support (or a judge), then every qualifier rule, per atomic part.

A claim is supported only when every atomic part is. A part is supported when one valid citation
supports it after all rules, or when several citations support it jointly; a contradiction from a
current source turns support into ``conflict`` rather than a silent pick. Reports are deterministic:
no timestamps, claims in input order, findings in rule-code order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from graphcite.audience import verdict_may_use_restricted
from graphcite.claims.formats.passages import evidence_kind
from graphcite.ingest.analysis import prepare_parses
from graphcite.language.align import Alignment
from graphcite.language.domain import using
from graphcite.language.frames import asserts_something
from graphcite.language.words import as_written
from graphcite.lru import MISSING, LruCache
from graphcite.models import (
    STATUS_ORDER,
    AtomicClaim,
    CheckReport,
    CitationVerdict,
    ClaimStatus,
    ClaimVerdict,
    DecisionOut,
    DecisionTermOut,
    FindingOut,
    InputAnswer,
    InputClaim,
    Outcome,
    PartVerdictOut,
    Relation,
)
from graphcite.store import Store
from graphcite.verify import rules as _rules  # noqa: F401 - registers the rules
from graphcite.verify.claim_types import mark_claim_types
from graphcite.verify.config import VerifierConfig
from graphcite.verify.decision import Decision, DecisionModel, features_for
from graphcite.verify.evidence import Evidence
from graphcite.verify.judges import Judgement, judge
from graphcite.verify.lexical import lexical_score, support_terms
from graphcite.verify.registry import RULES, Finding
from graphcite.verify.resolve import ResolvedCitation, resolve_citations
from graphcite.verify.rules.common import attributed, attribution_stripped, blank_values
from graphcite.verify.rules.slots import alignment_for

__all__ = ["PairVerdict", "PartVerdict", "evaluate_pair", "metrics_for", "verify_claims", "verify_report"]

#: the relations a failure can force, worst first
SEVERITY: tuple[Relation, ...] = (Relation.CONTRADICTS, Relation.CONTEXTUALIZES, Relation.INSUFFICIENT,
                                  Relation.MENTIONS)


@dataclass(slots=True)
class PairVerdict:
    """One citation judged against one atomic part."""

    index: int
    relation: Relation
    support_score: float
    findings: list[Finding] = field(default_factory=list)
    decision: Decision | None = None  # the calibrated decision, with the heuristic judge and a model

    def __post_init__(self) -> None:
        if type(self.relation) is not Relation:  # a stored record's relation is read back as a string
            self.relation = Relation(self.relation)

    def as_dict(self) -> dict[str, Any]:
        out = {"index": self.index, "relation": self.relation, "support_score": self.support_score,
               "findings": [f.as_dict() for f in self.findings]}
        if self.decision is not None:
            out["decision"] = _decision_out(self.decision)
        return out


@dataclass(slots=True)
class PartVerdict:
    """One atomic part with its citations' verdicts."""

    claim: AtomicClaim
    status: ClaimStatus
    citations: list[PairVerdict]
    contradicting: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""

    def __post_init__(self) -> None:
        if type(self.status) is not ClaimStatus:
            self.status = ClaimStatus(self.status)

    @property
    def supported(self) -> bool:
        return self.status is ClaimStatus.SUPPORTED


def _active_rules(config: VerifierConfig) -> tuple[Any, ...]:
    """The rules a configuration runs, in code order (worked out once per set of disabled rules)."""
    if config.lexical_only:
        return ()
    key = (config.disabled_rules, len(RULES))
    found = _ACTIVE.get(key)
    if found is None:
        disabled = {d.upper() for d in config.disabled_rules}
        found = _ACTIVE[key] = tuple(r for code, r in sorted(RULES.items())
                                     if code not in disabled and r.symbol not in config.disabled_rules)
    return found


_ACTIVE: dict[tuple[tuple[str, ...], int], tuple[Any, ...]] = {}


def _lexical_text(claim: AtomicClaim, config: VerifierConfig) -> str:
    """The claim text the lexical test reads: with the rules active, numbers are the quantity rules'
    job (14 days must meet 2 weeks), so value surfaces are blanked out; the baseline keeps them."""
    if config.lexical_only or not claim.values or config.judge_kind != "heuristic":
        return claim.text  # a model judge reads the numbers too ("Refunds take days" vs "30 days")
    return blank_values(claim.text, claim.values)


def _judged_text(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig) -> str:
    """The claim text a judge reads against ``evidence``: attribution ("DR-017 says ...") stripped
    when the evidence is that attributed source."""
    text = _lexical_text(claim, config)
    if not config.lexical_only and attributed(claim, evidence):
        text = attribution_stripped(text)
    return text


def _aligned(found: Alignment, config: VerifierConfig, claim: str = "", evidence: str = "") -> Judgement:
    """The default support test's reading: the weighted share of the claim's slots found in the
    evidence, directly or by paraphrase (synonym, derivation, a more specific word). Its label, by
    ``threshold``, decides only without a decision model (``decision: none``). The rationale counts
    the claim's words and names them as the claim writes them; the score is in ``support_score``."""
    score = round(found.score, 4)
    missing = [as_written(claim, s.text) for s in found.slots if s.status not in {"found", "paraphrase"}]
    paraphrased = [f"{as_written(claim, s.text)} ({as_written(evidence, s.by or '')})"
                   for s in found.slots if s.status == "paraphrase"]
    label = Relation.SUPPORTS if score >= config.threshold else (
        Relation.MENTIONS if score >= config.mention_threshold else Relation.INSUFFICIENT)
    total = len(found.slots)
    shown = total - len(missing)
    rationale = f"{shown} of {total} {'word' if total == 1 else 'words'} of the claim " \
                f"{'is' if shown == 1 else 'are'} in the evidence"
    if paraphrased:
        rationale += f"; found in other words: {', '.join(paraphrased)}"
    if missing:
        rationale += f"; missing: {', '.join(missing)}"
    return Judgement(label, score, rationale, "aligned")


def evaluate_pair(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig,
                  index: int = 0) -> PairVerdict:
    """Judge one atomic claim against one valid piece of evidence: judge first, then every rule.

    With the heuristic judge the verdict is a function of the claim, the evidence and the
    configuration (whose hash covers the domain lexicon), so it is remembered per process: a service
    meets the same sentence and the same cited unit again and again.
    """
    key = _pair_key(claim, evidence, config)
    found = _PAIRS.get(key) if key is not None else MISSING
    if isinstance(found, PairVerdict):
        return PairVerdict(index, found.relation, found.support_score, list(found.findings), found.decision)
    with using(config.domain_lexicon()):
        verdict = _evaluate_pair(claim, evidence, config, index)
    if key is not None:
        _PAIRS.put(key, PairVerdict(index, verdict.relation, verdict.support_score, list(verdict.findings),
                                    verdict.decision))
    return verdict


#: claim/evidence pairs; findings are frozen, verdicts are copied on the way out
_PAIRS: LruCache[_PairKey, PairVerdict] = LruCache(20_000)
_EVIDENCE_FIELDS = tuple(name for name in Evidence.__dataclass_fields__ if name != "extra")


class _PairKey:
    """A pair's memo key with its hash worked out once (a claim and its evidence hash field by field)."""

    __slots__ = ("hash", "items")

    def __init__(self, items: tuple[Any, ...]) -> None:
        self.items = items
        self.hash = hash(items)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _PairKey) and self.hash == other.hash and self.items == other.items)


def _pair_key(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig) -> _PairKey | None:
    """The memo key of one pair, or None when its verdict may differ from one call to the next."""
    if config.judge_kind != "heuristic":
        return None  # a model or a remote judge: not assumed deterministic
    try:
        return _PairKey((_held(claim, _claim_items), _held(evidence, _evidence_items), config.hash))
    except TypeError:
        return None


def _claim_items(claim: AtomicClaim) -> tuple[Any, ...]:
    return (claim,)


def _evidence_items(evidence: Evidence) -> tuple[Any, ...]:
    return (tuple(getattr(evidence, name) for name in _EVIDENCE_FIELDS),
            repr(sorted(evidence.extra.items())) if evidence.extra else "")


def _held(thing: Any, items: Callable[[Any], tuple[Any, ...]]) -> _PairKey:
    """One side of a pair key, hashed once per object: a sentence's parts meet each citation, and each
    citation every part (the object is kept with its key, so its id cannot be reused meanwhile)."""
    found = _HELD.get(id(thing))
    if found is not MISSING and found[0] is thing:  # type: ignore[index]
        return found[1]  # type: ignore[index]
    key = _PairKey(items(thing))
    _HELD.put(id(thing), (thing, key))
    return key


#: claims and evidence by object id, with their side of a pair key
_HELD: LruCache[int, tuple[Any, _PairKey]] = LruCache(4096)


def _evaluate_pair(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig, index: int) -> PairVerdict:
    found: Alignment | None = None
    if config.judge == "heuristic" and not config.lexical_only:
        found = alignment_for(claim, evidence)
        verdict = _aligned(found, config, claim.text, evidence.envelope)
    else:
        text = _judged_text(claim, evidence, config)
        verdict = judge(text, evidence.envelope, config)
    relation = Relation(verdict.label)
    supports = relation is Relation.SUPPORTS
    findings = [Finding("GC201", "lexical-support", Outcome.PASS if supports else Outcome.FAIL,
                        verdict.rationale + (f"; {verdict.fallback}" if verdict.fallback else ""),
                        None if supports else relation)]
    for rule in _active_rules(config):
        finding = rule.run(claim, evidence)
        if finding.outcome is not Outcome.SKIP:
            findings.append(finding)
    notes = set(config.note_rules)
    findings[1:] = [replace(f, outcome=Outcome.NOTE, effect=None)
                    if f.outcome is Outcome.FAIL and f.code in notes else f for f in findings[1:]]
    model = config.decision_model() if found is not None else None
    decision = None
    if model is not None and found is not None and (found.slots or not asserts_something(claim.text)):
        # a part with no slot that still states something ("it gives up", the side of a link whose
        # words are all light) keeps the plain share's verdict; one that asserts nothing is blocked
        decision, relation = _decide(model, found, claim, evidence, config, verdict, findings)
        supports = relation is Relation.SUPPORTS
    failures = [f.effect for f in findings[1:] if f.outcome is Outcome.FAIL and f.effect]
    if Relation.CONTRADICTS in failures and verdict.score >= config.mention_threshold:
        relation = Relation.CONTRADICTS
    elif supports and failures:
        relation = next(s for s in SEVERITY if s in failures)
    return PairVerdict(index, relation, verdict.score, findings, decision)


def _decide(model: DecisionModel, found: Alignment, claim: AtomicClaim, evidence: Evidence,
            config: VerifierConfig, verdict: Judgement, findings: list[Finding]) -> tuple[Decision, Relation]:
    """The calibrated decision on the soft signals; rewrites GC201 and the notes in ``findings`` to
    carry their contributions (their sum is the log-odds compared with the threshold's)."""
    noted = [f.code for f in findings[1:] if f.outcome is Outcome.NOTE]
    features = features_for(found, lexical_score(_judged_text(claim, evidence, config), evidence.envelope),
                            evidence.quote, noted)
    decision = model.decide(features)
    if not found.slots:  # a claim that asserts nothing ("OK.", "It is so.") is never supported
        decision = replace(decision, blocked="the claim asserts nothing the evidence could say")
    if decision.supports:
        relation = Relation.SUPPORTS
    else:
        relation = Relation.MENTIONS if verdict.score >= config.mention_threshold else Relation.INSUFFICIENT
    note_terms = {f"note_{code}" for code in noted}
    own = round(sum(c for name, _, c in decision.contributions if name not in note_terms), 4)
    findings[0] = Finding("GC201", "lexical-support", Outcome.PASS if decision.supports else Outcome.FAIL,
                          verdict.rationale if not decision.blocked else f"{decision.blocked}; {verdict.rationale}",
                          None if decision.supports else relation, own)
    findings[1:] = [replace(f, contribution=decision.contribution(f"note_{f.code}"))
                    if f.outcome is Outcome.NOTE else f for f in findings[1:]]
    return decision, relation


def _decision_out(decision: Decision) -> DecisionOut:
    return DecisionOut(decision.probability, decision.threshold,
                       [DecisionTermOut(name, value, c) for name, value, c in decision.contributions])


def _joint(part: AtomicClaim, resolved: Sequence[ResolvedCitation], config: VerifierConfig,
           verdicts: list[PairVerdict]) -> list[int]:
    """Indexes of citations that support ``part`` together when none does alone."""
    usable = [i for i, (c, v) in enumerate(zip(resolved, verdicts, strict=True))
              if c.valid and c.evidence and v.relation in _JOINABLE
              and not any(f.outcome is Outcome.FAIL and f.effect is Relation.CONTRADICTS for f in v.findings)]
    return _joint_members(part, resolved, usable, config,
                          lambda evidence, joint: evaluate_pair(part, evidence, joint).relation is Relation.SUPPORTS)


_JOINABLE = frozenset({Relation.MENTIONS, Relation.INSUFFICIENT, Relation.CONTEXTUALIZES, Relation.SUPPORTS})


def _joint_members(part: AtomicClaim, resolved: Sequence[ResolvedCitation], usable: list[int],
                   config: VerifierConfig, supports: Callable[[Evidence, VerifierConfig], bool]) -> list[int]:
    """The joint test over the ``usable`` citations (valid, not contradicting): their quotes as one
    evidence; ``supports(evidence, config)`` judges it."""
    if len(usable) < 2:
        return []
    cits = [resolved[i] for i in usable]
    quotes = " ".join(c.evidence.quote for c in cits if c.evidence)
    base = cits[0].evidence
    assert base is not None
    block = base.block_type if all(c.evidence.block_type == base.block_type for c in cits if c.evidence) \
        else "paragraph"
    combined = replace(base, quote=quotes, context=quotes, block_type=block,
                       heading_path=tuple(h for c in cits if c.evidence
                                          for h in (*c.evidence.heading_path, c.evidence.title or "")),
                       values=tuple(v for c in cits if c.evidence for v in c.evidence.values),
                       context_values=tuple(v for c in cits if c.evidence for v in c.evidence.context_values))
    statuses = [c.evidence.status for c in cits if c.evidence]
    if any(s != "current" for s in statuses):
        return []
    # polarity and value binding were judged per citation above; joined quotes would mix clauses
    if not supports(combined, replace(config, disabled_rules=(*config.disabled_rules, "GC401", "GC307"))):
        return []
    claim_terms = support_terms(part.text)
    return [i for i, c in zip(usable, cits, strict=True) if c.evidence and support_terms(c.evidence.envelope) & claim_terms]


def _part_status(part: AtomicClaim, verdicts: list[PairVerdict], resolved: Sequence[ResolvedCitation],
                 contradicting: list[dict[str, Any]]) -> ClaimStatus:
    if not resolved:
        return ClaimStatus.UNSUPPORTED
    if not any(c.valid for c in resolved):
        return ClaimStatus.INVALID
    supports = [v for v in verdicts if v.relation == Relation.SUPPORTS]
    against = [v for v in verdicts if v.relation == Relation.CONTRADICTS]
    supporting_sources = {resolved[v.index].source_key for v in supports}
    # a conflict found in the store takes two current sources (a disagreement inside the cited source is
    # only attached); citations of the claim itself that disagree are a conflict wherever they stand: a
    # span about the premium plan does not outvote the cited one about the basic plan
    current_against = [c for c in contradicting if c.get("status") == "current"
                       and c.get("source") not in supporting_sources]
    if supports:
        if current_against or any(resolved[v.index].evidence and resolved[v.index].evidence.status == "current"
                                  for v in against):
            return ClaimStatus.CONFLICT
        return ClaimStatus.SUPPORTED
    if against:
        return ClaimStatus.CONTRADICTED
    return ClaimStatus.INSUFFICIENT


def _verify_part(part: AtomicClaim, resolved: Sequence[ResolvedCitation], config: VerifierConfig,
                 contradicting: list[dict[str, Any]]) -> PartVerdict:
    verdicts: list[PairVerdict] = []
    for index, cit in enumerate(resolved):
        if not cit.valid or cit.evidence is None:
            verdicts.append(PairVerdict(index, Relation.INSUFFICIENT, 0.0, list(cit.findings)))
            continue
        verdict = evaluate_pair(part, cit.evidence, config, index)
        verdict.findings[:0] = cit.findings
        verdicts.append(verdict)
    note = ""
    if not any(v.relation is Relation.SUPPORTS for v in verdicts) and not config.lexical_only:
        members = _joint(part, resolved, config, verdicts)
        if members:
            names = ", ".join(f"#{i + 1}" for i in members)
            for index in members:
                verdicts[index].relation = Relation.SUPPORTS
                evidence = resolved[index].evidence
                covered = sorted({s.text for s in alignment_for(part, evidence).slots
                                  if s.status in {"found", "paraphrase"}}) if evidence else []
                detail = f"supports jointly with {names}" + (f"; covers {', '.join(covered)}" if covered else "")
                verdicts[index].findings.append(Finding("GC951", "joint-support", Outcome.PASS, detail))
            note = f"supported jointly by citations {names}"
    status = _part_status(part, verdicts, resolved, contradicting)
    return PartVerdict(part, status, verdicts, contradicting, note)


def _claim_status(parts: list[PartVerdict]) -> ClaimStatus:
    statuses = [p.status for p in parts]
    if all(s is ClaimStatus.SUPPORTED for s in statuses):
        return ClaimStatus.SUPPORTED
    for status in STATUS_ORDER:
        if status in statuses:
            return status
    return ClaimStatus.INSUFFICIENT


def _qualifiers(part: AtomicClaim) -> dict[str, Any]:
    return {
        "subject": part.subject, "predicate": part.predicate, "object": part.object,
        "negated": part.negated, "negation_cue": part.negation_cue, "modality": part.modality,
        "tense": part.tense, "conditions": list(part.conditions), "quantifier": part.quantifier,
        "entity": part.entity, "connective": part.connective,
        "values": [{"surface": v.surface, "magnitude": v.magnitude, "unit": v.unit, "kind": v.kind,
                    "counted_noun": v.counted_noun, "role": v.role} for v in part.values],
        "claim_type": part.claim_type,
    }


def _finding_out(finding: Finding) -> FindingOut:
    return FindingOut(finding.code, finding.rule, finding.outcome, finding.detail, finding.contribution)


def _citation_verdict(index: int, cit: ResolvedCitation, verdicts: list[PairVerdict]) -> CitationVerdict:
    relations = [v.relation for v in verdicts]
    if relations and all(r is Relation.SUPPORTS for r in relations):
        relation = Relation.SUPPORTS
    else:
        relation = next((r for r in (*SEVERITY, Relation.SUPPORTS) if r in relations), Relation.INSUFFICIENT)
    findings: dict[str, Finding] = {}
    for verdict in verdicts:
        for finding in verdict.findings:
            key = f"{finding.code}:{finding.outcome}:{finding.detail}"
            findings.setdefault(key, finding)
    # the part the citation does least for speaks for it (every part must be supported)
    weakest = min((v.decision for v in verdicts if v.decision), key=lambda d: d.probability, default=None)
    ref = cit.ref
    if any(f.code == "GC104" and f.outcome is Outcome.FAIL for f in cit.findings):
        # a restricted source cited in a public check: echo only what the answer itself said
        return CitationVerdict(
            index=index, source=ref.source, chunk_id=ref.chunk_id, revision=ref.revision, unit_id=None,
            start=ref.start, end=ref.end, quote=ref.quote, page=ref.page, symbol=None, heading_path=[],
            unit_status=None, role=ref.role, valid=False, relation=Relation.INSUFFICIENT, support_score=0.0,
            findings=[_finding_out(f) for f in findings.values()])
    return CitationVerdict(
        index=index, source=cit.source_key or ref.source, chunk_id=ref.chunk_id, revision=cit.revision_id,
        unit_id=cit.unit_id, start=cit.start, end=cit.end, quote=cit.quote, page=cit.page, symbol=cit.symbol,
        heading_path=list(cit.heading_path), unit_status=cit.unit_status, role=ref.role, valid=cit.valid,
        relation=relation, support_score=max((v.support_score for v in verdicts), default=0.0),
        findings=[_finding_out(f) for f in findings.values()], located=cit.located, rank_score=cit.rank_score,
        decision=_decision_out(weakest) if weakest else None,
        located_spans=cit.located_spans,
        # an uncited unit that holds the claim is named, never counted: only when this citation does not support
        supported_elsewhere=cit.elsewhere if relation is not Relation.SUPPORTS else None,
        evidence_kind=evidence_kind(cit.source_key or ref.source))


def verify_report(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                  config: VerifierConfig, *, audience: str = "internal") -> CheckReport:
    """Verify every claim of ``answer`` (already decomposed into ``parts_per_claim``): the typed report."""
    with using(config.domain_lexicon()):
        return _verify_report(store, answer, parts_per_claim, config, audience)


def _verify_report(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                   config: VerifierConfig, audience: str) -> CheckReport:
    from graphcite.verify.contradictions import find_contradictions

    refs = [ref for claim in answer.claims for ref in claim.citations]
    resolved_all = resolve_citations(store, refs, audience=audience)
    # the cited units' kept parses, in one read; the parses the rules make are kept after the verdicts
    parses = None if config.lexical_only else prepare_parses(
        store, [(c.unit_id, c.evidence.quote) for c in resolved_all if c.valid and c.evidence and c.unit_id])
    contradictions: dict[tuple[int, int], list[dict[str, Any]]] = {}
    if config.store_contradictions and not config.lexical_only:
        contradictions = find_contradictions(store, parts_per_claim, answer, resolved_all, audience=audience)
    if config.judge_kind == "local" and not config.lexical_only:
        _prefetch_judgements(answer, parts_per_claim, resolved_all, config)
    claims_out: list[ClaimVerdict] = []
    cursor = 0
    for ci, (claim, parts) in enumerate(zip(answer.claims, parts_per_claim, strict=True)):
        resolved = resolved_all[cursor:cursor + len(claim.citations)]
        cursor += len(claim.citations)
        part_verdicts = [_verify_part(part, resolved, config, contradictions.get((ci, pi), []))
                         for pi, part in enumerate(parts or [_whole(claim)])]
        claims_out.append(_claim_verdict(ci, claim, resolved, part_verdicts))
    if not config.lexical_only and verdict_may_use_restricted(audience):
        # a public verdict is the one a store without the restricted sources would give (issue 23 item 1)
        _mark_restricted_origins(store, answer, parts_per_claim, resolved_all, claims_out, audience)
    mark_claim_types(answer, claims_out)
    if parses is not None:
        parses.keep(store)
    return CheckReport(answer_id=answer.answer_id, question=answer.question, audience=audience,
                       verifier={"name": config.name, "config_hash": config.hash, **config.as_dict()},
                       claims=claims_out, metrics=metrics_for(claims_out), not_claims=list(answer.not_claims) or None)


def verify_claims(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                  config: VerifierConfig, *, audience: str = "internal") -> dict[str, Any]:
    """The report of :func:`verify_report` as plain JSON-ready data (what ``check --json`` prints)."""
    return verify_report(store, answer, parts_per_claim, config, audience=audience).to_dict()


def _whole(claim: InputClaim) -> AtomicClaim:
    return AtomicClaim(text=claim.text, span=(0, len(claim.text)))


def _prefetch_judgements(answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                         resolved_all: Sequence[ResolvedCitation], config: VerifierConfig) -> None:
    """Ask a batching judge (local:DIR) about every (part, citation) pair at once; the per-pair calls
    that follow find the answers kept by the judge."""
    from graphcite.verify.judges import judge_many

    pairs = []
    cursor = 0
    for claim, parts in zip(answer.claims, parts_per_claim, strict=True):
        resolved = resolved_all[cursor:cursor + len(claim.citations)]
        cursor += len(claim.citations)
        for part in parts or [_whole(claim)]:
            for cit in resolved:
                if cit.valid and cit.evidence is not None:
                    pairs.append((_judged_text(part, cit.evidence, config), cit.evidence.envelope))
    if pairs:
        judge_many(pairs, config)


def _mark_restricted_origins(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                             resolved_all: Sequence[ResolvedCitation], claims: list[ClaimVerdict],
                             audience: str) -> None:
    """GC953: a claim whose decisive values or terms come only from a restricted unit it does not cite.

    The internal report names the units; a public report says only that the origin is withheld."""
    from graphcite.verify.origin import OriginQuery, restricted_origins

    queries = []
    cursor = 0
    for ci, (claim, parts) in enumerate(zip(answer.claims, parts_per_claim, strict=True)):
        resolved = resolved_all[cursor:cursor + len(claim.citations)]
        cursor += len(claim.citations)
        if claims[ci].supported or not any(c.valid for c in resolved):
            continue
        values = [v for part in parts for v in part.values]
        queries.append(OriginQuery(str(ci), claim.text, values, [c.unit_id for c in resolved if c.unit_id]))
    if not queries:
        return
    for key, units in sorted(restricted_origins(store, queries).items()):
        verdict = claims[int(key)]
        detail = ("the claim's decisive content comes from a restricted source (withheld)" if audience == "public"
                  else "the claim's decisive content is found only in restricted unit(s) " + ", ".join(units))
        target = next((c for c in verdict.citations if c.valid), verdict.citations[0])
        target.findings.append(FindingOut("GC953", "restricted-origin", Outcome.FAIL, detail))


def _claim_verdict(index: int, claim: InputClaim, resolved: Sequence[ResolvedCitation],
                   parts: list[PartVerdict]) -> ClaimVerdict:
    status = _claim_status(parts)
    citations = [_citation_verdict(i, cit, [p.citations[i] for p in parts]) for i, cit in enumerate(resolved)]
    helpful = {v.index for p in parts for v in p.citations if v.relation is Relation.SUPPORTS}
    if helpful and len(resolved) > 1:
        for i, cit in enumerate(resolved):
            if cit.valid and i not in helpful:
                citations[i].findings.append(FindingOut(
                    "GC952", "citation-adds-nothing", Outcome.FAIL,
                    "supports no part of the claim, alone or jointly, while other citations do"))
    seen: set[str] = set()
    contradicting = []
    for part in parts:
        for item in part.contradicting:
            if item["unit_id"] not in seen:
                seen.add(item["unit_id"])
                contradicting.append(item)
    out = ClaimVerdict(index=index, text=claim.text, type=claim.claim_type or parts[0].claim.claim_type,
                       status=status, supported=status == ClaimStatus.SUPPORTED, citations=citations,
                       contradicting_evidence=contradicting,
                       premises=list(claim.premises) if claim.premises else None)
    if len(parts) > 1:
        out.parts = [PartVerdictOut(text=p.claim.text, span=list(p.claim.span), status=p.status,
                                    supported=p.supported, qualifiers=_qualifiers(p.claim), note=p.note,
                                    citations=[v.as_dict() for v in p.citations]) for p in parts]
    else:
        out.qualifiers = _qualifiers(parts[0].claim)
        if parts[0].note:
            out.note = parts[0].note
    return out


def metrics_for(claims: Sequence[ClaimVerdict]) -> dict[str, Any]:
    """citation_validity (supported / all claims) and faithfulness (1 when every claim is supported)."""
    total = len(claims)
    supported = sum(1 for c in claims if c.supported)
    citations = [cit for c in claims for cit in c.citations]
    counts: dict[str, int] = {}
    for claim in claims:
        counts[str(claim.status)] = counts.get(str(claim.status), 0) + 1
    out: dict[str, Any] = {
        "claims": total, "supported_claims": supported,
        "citation_validity": round(supported / total, 4) if total else 0.0,
        "faithfulness": 1.0 if total and supported == total else 0.0,
        "citations": len(citations),
        "citation_integrity": round(sum(1 for c in citations if c.valid) / len(citations), 4) if citations else 0.0,
        "status_counts": dict(sorted(counts.items())),
    }
    if not total:
        out["reason"] = "the answer has no claims: nothing was offered to check, so it is not faithful"
    return out
