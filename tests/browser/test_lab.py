"""The chapters in JupyterLab, as ``make lab`` serves them, driven by a real browser.

For each chapter in ``LAB_NOTEBOOKS`` (default: chapter 1; set ``QRING_LAB_NOTEBOOKS`` to a
space-separated list of notebook names, or to ``all``, to run others) the test

* starts JupyterLab from the project's venv on 127.0.0.1, on a free port, with a random token, on a
  temporary copy of ``book/`` (so JupyterLab's autosave never touches the committed notebooks) and
  with temporary Jupyter config, runtime, settings and workspace folders (so nothing of the
  user's own Jupyter setup takes part, and nothing is left behind);
* opens the chapter in headless Chromium (Debian's, see conftest.py), waits for its kernel,
  clicks Run → Run All Cells and waits until every code cell has run and the kernel is idle;
* saves the notebook (File → Save Notebook, into the temporary copy) and reads it back through
  Jupyter's REST API: no cell raised, and the execution counts are 1, 2, ..., N in cell order,
  i.e. the chapter ran top to bottom in one fresh kernel;
* checks that the kernel was the venv's Python (its command line, read from /proc);
* checks that the widgets render live (ipywidgets views, via jupyterlab_widgets of the lab
  extra), not as the static preview of the HTML book;
* moves a slider of a widget that has a figure (keyboard: focus the slider's handle, press an arrow
  key, as a reader can; the first slider that moves) and checks that the slider's value and the
  figure's PNG change, and that the figure still differs once the kernel is idle again;
* records every request that would leave 127.0.0.1 (each one is aborted) and fails on any.

At the end it shuts JupyterLab down through its API, kills whatever is left of the server and its
kernels by process id, and checks that none of them is still running.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ._book import ROOT

BOOK = ROOT / "book"
# The venv's interpreter: the test runs under it (make test calls .venv/bin/python -m pytest), so
# sys.executable is the Python that `make lab` runs JupyterLab with.
VENV_PYTHON = Path(sys.executable)

_requested = os.environ.get("QRING_LAB_NOTEBOOKS", "01_bottleneck.ipynb").split()
if _requested == ["all"]:
    _requested = sorted(p.name for p in BOOK.glob("*.ipynb"))
LAB_NOTEBOOKS = _requested

SERVER_START_S = 120  # JupyterLab answering on its port
KERNEL_START_S = 180  # the chapter's kernel idle after opening the notebook
RUN_ALL_S = float(os.environ.get("QRING_LAB_RUN_TIMEOUT", 900))  # Run All Cells, per chapter
WIDGET_S = 120  # a moved slider's figure redrawn by the kernel
UI_MS = 60_000  # one UI step (a menu, a selector)


# ---------------------------------------------------------------------------------------------
# The JupyterLab server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kernel_pids(runtime_dir: Path) -> list[int]:
    """Pids of the kernels of this server: their connection files live in its runtime folder."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(
            a.startswith(str(runtime_dir).encode()) and a.endswith(b".json") for a in argv
        ) and any(b"ipykernel" in a for a in argv):
            pids.append(int(proc.name))
    return pids


