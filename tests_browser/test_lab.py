"""JupyterLab in headless Chromium: Run All on a model notebook, then move its explorer's slider.

One ``jupyter lab`` (the venv's) serves a temporary folder holding a COPY of
``notebooks/10_oasis_model.ipynb`` (outputs cleared) and a tiny widget probe notebook, so that
nothing the UI saves can touch the repository's notebooks.

(b) open notebook 10 by URL, wait for an idle kernel, Run > Run All Cells through the menus, wait
    until every code cell has run (and the kernel is idle again), save it with Ctrl+S and check
    the saved copy has no error outputs; screenshot build/browser/lab_run_all.png.
(c) in the same Lab page: the first explore section (ipywidgets VBox ``.dlsched-explore``) -- drag
    the first slider handle (``.dlsched-control .noUi-handle``) with the mouse and wait until the
    printed value (``.dlsched-readout``) changes; screenshot build/browser/lab_widget.png.
    The same check on the probe notebook shows the widget machinery works on its own.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

import nbformat
import pytest
from conftest import REPO_ROOT, browser_context, copy_notebook, run_lab

NOTEBOOK = REPO_ROOT / "notebooks" / "10_oasis_model.ipynb"
PROBE = "widget_probe.ipynb"

RUN_ALL_TIMEOUT = 180  # seconds; notebook 10 takes ~10-15 s here
READOUT_TIMEOUT = 15_000  # ms

# A tiny notebook with the explore contract of the model notebooks: a VBox ``dlsched-explore``
# holding a slider ``dlsched-control`` and an HTML readout ``dlsched-readout`` that an observer
# rewrites whenever the slider's value changes.
PROBE_CELLS = [
    "import ipywidgets as widgets",
    'slider = widgets.IntSlider(value=20, min=0, max=100, description="n")\n'
    'readout = widgets.HTML("<b>n = 20</b>")\n'
    'slider.add_class("dlsched-control")\n'
    'readout.add_class("dlsched-readout")\n'
    'slider.observe(lambda change: setattr(readout, "value", f"<b>n = {change.new}</b>"), names="value")',
    'box = widgets.VBox([slider, readout])\nbox.add_class("dlsched-explore")\nbox',
]

# Polled while Run All runs: the code cells' prompts ("[ ]:", "[*]:", "[7]:"), the kernel status
# shown by the notebook toolbar, and the stderr/error outputs rendered so far.
STATE_JS = """() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const cells = nb ? Array.from(nb.querySelectorAll('.jp-CodeCell')) : [];
  const ind = document.querySelector(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
  const last = cells.length ? cells[cells.length - 1] : null;
  return {
    prompts: cells.map(c => (c.querySelector('.jp-InputArea-prompt') || {}).innerText || ''),
    status: ind ? ind.getAttribute('data-status') : null,
    stderr: nb ? Array.from(nb.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
      .map(e => e.innerText.slice(0, 2000)) : [],
    lastOutputs: last ? last.querySelectorAll('.jp-OutputArea-output').length : 0,
  };
}"""


# Uncaught JavaScript exceptions per page (id(page) -> messages), shown when a wait fails.
_PAGE_ERRORS: dict[int, list[str]] = {}


def _page_errors(page) -> list[str]:
    return _PAGE_ERRORS.get(id(page), [])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_probe(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Widget probe (tests_browser)")]
    nb.cells += [nbformat.v4.new_code_cell(src) for src in PROBE_CELLS]
    nbformat.write(nb, path)


# The toolbar's execution indicator says "idle" already while the panel has "No Kernel", so a
# kernel is ready when the indicator is idle AND the toolbar names a kernel.
KERNEL_READY_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return false;
  const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  const name = panel.querySelector('.jp-KernelName');
  const kernel = name ? name.innerText.trim() : '';
  return !!ind && ind.getAttribute('data-status') === 'idle' && kernel !== '' && kernel !== 'No Kernel';
}"""


def _wait_kernel_ready(page, server, relpath: str, timeout: float = 60) -> None:
    """Wait until the page shows an idle kernel and the server has a session for ``relpath``."""
    deadline = time.monotonic() + timeout
    while True:
        sessions = {s["path"]: s for s in server.api("api/sessions")}
        if relpath in sessions and page.evaluate(KERNEL_READY_JS):
            return
        if time.monotonic() > deadline:
            pytest.fail(
                f"{relpath}: no idle kernel in Lab after {timeout} s; sessions {list(sessions)}, "
                f"page errors {_page_errors(page)}\n{server.log_tail()}"
            )
        time.sleep(0.25)


def _open_notebook(context, server, relpath: str):
    """Open ``relpath`` in a new page of Lab by its URL; return the page once its kernel is idle."""
    page = context.new_page()
    errors = _PAGE_ERRORS.setdefault(id(page), [])
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.notebook_url(relpath), wait_until="domcontentloaded", timeout=60_000)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=60_000)
    _wait_kernel_ready(page, server, relpath)
    return page


