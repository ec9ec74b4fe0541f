"""Driver for the export kill test: imports graphcite once, then forks writers and kills them with SIGKILL.

Starting Python and importing graphcite takes seconds; forking a writer from an interpreter that has
already imported everything (but opened no store, so no DuckDB thread exists yet) takes milliseconds,
so a test can kill many writers. Protocol: one JSON request per line on stdin,
``{"db": ..., "out": ..., "fmt": ..., "answer": ..., "mode": "temp" | "time", "delay": seconds, "nth": n}``,
one JSON answer per line on stdout, ``{"pid": ..., "saw_temp": ..., "signal": ...}``. The writer
exports in a loop, alternating the public and the internal audience, until it is killed: in mode
``temp`` as soon as the ``nth`` temporary file or folder it creates appears beside ``out`` (so the
kill lands mid-write, after ``nth - 1`` complete exports), in mode ``time`` after ``delay`` seconds
(anywhere: building, writing, renaming, cleaning up).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pyarrow.parquet  # noqa: F401 - imported before forking, like everything the writer needs

from graphcite.export import export
from graphcite.export import parquet as _parquet  # noqa: F401
from graphcite.store import Store


def writer(db: str, out: str, fmt: str, answer: str) -> None:
    """Export forever (the child); any error ends the child with status 3 so the test sees it."""
    try:
        with Store(db, read_only=True) as store:
            n = 0
            while True:
                export(store, fmt, out, answer=answer, audience=("public", "internal")[n % 2])
                n += 1
    except BaseException as exc:  # reported through the exit status
        sys.stderr.write(f"writer failed: {exc!r}\n")
        os._exit(3)


def run(request: dict[str, object]) -> dict[str, object]:
    out = Path(str(request["out"]))
    prefix = f".{out.name[:100]}.gc-tmp-"
    pid = os.fork()
    if pid == 0:
        writer(str(request["db"]), str(out), str(request["fmt"]), str(request["answer"]))
        os._exit(0)
    saw_temp = False
    deadline = time.monotonic() + (float(request.get("delay", 0.0)) if request["mode"] == "time" else 30.0)
    own = f"{prefix}{pid}-"
    temps: set[str] = set()
    nth = int(str(request.get("nth", 1)))
    while time.monotonic() < deadline:
        if request["mode"] == "temp":
            temps.update(e.name for e in os.scandir(out.parent) if e.name.startswith(own))
            if len(temps) >= nth:
                saw_temp = True
                break
        time.sleep(0.0002 if request["mode"] == "temp" else 0.005)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return {"pid": pid, "saw_temp": saw_temp,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}


def main() -> None:
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(run(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
