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


def cli(*args: str, input: str | None = None) -> Any:
    from graphcite.cli import app

    return CliRunner().invoke(app, list(args), input=input)


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


FIGURES = ("45", "44", "400", "731")  # none a count a message may hold ("3 of 3 words ...")


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


# ----------------------------------------------------------------------------------------------
# the CLI's own paths: history per audience, adopt --force REASON
# ----------------------------------------------------------------------------------------------


def test_cli_history_lists_the_records_of_one_audience(built: Built, tmp_path: Path,
                                                       secret_strings: list[str]) -> None:
    db = str(copy_of(built, tmp_path))
    claim = built.claim_ids["cites_restricted"]
    internal = cli("history", claim, "--db", db, "--json")
    public = cli("history", claim, "--db", db, "--json", "--audience", "public")
    assert internal.exit_code == public.exit_code == 0, (internal.output, public.output)
    mine, theirs = json.loads(internal.output), json.loads(public.output)
    assert [r["audience"] for r in mine] == ["internal"] and [r["audience"] for r in theirs] == ["public"]
    assert mine[0]["status"] == "supported" and theirs[0]["status"] != "supported"
    assert {r["record_id"] for r in mine}.isdisjoint(r["record_id"] for r in theirs)
    table = cli("history", claim, "--db", db, "--audience", "public")
    assert table.exit_code == 0 and leaks(public.output + table.output, secret_strings) == []
    wrong = cli("history", claim, "--db", db, "--audience", "everyone")
    assert wrong.exit_code == 2 and wrong.output.count("error:") == 1 and "E104" in wrong.output


def test_cli_adopt_refuses_restricted_only_evidence_unless_forced_with_a_reason(built: Built, tmp_path: Path) -> None:
    db = copy_of(built, tmp_path)
    corpus = tmp_path / "corpus"
    shutil.copytree(built.corpus, corpus)
    target = corpus / "posts" / "rotation.md"
    before = target.read_bytes()
    claim = built.claim_ids["cites_restricted"]
    accepted = cli("accept", claim, "--task", "t", "--destination", "posts/rotation.md", "--db", str(db))
    assert accepted.exit_code == 0, accepted.output
    args = ["adopt", claim, "--destination", "posts/rotation.md", "--file", str(target), "--db", str(db)]
    refused = cli(*args)
    assert refused.exit_code == 2 and refused.output.count("error:") == 1, refused.output
    assert "restricted evidence" in refused.output and "--force" in refused.output
    assert target.read_bytes() == before
    empty = cli(*args, "--force", "  ")
    assert empty.exit_code == 2 and "reason" in empty.output and target.read_bytes() == before
    forced = cli(*args, "--force", "cleared for publication by the key owners", "--json")
    assert forced.exit_code == 0, forced.output
    assert json.loads(forced.output)["forced_reason"] == "cleared for publication by the key owners"
    assert "forced over restricted evidence: cleared for publication" in target.read_text(encoding="utf-8")


# ----------------------------------------------------------------------------------------------
# RAG passages: a passage naming a restricted source is the passage, publicly
# ----------------------------------------------------------------------------------------------


def _rag_row(figure: str) -> dict[str, Any]:
    text = f"Audit logs are kept for {figure} days."
    return {"id": "probe", "question": "How long are audit logs kept?", "answer": text,
            "contexts": [{"text": text, "source": "ops/runbook.md"}]}  # the runbook (restricted) holds 400


def _rag_shape(output: str, figure: str) -> str:
    found = json.loads(output)
    text = re.sub(rf"(?<![0-9a-f.]){figure}(?![0-9a-f])", "N", json.dumps(found, sort_keys=True))
    text = re.sub(r"passages/[0-9a-f]+", "passages/P", text)
    return re.sub(r'"(claim_id|answer_rev|answer_id|verified_at|unit_id|revision|chunk_id)": "[^"]*"', r'"\1": ""', text)


def test_public_rag_passages_are_the_same_whatever_the_restricted_figure(built: Built, tmp_path: Path) -> None:
    shapes = {}
    for figure in ("400", "401"):
        db = copy_of(built, tmp_path)
        samples = tmp_path / f"samples-{figure}.jsonl"
        samples.write_text(json.dumps(_rag_row(figure)) + "\n", encoding="utf-8")
        result = cli("eval-rag", str(samples), "--db", str(db), "--audience", "public", "--json")
        assert result.exit_code in (0, 1), result.output
        shapes[figure] = _rag_shape(result.output, figure)
    assert shapes["400"] == shapes["401"]


