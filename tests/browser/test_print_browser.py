"""A rules card printed from Chromium fits one A4 or Letter page, as its print page says
("the card fits on one A4 or Letter page"): every preset, the longest notes included.

Whitnack's card (its source notes the longest) took two pages on both papers, and
classic's two on Letter, until the print stylesheet set the card at 9pt.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorekeeper.engine import PRESETS

pytestmark = pytest.mark.browser

#: The print stylesheet's own margins (static/css/rules.css, ``@page``).
MARGINS = {side: "12mm" for side in ("top", "bottom", "left", "right")}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_presets_printed_card_fits_one_page_of_a4_and_of_letter(page: Any, preset: str) -> None:
    page.goto(f"/rules/presets/{preset}/print")
    assert "one A4 or Letter page" in page.content()
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, margin=MARGINS)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert pages == 1, (preset, paper, pages)
