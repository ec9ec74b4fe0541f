"""A contrastive probe on real sentences: minimal edits of claims the verifier supports.

Public claim/evidence sets are built by editing true claims minimally: a swapped entity, a changed
number or year, an antonym, an inserted or removed negation, subject and object exchanged. This probe
does the same, automatically, to every gold-supported pair of the development parts of SICK and
CLIMATE-FEVER (see ``benchmarks/realtext.py``) that the verifier currently SUPPORTS, cites the same
evidence with the edited claim, and counts per edit kind how often the edited claim is still
SUPPORTED. For the first four kinds that share should be near zero: each edit makes the claim say
something the evidence does not. It is a development probe written by us, not an accuracy figure.

    python -m benchmarks.contrast [--data sick,climate-fever] [--limit N] [--json] [--dump FILE]
                                  [--disable GC207,...] [--spacy-model NAME]

The edits read the claim with graphcite's own reader (spaCy's tokenizer and lookup lemmas, WordNet):
names are runs of capitalised words, labelled by their WordNet class ("city", "country") or as a
nationality, else as a plain name; a trained spaCy pipeline, when installed and named with
``--spacy-model``, labels names with its entity recogniser instead. Every choice (which word, which
replacement) is a function of the pair's id, so a run is reproducible byte for byte.

(a) ``entity``: a name of the claim that the evidence also has becomes another name of the same
    label from the same data set, one the evidence does not contain;
(b) ``number``: a year moves by seven; another number is tripled; a number word becomes another;
(c) ``antonym``: a content word becomes its WordNet antonym (inflected like the word), never one the
    claim already uses ("a man and a woman" does not become "a man and a man");
(d) ``negation``: "not" is removed where the claim has it, else inserted after the first auxiliary
    ("is" -> "is not") or before the first inflected verb ("causes" -> "does not cause");
(e) ``roles``: the subject and the object of a transitive verb change places ("a man is cutting a
    potato" -> "a potato is cutting a man");
(f) ``scalar``: a word of direction, order or amount becomes its opposite, whether or not WordNet
    links them: "increase" / "decrease", "rose" / "fell", "more" / "less", "before" / "after",
    "most" / "few", a comparative ("higher" / "lower", "warmer" / "cooler");
(g) ``entity_here``: a name of the claim becomes another name of the same label that the evidence
    itself mentions ("Oslo" for "Bergen" when the passage names both), the hardest entity swap.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

from benchmarks.realtext import DATASETS, build

KINDS = ("entity", "number", "antonym", "negation", "roles", "scalar", "entity_here")
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve")
_AUXILIARIES = frozenset({"is", "are", "was", "were", "can", "could", "will", "would", "should", "may",
                          "might", "must", "has", "have", "had"})
_NEGATED = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "doesn't": "does",
            "don't": "do", "didn't": "did", "can't": "can", "cannot": "can", "won't": "will",
            "couldn't": "could", "wouldn't": "would", "hasn't": "has", "haven't": "have", "hadn't": "had"}
_DETERMINERS = frozenset({"a", "an", "the", "some", "two", "three", "four", "one", "this", "that", "these",
                          "those", "his", "her", "their", "its", "several", "many"})
# opposed words of direction, order and amount, each way (the probe's own list, written for it)
_SCALAR_PAIRS = (("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"),
                 ("increasing", "decreasing"), ("rise", "fall"), ("rises", "falls"), ("rose", "fell"),
                 ("rising", "falling"), ("risen", "fallen"), ("grow", "shrink"), ("grows", "shrinks"),
                 ("grew", "shrank"), ("growing", "shrinking"), ("gain", "loss"), ("gains", "losses"),
                 ("more", "less"), ("most", "few"), ("many", "few"), ("before", "after"), ("earlier", "later"),
                 ("higher", "lower"), ("highest", "lowest"), ("larger", "smaller"), ("largest", "smallest"),
                 ("warmer", "cooler"), ("warming", "cooling"), ("faster", "slower"), ("stronger", "weaker"),
                 ("above", "below"), ("accelerating", "slowing"), ("melting", "freezing"),
                 ("positive", "negative"), ("major", "minor"), ("majority", "minority"))
_SCALAR = {**dict(_SCALAR_PAIRS), **{b: a for a, b in _SCALAR_PAIRS}}
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)")


def _pick(key: str, options: list[str]) -> str | None:
    """One of ``options``, chosen by a hash of ``key`` (reproducible, spread over the options)."""
    if not options:
        return None
    return options[int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % len(options)]


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# -- names and their labels -------------------------------------------------------------------------


def _name_runs(text: str) -> list[tuple[int, int, str]]:
    """The names of ``text`` as (start, end, surface): runs of name words separated by one space."""
    from graphcite.language.words import words_of

    runs: list[tuple[int, int, str]] = []
    for word in words_of(text):
        if not word.proper:
            continue
        if runs and text[runs[-1][1]:word.start] == " ":
            start = runs[-1][0]
            runs[-1] = (start, word.end, text[start:word.end])
        else:
            runs.append((word.start, word.end, word.surface))
    return runs


class _Labeller:
    """Labels a name: a trained pipeline's entity label when one is named, else WordNet's class."""

    def __init__(self, model: str | None) -> None:
        self.nlp = None
        if model:
            from graphcite.language.nlp import get_nlp

            self.nlp = get_nlp(model)

    def names(self, text: str) -> list[tuple[int, int, str, str]]:
        if self.nlp is not None:
            return [(e.start_char, e.end_char, e.text, e.label_) for e in self.nlp(text).ents
                    if e.label_ not in {"CARDINAL", "DATE", "QUANTITY", "PERCENT", "MONEY", "ORDINAL", "TIME"}]
        from graphcite.language.lexicon import name_class, nationality_of

        out = []
        for start, end, surface in _name_runs(text):
            label = "nationality" if nationality_of(surface) else (name_class(surface) or "name")
            out.append((start, end, surface, label))
        return out


def name_pool(texts: Iterable[str], labeller: _Labeller) -> dict[str, list[str]]:
    """Every name of the texts by label, sorted, each once (case-insensitively)."""
    pool: dict[str, dict[str, str]] = {}
    for text in texts:
        for _, _, surface, label in labeller.names(text):
            pool.setdefault(label, {}).setdefault(surface.lower(), surface)
    return {label: sorted(names.values()) for label, names in sorted(pool.items())}


# -- the five edits -----------------------------------------------------------------------------------


def entity_edit(key: str, claim: str, evidence: str, pool: dict[str, list[str]], labeller: _Labeller) -> str | None:
    """A name shared with the evidence becomes another name of its label the evidence lacks."""
    lowered = evidence.lower()
    shared = [n for n in labeller.names(claim) if n[2].lower() in lowered]
    chosen = None
    for start, end, surface, label in shared:
        words = set(surface.lower().split())
        options = [o for o in pool.get(label, []) if o.lower() not in lowered and o.lower() not in claim.lower()
                   and not words & set(o.lower().split())]
        replacement = _pick(key + surface, options)
        if replacement:
            chosen = (start, end, replacement)
            break
    return _replace(claim, *chosen) if chosen else None


def number_edit(key: str, claim: str) -> str | None:
    """A year moves by seven, another number is tripled, a number word becomes another."""
    found = _NUMBER.search(claim)
    if found:
        surface = found.group(1)
        plain = surface.replace(",", "")
        value = float(plain)
        if plain.isdigit() and len(plain) == 4 and 1000 <= value <= 2100:
            new = str(int(value) + 7)
        elif "." in plain:
            new = f"{value * 3:.{len(plain.split('.')[1])}f}"
        else:
            new = f"{int(value) * 3 or 5:,}" if "," in surface else str(int(value) * 3 or 5)
        return _replace(claim, found.start(1), found.end(1), new)
    for match in re.finditer(r"\b[A-Za-z]+\b", claim):
        word = match.group(0).lower()
        if word in _NUMBER_WORDS and word != "one":  # "one of", "one another" are seldom counts
            at = _NUMBER_WORDS.index(word)
            new = _NUMBER_WORDS[(at + 3) % len(_NUMBER_WORDS)]
            if match.group(0)[0].isupper():
                new = new.capitalize()
            return _replace(claim, match.start(), match.end(), new)
    return None


def _inflect(antonym: str, word: str, base: str) -> str | None:
    """The antonym in the word's form: plain, -s, -ed or -ing as the word carries it over its base."""
    if word == base:
        if word.endswith("ly") and not antonym.endswith("ly"):
            return antonym + ("y" if antonym.endswith("l") else "ly")
        return antonym
    stem = antonym[:-1] if antonym.endswith("e") else antonym
    for tail, made in (("s", antonym + ("es" if antonym.endswith(("s", "x", "ch", "sh")) else "s")),
                       ("es", antonym + "es"), ("d", antonym + "d"), ("ed", stem + "ed"), ("ing", (antonym[:-2] + "y" if antonym.endswith("ie") else stem) + "ing")):
        if word in {base + tail, base[:-1] + tail if base.endswith("e") else base + tail,
                    base + base[-1] + tail}:
            return made
    return None


