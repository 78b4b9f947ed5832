"""Debian's Chromium, headless, driven by Playwright: never a browser of Playwright's own."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE = Path(__file__).parents[2] / ".cache" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser with a fresh profile (Playwright gives each launch its own)."""
    if not Path(CHROMIUM).exists() or not AXE.exists():
        pytest.fail("the screen's browser tests need Chromium and axe-core: run `make setup` (scripts/setup.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it is."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:3]}
        for v in found
        if v["impact"] in SERIOUS
    ]


def has_chromium() -> bool:
    return shutil.which(CHROMIUM) is not None