def _run_all(page, server, relpath: str) -> float:
    """Run > Run All Cells through the menus; wait until every code cell ran. Seconds taken."""
    page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile(r"^Run$")).click()
    start = time.monotonic()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile(r"^Run All Cells$")).click()
    deadline = start + RUN_ALL_TIMEOUT
    stopped_since = None  # kernel idle, nothing queued, yet not every cell has run
    while True:
        state = page.evaluate(STATE_JS)
        prompts = [p.strip() for p in state["prompts"]]
        busy = state["status"] != "idle" or "[*]:" in prompts
        ran = [p.startswith("[") and p[1:-2].isdigit() for p in prompts]
        now = time.monotonic()
        if not busy and all(ran):
            return now - start
        stopped_since = None if busy else (stopped_since or now)
        if stopped_since is not None and now - stopped_since > 5:
            pytest.fail(
                f"Run All on {relpath} stopped with {ran.count(False)} of {len(ran)} code cells "
                "not run; stderr/error outputs:\n"
                + "\n---\n".join(state["stderr"])
                + f"\npage errors: {_page_errors(page)}\nserver log:\n{server.log_tail()}"
            )
        if time.monotonic() > deadline:
            pytest.fail(
                f"Run All on {relpath} not done after {RUN_ALL_TIMEOUT} s: prompts {prompts}, "
                f"kernel {state['status']}; page errors {_page_errors(page)}\n{server.log_tail()}"
            )
        time.sleep(0.25)


def _save_and_read(page, path: Path, timeout: float = 30) -> nbformat.NotebookNode:
    """Save the notebook with Ctrl+S and read the saved copy back once every code cell is in it."""
    page.keyboard.press("Control+s")  # JupyterLab's save shortcut (docmanager:save)
    deadline = time.monotonic() + timeout
    while True:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        if code and all(c.execution_count is not None for c in code):
            return nb
        if time.monotonic() > deadline:
            pytest.fail(f"{path.name}: Ctrl+S did not save the executed notebook within {timeout} s")
        time.sleep(0.25)


def _drag_and_check(page, screenshot: Path) -> tuple[str, str]:
    """Drag the first explorer's first slider handle ~60 px right; return the readout before/after."""
    from playwright.sync_api import expect

    explore = page.locator(".dlsched-explore").first
    explore.wait_for(state="attached", timeout=30_000)
    explore.scroll_into_view_if_needed()
    readout = explore.locator(".dlsched-readout").first
    handle = explore.locator(".dlsched-control .noUi-handle").first
    handle.wait_for(state="visible", timeout=30_000)
    handle.scroll_into_view_if_needed()
    before = readout.inner_text()
    box = handle.bounding_box()
    assert box is not None, "slider handle has no bounding box (not rendered?)"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 7):
        page.mouse.move(x + 10 * step, y)
        time.sleep(0.05)
    page.mouse.up()
    expect(readout).not_to_have_text(before, timeout=READOUT_TIMEOUT)
    after = readout.inner_text()
    page.screenshot(path=str(screenshot))
    return before, after


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def lab(lab_root):
    """One Lab server on a temporary copy of notebook 10 plus the widget probe notebook."""
    copy_notebook(NOTEBOOK, lab_root / "notebooks")
    _write_probe(lab_root / "notebooks" / PROBE)
    with run_lab(lab_root) as server:
        yield server


@pytest.fixture(scope="module")
def lab_context(browser):
    with browser_context(browser) as ctx:
        yield ctx


@pytest.fixture(scope="module")
def nb10(lab, lab_context, screenshot_dir, browser_timings):
    """Notebook 10 open in Lab after Run All through the menus: (page, seconds Run All took)."""
    relpath = f"notebooks/{NOTEBOOK.name}"
    repo_hash = _sha256(NOTEBOOK)
    page = _open_notebook(lab_context, lab, relpath)
    try:
        seconds = _run_all(page, lab, relpath)
    except BaseException:
        page.screenshot(path=str(screenshot_dir / "lab_run_all_failed.png"))
        raise
    browser_timings[f"Lab Run All {NOTEBOOK.name}"] = seconds
    page.screenshot(path=str(screenshot_dir / "lab_run_all.png"))
    yield page, seconds
    assert _sha256(NOTEBOOK) == repo_hash, f"{NOTEBOOK} changed while Lab ran on its copy"


# ----------------------------------------------------------------------------- tests


def test_lab_run_all_notebook_10(nb10, lab, screenshot_dir):
    """(b) Run All in JupyterLab runs every code cell of notebook 10 without an error."""
    page, seconds = nb10
    state = page.evaluate(STATE_JS)
    original = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in original.cells if c.cell_type == "code"]
    assert len(state["prompts"]) == len(code)
    if code[-1].outputs:
        assert state["lastOutputs"] > 0, "the last code cell has no output after Run All"
    saved = _save_and_read(page, lab.root / "notebooks" / NOTEBOOK.name)
    errors = [
        f"{o.ename}: {o.evalue}"
        for c in saved.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, f"error outputs after Run All: {errors}"
    assert (screenshot_dir / "lab_run_all.png").stat().st_size > 0
    assert seconds < RUN_ALL_TIMEOUT


def test_lab_widget_notebook_10(nb10, screenshot_dir):
    """(c) Dragging the first slider of notebook 10's explore section changes the printed value."""
    page, _ = nb10
    if page.locator(".dlsched-explore").count() == 0:
        pytest.fail(
            f"{NOTEBOOK.name} shows no explore section (ipywidgets VBox with CSS class "
            "'dlsched-explore') after Run All",
            pytrace=False,
        )
    before, after = _drag_and_check(page, screenshot_dir / "lab_widget.png")
    assert before != after


def test_lab_widget_probe(lab, lab_context, screenshot_dir, browser_timings):
    """(c) control: the same drag on a tiny probe notebook (slider + HTML readout via observe)."""
    relpath = f"notebooks/{PROBE}"
    page = _open_notebook(lab_context, lab, relpath)
    browser_timings[f"Lab Run All {PROBE}"] = _run_all(page, lab, relpath)
    before, after = _drag_and_check(page, screenshot_dir / "lab_widget_probe.png")
    assert before == "n = 20"
    assert after != before
