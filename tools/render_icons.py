"""Render the app's PNG icons and favicon.ico from the SVGs in static/icons (committed).

Run after changing an SVG: ``python tools/render_icons.py`` (needs Chromium at
/usr/bin/chromium, or SCOREKEEPER_CHROMIUM, and playwright).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
CHROMIUM = os.environ.get("SCOREKEEPER_CHROMIUM", "/usr/bin/chromium")
#: (source SVG, size, PNG name): "any" icons keep their rounded corners on a transparent
#: background; the maskable one fills the square (the platform cuts its own shape).
RENDERS = [
    ("icon.svg", 192, "icon-192.png"),
    ("icon.svg", 512, "icon-512.png"),
    ("icon.svg", 48, "favicon-48.png"),
    ("maskable.svg", 512, "maskable-512.png"),
]


def ico_of(png: bytes, size: int) -> bytes:
    """A one-image .ico holding ``png`` (ICO files may carry PNG data since Windows Vista)."""
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


def main() -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for source, size, name in RENDERS:
            page = browser.new_page(viewport={"width": size, "height": size})
            svg = (ICONS / source).read_text()
            page.set_content(
                f"<style>html,body{{margin:0;background:transparent}}svg{{display:block;"
                f"width:{size}px;height:{size}px}}</style>{svg}"
            )
            page.screenshot(path=str(ICONS / name), omit_background=True)
            page.close()
        browser.close()
    favicon = (ICONS / "favicon-48.png").read_bytes()
    (ICONS / "favicon.ico").write_bytes(ico_of(favicon, 48))
    (ICONS / "favicon-48.png").unlink()


if __name__ == "__main__":
    main()