def test_check_summary_of_a_restricted_source_is_publicly_a_missing_one(built: Built, tmp_path: Path) -> None:
    """The summary report named the restricted revision and listed its high-consequence sections."""
    db = str(copy_of(built, tmp_path))
    summary = tmp_path / "summary.md"
    summary.write_text("Audit logs are kept for 400 days.\n", encoding="utf-8")

    def run(source: str, *audience: str) -> Any:
        return cli("check-summary", str(summary), "--source", source, "--db", db, "--json", *audience)

    assert run("ops/runbook.md").exit_code in (0, 1)  # internally the runbook is summarised
    for hidden, missing in (("ops/runbook.md", "ops/nothing.md"), ("notes/turned.md", "notes/gone.md"),
                            (f"notes/turned.md@{built.old_revision}", f"notes/gone.md@{built.old_revision}")):
        restricted, gone = run(hidden, "--audience", "public"), run(missing, "--audience", "public")
        assert restricted.exit_code == gone.exit_code == 2, (hidden, restricted.output)
        assert restricted.output == gone.output.replace(missing.split("@")[0], hidden.split("@")[0]), hidden
    old = run(f"posts/rotation.md@{built.old_revision}", "--audience", "public")  # another source's revision id
    assert old.exit_code == 2 and "has no revision" in old.output


def test_public_recheck_writes_public_records_for_public_changes_only(built: Built, tmp_path: Path) -> None:
    """`recheck --stale --audience public` wrote its verdicts as internal records (the internal latest
    became the public 'invalid'), and rechecked claims whose only change was a restricted source."""
    from graphcite.ingest import ingest

    db = copy_of(built, tmp_path)
    corpus = tmp_path / "corpus"
    shutil.copytree(built.corpus, corpus)
    (corpus / "notes" / "audit.md").write_text(  # a public source changes too
        (corpus / "notes" / "audit.md").read_text(encoding="utf-8").replace("90 days", "120 days"), encoding="utf-8")
    with Store(db) as store:
        ingest(store, [corpus])
    turned = [c["claim_id"] for c in json.loads(cli("check", "table-demo", "--db", str(db), "--json",
                                                    "--audience", "public").output)["claims"]
              if c["text"].startswith("Backups")]
    before = {claim: json.loads(cli("history", claim, "--db", str(db), "--json").output)
              for claim in [*turned, built.claim_ids["contradicted_by_restricted"]]}
    public = cli("recheck", "--stale", "--audience", "public", "--db", str(db), "--json")
    assert public.exit_code == 0, public.output
    rechecked = {r["claim_id"] for r in json.loads(public.output)}
    assert built.claim_ids["contradicted_by_restricted"] in rechecked  # notes/audit.md changed: public
    assert not rechecked & set(turned)  # its only change is a now restricted source: nothing public changed
    for claim, rows in before.items():  # the internal histories are untouched
        assert json.loads(cli("history", claim, "--db", str(db), "--json").output) == rows
    mine = json.loads(cli("history", built.claim_ids["contradicted_by_restricted"], "--db", str(db), "--json",
                          "--audience", "public").output)
    assert mine[-1]["record_id"] in {r["record_id"] for r in json.loads(public.output)}
    internal = cli("recheck", "--stale", "--db", str(db), "--json")
    assert internal.exit_code == 0, internal.output
    assert {r["claim_id"] for r in json.loads(internal.output)} >= rechecked | set(turned)


