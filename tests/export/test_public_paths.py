"""Issue 23 items 1, 3-11: every public path, one restricted corpus, one outcome.

The corpus is restricted_corpus.py grown by public_paths_support.py (a restricted table, an old public
revision of a now restricted source, a judgement on a withheld claim). Each path (the command line,
the HTTP API and review pages of a real ``graphcite serve``, answerable, check-summary, the library)
is searched for every restricted key, id, title, figure and the withheld rationale; the internal
output is searched too, so the search is shown to find them.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from public_paths_support import EXTRA_SECRETS, RATIONALE, TABLE_CLAIM, Built, build_paths_store
from restricted_corpus import CLAIMS, secrets
from typer.testing import CliRunner

from graphcite.errors import GraphciteError
from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]
SERVE_TESTS = ROOT / "tests" / "serve"


def _serve_support() -> Any:
    import importlib.util
    import sys

    if "serve_support" not in sys.modules:
        spec = importlib.util.spec_from_file_location("serve_support", SERVE_TESTS / "serve_support.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["serve_support"] = module
        spec.loader.exec_module(module)
    return sys.modules["serve_support"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_paths_store(tmp_path_factory.mktemp("public-paths"))


@pytest.fixture(scope="module")
def secret_strings(built: Built) -> list[str]:
    with Store(built.db, read_only=True) as store:
        found = secrets(store)
        found += [r["revision_id"] for r in store.rows(
            "SELECT revision_id FROM source_revision WHERE source_key IN ('ops/keys.md', 'notes/turned.md')")]
        found += [r["unit_id"] for r in store.rows(
            "SELECT unit_id FROM evidence_unit WHERE source_key IN ('ops/keys.md', 'notes/turned.md')")]
    return [*found, *EXTRA_SECRETS]


def leaks(text: str, secret_strings: list[str]) -> list[str]:
    low = text.lower()
    return sorted({s for s in secret_strings if s.lower() in low})


def copy_of(built: Built, tmp_path: Path, bare: bool = False) -> Path:
    target = tmp_path / ("bare.duckdb" if bare else "copy.duckdb")
    shutil.copy(built.bare if bare else built.db, target)
    return target


def cli(*args: str) -> Any:
    from graphcite.cli import app

    return CliRunner().invoke(app, list(args))


# ----------------------------------------------------------------------------------------------
# servers: public with judgements, internal with judgements, internal without any
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def servers(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    support = _serve_support()
    folder = tmp_path_factory.mktemp("public-paths-servers")
    started: dict[str, Any] = {}
    try:
        public_db = folder / "public.duckdb"
        shutil.copy(built.db, public_db)
        started["public"] = support.start_server(public_db, "--audience", "public", reviewers=("rev",))
        started["public"].db = public_db
        internal_db = folder / "internal.duckdb"
        shutil.copy(built.db, internal_db)
        started["internal"] = support.start_server(internal_db)
        bare_db = folder / "bare.duckdb"
        shutil.copy(built.bare, bare_db)
        started["bare"] = support.start_server(bare_db)
        yield started
    finally:
        for server in started.values():
            support.stop_server(server)


def _answer_body(text: str) -> str:
    return json.dumps({"answer_id": "probe", "claims": [
        {"text": text, "citations": [{"source": "posts/rotation.md",
                                      "quote": "Signing keys are rotated on a fixed schedule."}]}]})


def _normalised(report: dict[str, Any], figure: str) -> str:
    """A report with the probed figure, ids and times taken out: what must not change with the figure."""
    text = re.sub(rf"(?<![0-9a-f.]){figure}(?![0-9a-f])", "N", json.dumps(report, sort_keys=True))
    text = re.sub(r'"(claim_id|answer_rev|verified_at|last_verified_at)": "[^"]*"', r'"\1": ""', text)
    return text


FIGURES = ("45", "44", "400", "3")


# ----------------------------------------------------------------------------------------------
# item 1: no public status, finding or score depends on a restricted figure
# ----------------------------------------------------------------------------------------------


def test_public_check_is_the_same_whatever_the_restricted_figure(built: Built) -> None:
    from graphcite.claims.formats import load_answer
    from graphcite.verify import verify_answer

    with Store(built.db, read_only=True) as store:
        reports = {n: verify_answer(store, load_answer(json.loads(_answer_body(
            f"Signing keys are rotated every {n} days."))), audience="public") for n in FIGURES}
        internal = verify_answer(store, load_answer(json.loads(_answer_body(
            "Signing keys are rotated every 45 days."))), audience="internal")
    assert "GC953" in json.dumps(internal)  # the internal report does trace the figure
    shapes = {n: _normalised(r, n) for n, r in reports.items()}
    assert len(set(shapes.values())) == 1, shapes
    assert "GC953" not in shapes["45"]


def test_public_answerable_is_the_same_whatever_the_restricted_figure(built: Built) -> None:
    from graphcite.lifecycle.answerable import answerable

    with Store(built.db, read_only=True) as store:
        results = {n: answerable(store, {"audience": "public", "needs": [
            {"id": "rotation", "query": f"signing keys are rotated every {n} days"}]}) for n in FIGURES}
        internal = answerable(store, {"needs": [{"id": "rotation", "query": "signing keys are rotated every 45 days"}]})
    assert internal["needs"][0]["state"] == "present"  # the runbook holds it (internal audience)
    shapes = {n: _normalised(r, n) for n, r in results.items()}
    assert len(set(shapes.values())) == 1, shapes
    assert results["45"]["needs"][0]["state"] == "missing"


def test_public_http_check_is_the_same_whatever_the_restricted_figure(servers: dict[str, Any]) -> None:
    url = servers["public"].url
    bodies = {n: httpx.post(f"{url}/v1/check", content=_answer_body(f"Signing keys are rotated every {n} days."),
                            headers={"content-type": "application/json"}, timeout=60) for n in FIGURES}
    assert {r.status_code for r in bodies.values()} == {200}
    shapes = {n: _normalised(r.json(), n) for n, r in bodies.items()}
    assert len(set(shapes.values())) == 1, shapes


# ----------------------------------------------------------------------------------------------
# items 3-5: a restricted source, revision or unit is publicly a missing one
# ----------------------------------------------------------------------------------------------


def test_cli_check_stored_answer_public_prints_nothing_restricted(built: Built, tmp_path: Path,
                                                                   secret_strings: list[str]) -> None:
    db = str(copy_of(built, tmp_path))
    internal = cli("check", "restricted-demo", "--db", db, "--json")
    assert internal.exit_code == 0, internal.output
    assert len(leaks(internal.output, secret_strings)) >= 3
    for extra in ((), ("--json",)):
        result = cli("check", "restricted-demo", "--db", db, "--audience", "public", *extra)
        assert result.exit_code == 0, result.output
        assert leaks(result.output, secret_strings) == [], extra
    report = json.loads(cli("check", "restricted-demo", "--db", db, "--audience", "public", "--json").output)
    texts = [c["text"] for c in report["claims"]]
    assert CLAIMS["clean_schedule"] in texts and CLAIMS["launders_figure"] not in texts


def _public_findings(store: Store, citation: dict[str, Any]) -> list[tuple[str, str]]:
    from graphcite.claims.formats import load_answer
    from graphcite.verify import verify_answer

    answer = load_answer({"answer_id": "probe", "claims": [{"text": "Audit logs are kept for 400 days.",
                                                            "citations": [citation]}]})
    report = verify_answer(store, answer, audience="public")
    return [(f["code"], f["detail"]) for c in report["claims"][0]["citations"] for f in c["findings"]]


def test_restricted_unit_key_and_revision_are_publicly_missing_ones(built: Built) -> None:
    with Store(built.db, read_only=True) as store:
        restricted_unit = _public_findings(store, {"chunk_id": built.restricted_unit})
        missing_unit = _public_findings(store, {"chunk_id": "0123456789abcdef"})
        assert restricted_unit == [(c, d.replace("0123456789abcdef", built.restricted_unit)) for c, d in missing_unit]
        restricted_key = _public_findings(store, {"source": "ops/runbook.md",
                                                  "quote": "Audit logs are kept for 400 days."})
        missing_key = _public_findings(store, {"source": "ops/nothing.md", "quote": "Audit logs are kept for 400 days."})
        assert restricted_key == [(c, d.replace("ops/nothing.md", "ops/runbook.md")) for c, d in missing_key]
        old = _public_findings(store, {"source": "notes/turned.md", "revision": built.old_revision,
                                       "quote": "Backups are kept for 17 weeks."})
        missing = _public_findings(store, {"source": "notes/gone.md", "revision": built.old_revision,
                                           "quote": "Backups are kept for 17 weeks."})
        assert old == [(c, d.replace("notes/gone.md", "notes/turned.md")) for c, d in missing]
        assert all(code != "GC104" and "restricted" not in detail for code, detail in restricted_key + old)
        old_unit = _public_findings(store, {"chunk_id": built.old_unit})
        assert [c for c, _ in old_unit] == [c for c, _ in missing_unit]


def test_old_public_revision_of_a_restricted_source_is_hidden(built: Built, servers: dict[str, Any]) -> None:
    from graphcite.audience import visible_unit

    with Store(built.db, read_only=True) as store:
        assert visible_unit(store, built.old_unit, "internal")["text"] == "Backups are kept for 17 weeks."
        with pytest.raises(GraphciteError) as hidden:
            visible_unit(store, built.old_unit, "public")
        with pytest.raises(GraphciteError) as missing:
            visible_unit(store, "0123456789abcdef", "public")
    assert hidden.value.code == missing.value.code == "E503"
    assert str(hidden.value) == str(missing.value).replace("0123456789abcdef", built.old_unit)
    for name in ("public", "internal"):
        query = "" if name == "public" else "?audience=public"
        old = httpx.get(f"{servers[name].url}/v1/units/{built.old_unit}{query}", timeout=30)
        gone = httpx.get(f"{servers[name].url}/v1/units/0123456789abcdef{query}", timeout=30)
        assert old.status_code == gone.status_code == 404
        assert old.text == gone.text.replace("0123456789abcdef", built.old_unit)


def test_cli_show_public_hides_old_revisions(built: Built) -> None:
    """Fails until cli/app.py's `show` calls graphcite.audience.visible_unit (requested of H-rag)."""
    old = cli("show", built.old_unit, "--db", str(built.db), "--audience", "public")
    gone = cli("show", "0123456789abcdef", "--db", str(built.db), "--audience", "public")
    assert old.exit_code == gone.exit_code == 2
    assert old.output == gone.output.replace("0123456789abcdef", built.old_unit)


