"""Issue 23 item 1, the searches: a public verdict may not depend on restricted content through the
searches that look past the cited source (a claim held elsewhere, contradicting evidence).

Both searches rank units by the index terms they share with the claim and keep the best few. When
restricted units are dropped only *after* ranking (or still count towards what makes a term too
common to use), a restricted document full of the claim's words pushes the public unit out of the
public answer: trying texts tells what the restricted document says. And a restricted document that
declares ``supersedes:`` must not make a public unit "superseded" (nor be named as its successor).

Four stores that differ only in one restricted document of sixty paragraphs: unrelated text
(``quiet``), the same text declaring that it supersedes the public contradicting note
(``successor``), or paragraphs holding the claims' words with the figure 30 or 45 (``loud-30``,
``loud-45``: enough of them to make those words "too common" to search by, and better ranked than
the public units). The public reports must be the same in all three, by
the library and by a real ``graphcite serve --audience public``; the internal ones differ (so the
restricted document does reach the searches).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphcite.store import Store

PENDING = pytest.mark.xfail(strict=True, reason="verify/locate.py, store/queries/{verify,contradictions}.py "
                                                 "(H-speed) and verify/contradictions.py (lead) must leave restricted "
                                                 "units out before ranking; requested in .notes/requests.md")

PUBLIC = {
    "notes/policy.md": "---\ntitle: Retention policy\nkind: note\n---\n# Retention policy\n\n"
                       "Audit logs are kept according to the retention policy.\n",
    "notes/audit.md": "---\ntitle: Audit note\nkind: note\n---\n# Audit note\n\nAudit logs are kept for 90 days.\n",
    "posts/relay-intro.md": "---\ntitle: Relay intro\nkind: post\n---\n# Relay intro\n\n"
                            "The relay forwards events to subscribers.\n\nSubscribers register an endpoint.\n",
    "manuals/relay.md": "---\ntitle: Relay manual\nkind: manual\n---\n# Relay manual\n\n"
                        "The relay retries each failed delivery five times.\n",
}
VAULT = "ops/vault.md"
PLACES = [f"{a} {b}" for a in ("north", "south", "east", "west", "upper", "lower") for b in
          ("amber", "cobalt", "copper", "silver", "violet", "scarlet", "ivory", "onyx", "jade", "opal")]
ANSWER = {"answer_id": "search-probe", "claims": [
    {"text": "Audit logs are kept for 30 days.",  # notes/audit.md (public) says 90: contradicting evidence
     "citations": [{"source": "notes/policy.md", "quote": "Audit logs are kept according to the retention policy."}]},
    {"text": "The relay retries each failed webhook delivery five times.",  # manuals/relay.md holds it
     "citations": [{"source": "posts/relay-intro.md"}]},
]}
VARIANTS = ("quiet", "loud-30", "loud-45", "successor")


def vault(variant: str) -> str:
    """The restricted document of a variant (60 paragraphs either way)."""
    loud = variant.startswith("loud")
    head = "---\ntitle: Vault book\nkind: manual\nvisibility: restricted\n"
    head += "supersedes: notes/audit.md\n---\n" if variant != "quiet" else "---\n"
    if loud:
        figure = variant.split("-")[1]
        body = "".join(f"Audit logs are kept for {figure} days in the {p} vault, and the relay retries each failed "
                       f"webhook delivery five times there.\n\n" for p in PLACES)
    else:
        body = "".join(f"The canteen in the {p} wing serves soup at noon.\n\n" for p in PLACES)
    return f"{head}# Vault book\n\n{body}"


def _build(root: Path, variant: str) -> Path:
    from graphcite.ingest import ingest

    corpus = root / "corpus"
    for key, text in {**PUBLIC, VAULT: vault(variant)}.items():
        (corpus / key).parent.mkdir(parents=True, exist_ok=True)
        (corpus / key).write_text(text, encoding="utf-8")
    db = root / "search.duckdb"
    with Store(db) as store:
        ingest(store, [corpus])
    return db


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {v: _build(tmp_path_factory.mktemp(f"search-{v}"), v) for v in VARIANTS}


def _report(db: Path, audience: str) -> dict[str, Any]:
    from graphcite.claims.formats import load_answer
    from graphcite.verify import verify_answer

    with Store(db, read_only=True) as store:
        return verify_answer(store, load_answer(ANSWER), audience=audience)


def _shape(report: dict[str, Any]) -> str:
    """The report without what differs between stores for other reasons (ids, times)."""
    text = json.dumps(report, sort_keys=True)
    return re.sub(r'"(claim_id|answer_rev|verified_at|last_verified_at|elapsed_ms|timing)": [^,}]*', r'"\1": ""', text)


def _searched(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What the two searches gave each claim: its status, contradicting units and the unit held elsewhere."""
    return [(c["status"], [(e["source"], e["status"], e.get("superseded_by")) for e in c.get("contradicting_evidence")
                           or []],
             [(x.get("supported_elsewhere") or {}).get("source") for x in c["citations"]]) for c in report["claims"]]


