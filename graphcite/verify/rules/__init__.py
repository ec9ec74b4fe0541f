"""The qualifier rules, one module per family; importing this package registers them all."""

from __future__ import annotations

from graphcite.verify.rules import (  # noqa: F401 - imported for registration
    cells,
    clauses,
    code,
    connective,
    exceptions,
    modality,
    negative,
    owners,
    polarity,
    quantity,
    roles,
    scope,
    slots,
    status,
    subject,
    support,
    time,
)