# ----------------------------------------------------------------------------------------------
# item 6 and 11: judgements on every route, every audience
# ----------------------------------------------------------------------------------------------

def _routes(built: Built) -> list[str]:
    claim = built.claim_ids["launders_figure"]
    return ["/", "/healthz", "/openapi.json", "/v1/sources", "/v1/answers", "/v1/annotations",
            "/v1/annotations?contested=true", f"/v1/claims/{claim}/chain", f"/v1/claims/{claim}/chain?format=svg",
            "/v1/claims/restricted-demo/chain", f"/v1/units/{built.restricted_unit}", "/review/answers",
            "/review/answers/restricted-demo", "/review/answers/table-demo", f"/review/claims/{claim}",
            f"/review/claims/{claim}/chain.svg", "/review/annotations", "/review/sign-in"]


@pytest.mark.parametrize("server", ["public", "internal", "bare"])
def test_every_route_every_audience_answers_without_a_server_error(server: str, servers: dict[str, Any],
                                                                    built: Built, secret_strings: list[str]) -> None:
    url = servers[server].url
    audiences = ("public",) if server == "public" else ("internal", "public")
    for audience in audiences:
        for route in _routes(built):
            sep = "&" if "?" in route else "?"
            response = httpx.get(f"{url}{route}{sep}audience={audience}", timeout=60)
            assert response.status_code < 500, (server, audience, route, response.text[:300])
            if audience == "public" and not route.startswith("/v1/units/"):  # E503 echoes the id asked for
                assert leaks(response.text, secret_strings) == [], (server, route)