def _cmdline(pid: int) -> list[str]:
    return [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


class LabServer:
    """A JupyterLab server on a temporary copy of book/ (see the module docstring)."""

    def __init__(self, base: Path):
        self.base = base
        self.root = base / "book"
        shutil.copytree(
            BOOK,
            self.root,
            ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints", "__pycache__"),
        )
        self.runtime = base / "runtime"
        self.token = secrets.token_hex(24)
        self.env = dict(os.environ)
        for var, sub in (
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("JUPYTERLAB_SETTINGS_DIR", "settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
            ("IPYTHONDIR", "ipython"),
        ):
            (base / sub).mkdir(exist_ok=True)
            self.env[var] = str(base / sub)
        # As the Makefile exports them for `make lab`: the venv's kernelspecs first.
        self.env["JUPYTER_PATH"] = str(VENV_PYTHON.parent.parent / "share" / "jupyter")
        self.env["JUPYTER_PLATFORM_DIRS"] = "1"
        self.env["PYTHONHASHSEED"] = "0"
        # User settings of this throwaway profile: start the notebook's kernel without asking;
        # attach every cell to the page (no windowing), so that the test sees all prompts; and do
        # not ask about (or fetch) Jupyter news and updates.
        self._settings(
            "notebook-extension",
            "tracker",
            {"autoStartDefaultKernel": True, "windowingMode": "none"},
        )
        self._settings(
            "apputils-extension", "notification", {"fetchNews": "false", "checkForUpdates": False}
        )
        self.log_path = base / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.kernels_seen: set[int] = set()

    def _settings(self, plugin_dir: str, name: str, values: dict) -> None:
        folder = Path(self.env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab" / plugin_dir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.jupyterlab-settings").write_text(json.dumps(values))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        # A free port is chosen here and JupyterLab may not move off it (port_retries=0); should
        # another process take it in between, the server exits and we try another one.
        for _attempt in range(3):
            self.port = _free_port()
            log = open(self.log_path, "a")
            cmd = [
                str(VENV_PYTHON),
                "-m",
                "jupyterlab",
                "--no-browser",
                f"--ServerApp.root_dir={self.root}",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                # no request leaves the machine: no news feed, no update check, no extension
                # manager querying PyPI
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.extension_manager=readonly",
            ]
            if os.geteuid() == 0:  # CI runs as root
                cmd.append("--allow-root")
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.base,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            log.close()
            deadline = time.monotonic() + SERVER_START_S
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    self.api("/api/status")
                    return
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    time.sleep(0.5)
            else:
                raise AssertionError(
                    f"JupyterLab did not answer on {self.url} within "
                    f"{SERVER_START_S} s; log:\n{self.log_tail()}"
                )
            if "address already in use" not in self.log_tail().lower():
                raise AssertionError(
                    f"JupyterLab exited with code {self.proc.returncode}; log:\n{self.log_tail()}"
                )
        raise AssertionError(
            f"JupyterLab found no free port in 3 attempts; log:\n{self.log_tail()}"
        )

    def api(self, path: str, method: str = "GET", timeout: float = 10):
        req = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def kernel_pids(self) -> list[int]:
        pids = _kernel_pids(self.runtime)
        self.kernels_seen.update(pids)
        return pids

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def stop(self) -> list[str]:
        """Shut down kernels and server; kill by pid whatever is left. Returns what survived."""
        if self.proc is None:
            return []
        self.kernel_pids()
        if self.proc.poll() is None:
            try:
                self.api("/api/shutdown", method="POST")  # shuts down every kernel first
                self.proc.wait(timeout=60)
            except (
                urllib.error.URLError,
                ConnectionError,
                TimeoutError,
                subprocess.TimeoutExpired,
            ):
                pass
        # The server and its helpers share its process group; each kernel has its own session
        # (jupyter_client starts it with start_new_session), and its children (chapter 3's DDP
        # processes) share the kernel's group.
        groups = [self.proc.pid] + sorted(self.kernels_seen)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pgid in groups:
                try:
                    os.killpg(pgid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(_alive(p) for p in groups):
                time.sleep(0.2)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        return [f"pid {p}" for p in groups if _alive(p)]


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    server = LabServer(tmp_path_factory.mktemp("jupyterlab"))
    try:
        server.start()
        yield server
    finally:
        left = server.stop()
    assert not left, f"processes left behind by JupyterLab: {left}"


# ---------------------------------------------------------------------------------------------
# The browser side

PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook shown

PROMPTS_JS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')]
        .map(c => (c.querySelector('.jp-InputPrompt') || {textContent: ''}).textContent.trim())
"""

# The sliders of the widgets (ipywidgets views) that have an image, in page order; each such
# output area and slider handle gets a data attribute, so that Python can address them.
MARK_SLIDERS_JS = """
() => {
  const outputs = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output')];
  const found = [];
  outputs.forEach((o, i) => {
    const img = o.querySelector('img');
    if (!img || !o.querySelector('.jupyter-widgets')) return;
    o.setAttribute('data-qring-lab-widget', String(i));
    [...o.querySelectorAll('.widget-hslider')].forEach((s, j) => {
      const handle = s.querySelector('.noUi-handle');
      if (!handle) return;
      handle.setAttribute('data-qring-lab-handle', `${i}-${j}`);
      found.push({output: i, handle: `${i}-${j}`, value: handle.getAttribute('aria-valuenow'),
                  max: handle.getAttribute('aria-valuemax'),
                  label: (s.querySelector('.widget-label') || {textContent: ''}).textContent});
    });
  });
  return found;
}
"""

# The PNG bytes the widget's <img> shows (a blob: URL made from the kernel's PNG), base64; null
# while there is none (or while the view swaps its blob).
IMAGE_BYTES_JS = """
async (output) => {
  const img = document.querySelector(`[data-qring-lab-widget="${output}"] img`);
  if (!img || !img.src || !img.complete || img.naturalWidth === 0) return null;
  try {
    const buf = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let s = ''; for (let i = 0; i < buf.length; i++) s += String.fromCharCode(buf[i]);
    return {src: img.src, b64: btoa(s), width: img.naturalWidth};
  } catch (e) { return null; }
}
"""


def _digest(b64: str) -> str:
    return hashlib.sha256(base64.b64decode(b64)).hexdigest()[:16]


def _wait(page, predicate, timeout_s: float, what, poll_ms: int = 1000):
    """Poll ``predicate()`` until truthy, letting Playwright run meanwhile (its sync API serves
    the page's routed requests only while we are inside a Playwright call: never time.sleep).
    ``what`` (a string, or a callable giving one at the time of failure) names what we wait for."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            text = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {text}")
        page.wait_for_timeout(poll_ms)


def _menu(page, menu: str, item: str) -> None:
    """Click a menu of JupyterLab's menu bar, then its item labelled ``item``, as a reader does."""
    page.get_by_role("menuitem", name=menu, exact=True).click(timeout=UI_MS)
    label = page.locator(".lm-Menu .lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$"))
    label.click(timeout=UI_MS)


def _shut_down_kernel(server: LabServer, notebook: str) -> None:
    """End the notebook's session and kernel, so the next chapter has the machine to itself."""
    server.kernel_pids()  # remember the kernel's pid for the final check
    try:
        for s in server.api("/api/sessions") or []:
            if s.get("path") == notebook:
                server.api(f"/api/sessions/{s['id']}", method="DELETE", timeout=60)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        pass


def _kernel_state(server: LabServer, notebook: str) -> str | None:
    sessions = server.api("/api/sessions")
    for s in sessions or []:
        if s.get("path") == notebook and s.get("kernel"):
            return s["kernel"]["execution_state"]
    return None


def _stored_widgets(notebook: str) -> int:
    """Widget outputs in the committed notebook (widget views, or the widgets' static previews)."""
    nb = json.loads((BOOK / notebook).read_text(encoding="utf-8"))
    count = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            count += (
                "application/vnd.jupyter.widget-view+json" in data
                or 'class="qring-static-widget"' in html
            )
    return count


def _check_live_widget(page, server: LabServer, notebook: str) -> float:
    """Live ipywidgets views; a slider moved by keyboard changes its figure. Returns seconds."""
    # Live widgets, not the HTML book's static previews.
    live = page.locator(f"{PANEL} .jp-OutputArea-output .jupyter-widgets").count()
    static = page.locator(f"{PANEL} .qring-static-widget").count()
    assert live > 0 and static == 0, (
        f"{notebook}: widgets did not render live in JupyterLab ({live} widget views, "
        f"{static} static previews): is jupyterlab_widgets (the lab extra) installed?"
    )

    # Move a slider; the kernel recomputes the figure. The first slider that a key press moves
    # is used (a slider already at its end moves the other way).
    sliders = page.evaluate(MARK_SLIDERS_JS)
    assert sliders, f"{notebook}: no live widget with a slider and a figure after Run All"
    tried = []
    for slider in sliders:
        before = page.evaluate(IMAGE_BYTES_JS, slider["output"])
        assert before, f"{notebook}: the figure of widget {slider['label']!r} did not load"
        handle = page.locator(f'[data-qring-lab-handle="{slider["handle"]}"]')
        key = "ArrowLeft" if float(slider["value"]) >= float(slider["max"]) else "ArrowRight"
        handle.focus()
        handle.press(key)
        t0 = time.monotonic()
        try:
            _wait(
                page,
                lambda: handle.get_attribute("aria-valuenow") != slider["value"],
                10,
                "",
                poll_ms=200,
            )
        except AssertionError:
            tried.append(f"{slider['label']!r} ({key})")
            continue
        moved_to = handle.get_attribute("aria-valuenow")

        def changed():
            now = page.evaluate(IMAGE_BYTES_JS, slider["output"])
            return now if now and _digest(now["b64"]) != _digest(before["b64"]) else None

        _wait(
            page,
            changed,
            WIDGET_S,
            lambda: (
                f"{notebook}: the figure to change after slider {slider['label']!r} moved "
                f"{slider['value']} -> {moved_to} (its PNG is still the same)"
            ),
            poll_ms=250,
        )
        # Let the kernel finish every update the move caused; the final figure still differs.
        _wait(
            page,
            lambda: _kernel_state(server, notebook) == "idle",
            WIDGET_S,
            "the kernel to go idle after the slider move",
            poll_ms=250,
        )
        page.wait_for_timeout(500)
        final = _wait(
            page,
            lambda: page.evaluate(IMAGE_BYTES_JS, slider["output"]),
            30,
            "the widget's figure after the move",
            poll_ms=250,
        )
        assert _digest(final["b64"]) != _digest(before["b64"]), (
            f"{notebook}: slider {slider['label']!r} moved {slider['value']} -> {moved_to}, "
            "but once the kernel was idle the figure was the one from before the move"
        )
        elapsed = time.monotonic() - t0
        box = page.locator(f'[data-qring-lab-widget="{slider["output"]}"]')
        assert box.get_by_text("Cannot compute").count() == 0, (
            f"{notebook}: the widget reports an error after moving {slider['label']!r}"
        )
        print(f"{notebook}: moved slider {slider['label']!r} {slider['value']} -> {moved_to}")
        break
    else:
        raise AssertionError(f"{notebook}: no slider moved on a key press: {tried}")
    return elapsed


@pytest.mark.parametrize("notebook", LAB_NOTEBOOKS)
def test_chapter_runs_in_jupyterlab(lab_server, browser, screenshot_dir_lab, notebook):
    assert (BOOK / notebook).is_file(), f"no notebook book/{notebook}"
    server = lab_server
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    external: list[str] = []

    def route(r):
        url = r.request.url
        if url.startswith((server.url + "/", "data:", "blob:")):
            r.continue_()
        else:
            external.append(url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    shot = screenshot_dir_lab / f"lab-{Path(notebook).stem}.png"
    t0 = time.monotonic()
    timings = {}
    try:
        # A workspace of its own, reset: only this notebook is open (no tabs of earlier tests).
        workspace = f"qring-lab-test-{Path(notebook).stem}"
        page.goto(
            f"{server.url}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={server.token}",
            timeout=UI_MS,
        )
        page.wait_for_selector(f"{PANEL} .jp-Cell", timeout=UI_MS)
        assert page.locator(".jp-NotebookPanel").count() == 1, "more than one notebook open"
        _wait(
            page,
            lambda: _kernel_state(server, notebook) == "idle",
            KERNEL_START_S,
            f"the kernel of {notebook} to start and go idle",
        )
        timings["open"] = time.monotonic() - t0

        n_code = len(page.evaluate(PROMPTS_JS))
        assert n_code > 0, f"{notebook}: no code cells in JupyterLab's view"
        # The committed notebook is executed: clear its outputs and execution counts first, so
        # that every output and count seen afterwards comes from this run.
        _menu(page, "Edit", "Clear Outputs of All Cells")
        _wait(
            page,
            lambda: all(p in ("[ ]:", "") for p in page.evaluate(PROMPTS_JS)),
            30,
            "the execution counts to be cleared",
            poll_ms=200,
        )
        assert page.locator(f"{PANEL} .jp-OutputArea-output").count() == 0
        _menu(page, "Run", "Run All Cells")
        t1 = time.monotonic()

        def finished():
            prompts = page.evaluate(PROMPTS_JS)
            done = all(re.fullmatch(r"\[\d+\]:", p) for p in prompts)
            return done and _kernel_state(server, notebook) == "idle"

        _wait(
            page,
            finished,
            RUN_ALL_S,
            lambda: (
                f"Run All Cells of {notebook} to finish "
                f"(prompts now: {' '.join(page.evaluate(PROMPTS_JS))[:400]}; kernel "
                f"{_kernel_state(server, notebook)})"
            ),
        )
        timings["run all"] = time.monotonic() - t1

        # Chapters (NN_slug) have widgets (ARCHITECTURE.md); other pages only if they store some.
        if _stored_widgets(notebook) or re.match(r"\d\d_", notebook):
            timings["slider"] = _check_live_widget(page, server, notebook)

        # Save (into the temporary copy) and read the executed notebook back.
        _menu(page, "File", "Save Notebook")

        def saved():
            model = server.api(f"/api/contents/{notebook}?content=1")["content"]
            counts = [c.get("execution_count") for c in model["cells"] if c["cell_type"] == "code"]
            return model if all(isinstance(c, int) for c in counts) else None

        nb = _wait(page, saved, 60, f"{notebook} to be saved with its outputs")
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert len(code) == n_code
        counts = [c["execution_count"] for c in code]
        assert counts == list(range(1, len(code) + 1)), (
            f"{notebook}: cells did not run once each, top to bottom, in one kernel: "
            f"execution counts {counts}"
        )
        errors = [
            (i, o.get("ename"), o.get("evalue"))
            for i, c in enumerate(code)
            for o in c.get("outputs", [])
            if o.get("output_type") == "error"
        ]
        assert not errors, f"{notebook}: cells raised in JupyterLab (code cell, error): {errors}"

        # The kernel is the venv's Python.
        pids = server.kernel_pids()
        assert pids, "no kernel process of this JupyterLab found"
        argv0 = {Path(_cmdline(p)[0]) for p in pids}
        assert argv0 == {VENV_PYTHON}, (
            f"the kernel ran {sorted(map(str, argv0))}, not the project's venv {VENV_PYTHON}"
        )

        assert not external, f"requests that left the machine (aborted): {external}"
        assert not page_errors, f"JavaScript errors in JupyterLab: {page_errors}"
    finally:
        try:
            page.screenshot(path=str(shot))
        except Exception:  # noqa: BLE001 (a screenshot must never hide the real failure)
            pass
        context.close()
        _shut_down_kernel(server, notebook)
        print(
            f"{notebook} in JupyterLab: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        )


@pytest.fixture(scope="module")
def screenshot_dir_lab(tmp_path_factory) -> Path:
    # Beside the HTML book's screenshots when the book is built, else in a pytest temp folder:
    # this test does not need _build/html.
    env = os.environ.get("QRING_SCREENSHOTS")
    path = Path(env) if env else ROOT / "_build" / "screenshots"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = tmp_path_factory.mktemp("lab-screenshots")
    return path
