"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (no driver, no websocket library).

Chromium reads commands from file descriptor 3 and writes replies and events to descriptor 4, each
message JSON ending in a NUL byte. :class:`Browser` starts Debian's chromium headless with those two
pipes, opens one page and offers what a keyboard-only test needs: navigate, press keys, type text,
evaluate an expression, wait for a condition, take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

__all__ = ["Browser", "CDPError"]

KEYS = {"Tab": ("Tab", 9, ""), "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
        "ArrowDown": ("ArrowDown", 40, "")}


class CDPError(RuntimeError):
    """Chromium answered a command with an error, or did not answer in time."""


class Browser:
    """Headless chromium driven over a pipe; use as a context manager."""

    def __init__(self, binary: str, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # copies at high numbers first, so the dup2 to 3 and 4 below can never overwrite one another
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child_r, from_child_w)]
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--remote-debugging-pipe", f"--user-data-dir={profile}", f"--window-size={width},{height}",
                "about:blank"]
        null = os.open(os.devnull, os.O_RDWR)
        try:
            self.pid = os.posix_spawn(binary, args, dict(os.environ), file_actions=[
                (os.POSIX_SPAWN_DUP2, high[0], 3), (os.POSIX_SPAWN_DUP2, high[1], 4),
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
        finally:
            for fd in (to_child_r, from_child_w, *high, null):
                os.close(fd)
        self._out = to_child_w
        self._in = from_child_r
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
            self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                     browser=True)["sessionId"]
            self.send("Page.enable")
            self.send("Runtime.enable")
            self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                            "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise

    # -- the pipe -----------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise CDPError("chromium did not answer in time")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise CDPError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)  # type: ignore[no-any-return]

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False,
             timeout: float = 30) -> dict[str, Any]:
        """Send one command and wait for its reply (events that arrive meanwhile are kept in ``events``)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser:
            message["sessionId"] = self.session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})  # type: ignore[no-any-return]
            self.events.append(reply)

    # -- what a test does ---------------------------------------------------------------------
    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values only)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise CDPError(f"{expression}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> Any:
        """Evaluate ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(CDPError):  # the page may be between two documents
                value = self.evaluate(expression)
                if value:
                    return value
            if time.monotonic() > deadline:
                raise CDPError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def reload(self) -> None:
        self.evaluate("window.__before_reload = true")
        self.send("Page.reload", {"ignoreCache": True})
        self.wait_for("!window.__before_reload && document.readyState === 'complete'")

    def press(self, key: str) -> None:
        """Press and release one key (Tab, Enter or Escape), as a keyboard would."""
        code, number, text = KEYS[key]
        down: dict[str, Any] = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": number,
                                "nativeVirtualKeyCode": number}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": number, "nativeVirtualKeyCode": number})

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused field."""
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(Exception):
            os.write(self._out, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        for fd in (self._out, self._in):
            with contextlib.suppress(OSError):
                os.close(fd)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
