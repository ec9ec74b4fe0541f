"""The garbage collector kept to short pauses in a long-running service.

The service freezes what it loaded at start-up (the language pipeline, lexicon, rule tables and the
evidence read ahead), so a full collection does not walk it. What it keeps later (pair verdicts,
decompositions, warm evidence reads, kept reports: tens of thousands of objects after a few hundred
new answers) still sat in the oldest generation, and each full collection walked all of it again:
one every ~40 checks of new answer text, 150-200 ms of CPU each with the request that set it off
waiting (2 ms per check in all). :class:`Collector` freezes the survivors of every full collection
as well, so the next one walks only what was kept since (about 50 ms at most, 0.6 ms per check).

A frozen object is still freed when its last reference goes; only a reference cycle among frozen
objects that becomes garbage later is not found (none after 400 checks of new text: a collection
with everything unfrozen found nothing to free). Such cycles are swept once the service has been
idle for ``idle`` seconds after a refreeze: everything is unfrozen, collected and frozen again.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Collector"]

_lock = threading.Lock()
_installed: list[Collector] = []


def _after_full(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` hook: the survivors of a full collection join the frozen objects."""
    if phase == "stop" and info.get("generation") == 2 and _installed:
        gc.freeze()  # (the collection is over: only moves the generations' lists onto the permanent one)
        for collector in _installed:
            collector.refreezes += 1


class Collector:
    """Refreeze after every full collection while any collector runs; sweep when ``activity`` stops."""

    def __init__(self, activity: Callable[[], int], *, idle: float = 10.0) -> None:
        self.activity = activity
        self.idle = idle
        self.refreezes = 0
        self.sweeps = 0
        self._swept_at = 0
        self._stop = threading.Event()
        with _lock:
            if not _installed:
                gc.callbacks.append(_after_full)
            _installed.append(self)
        self._thread = threading.Thread(target=self._run, name="graphcite-collector", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        last, since = self.activity(), time.monotonic()
        while not self._stop.wait(min(self.idle / 2, 1.0)):
            now = self.activity()
            if now != last:
                last, since = now, time.monotonic()
            elif self.refreezes != self._swept_at and time.monotonic() - since >= self.idle:
                self.sweep()

    def sweep(self) -> None:
        """Unfreeze, collect everything, freeze what is left (off the request path: when idle)."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._swept_at = self.refreezes  # (the collection above counted as a refreeze too)
        self.sweeps += 1

    def stop(self) -> None:
        """Stop the thread; the last collector running removes the hook (frozen objects stay frozen)."""
        self._stop.set()
        with _lock:
            if self in _installed:
                _installed.remove(self)
            if not _installed:
                with contextlib.suppress(ValueError):
                    gc.callbacks.remove(_after_full)
        with contextlib.suppress(RuntimeError):
            self._thread.join(timeout=30)