def test_the_restricted_document_reaches_the_internal_searches(stores: dict[str, Path]) -> None:
    quiet, loud, successor = (_searched(_report(stores[v], "internal")) for v in ("quiet", "loud-30", "successor"))
    assert quiet == [("insufficient", [("notes/audit.md", "current", None)], [None]),
                     ("insufficient", [], ["manuals/relay.md"])]
    assert loud != quiet  # internally the vault's words count: the searches find other units (or none)
    assert successor[0][1] == [("notes/audit.md", "superseded", VAULT)]



def test_public_searches_are_the_same_whatever_the_restricted_text(stores: dict[str, Path]) -> None:
    reports = {v: _report(stores[v], "public") for v in VARIANTS}
    assert _searched(reports["quiet"]) == [
        ("insufficient", [("notes/audit.md", "current", None)], [None]),
        ("insufficient", [], ["manuals/relay.md"]),
    ], _searched(reports["quiet"])
    for variant in VARIANTS[1:]:
        assert _searched(reports[variant]) == _searched(reports["quiet"]), variant
        assert _shape(reports[variant]) == _shape(reports["quiet"]), variant
        assert VAULT not in json.dumps(reports[variant]) and "Vault book" not in json.dumps(reports[variant])



def test_a_restricted_supersession_never_names_its_source_publicly(stores: dict[str, Path]) -> None:
    """The leak itself, apart from the ranking: no public report names the restricted key (today the
    contradicting note is "superseded_by": "ops/vault.md")."""
    for variant in VARIANTS:
        text = json.dumps(_report(stores[variant], "public"))
        assert VAULT not in text and "vault" not in text.lower(), variant


# ----------------------------------------------------------------------------------------------
# the service: its warm view reads postings one term at a time and a batch prefetches candidates
# ----------------------------------------------------------------------------------------------


def _serve_support() -> Any:
    import importlib.util
    import sys

    if "serve_support" not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "serve" / "serve_support.py"
        spec = importlib.util.spec_from_file_location("serve_support", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["serve_support"] = module
        spec.loader.exec_module(module)
    return sys.modules["serve_support"]


@pytest.fixture(scope="module")
def loud_server(stores: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import shutil

    support = _serve_support()
    db = tmp_path_factory.mktemp("search-serve") / "loud.duckdb"
    shutil.copy(stores["loud-45"], db)
    server = support.start_server(db, "--audience", "public")
    try:
        yield server
    finally:
        support.stop_server(server)



def test_public_service_searches_are_the_same_whatever_the_restricted_text(stores: dict[str, Path],
                                                                            loud_server: Any) -> None:
    expected = _searched(_report(stores["quiet"], "public"))
    for _ in range(2):  # the second answer comes from the warm view
        response = httpx.post(f"{loud_server.url}/v1/check", content=json.dumps(ANSWER), timeout=120,
                              headers={"content-type": "application/json"})
        assert response.status_code == 200, response.text[:300]
        assert _searched(response.json()) == expected
        assert VAULT not in response.text and "vault" not in response.text.lower()