def antonym_edit(key: str, claim: str) -> str | None:
    """A content word becomes a WordNet antonym of one of its base forms, inflected like the word."""
    from graphcite.language import lexicon
    from graphcite.language.words import STOPWORDS, words_of

    candidates = []
    for word in words_of(claim):
        low = word.lower
        if word.proper or low in STOPWORDS or len(low) < 3:
            continue
        found = None
        for base in sorted(lexicon.base_forms(low), key=len):  # "warm" before "warming"
            # an antonym the claim already uses makes a repetition ("a man and a man"), not an opposite
            for option in sorted(a for a in lexicon.antonyms(base) if " " not in a and "-" not in a and a != base
                                 and not re.search(rf"\b{re.escape(a)}", claim, re.I)):
                new = _inflect(option, low, base)
                if new:
                    found = new[0].upper() + new[1:] if word.surface[0].isupper() else new
                    break
            if found:
                break
        if found:
            candidates.append((word.start, word.end, found))
    chosen = _pick(key, [f"{s}:{e}:{n}" for s, e, n in candidates])
    if chosen is None:
        return None
    start, end, new = chosen.split(":", 2)
    return _replace(claim, int(start), int(end), new)


def negation_edit(claim: str) -> str | None:
    """Remove the claim's negation, or insert one after its first auxiliary or before its first verb."""
    from graphcite.language import lexicon

    for cue, plain in _NEGATED.items():
        found = re.search(rf"\b{re.escape(cue)}\b", claim, re.I)
        if found:
            return _replace(claim, found.start(), found.end(), plain)
    found = re.search(r"\s(?:not|never)\b", claim, re.I)
    if found:
        return _replace(claim, found.start(), found.end(), "")
    found = re.search(r"\bno\b", claim)
    if found:
        return _replace(claim, found.start(), found.end(), "some")
    words = list(re.finditer(r"[A-Za-z][A-Za-z'\-]*", claim))
    for match in words:
        if match.group(0).lower() in _AUXILIARIES:
            return _replace(claim, match.end(), match.end(), " not")
    for before, match in pairwise(words):
        word = match.group(0)
        low = word.lower()
        if word[0].isupper() or not low.endswith(("s", "ed")) or low.endswith("ss") \
                or before.group(0).lower() in _DETERMINERS:  # "the floods" is a noun
            continue
        bases = [b for b in lexicon.base_forms(low, "v") if b != low and " " not in b]
        if bases:
            helper = "did" if low.endswith("ed") else "does"
            return _replace(claim, match.start(), match.end(), f"{helper} not {bases[0]}")
    return None


