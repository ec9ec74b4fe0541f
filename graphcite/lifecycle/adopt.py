"""Adoption: an accepted claim enters a maintained document and becomes that document's own text.

An answer is never evidence. When a reviewer has accepted a claim for a destination (a maintained
document such as a runbook), :func:`adopt` writes the claim's sentence into that document's file,
ingests the file, and the sentence becomes a unit of the document's *new revision*, with the
document's authority (its status, its owner, its lineage), nothing more. The answer's verification
records are not carried over: the new unit is checked like any other unit, and a later claim that
cites it for the same sentence is resting on the answer it came from. The adoption record says so:
which claim, which acceptance and which evidence the sentence came from, so an independence audit can
see that the document's sentence and the answer's evidence are one origin, not two.

The file on disk must be exactly the stored current revision (no unsaved edits are mixed in), and the
sentence goes in as its own paragraph, at the end of a named section or of the document, followed by
an HTML comment naming the adoption (comments are not units, so the stored text of the unit is the
sentence alone).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from sqlmodel import Field, SQLModel

from graphcite.audience import restricted_keys
from graphcite.errors import make_error
from graphcite.lifecycle.accept import acceptances, refuse_contradicted
from graphcite.lifecycle.circular import circular_citations
from graphcite.store import Store, utcnow
from graphcite.store.queries import latest_verification
from graphcite.store.queries import lifecycle_accept as queries
from graphcite.store.queries.answers import claim_by_id
from graphcite.store.queries.lifecycle import current_revision

__all__ = ["Adoption", "adopt", "adoptions"]


class Adoption(SQLModel, table=True):
    """An accepted claim written into a maintained document: append-only provenance of one sentence."""

    __tablename__ = "adoption"
    adoption_id: str = Field(primary_key=True)
    claim_id: str = Field(index=True)
    answer_rev: str
    acceptance_id: str
    source_key: str = Field(index=True)
    revision_id: str = Field(description="the document revision the sentence entered")
    unit_id: str | None = Field(default=None, index=True)
    text: str
    evidence_json: str = Field(default="[]", description="the evidence the accepted claim relied on")
    reviewer: str | None = None
    adopted_at: dt.datetime


def _source_file(store: Store, key: str, path: Path) -> dict[str, Any]:
    """The source's current revision, checked against the file on disk (the same bytes, or refused)."""
    row = queries.source_with_hash(store, key)
    if row is None:
        raise make_error("E501", where="--destination", detail=f"no source {key!r}",
                         fix="adopt into a maintained document that is ingested (see `graphcite sources`)")
    if not path.is_file():
        raise make_error("E101", where="--file", detail=f"{path} is not a file",
                         fix="give the path of the destination document on disk")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != row["content_hash"]:
        raise make_error("E101", where="--file", detail=f"{path} differs from the stored current revision of {key}",
                         fix=f"ingest it first (`graphcite ingest {path}`) so the adoption starts from what is stored")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise make_error("E101", where="--file", detail=f"{path} is not UTF-8 text",
                         fix="adopt into a Markdown or text document") from exc
    return row


def _insert(text: str, sentence: str, note: str, heading: str | None) -> str:
    """``text`` with ``sentence`` as a new paragraph at the end of section ``heading`` (or of the text)."""
    block = f"{sentence}\n\n<!-- {note} -->\n"
    newline = "\r\n" if "\r\n" in text else "\n"
    block = block.replace("\n", newline)
    if heading is None:
        return text.rstrip("\r\n") + newline * 2 + block
    lines = text.splitlines(keepends=True)
    wanted = heading.strip().lower()
    start = next((i for i, line in enumerate(lines)
                  if re.match(r"^#{1,6}\s", line) and line.lstrip("#").strip().lower() == wanted), None)
    if start is None:
        raise make_error("E101", where="--heading", detail=f"no heading {heading!r} in the document",
                         fix="give a heading that is in the document, or leave --heading out to append at the end")
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines))
                if re.match(rf"^#{{1,{level}}}\s", lines[i])), len(lines))
    before = "".join(lines[:end]).rstrip("\r\n") + newline * 2
    after = "".join(lines[end:])
    return before + block + (newline + after if after else "")


def _refuse_restricted_only(store: Store, claim_id: str, destination: str, evidence: list[dict[str, Any]],
                            force: str | None) -> None:
    """E101 when every unit the accepted claim rests on belongs to a restricted source and the destination
    is not restricted: the sentence would carry restricted content into a document others read.
    ``force`` (a reason, recorded with the adoption) overrides it."""
    hidden = restricted_keys(store)
    if not evidence or destination in hidden:
        return
    restricted = sorted({item["source_key"] for item in evidence if item.get("source_key") in hidden})
    if len(restricted) < len({item.get("source_key") for item in evidence}) or force:
        return
    raise make_error("E101", where="CLAIM", detail=f"claim {claim_id} rests only on restricted evidence "
                     f"({', '.join(restricted)}) and {destination} is not restricted",
                     fix="adopt it into a restricted document, or give --force with a reason to record")


