"""Ray as the engine for work that outgrows one process: ingest and batch verification.

The work itself stays where it is (:func:`graphcite.ingest.prepare.prepare_file`,
:func:`graphcite.verify.batch.verify_items`): pure functions that read files or a read-only store and
return rows or reports. This package only ships them to Ray workers and brings the results back in
input order; the driver alone writes to the store.
"""

from __future__ import annotations

from graphcite.distributed.runtime import ENGINES, check_engine, ray_runtime

__all__ = ["ENGINES", "check_engine", "ray_runtime"]