def test_public_review_pages_withhold_the_rationale_on_a_withheld_claim(servers: dict[str, Any],
                                                                         built: Built) -> None:
    internal = servers["internal"].url
    assert RATIONALE in httpx.get(f"{internal}/review/answers/restricted-demo", timeout=60).text
    assert RATIONALE in httpx.get(f"{internal}/v1/annotations", timeout=60).text
    for url, query in ((servers["public"].url, ""), (internal, "?audience=public")):
        for route in ("/review/answers/restricted-demo", "/v1/annotations", "/review/annotations"):
            text = httpx.get(f"{url}{route}{query}", timeout=60).text
            assert RATIONALE not in text, route
        kept = httpx.get(f"{url}/v1/annotations{query}", timeout=60).json()
        rationales = {j["rationale"] for row in kept for j in row["judgements"]}
        assert "the post says it plainly" in rationales  # a clean claim's rationale stays
        withheld = [j for row in kept for j in row["judgements"] if row["claim_id"] == built.claim_ids["launders_figure"]]
        assert withheld and all(j["claim_revision"] is None for j in withheld)  # no hash of the text to guess against


# ----------------------------------------------------------------------------------------------
# the other public paths with the same fixtures
# ----------------------------------------------------------------------------------------------


def test_every_cli_public_path_prints_nothing_restricted(built: Built, tmp_path: Path,
                                                         secret_strings: list[str]) -> None:
    db = str(copy_of(built, tmp_path))
    summary = tmp_path / "summary.md"
    summary.write_text("Signing keys are rotated on a fixed schedule. Audit logs are kept.\n", encoding="utf-8")
    plan = tmp_path / "plan.json"  # the queries are the caller's own words: none holds a restricted figure
    plan.write_text(json.dumps({"audience": "public", "needs": [
        {"id": "a", "query": "how long audit logs are kept"},
        {"id": "b", "query": "how often signing keys are rotated"}]}), encoding="utf-8")
    commands = [
        ["chain", "restricted-demo"], ["chain", "table-demo", "--json"], ["answerable", str(plan), "--json"],
        ["answerable", str(plan)], ["check-summary", str(summary), "--source", "posts/rotation.md", "--json"],
        ["check", "table-demo", "--json"], ["gate", "table-demo", "--json"],
    ]
    for args in commands:
        extra = [] if args[0] == "answerable" else ["--audience", "public"]
        result = cli(*args, "--db", db, *extra)
        assert result.exit_code in (0, 1), (args, result.output)
        assert leaks(result.output, secret_strings) == [], args


