"""A claim's status without its report: what the gate returns per sentence.

:func:`claim_statuses` gives each claim the status :func:`graphcite.verify.engine.verify_report` would,
from only the work that can change it. Findings, restricted origins and the report are left out. A
pair's rules run by the effect of their failure, most severe first, up to the first that fails (its
effect is the pair's relation; a noted rule cannot change it); a pair whose judge does not find support
runs only the rules that can make it contradict, and only when its score reaches the mention
threshold. Contradicting units are looked for only when a citation supports a part (they turn support
into conflict, nothing else). Joint support, the part and claim statuses and declared background are
decided by the engine's own functions; a claim's parts stop at the first contradicted one (only an
invalid part outranks it, and the parts of a claim share their citations, so all are invalid or none).
tests/serve/test_gate_warm.py compares every status with the report's on both engines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphcite.language.domain import using
from graphcite.lru import MISSING, LruCache
from graphcite.models import AtomicClaim, ClaimStatus, InputAnswer
from graphcite.store import Store
from graphcite.verify.config import VerifierConfig
from graphcite.verify.engine import (
    _JOINABLE,
    _PAIRS,
    SEVERITY,
    PairVerdict,
    PartVerdict,
    _active_rules,
    _claim_status,
    _joint_members,
    _pair_key,
    _PairKey,
    _part_status,
    _whole,
    evaluate_pair,
    verify_report,
)
from graphcite.verify.evidence import Evidence
from graphcite.verify.registry import RULES
from graphcite.verify.resolve import ResolvedCitation, resolve_citations

__all__ = ["claim_statuses"]


def claim_statuses(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                   config: VerifierConfig, *, audience: str = "internal") -> list[str]:
    """Each claim's status exactly as :func:`verify_report` decides it, without the rest of the report
    (see the module docstring). A judge other than the heuristic one gets the whole report."""
    if config.judge != "heuristic" or config.lexical_only or not _lean_rules(config):
        report = verify_report(store, answer, parts_per_claim, config, audience=audience)
        return [str(claim.status) for claim in report.claims]
    with using(config.domain_lexicon()):
        return _claim_statuses(store, answer, parts_per_claim, config, audience)


def _claim_statuses(store: Store, answer: InputAnswer, parts_per_claim: Sequence[Sequence[AtomicClaim]],
                    config: VerifierConfig, audience: str) -> list[str]:
    from graphcite.verify.contradictions import find_contradictions

    refs = [ref for claim in answer.claims for ref in claim.citations]
    resolved_all = resolve_citations(store, refs, audience=audience)
    found: list[dict[tuple[int, int], list[dict[str, Any]]]] = []

    def contradicting(ci: int, pi: int) -> list[dict[str, Any]]:
        if not found:  # the whole answer's search, once, as the report does it
            found.append(find_contradictions(store, parts_per_claim, answer, resolved_all, audience=audience)
                         if config.store_contradictions else {})
        return found[0].get((ci, pi), [])

    out = []
    cursor = 0
    for ci, (claim, parts) in enumerate(zip(answer.claims, parts_per_claim, strict=True)):
        resolved = resolved_all[cursor:cursor + len(claim.citations)]
        cursor += len(claim.citations)
        statuses = []
        for pi, part in enumerate(parts or [_whole(claim)]):
            verdicts = _part_relations(part, resolved, config)
            against = contradicting(ci, pi) if any(v.relation == "supports" for v in verdicts) else []
            statuses.append(PartVerdict(part, _part_status(part, verdicts, resolved, against), verdicts))
            if statuses[-1].status == "contradicted":
                break  # the parts share their citations, so none is invalid: the claim is contradicted
        status = _claim_status(statuses)
        if claim.claim_type == "background" and claim.citations and status == "supported":
            status = "insufficient"  # as graphcite.verify.claim_types.mark_claim_types decides
        out.append(str(ClaimStatus(status)))
    return out


@dataclass(slots=True)
class _Relation:
    """What the status needs of one pair: its relation, its support score and whether a rule whose
    failure means ``contradicts`` fails (None until asked)."""

    relation: str
    score: float
    contradicted: bool | None


def _part_relations(part: AtomicClaim, resolved: Sequence[ResolvedCitation], config: VerifierConfig
                    ) -> list[PairVerdict]:
    """The part's pair verdicts without findings (relations only), joint support included."""
    relations = [_relation(part, c.evidence, config) if c.valid and c.evidence is not None else None
                 for c in resolved]
    verdicts = [PairVerdict(i, r.relation if r else "insufficient", r.score if r else 0.0)
                for i, r in enumerate(relations)]
    if not any(v.relation == "supports" for v in verdicts):
        joinable = [(i, c.evidence, r) for i, (c, r) in enumerate(zip(resolved, relations, strict=True))
                    if r is not None and c.evidence is not None and r.relation in _JOINABLE]
        if len(joinable) < 2:  # joint support takes two citations: no contradicts rule need run
            return verdicts
        usable = [i for i, evidence, r in joinable if not _contradicted(part, evidence, config, r)]
        for index in _joint_members(part, resolved, usable, config,
                                    lambda evidence, joint: _relation(part, evidence, joint).relation == "supports"):
            verdicts[index].relation = "supports"
    return verdicts