def adopt(store: Store, claim_id: str, *, destination: str, file: str | Path, heading: str | None = None,
          reviewer: str | None = None, today: dt.date | None = None, force: str | None = None) -> dict[str, Any]:
    """Write accepted claim ``claim_id`` into the maintained document ``destination`` and ingest it.

    Needs an active acceptance of the claim for that destination, and a latest internal verification that
    is not contradicted. A claim resting only on restricted evidence goes only into a restricted document,
    unless ``force`` gives the reason (written into the document's adoption note and the returned record).
    Returns the adoption record with the new revision and unit; the claim's verification is not carried
    over (``inherits`` is always empty).
    """
    from graphcite.ingest import ingest

    if force is not None and not force.strip():
        raise make_error("E101", where="--force", detail="the reason must not be empty",
                         fix="say why restricted evidence may enter this document")

    active = [a for a in acceptances(store, claim_id, today=today)
              if a["destination"] == destination and a["state"] == "active"]
    if not active:
        raise make_error("E101", where="CLAIM", detail=f"claim {claim_id} has no active acceptance for {destination!r}",
                         fix=f"accept it first: `graphcite accept {claim_id} --task T --destination {destination}`")
    acceptance = active[-1]
    latest = latest_verification(store, claim_id, "status")
    if latest is not None:
        refuse_contradicted(claim_id, latest["status"])
    _refuse_restricted_only(store, claim_id, destination, acceptance.get("evidence") or [], force)
    path = Path(file)
    source = _source_file(store, destination, path)
    claim = claim_by_id(store, claim_id)
    assert claim is not None  # acceptances() has checked it exists
    sentence = " ".join(str(claim["text"]).split())
    if not sentence:
        raise make_error("E101", where="CLAIM", detail=f"claim {claim_id} has no text", fix="adopt a claim with text")
    note = (f"graphcite: adopted claim {claim_id} of answer {claim['answer_rev']} "
            f"(acceptance {acceptance['acceptance_id']})")
    if force:
        note += " forced over restricted evidence: " + " ".join(force.split()).replace("--", "- -")
    original = path.read_bytes()
    text = original.decode("utf-8")
    path.write_bytes(_insert(text, sentence, note, heading).encode("utf-8"))
    prefix = destination[: -len(path.name)] if destination.endswith(path.name) else ""
    try:
        with store.transaction():
            ingest(store, [path], prefix=prefix)
            revision = current_revision(store, destination)
            if revision == source["current_revision"]:
                raise make_error("E101", where="--destination", detail=f"{path} is not the file of {destination}",
                                 fix="give the file whose ingest key is the destination")
            unit_id = queries.unit_with_text(store, revision, sentence) if revision else None
            store.ensure_table(Adoption)
            now = utcnow()
            record = {"adoption_id": hashlib.sha256(f"{claim_id}|{revision}|{now.isoformat()}".encode()).hexdigest()[:16],
                      "claim_id": claim_id, "answer_rev": claim["answer_rev"],
                      "acceptance_id": acceptance["acceptance_id"], "source_key": destination,
                      "revision_id": revision, "unit_id": unit_id, "text": sentence,
                      "evidence_json": json.dumps(acceptance.get("evidence") or [], sort_keys=True),
                      "reviewer": reviewer, "adopted_at": now}
            queries.insert_adoption(store, record)
    except BaseException:
        path.write_bytes(original)  # nothing half written: the document goes back to what is stored
        raise
    out = dict(record)
    out["adopted_at"] = now.isoformat()
    out["previous_revision"] = source["current_revision"]
    out["evidence"] = json.loads(record["evidence_json"])
    out["inherits"] = []  # the unit is checked on its own; no verification record moves to it
    out["forced_reason"] = force
    return out


def adoptions(store: Store, *, claim_id: str | None = None, unit_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """Adoption records, oldest first, for one claim or for the given units (empty before any adoption).

    Each lists in ``cited_back_by`` the circular citations that rest on it: claims of the same answer
    citing the adopted sentence (see :mod:`graphcite.lifecycle.circular`).
    """
    rows = queries.adoption_rows(store, claim_id=claim_id, unit_ids=unit_ids)
    circular: dict[str, list[dict[str, Any]]] = {}
    for finding in circular_citations(store) if rows else []:
        circular.setdefault(finding["adoption_id"], []).append(finding)
    for row in rows:
        row["evidence"] = json.loads(row.pop("evidence_json") or "[]")
        row["adopted_at"] = str(row["adopted_at"])
        row["cited_back_by"] = circular.get(row["adoption_id"], [])
    return rows