def test_public_parquet_and_graph_rows_keep_no_metadata_of_a_restricted_source(built: Built, tmp_path: Path) -> None:
    """Placeholder rows kept when a restricted source was ingested, its file format, and that an old revision
    of it was public (``visibility: public`` on ``restricted-revision-N``)."""
    import pyarrow.parquet as pq

    from graphcite.export import export

    with Store(built.db, read_only=True) as store:
        export(store, "parquet", tmp_path / "pq", all=True, audience="public")
        export(store, "json", tmp_path / "graph.json", all=True, audience="public")
    sources = [r for r in pq.read_table(tmp_path / "pq" / "source.parquet").to_pylist()
               if r["key"].startswith("restricted-source-")]
    revisions = [r for r in pq.read_table(tmp_path / "pq" / "source_revision.parquet").to_pylist()
                 if r["revision_id"].startswith("restricted-revision-")]
    assert sources and revisions
    assert {r["first_ingested_at"] for r in sources} == {None}
    assert {(r["ingested_at"], r["format"], r["visibility"]) for r in revisions} == {(None, None, "restricted")}
    nodes = json.loads((tmp_path / "graph.json").read_text(encoding="utf-8"))["nodes"]
    assert {n["visibility"] for n in nodes if n.get("restricted") and n["kind"] == "revision"} == {"restricted"}


# ----------------------------------------------------------------------------------------------
# docs/restricted.md: the table of every public path, asserted path by path
# ----------------------------------------------------------------------------------------------

DOC = ROOT / "docs" / "restricted.md"
CLASSES = {"nothing", "placeholders", "missing", "open"}
MISSING_UNIT = "0123456789abcdef"
PLACEHOLDER = re.compile(r"restricted-(source|revision|unit)-\d+")


def _doc_rows() -> dict[str, set[str]]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        found = re.match(r"^\| `([^`]+)` \| ([a-z, ]+) \|", line)
        if found:
            rows[found.group(1)] = {c.strip() for c in found.group(2).split(",")}
    return rows


def _doc_internal_only() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    paragraph = text[text.index("Commands without `--audience`"):].split("\n\n", 1)[0]
    return set(re.findall(r"`([a-z][a-z-]*)`", paragraph.split("anyway):", 1)[1]))


def _public_paths_in_code() -> tuple[set[str], set[str]]:
    """(every public path the code has, every command without a public mode)."""
    import typer.main
    from starlette.routing import Mount

    from graphcite.cli import app
    from graphcite.export import FORMATS
    from graphcite.serve import api, review

    public, internal = set(), set()
    for name, command in typer.main.get_command(app).commands.items():  # type: ignore[attr-defined]
        subs = getattr(command, "commands", None)
        items = [(f"{name} {n}", c) for n, c in subs.items()] if subs else [(name, command)]
        with_audience = [n for n, c in items if any(p.name == "audience" for p in c.params)]
        if not with_audience:
            internal.add(name)
        public |= {f"graphcite {n}" for n in with_audience if n != "export"}
    public |= {f"graphcite export --format {f}" for f in FORMATS}
    for route in [*api.routes(), *review.routes()]:
        if isinstance(route, Mount):
            public.add(f"GET {route.path}/{{path}}")
            continue
        public |= {f"{method} {route.path}" for method in route.methods or () if method != "HEAD"}
    return public, internal


def test_docs_restricted_table_lists_every_public_path() -> None:
    rows = _doc_rows()
    public, internal = _public_paths_in_code()
    assert set(rows) == public, (sorted(public - set(rows)), sorted(set(rows) - public))
    assert all(classes and classes <= CLASSES for classes in rows.values()), rows
    assert _doc_internal_only() == internal, (sorted(internal - _doc_internal_only()),
                                              sorted(_doc_internal_only() - internal))