def test_table_row_figure_is_traced_through_its_headers(built: Built, tmp_path: Path) -> None:
    """Item 8: a restricted table row holds only "ledger-sync | 12"; its headers say what 12 is."""
    from graphcite.export import export

    with Store(built.db, read_only=True) as store:
        export(store, "json", tmp_path / "public.json", answer="table-demo", audience="public")
        export(store, "json", tmp_path / "internal.json", answer="table-demo")
    assert TABLE_CLAIM in (tmp_path / "internal.json").read_text(encoding="utf-8")
    public = (tmp_path / "public.json").read_text(encoding="utf-8")
    assert TABLE_CLAIM not in public and "every 12" not in public


# ----------------------------------------------------------------------------------------------
# item 10: a verdict for one audience never becomes another's latest
# ----------------------------------------------------------------------------------------------


def test_public_checks_never_become_the_internal_verdict(built: Built, tmp_path: Path) -> None:
    from graphcite.graph import chain
    from graphcite.verify import check_answer, history

    db = copy_of(built, tmp_path)
    with Store(db) as store:
        for _ in range(2):
            check_answer(store, "restricted-demo", audience="public")
        tree = chain(store, "restricted-demo")
        internal_status = {c["index"]: c["status"] for c in built.internal["claims"]}
        assert {i: c["status"] for i, c in enumerate(tree["claims"])} == internal_status
        claim = built.claim_ids["cites_restricted"]
        assert internal_status[2] == "supported"
        own = history(store, claim)
        public = history(store, claim, audience="public")
        assert {r["audience"] for r in own} == {"internal"} and len(own) == 1
        assert {r["audience"] for r in public} == {"public"} and len(public) == 3
        assert {r["status"] for r in public} != {"supported"}


