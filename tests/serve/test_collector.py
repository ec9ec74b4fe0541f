"""The service's collector policy: the survivors of each full collection frozen, swept when idle."""

from __future__ import annotations

import gc
import time
import weakref

from graphcite.serve.collector import Collector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> _Node:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return a


def test_survivors_of_a_full_collection_are_frozen_and_the_hook_goes_with_the_last_collector() -> None:
    busy = iter(range(1_000_000))  # never idle
    collector = Collector(lambda: next(busy), idle=60)
    try:
        kept = [_cycle() for _ in range(100)]
        frozen = gc.get_freeze_count()
        gc.collect()
        assert collector.refreezes == 1 and gc.get_freeze_count() >= frozen + 200
        tracked = {id(o) for o in gc.get_objects()}
        assert not any(id(o) in tracked for o in kept)  # frozen: no longer in any generation
        gc.collect(1)  # a younger collection freezes nothing
        assert collector.refreezes == 1
    finally:
        collector.stop()
    before = gc.get_freeze_count()
    gc.collect()
    assert gc.get_freeze_count() == before and collector.refreezes == 1  # the hook is gone


def test_an_idle_service_sweeps_cycles_that_died_frozen() -> None:
    activity = [0]
    collector = Collector(lambda: activity[0], idle=0.3)
    try:
        dead = _cycle()
        alive = weakref.ref(dead)
        activity[0] += 1
        gc.collect()  # frozen while alive
        del dead  # a garbage cycle among frozen objects: no collection finds it, only a sweep
        activity[0] += 1
        gc.collect()
        assert alive() is not None
        deadline = time.monotonic() + 20
        while collector.sweeps == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert collector.sweeps == 1 and alive() is None
        time.sleep(1)
        assert collector.sweeps == 1  # nothing frozen since: no second sweep
    finally:
        collector.stop()
