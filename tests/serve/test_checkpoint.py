"""Checkpoints off the request path (graphcite.serve.checkpoint): a service that opened a DuckDB store
for writing lets group commits leave the write-ahead log alone and folds it in once idle."""

from __future__ import annotations

import json
import time
from pathlib import Path

from graphcite.claims.formats import load_answer
from graphcite.serve.checkpoint import THRESHOLD_MIB, Checkpointer
from graphcite.serve.service import Service, ServiceSettings
from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.loads((ROOT / "graphcite" / "examples" / "answers" / "clean.json").read_text(encoding="utf-8"))


def _wal(db: str) -> int:
    path = Path(db + ".wal")
    return path.stat().st_size if path.exists() else 0


def _threshold(service: Service) -> str:
    with service.reader() as view:
        return str(view.unwrapped.scalar("SELECT current_setting('checkpoint_threshold')"))


def test_an_idle_service_folds_the_log_into_the_file(corpus_url: str) -> None:
    service = Service(ServiceSettings(db=corpus_url))
    try:
        if not corpus_url.endswith(".duckdb"):  # PostgreSQL checkpoints on its own
            assert service.checkpointer is None
            return
        assert service.checkpointer is not None and _threshold(service) == f"{THRESHOLD_MIB:.1f} MiB"
        service.checkpointer.stop()
        service.checkpointer = Checkpointer(service, idle=0.2)
        desk = service.desk
        assert desk is not None
        for number in range(3):  # three checks of new revisions: about 150 KB of records, under the threshold
            answer = load_answer({**CLEAN, "answer_id": f"idle-{number}"}, format="native")
            desk.check_json(answer, config=service.settings.config, audience="internal")
        assert _wal(corpus_url) > 100_000 and service.checkpointer.checkpoints == 0
        deadline = time.monotonic() + 30
        while service.checkpointer.checkpoints == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert service.checkpointer.checkpoints == 1 and _wal(corpus_url) == 0
        time.sleep(0.5)  # nothing written since: no second checkpoint
        assert service.checkpointer.checkpoints == 1
    finally:
        service.close()
    with Store(corpus_url, read_only=True) as store:
        assert store.scalar("SELECT count(*) FROM verification") == 3 * len(CLEAN["claims"])


def test_a_lent_store_keeps_its_settings_and_a_store_handed_over_is_the_service_s(corpus_url: str) -> None:
    if not corpus_url.endswith(".duckdb"):
        return
    with Store(corpus_url) as store:
        service = Service(ServiceSettings(db=corpus_url), store)
        try:
            assert service.checkpointer is None
            assert store.scalar("SELECT current_setting('checkpoint_threshold')") == "16.0 MiB"  # DuckDB's default
        finally:
            service.close()
    # `graphcite serve` opens the store itself and hands it to the app to close
    service = Service(ServiceSettings(db=corpus_url), Store(corpus_url), close_store=True)
    try:
        assert service.checkpointer is not None and _threshold(service) == f"{THRESHOLD_MIB:.1f} MiB"
    finally:
        service.close()
