"""A headless Chromium driven over the DevTools protocol: just enough to open a page, click, and read
where the browser ended up. The ``websockets`` client the tests already have is the only dependency;
Chromium itself is the system's (Debian's ``chromium`` package), found on PATH.

Every host name but 127.0.0.1 resolves to nothing, so the browser reaches no network beyond this machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from stand_ins.waiting import wait_until

#: Set to 1 (CI does) to make the browser tests fail, not skip, where Chromium is missing.
REQUIRE_VARIABLE = "PAPERBOT_REQUIRE_BROWSER"
EXECUTABLES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    """The Chromium executable on PATH, if any."""
    return next((path for name in EXECUTABLES if (path := shutil.which(name))), None)


class Chromium:
    """One headless Chromium with one page. Use as a context manager."""

    def __init__(self, executable: str, profile: Path, timeout: float = 20.0):
        self.timeout = timeout
        self._ids = iter(range(1, 1_000_000))
        self._connections = contextlib.ExitStack()
        args = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--remote-debugging-port=0",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", f"--user-data-dir={profile}",
                "about:blank"]
        self._process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"

        def port_written() -> bool:
            if self._process.poll() is not None:
                raise RuntimeError("Chromium ended before it opened its DevTools port")
            return port_file.exists() and port_file.read_text().count("\n") >= 1

        try:
            wait_until(port_written, timeout, "Chromium to open its DevTools port")
        except (AssertionError, RuntimeError):
            self.close()
            raise
        port = int(port_file.read_text().splitlines()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as answer:
            page = next(t for t in json.load(answer) if t["type"] == "page")
        self._socket = self._connections.enter_context(
            connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=timeout))

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def send(self, method: str, **params) -> dict:
        """One DevTools command; its result (events that arrive meanwhile are skipped)."""
        call_id = next(self._ids)
        self._socket.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv(timeout=self.timeout))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def open(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for(lambda: self.evaluate("document.readyState") == "complete"
                      and self.evaluate("location.href") != "about:blank", f"{url} to load")

    def wait_for(self, condition, what: str):
        return wait_until(condition, self.timeout, what, pause=0.05,
                          detail=lambda: f"(the page is at {self.evaluate('location.href')})")

    def close(self) -> None:
        self._connections.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


def browser_required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE) == "1"


@pytest.fixture(scope="module")
def chromium_path() -> str:
    """Chromium's executable; the test skips in one line where it is missing (fails with
    PAPERBOT_REQUIRE_BROWSER=1)."""
    path = find_chromium()
    if path is None:
        message = "Chromium is not installed (apt-get install chromium)"
        if browser_required():
            pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 makes this a failure", pytrace=False)
        pytest.skip(message)
    return path
