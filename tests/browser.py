"""The pages players read, opened in a real browser: Debian's Chromium (`apt-get install chromium`), driven
by Playwright over the DevTools protocol, at a desktop's and a phone's width.

Playwright's own browsers are never downloaded: it launches the Chromium the machine has. Where there is
none, every browser test is skipped with a message that says how to install it (`.ci/run` installs it
where it can). Chromium is started as the machine's probe starts it: no sandbox (the tests may run as
root), no GPU, and none of the background connections a closed network refuses.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

DESKTOP, PHONE = 1280, 390  # CSS pixels: a laptop's window, and a phone's (an iPhone 12 to 15)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MISSING = (
    "no Chromium on this machine: install Debian's package (`apt-get install chromium`) to run the browser "
    "checks of the reports and the board page (.ci/run installs it where it can)"
)
# (the overflow check) every element whose box reaches past the page's right edge, outside any element
# that scrolls sideways on purpose (a table's own scroller): what a phone would cut off or scroll to
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => { for (let p = el.parentElement; p; p = p.parentElement) {
    const x = getComputedStyle(p).overflowX; if (x === 'auto' || x === 'scroll' || x === 'hidden') return true; }
    return false; };
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '');
    if (box.width && box.right > width + 1 && !scrolls(el)) found.push(name);
  }
  return {scrollWidth: document.documentElement.scrollWidth, clientWidth: width, overflowing: found.slice(0, 20)};
}"""


def chromium() -> str:
    """The Chromium to drive (CHROMIUM names another); the test is skipped, saying how to install it, if none."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip(MISSING)
    return found


@contextmanager
def page(width: int, height: int = 900) -> Iterator[Any]:
    """A fresh browser page `width` CSS pixels wide (a phone's touch screen below 600), closed after use."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=ARGS)
        try:
            small = width < 600
            context = browser.new_context(
                viewport={"width": width, "height": height}, is_mobile=small, has_touch=small, device_scale_factor=1
            )
            yield context.new_page()
        finally:
            browser.close()


def open_file(tab: Any, path: Path) -> None:
    """Load a page the engine wrote (a file, with everything it needs inside or beside it)."""
    tab.goto(path.resolve().as_uri())
    tab.wait_for_load_state("load")


def overflow(tab: Any) -> dict[str, Any]:
    """How wide the page is against the window, and what sticks out past its right edge."""
    found: dict[str, Any] = tab.evaluate(OVERFLOWING)
    return found