def test_accept_relies_on_the_internal_record_and_refuses_a_contradicted_claim(built: Built, tmp_path: Path) -> None:
    from graphcite.lifecycle.accept import accept
    from graphcite.verify import check_answer

    db = copy_of(built, tmp_path)
    with Store(db) as store:
        check_answer(store, "restricted-demo", audience="public")
        row = accept(store, built.claim_ids["cites_restricted"], task="t", destination="posts/rotation.md")
        assert row["verification_status"] == "supported"
        with pytest.raises(GraphciteError, match="contradicted"):
            accept(store, built.contradicted, task="t", destination="posts/rotation.md")
    result = cli("accept", built.contradicted, "--task", "t", "--destination", "posts/rotation.md",
                 "--db", str(db))
    assert result.exit_code == 2 and result.output.count("error:") == 1 and "contradicted" in result.output


def test_adopt_refuses_a_claim_resting_only_on_restricted_evidence(built: Built, tmp_path: Path) -> None:
    from graphcite.lifecycle.accept import accept
    from graphcite.lifecycle.adopt import adopt

    db = copy_of(built, tmp_path)
    corpus = tmp_path / "corpus"
    shutil.copytree(built.corpus, corpus)
    target = corpus / "posts" / "rotation.md"
    before = target.read_bytes()
    claim = built.claim_ids["cites_restricted"]
    with Store(db) as store:
        accept(store, claim, task="t", destination="posts/rotation.md")
        with pytest.raises(GraphciteError, match="restricted evidence") as refused:
            adopt(store, claim, destination="posts/rotation.md", file=target)
        assert "ops/runbook.md" in str(refused.value) and refused.value.code == "E101"
        assert target.read_bytes() == before
        record = adopt(store, claim, destination="posts/rotation.md", file=target,
                       force="the runbook's retention figure was cleared for publication")
    assert record["forced_reason"].startswith("the runbook's retention")
    assert "forced over restricted evidence: the runbook's retention" in target.read_text(encoding="utf-8")


def test_unauthenticated_public_check_writes_nothing(built: Built, servers: dict[str, Any]) -> None:
    support = _serve_support()
    server = servers["public"]
    body = _answer_body("Signing keys are rotated every 45 days.")
    before = httpx.get(f"{server.url}/v1/answers", timeout=30).json()
    anonymous = httpx.post(f"{server.url}/v1/check", content=body, headers={"content-type": "application/json"},
                           timeout=60)
    assert anonymous.status_code == 200 and anonymous.json()["claims"][0]["status"]
    assert httpx.get(f"{server.url}/v1/answers", timeout=30).json() == before
    bad = httpx.post(f"{server.url}/v1/check", content=body, timeout=60,
                     headers={"content-type": "application/json", **support.bearer("not-a-token")})
    assert bad.status_code == 401
    signed = httpx.post(f"{server.url}/v1/check", content=body, timeout=60,
                        headers={"content-type": "application/json", **support.bearer(server.tokens["rev"])})
    assert signed.status_code == 200
    after = httpx.get(f"{server.url}/v1/answers", timeout=30).json()
    assert len(after) == len(before) + 1