def _noun_phrase(words: list[re.Match[str]], at: int) -> int | None:
    """The end index (exclusive) of a determiner-led noun phrase starting at word ``at``, at most 4 words."""
    from graphcite.language.words import STOPWORDS

    if at >= len(words) or words[at].group(0).lower() not in _DETERMINERS:
        return None
    end = at + 1
    while end < len(words) and end - at < 4 and words[end].group(0).lower() not in STOPWORDS:
        end += 1
    return end if end > at + 1 else None


def roles_edit(claim: str) -> str | None:
    """Exchange a determiner-led subject and object around the first verb: "a man is cutting a potato"."""
    words = list(re.finditer(r"[A-Za-z][A-Za-z'\-]*", claim))
    subject_end = _noun_phrase(words, 0)
    if subject_end is None or subject_end >= len(words):
        return None
    verb = subject_end
    if words[verb].group(0).lower() in {"is", "are", "was", "were"} and verb + 1 < len(words) \
            and words[verb + 1].group(0).lower().endswith("ing"):
        verb += 1
    elif not words[verb].group(0).lower().endswith(("s", "ed")):
        return None
    object_end = _noun_phrase(words, verb + 1)
    if object_end is None:
        return None
    subject = claim[words[0].start():words[subject_end - 1].end()]
    obj = claim[words[verb + 1].start():words[object_end - 1].end()]
    middle = claim[words[subject_end - 1].end():words[verb + 1].start()]
    swapped = obj[0].upper() + obj[1:] + middle + subject[0].lower() + subject[1:]
    return claim[:words[0].start()] + swapped + claim[words[object_end - 1].end():]