class _Paths:
    """How each documented path is run on the restricted fixtures, per class it claims."""

    def __init__(self, built: Built, servers: dict[str, Any], folder: Path) -> None:
        self.built, self.servers, self.folder = built, servers, folder
        self.db = str(copy_of(built, folder))
        self.url = servers["public"].url
        self.claim = built.claim_ids["cites_restricted"]
        self.count = 0

    def run(self, *args: str, input: str | None = None) -> str:
        result = cli(*args, "--db", self.db, input=input)
        assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output, (args, result.output[-500:])
        return result.output

    def file(self, data: Any, suffix: str = ".json") -> str:
        self.count += 1
        path = self.folder / f"input-{self.count}{suffix}"
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return str(path)

    def get(self, route: str) -> str:
        response = httpx.get(f"{self.url}{route}", timeout=60)
        assert response.status_code < 500, (route, response.text[:300])
        return response.text

    def post(self, route: str, body: str, media: str = "application/json", **headers: str) -> str:
        response = httpx.post(f"{self.url}{route}", content=body, timeout=60,
                              headers={"content-type": media, **headers})
        assert response.status_code < 500, (route, response.text[:300])
        return response.text

    # -- pairs: (what a restricted name gets, what a missing name gets with the name swapped back) --------
    def pairs(self, make: Any) -> list[tuple[str, str]]:
        """``make(name)`` for each restricted name and its missing counterpart (ids and times masked)."""
        out = []
        for hidden, missing in self.names():
            out.append((_masked(make(hidden)), _masked(make(missing)).replace(missing, hidden)))
        return out

    def names(self) -> list[tuple[str, str]]:
        return [("ops/runbook.md", "ops/nothing.md"), (self.built.restricted_unit, MISSING_UNIT),
                (self.built.old_unit, "fedcba9876543210")]

    def cite(self, name: str) -> dict[str, Any]:
        return {"chunk_id": name} if re.fullmatch(r"[0-9a-f]{16}", name) else \
            {"source": name, "quote": "Audit logs are kept for 400 days."}

    def answer(self, name: str) -> dict[str, Any]:
        return {"answer_id": "docs-probe", "claims": [{"text": "Audit logs are kept for 400 days.",
                                                       "citations": [self.cite(name)]}]}

    def export(self, fmt: str) -> str:
        target = self.folder / f"export-{fmt}"
        self.run("export", "--format", fmt, "--out", str(target), "--all", "--audience", "public")
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return "\n".join(str(pq.read_table(p).to_pylist()) for p in sorted(target.glob("*.parquet")))
        return target.read_text(encoding="utf-8") if target.is_file() else \
            "\n".join(p.read_text(encoding="utf-8") for p in sorted(target.rglob("*")) if p.is_file())

    def shown(self, path: str) -> list[str]:
        """Outputs of a path that may show only nothing or placeholders."""
        b, claim, run = self.built, self.claim, self.run
        if path.startswith("graphcite export --format "):
            return [self.export(path.rsplit(" ", 1)[1])]
        plan = {"audience": "public", "needs": [{"id": "a", "query": "how long audit logs are kept"}]}
        summary = self.file("Signing keys are rotated on a fixed schedule.\n", ".md")
        cli_paths = {
            "graphcite check": lambda: [run("check", "restricted-demo", "--audience", "public", "--json"),
                                        run("check", "restricted-demo", "--audience", "public")],
            "graphcite gate": lambda: [run("gate", "restricted-demo", "--audience", "public", "--json")],
            "graphcite check-batch": lambda: [run("check-batch", "restricted-demo", "--audience", "public", "--json")],
            "graphcite chain": lambda: [run("chain", "restricted-demo", "--audience", "public", "--json"),
                                        run("chain", "table-demo", "--audience", "public")],
            "graphcite audit independence": lambda: [run("audit", "independence", "restricted-demo", "--audience",
                                                         "public", "--json")],
            "graphcite audit conflicts": lambda: [run("audit", "conflicts", "--audience", "public", "--json")],
            "graphcite history": lambda: [run("history", claim, "--audience", "public", "--json")],
            "graphcite answerable": lambda: [run("answerable", self.file(plan), "--json")],
            "graphcite check-summary": lambda: [run("check-summary", summary, "--source", "posts/rotation.md",
                                                    "--audience", "public", "--json")],
            "graphcite recheck": lambda: [run("recheck", "--stale", "--audience", "public", "--json")],
            "graphcite eval-rag": lambda: [run("eval-rag", self.file(json.dumps(_rag_row("401")) + "\n", ".jsonl"),
                                               "--audience", "public", "--json")],  # not the runbook's figure
            "graphcite serve": lambda: [self.get(f"/v1/claims/{claim}/chain")],
        }
        if path in cli_paths:
            return cli_paths[path]()
        method, route = path.split(" ", 1)
        if method == "GET":
            filled = (route.replace("{unit_id}", b.restricted_unit).replace("{claim_id}", claim)
                      .replace("{ref}", "restricted-demo").replace("{path}", "review.css"))
            return [self.get(filled)]
        token = self.servers["public"].tokens["rev"]
        bodies = {"/v1/annotations": (json.dumps({"claim_id": b.claim_ids["clean_schedule"], "citation": 0,
                                                  "label": "supports", "rationale": "docs table probe"}),
                                      "application/json", {"authorization": f"Bearer {token}"}),
                  "/review/annotations": ("claim_id=x&citation=0&label=supports", "application/x-www-form-urlencoded",
                                          {}),
                  "/review/sign-in": ("token=not-a-token", "application/x-www-form-urlencoded", {}),
                  "/review/sign-out": ("", "application/x-www-form-urlencoded", {})}
        body, media, headers = bodies[route]
        return [self.post(route, body, media, **headers)]

    def same_as_missing(self, path: str) -> list[tuple[str, str]]:
        """(restricted, missing) output pairs of a path that claims "missing"."""
        run = self.run
        summary = self.file("Audit logs are kept for 400 days.\n", ".md")

        def line(name: str) -> str:
            return json.dumps({"text": "Audit logs are kept for 400 days.", "citations": [self.cite(name)]}) + "\n"

        makers = {
            "graphcite check": lambda n: run("check", self.file(self.answer(n)), "--audience", "public", "--json"),
            "graphcite gate": lambda n: run("gate", "--stream", "--audience", "public", input=line(n)),
            "graphcite show": lambda n: run("show", n, "--audience", "public"),
            "graphcite check-summary": lambda n: run("check-summary", summary, "--source", n, "--audience", "public"),
            "graphcite serve": lambda n: self.get(f"/v1/units/{n}"),
            "GET /v1/units/{unit_id}": lambda n: self.get(f"/v1/units/{n}"),
            "POST /v1/check": lambda n: self.post("/v1/check", json.dumps(self.answer(n))),
            "POST /v1/gate": lambda n: self.post("/v1/gate", line(n), "application/x-ndjson"),
        }
        return self.pairs(makers[path])

    def still_open(self, path: str, secret_strings: list[str]) -> bool:
        """Whether a path documented "open" still breaks the rule (so the page must change when it is fixed)."""
        if path == "graphcite check-batch":  # prints a stored answer's laundering claims and restricted keys
            return bool(leaks(self.run("check-batch", "restricted-demo", "--audience", "public", "--json"),
                              secret_strings))
        assert path == "graphcite eval-rag", path  # the verdict tells whether the restricted runbook holds 400
        shapes = []
        for figure in ("400", "401"):
            samples = self.file(json.dumps(_rag_row(figure)) + "\n", ".jsonl")
            shapes.append(_rag_shape(self.run("eval-rag", samples, "--audience", "public", "--json"), figure))
        return shapes[0] != shapes[1]


