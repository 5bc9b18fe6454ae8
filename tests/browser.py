"""A headless Chromium driven over the DevTools protocol, for tests that read pages as a
reader does: layout measured in the browser, full-page screenshots.

Debian's ``chromium`` (``.ci/run`` installs it) is started with a remote-debugging port and
driven through ``websocket-client`` (already in the lock): no browser download, no extra
package.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-port=0"]

#: What a reader should never see on a page (measured in the browser).
PAGE_REPORT = r"""
(() => {
  const main = document.querySelector('article.bd-article') || document.body;
  const right = main.getBoundingClientRect().right + 1;
  const overflow = [];
  for (const el of main.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= right) continue;
    let parent = el.parentElement, contained = false;
    while (parent && parent !== main) {
      const style = getComputedStyle(parent).overflowX;
      if (style === 'auto' || style === 'scroll' || style === 'hidden') { contained = true; break; }
      parent = parent.parentElement;
    }
    const name = `${el.tagName.toLowerCase()}.${el.className}`;
    if (!contained) overflow.push(`${name}: ${Math.round(box.right - right)} px`);
  }
  const quoted = [...main.querySelectorAll('.cell_output .output pre, .cell_output .text_plain')]
    .map(e => e.textContent.trim()).filter(t => /^(['"]).*\1$/s.test(t));
  const images = [...main.querySelectorAll('img')];
  const top = e => e ? e.getBoundingClientRect().top + window.scrollY : null;
  const bottom = e => e ? e.getBoundingClientRect().bottom + window.scrollY : null;
  return {
    text: main.innerText,
    overflow: overflow.slice(0, 20),
    quoted: quoted.slice(0, 20),
    // an alt that is empty or only the image's file path says nothing to a reader
    no_alt: images.filter(i => !(i.getAttribute('alt') || '').trim()
                               || /_images\/|\.(png|svg|jpe?g)$/.test(i.getAttribute('alt')))
      .map(i => i.src.split('/').pop()),
    alts: images.map(i => i.getAttribute('alt') || ''),
    verdict_tables: main.querySelectorAll('table.verdict-table').length,
    // where the answer sits, in page pixels from the top (null when absent)
    matrix_bottom: bottom(main.querySelector('table.verdict-matrix')),
    forest_top: top(images.find(i => (i.getAttribute('alt') || '').startsWith('Forest plot'))),
    grid_top: top(main.querySelector('table.glance-grid')),
    height: document.documentElement.scrollHeight,
  };
})()
"""


class Chromium:
    """One headless Chromium with one page; a context manager."""

    def __init__(self, width: int = 1280, height: int = 800, executable: str | None = None):
        self.executable = executable or shutil.which("chromium")
        if self.executable is None:
            raise FileNotFoundError("chromium is not installed: `apt-get install chromium` "
                                    "(.ci/run does it; see the README).")
        self.width, self.height = width, height
        self._ids = itertools.count(1)

    def __enter__(self) -> Chromium:
        import websocket

        # Chromium's helper processes write to the profile after the main one dies: the
        # whole process group is killed on exit, and a file left behind is not an error
        self._profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        self._process = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self._profile.name}",
             f"--window-size={self.width},{self.height}", "about:blank"],
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = self._process.stderr.readline()
            if not line and self._process.poll() is not None:
                break
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            url = match.group(1) if match else None
        if url is None:
            self._process.kill()
            raise RuntimeError("chromium did not open its DevTools port within 60 s.")
        self._socket = websocket.create_connection(url, timeout=120, suppress_origin=True)
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target,
                                   flatten=True)["sessionId"]
        self._call("Page.enable", session=True)
        self._call("Emulation.setDeviceMetricsOverride", session=True, width=self.width,
                   height=self.height, deviceScaleFactor=1, mobile=False)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._socket.close()
        finally:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._process.wait(timeout=30)
            self._profile.cleanup()

    def _call(self, method: str, session: bool = False, **params) -> dict:
        message_id = next(self._ids)
        message = {"id": message_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        self._socket.send(json.dumps(message))
        while True:
            reply = json.loads(self._socket.recv())
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _wait_for(self, event: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = json.loads(self._socket.recv())
            if reply.get("method") == event:
                return
        raise TimeoutError(f"no {event} within {timeout} s")

    def open(self, url: str) -> None:
        """Navigate and wait for the load event (and a moment for MathJax and layout)."""
        self._call("Page.navigate", session=True, url=url)
        self._wait_for("Page.loadEventFired")
        time.sleep(0.5)

    def evaluate(self, expression: str):
        result = self._call("Runtime.evaluate", session=True, expression=expression,
                            returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def report(self) -> dict:
        """:data:`PAGE_REPORT` on the open page."""
        return self.evaluate(PAGE_REPORT)

    def screenshot(self, path: Path, full_page: bool = True, height: int | None = None) -> Path:
        """A PNG of the page at the set width: the whole page, or its top ``height`` px."""
        if full_page or height:
            total = height or int(self.evaluate("document.documentElement.scrollHeight"))
            clip = {"x": 0, "y": 0, "width": self.width, "height": min(total, 16000),
                    "scale": 1}
            data = self._call("Page.captureScreenshot", session=True, format="png",
                              clip=clip, captureBeyondViewport=True)["data"]
        else:
            data = self._call("Page.captureScreenshot", session=True, format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path