def scalar_edit(key: str, claim: str) -> str | None:
    """A word of direction, order or amount becomes its opposite ("rose" -> "fell", "more" -> "less")."""
    found = [m for m in re.finditer(r"[A-Za-z]+", claim) if m.group(0).lower() in _SCALAR]
    chosen = _pick(key, [f"{m.start()}:{m.end()}" for m in found])
    if chosen is None:
        return None
    start, end = map(int, chosen.split(":"))
    word = claim[start:end]
    new = _SCALAR[word.lower()]
    if word.lower() == "most" and claim[:start].lower().endswith("the "):
        new = "least"  # "the most widespread" -> "the least widespread", not "the few widespread"
    return _replace(claim, start, end, new.capitalize() if word[0].isupper() else new)


def entity_here_edit(key: str, claim: str, evidence: str, labeller: _Labeller) -> str | None:
    """A name shared with the evidence becomes another name of its label (or a WordNet sibling of it:
    "Oslo" a port, "Bergen" a city) that the evidence also has."""
    from graphcite.language import lexicon

    lowered = claim.lower()
    theirs = labeller.names(evidence)
    for start, end, surface, label in labeller.names(claim):
        if surface.lower() not in evidence.lower():
            continue
        words = set(surface.lower().split())
        options = sorted({t[2] for t in theirs if (t[3] == label or lexicon.related(surface, t[2]) == "sibling")
                          and t[2].lower() not in lowered and not words & set(t[2].lower().split())})
        replacement = _pick(key + surface, options)
        if replacement:
            return _replace(claim, start, end, replacement)
    return None


def edits(item: dict[str, Any], pool: dict[str, list[str]], labeller: _Labeller) -> dict[str, str]:
    """The probe's edits of one labelled pair, by kind (a kind is absent when it does not apply)."""
    key, claim = item["id"], item["claim"]
    evidence = " ".join(c["quote"] for c in item["citations"])
    makers: dict[str, Callable[[], str | None]] = {
        "entity": lambda: entity_edit(key, claim, evidence, pool, labeller),
        "number": lambda: number_edit(key, claim),
        "antonym": lambda: antonym_edit(key, claim),
        "negation": lambda: negation_edit(claim),
        "roles": lambda: roles_edit(claim),
        "scalar": lambda: scalar_edit(key, claim),
        "entity_here": lambda: entity_here_edit(key, claim, evidence, labeller),
    }
    out = {}
    for kind, make in makers.items():
        edited = make()
        if edited and edited.strip() != claim.strip():
            out[kind] = edited
    return out


