"""Fixtures for the browser tests: Debian's headless Chromium driven by Playwright for Python.

Run with ``make test-browser`` (installs the ``browser`` extra and ``chromium``, builds the site
with ``make book``), or ``.venv/bin/python -m pytest -p no:cacheprovider tests_browser/``.

Skip rule: when ``/usr/bin/chromium`` or the ``playwright`` package is missing, every test here is
skipped with the reason -- unless the environment variable ``CI`` is ``"true"``, where the same
condition is a failure (CI must run the browser tests). Playwright's own browser download
(``playwright install``) is never used: the browser is ``executable_path=/usr/bin/chromium``.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SITE_DIR = REPO_ROOT / "build" / "site"
SCREENSHOT_DIR = REPO_ROOT / "build" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
# The venv's jupyter (the one next to this interpreter), never one found on PATH.
JUPYTER = Path(sys.executable).parent / "jupyter"

# Known-good flags here (also as root). Without the background-networking flags Chromium opens
# connections of its own, which the closed network refuses. The host resolver rule makes every
# host name but 127.0.0.1 (where the tests serve the site and JupyterLab) fail to resolve at once,
# so a page's request for another host fails fast, even on an open network, instead of hanging;
# test_site.py also records every request that leaves the site and fails on it. Playwright adds
# --headless and a fresh, empty temporary --user-data-dir for every launch.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1400, "height": 900}


def missing_browser() -> str | None:
    """Say what the browser tests lack, or None when Chromium and Playwright are both there."""
    missing = []
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"{CHROMIUM} (Debian package 'chromium')")
    if importlib.util.find_spec("playwright") is None:
        missing.append("the Python package 'playwright' (extra 'browser')")
    if not missing:
        return None
    return "browser tests need " + " and ".join(missing) + "; run `make browser-deps`"


@pytest.fixture(scope="session", autouse=True)
def _require_browser() -> None:
    """Skip every browser test when Chromium/Playwright are missing, or fail if CI is "true"."""
    reason = missing_browser()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(f"{reason} (skipped because CI is not 'true')")


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (/usr/bin/chromium) for the whole session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, timeout=60_000
        )
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def browser_context(browser):
    """A fresh browser context (own cookies/storage, VIEWPORT, 30 s timeouts), closed on exit."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(30_000)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def context(browser):
    """A fresh browser context per test."""
    with browser_context(browser) as ctx:
        yield ctx


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """build/browser/ (created), where the tests save their screenshots."""
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR


# ----------------------------------------------------------------------------- static http server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@contextlib.contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve ``root`` over http on 127.0.0.1 (free port) from a thread; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="site-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def site_url() -> Iterator[str]:
    """build/site/ (``make book``'s output) served over http; its base URL."""
    if not (SITE_DIR / "index.html").is_file():
        pytest.fail(
            f"{SITE_DIR.relative_to(REPO_ROOT)}/index.html not found: run make book first",
            pytrace=False,
        )
    with serve_directory(SITE_DIR) as url:
        yield url


# ----------------------------------------------------------------------------- JupyterLab server


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# User settings for the isolated Lab: no news/update prompts (no network fetches), and every cell
# kept in the DOM (no windowing), so that the tests can see all cells' prompts and outputs.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


@dataclass
class LabServer:
    """A running ``jupyter lab`` (see the ``lab_server`` fixture)."""

    process: subprocess.Popen
    url: str  # http://127.0.0.1:PORT/
    token: str
    root: Path  # the server's root dir (a temporary folder)
    log: Path

    def api(self, path: str, method: str = "GET", timeout: float = 10) -> object:
        """Call the server's REST API (``path`` like "api/status"); the decoded JSON, or None."""
        req = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def notebook_url(self, relpath: str) -> str:
        """The URL that opens ``relpath`` (relative to the root dir) in JupyterLab."""
        return f"{self.url}lab/tree/{relpath}?token={self.token}"

    def log_tail(self, n: int = 40) -> str:
        lines = self.log.read_text(errors="replace").splitlines() if self.log.exists() else []
        return "\n".join(lines[-n:])


def _stop_lab(server: LabServer) -> None:
    """Stop the server and every process it started (its kernels), whatever state it is in."""
    import psutil

    try:
        children = psutil.Process(server.process.pid).children(recursive=True)
    except psutil.Error:
        children = []
    if server.process.poll() is None:
        with contextlib.suppress(Exception):  # a clean shutdown also shuts down the kernels
            server.api("api/shutdown", method="POST", timeout=5)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.process.terminate()
            try:
                server.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.process.kill()
                server.process.wait(timeout=10)
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.kill()
    psutil.wait_procs(children, timeout=5)


@contextlib.contextmanager
def run_lab(root: Path, startup_timeout: float = 90) -> Iterator[LabServer]:
    """Start the venv's ``jupyter lab`` on 127.0.0.1 serving ``root``; stop it on exit.

    A random token, a free port, ``--no-browser``, ``--allow-root`` only for uid 0, and settings,
    workspaces and runtime files in a sibling folder of ``root`` (nothing from ~/.jupyter).
    """
    state = root.parent / f"{root.name}-jupyter-state"
    settings_dir = state / "user-settings"
    for name, value in LAB_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    token = secrets.token_hex(24)
    port = free_port()
    cmd = [
        str(JUPYTER), "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.user_settings_dir={settings_dir}",
        f"--LabApp.workspaces_dir={state / 'workspaces'}",
    ]  # fmt: skip
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(
        os.environ,
        JUPYTER_RUNTIME_DIR=str(state / "runtime"),
        JUPYTER_CONFIG_DIR=str(state / "config"),
        # savefig's figures go into the temporary tree, never over the repository's figures/.
        DLSCHED_FIGURES_DIR=str(root / "figures"),
        PYTHONUNBUFFERED="1",
    )
    log = state / "jupyter-lab.log"
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    server = LabServer(process, f"http://127.0.0.1:{port}/", token, root, log)
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                pytest.fail(f"jupyter lab exited with {process.returncode}:\n{server.log_tail()}")
            try:
                server.api("api/status", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab not up after {startup_timeout} s:\n{server.log_tail()}")
                time.sleep(0.3)
        yield server
    finally:
        _stop_lab(server)
        if process.poll() is None:  # pragma: no cover - _stop_lab kills it
            raise RuntimeError(f"jupyter lab (pid {process.pid}) is still running")


@pytest.fixture(scope="module")
def lab_root(tmp_path_factory) -> Path:
    """An empty temporary folder for a Lab server's root dir (copies of notebooks go here)."""
    root = tmp_path_factory.mktemp("lab") / "root"
    (root / "notebooks").mkdir(parents=True)
    return root


def copy_notebook(src: Path, dest_dir: Path, clear_outputs: bool = True) -> Path:
    """Copy a notebook into ``dest_dir`` (outputs and execution counts cleared by default)."""
    import nbformat

    dest = dest_dir / src.name
    if not clear_outputs:
        shutil.copyfile(src, dest)
        return dest
    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, dest)
    return dest


# ----------------------------------------------------------------------------- timings

_TIMINGS: dict[str, float] = {}


@pytest.fixture(scope="session")
def browser_timings() -> dict[str, float]:
    """Named durations (seconds) that the tests record; printed in pytest's terminal summary."""
    return _TIMINGS


def pytest_terminal_summary(terminalreporter) -> None:
    if _TIMINGS:
        terminalreporter.section("browser timings")
        for name, seconds in _TIMINGS.items():
            terminalreporter.write_line(f"{seconds:7.1f} s  {name}")
