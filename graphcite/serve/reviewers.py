"""Reviewers and their tokens: who may record judgements through ``graphcite serve``.

``graphcite reviewers add NAME`` calls :func:`add_reviewer`, which makes a random token, prints it
once and stores only ``scrypt(token, salt)`` with a salt of its own, so a copy of the store does not
let anyone write. The token names its reviewer (``gc1.<name in base64url>.<secret>``): checking one
costs a single scrypt, whatever the number of reviewers, and digests are compared in constant time.

A signed-in browser carries a *session* instead of the token: the reviewer's name and an expiry,
signed with a key that lives only in the server process (:func:`sign_session`, :func:`read_session`),
so a restart signs everyone out and nothing secret is ever stored in a cookie.

The ``reviewer`` table (:class:`graphcite.models.Reviewer`) is created on first use when the store
does not have it yet (:func:`ensure_reviewer_table`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import time
from typing import Any

from graphcite.errors import make_error
from graphcite.models import Reviewer
from graphcite.store import Store, utcnow
from graphcite.store.queries.serve import add_reviewer_row, reviewer_exists, reviewer_rows, reviewer_secret

__all__ = ["SESSION_SECONDS", "TOKEN_PREFIX", "add_reviewer", "check_name", "ensure_reviewer_table", "list_reviewers",
           "read_session", "reviewer_for_token", "sign_session"]

TOKEN_PREFIX = "gc1"
SESSION_SECONDS = 12 * 3600
_NAME = re.compile(r"[^\W_][\w .@'-]{0,63}")
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _digest(token: str, salt: bytes) -> bytes:
    return hashlib.scrypt(token.encode("utf-8"), salt=salt, **_SCRYPT)


def ensure_reviewer_table(store: Store) -> None:
    """Create the ``reviewer`` table when the store was written before reviewers existed."""
    store.ensure_table(Reviewer)


def _has_table(store: Store) -> bool:
    return "reviewer" in store.table_names()


def check_name(name: str) -> str:
    """The reviewer name, trimmed; E101 unless it is 1-64 letters, digits, spaces or ``. @ ' -``."""
    cleaned = name.strip()
    if not _NAME.fullmatch(cleaned):
        raise make_error("E101", where="NAME", detail=f"reviewer name {cleaned[:80]!r} is not usable",
                         fix="use 1-64 letters, digits, spaces or . @ ' - starting with a letter or digit")
    return cleaned


def add_reviewer(store: Store, name: str) -> tuple[dict[str, Any], str]:
    """Register ``name`` and return ``(row without secrets, token)``; the token is not kept anywhere.

    E101 when the name is unusable or already registered (one token per reviewer).
    """
    name = check_name(name)
    ensure_reviewer_table(store)
    if reviewer_exists(store, name):
        raise make_error("E101", where="NAME", detail=f"reviewer {name!r} already exists",
                         fix="choose another name; a reviewer's token is shown only when it is added")
    token = f"{TOKEN_PREFIX}.{_b64(name.encode('utf-8'))}.{secrets.token_urlsafe(32)}"
    salt = secrets.token_bytes(16)
    created = utcnow()
    with store.transaction():
        add_reviewer_row(store, name, _digest(token, salt).hex(), salt.hex(), created)
    return {"name": name, "created_at": created}, token


def list_reviewers(store: Store) -> list[dict[str, Any]]:
    """Every reviewer's name and creation time, oldest first (never a hash or a salt)."""
    if not _has_table(store):
        return []
    return reviewer_rows(store)


def reviewer_for_token(store: Store, token: str) -> str | None:
    """The name of the reviewer ``token`` belongs to, or None (malformed, unknown or wrong token)."""
    parts = token.strip().split(".")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or len(token) > 400:
        return None
    try:
        name = _unb64(parts[1]).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not _has_table(store):
        return None
    row = reviewer_secret(store, name)
    if row is None:
        _digest(token, b"\0" * 16)  # the same work as a real check: no timing hint that the name exists
        return None
    try:
        salt, stored = bytes.fromhex(row["salt"]), bytes.fromhex(row["token_hash"])
    except ValueError:
        return None
    return name if hmac.compare_digest(_digest(token.strip(), salt), stored) else None


def sign_session(key: bytes, name: str, *, now: float | None = None, seconds: int = SESSION_SECONDS) -> str:
    """A session value for ``name``, valid for ``seconds``: ``name.expiry.signature`` (HMAC-SHA256)."""
    expires = int((time.time() if now is None else now) + seconds)
    body = f"{_b64(name.encode('utf-8'))}.{expires}"
    return f"{body}.{_b64(hmac.new(key, body.encode('ascii'), hashlib.sha256).digest())}"


def read_session(key: bytes, value: str | None, *, now: float | None = None) -> str | None:
    """The reviewer name a session value carries, or None when it is forged, damaged or expired."""
    if not value or len(value) > 400:
        return None
    parts = value.split(".")
    if len(parts) != 3:
        return None
    body = f"{parts[0]}.{parts[1]}"
    expected = _b64(hmac.new(key, body.encode("ascii", "replace"), hashlib.sha256).digest())
    if not hmac.compare_digest(expected.encode("ascii"), parts[2].encode("ascii", "replace")):
        return None
    try:
        name = _unb64(parts[0]).decode("utf-8")
        expires = int(parts[1])
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return name if expires > (time.time() if now is None else now) else None
