"""Domain lexicons: a corpus's own vocabulary, loaded as configuration and versioned by its hash.

General English comes from WordNet and ``data/words.json``. What is true only in one corpus (its
predicate synonyms, counting equivalences such as "attempts = retries + 1", the nouns that follow
its product names, the verbs its runbooks open instructions with) lives in a domain lexicon file that
``VerifierConfig(domain=...)`` loads; the file's hash is part of every verification record, so a
verdict always says which vocabulary it used. The default is :data:`GENERAL` (empty).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["GENERAL", "DomainLexicon", "Equivalence", "active", "load_domain", "using"]


@dataclass(frozen=True, slots=True)
class Equivalence:
    """``count(a) = count(b) + offset``: "four attempts" are "three retries" when offset is 1."""

    a: frozenset[str]
    b: frozenset[str]
    offset: int


@dataclass(frozen=True, slots=True)
class DomainLexicon:
    """One corpus's vocabulary; every field empty in the general-English default."""

    name: str = "general"
    synonyms: tuple[frozenset[str], ...] = ()
    equivalences: tuple[Equivalence, ...] = ()
    entity_nouns: frozenset[str] = frozenset()
    imperative_verbs: frozenset[str] = frozenset()
    # lexical relations that count as saying the same thing: a narrower word ("slices" for "cuts",
    # "guitar" for "instrument") entails the broader one in ordinary prose; a corpus of precise
    # specifications may want only synonyms and derivations
    paraphrase: frozenset[str] = frozenset({"synonym", "derived", "hyponym"})
    digest: str = "general"

    def synonyms_of(self, word: str) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for group in self.synonyms:
            if word in group:
                out |= group
        return out


GENERAL = DomainLexicon()
_ACTIVE: ContextVar[DomainLexicon] = ContextVar("graphcite_domain", default=GENERAL)


def active() -> DomainLexicon:
    """The domain lexicon of the check in progress (the general default outside one)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def using(lexicon: DomainLexicon) -> Iterator[DomainLexicon]:
    """Make ``lexicon`` the active one for the duration of a check."""
    token = _ACTIVE.set(lexicon)
    try:
        yield lexicon
    finally:
        _ACTIVE.reset(token)


def _words(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: expected a list of words")
    return frozenset(v.strip().lower() for v in value)


_RELATIONS = frozenset({"synonym", "derived", "hyponym", "topic"})


def _paraphrase(value: Any) -> frozenset[str]:
    if value is None:
        return GENERAL.paraphrase
    words = _words(value, "paraphrase")
    if not words <= _RELATIONS:
        raise ValueError(f"paraphrase: use some of {', '.join(sorted(_RELATIONS))}")
    return words


_CACHE: dict[tuple[str, int, int], DomainLexicon] = {}


def load_domain(path: str | Path) -> DomainLexicon:
    """Read a domain lexicon (YAML: name, synonyms, equivalences, entity_nouns, imperative_verbs).

    Raises ``ValueError`` naming the field on a malformed file and ``OSError`` when it cannot be read;
    the verifier configuration turns both into one clear line."""
    import yaml

    file = Path(path)
    info = file.stat()
    key = (str(file.resolve()), info.st_mtime_ns, info.st_size)
    if key in _CACHE:  # every check asks for its domain: read and hash the file only when it changed
        return _CACHE[key]
    raw = file.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:16]
    data = yaml.safe_load(raw.decode("utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError("expected a mapping with name, synonyms, equivalences, entity_nouns, imperative_verbs")
    fields = {"name", "synonyms", "equivalences", "entity_nouns", "imperative_verbs", "paraphrase", "about"}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field")
    groups = data.get("synonyms") or []
    if not isinstance(groups, list):
        raise ValueError("synonyms: expected a list of word lists")
    equivalences = []
    for i, item in enumerate(data.get("equivalences") or []):
        if not isinstance(item, dict) or not isinstance(item.get("offset", 0), int):
            raise ValueError(f"equivalences[{i}]: expected {{count: [...], equals: [...], offset: N}}")
        equivalences.append(Equivalence(_words(item.get("count"), f"equivalences[{i}].count"),
                                        _words(item.get("equals"), f"equivalences[{i}].equals"),
                                        int(item.get("offset", 0))))
    lexicon = DomainLexicon(
        name=str(data.get("name") or file.stem),
        synonyms=tuple(_words(g, f"synonyms[{i}]") for i, g in enumerate(groups)),
        equivalences=tuple(equivalences),
        entity_nouns=_words(data.get("entity_nouns") or [], "entity_nouns"),
        imperative_verbs=_words(data.get("imperative_verbs") or [], "imperative_verbs"),
        paraphrase=_paraphrase(data.get("paraphrase")),
        digest=digest)
    _CACHE[key] = lexicon
    return lexicon
