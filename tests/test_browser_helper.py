"""tests/browser.py measures what a phone would cut off: a page wider than the screen is caught, one
that fits is not (so the report and board checks built on it can fail)."""

from __future__ import annotations

from pathlib import Path

from tests.browser import PHONE, open_file, overflow, page

FITS = '<html><head><meta name="viewport" content="width=device-width"></head><body><p>Fits.</p></body></html>'
WIDE = (
    '<html><head><meta name="viewport" content="width=device-width"></head>'
    '<body><table id="t"><tr><td style="min-width:900px">Status</td></tr></table></body></html>'
)


def test_a_page_wider_than_a_phone_is_caught_and_one_that_fits_is_not(tmp_path: Path) -> None:
    (tmp_path / "fits.html").write_text(FITS)
    (tmp_path / "wide.html").write_text(WIDE)
    with page(PHONE) as tab:
        open_file(tab, tmp_path / "fits.html")
        fits = overflow(tab)
        open_file(tab, tmp_path / "wide.html")
        wide = overflow(tab)
    assert (fits["clientWidth"], fits["scrollWidth"], fits["overflowing"]) == (PHONE, PHONE, [])
    assert wide["scrollWidth"] > PHONE and "table#t" in wide["overflowing"]