def _fails(rules: Sequence[Any], claim: AtomicClaim, evidence: Evidence) -> bool:
    return any(rule.run(claim, evidence).outcome == "fail" for rule in rules)


def _relation(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig) -> _Relation:
    """The relation :func:`evaluate_pair` gives, from the rules that decide it (remembered per pair)."""
    key = _pair_key(claim, evidence, config)
    full = _PAIRS.get(key) if key is not None else MISSING
    if isinstance(full, PairVerdict):
        return _Relation(full.relation, full.support_score,
                         any(f.outcome == "fail" and f.effect == "contradicts" for f in full.findings))
    kept = _RELATIONS.get(key) if key is not None else MISSING
    if isinstance(kept, _Relation):
        return kept
    # the one decision: the full pair verdict (the calibrated model and the notes included); a lean
    # re-derivation drifted from it once the decision stopped being a plain share threshold
    full = evaluate_pair(claim, evidence, config)
    relation = full.relation
    contradicted = any(f.outcome == "fail" and f.effect == "contradicts" for f in full.findings)
    score = full.support_score
    found = _Relation(relation, score, contradicted)
    if key is not None:
        _RELATIONS.put(key, found)
    return found


def _contradicted(claim: AtomicClaim, evidence: Evidence, config: VerifierConfig, found: _Relation) -> bool:
    """Whether a contradicts-effect rule fails for the pair (what joint support leaves out)."""
    if found.contradicted is None:
        found.contradicted = _fails(_lean_rules(config)["contradicts"], claim, evidence)
    return found.contradicted


def _lean_rules(config: VerifierConfig) -> dict[str, tuple[Any, ...]]:
    """The active rules that can change a relation (a noted rule cannot), by the effect of their failure;
    empty when some rule's effect is not one of :data:`SEVERITY` (then only the whole report decides)."""
    key = (config.disabled_rules, config.note_rules, len(RULES))
    found = _BY_EFFECT.get(key)
    if found is None:
        notes = set(config.note_rules)
        active = [r for r in _active_rules(config) if r.code not in notes]
        found = {effect: tuple(r for r in active if r.effect == effect) for effect in SEVERITY}
        if sum(map(len, found.values())) != len(active):
            found = {}
        _BY_EFFECT[key] = found
    return found


#: pair relations worked out without findings (never handed out as a PairVerdict)
_RELATIONS: LruCache[_PairKey, _Relation] = LruCache(20_000)
_BY_EFFECT: dict[tuple[Any, ...], dict[str, tuple[Any, ...]]] = {}