def _masked(text: str) -> str:
    """Output without what differs between two answers for other reasons (their ids, times)."""
    return re.sub(r'"(claim_id|answer_rev|verified_at|record_id|elapsed_ms)": "?[^",}]*"?', r'"\1": ""', text)


def test_docs_restricted_table_holds_on_every_public_path(built: Built, servers: dict[str, Any], tmp_path: Path,
                                                          secret_strings: list[str]) -> None:
    paths = _Paths(built, servers, tmp_path)
    failures = []
    rows = sorted(_doc_rows().items())
    # what each path shows first: the "missing" probes below store answers through public checks, and an
    # answer a public check stored is its asker's own words, shown as written ("400 days" included)
    for path, classes in rows:
        if classes & {"nothing", "placeholders"}:
            for output in paths.shown(path):
                found = leaks(output, secret_strings)
                marked = PLACEHOLDER.search(output) or "withheld" in output or "relied on a restricted" in output
                if found:
                    failures.append((path, "leaks", found))
                elif "nothing" in classes and "placeholders" not in classes and PLACEHOLDER.search(output):
                    failures.append((path, "shows a placeholder", PLACEHOLDER.search(output).group(0)))
                elif classes == {"placeholders"} and not marked:
                    failures.append((path, "no placeholder or withheld mark", output[:200]))
    for path, classes in rows:
        if "missing" in classes:
            for restricted, missing in paths.same_as_missing(path):
                if restricted != missing:
                    failures.append((path, "differs from a missing one", restricted[:300], missing[:300]))
        if "open" in classes and not paths.still_open(path, secret_strings):
            failures.append((path, "documented open but fixed now: give it its class in docs/restricted.md"))
    assert failures == []