# -- the run -------------------------------------------------------------------------------------------


def run(data: str, limit: int | None = None, disabled: tuple[str, ...] = (),
        model: str | None = None) -> dict[str, Any]:
    from graphcite.evaluate import load_set, score_items
    from graphcite.store import open_store
    from graphcite.verify.config import VerifierConfig

    db, sets = build(*DATASETS[data])
    items = [i for i in load_set(sets["dev"]) if i["gold_supported"]]
    if limit:
        items = items[::max(1, len(items) // limit)][:limit]
    labeller = _Labeller(model)
    config = VerifierConfig(disabled_rules=disabled)
    pool = name_pool((t for i in load_set(sets["dev"]) for t in (i["claim"], i["citations"][0]["quote"])), labeller)
    out: dict[str, Any] = {"data": data, "gold_supported": len(items), "kinds": {}, "examples": []}
    with open_store(db, read_only=True) as store:
        supported = [i for i, s in zip(items, score_items(store, items, config), strict=True) if s["supported"]]
        out["verifier_supports"] = len(supported)
        probes: list[dict[str, Any]] = []
        for item in supported:
            for kind, edited in edits(item, pool, labeller).items():
                probes.append({**item, "id": f"{item['id']}~{kind}", "claim": edited, "gold_supported": False,
                               "category": kind, "original": item["claim"]})
        scored = score_items(store, probes, config)
    for kind in KINDS:
        rows = [(p, s) for p, s in zip(probes, scored, strict=True) if p["category"] == kind]
        kept = [p for p, s in rows if s["supported"]]
        out["kinds"][kind] = {"edits": len(rows), "still_supported": len(kept),
                              "survival": round(len(kept) / len(rows), 3) if rows else None}
    out["examples"] = [{"kind": p["category"], "original": p["original"], "edited": p["claim"],
                        "evidence": p["citations"][0]["quote"], "supported": s["supported"], "vetoes": s["vetoes"]}
                       for p, s in zip(probes, scored, strict=True)]
    return out


def main(argv: list[str]) -> None:
    names = argv[argv.index("--data") + 1].split(",") if "--data" in argv else ["sick", "climate-fever"]
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    disabled = tuple(argv[argv.index("--disable") + 1].split(",")) if "--disable" in argv else ()
    model = argv[argv.index("--spacy-model") + 1] if "--spacy-model" in argv else None
    results = []
    for data in names:
        if not DATASETS[data][0].exists():
            print(f"skipped {data}: {DATASETS[data][0]} is absent")
            continue
        results.append(run(data, limit, disabled, model))
    if "--dump" in argv:
        Path(argv[argv.index("--dump") + 1]).write_text(
            "\n".join(json.dumps({"data": r["data"], **e}, sort_keys=True, ensure_ascii=False)
                      for r in results for e in r["examples"]) + "\n", encoding="utf-8")
    for result in results:
        result.pop("examples")
    if "--json" in argv:
        print(json.dumps(results, sort_keys=True))
        return
    for result in results:
        print(f"{result['data']} dev: {result['gold_supported']} gold-supported pairs, "
              f"{result['verifier_supports']} supported by the verifier (the probe's base)")
        for kind, row in result["kinds"].items():
            print(f"  {kind:9} edits={row['edits']:5}  still_supported={row['still_supported']:5}  "
                  f"survival={row['survival']}")


if __name__ == "__main__":
    main(sys.argv[1:])
