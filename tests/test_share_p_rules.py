"""Rules from the seventh and eighth readings (2026-11-29): a share whose whole is printed in another table (278)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

WALMART = DEV_PDFS / "en_walmart_fy2023_annual_report.pdf"


@pytest.mark.skipif(not WALMART.exists(), reason=NOT_FETCHED)
def test_a_share_divides_by_the_whole_another_table_prints(tmp_path):
    """Rule 278 ``whole_elsewhere`` (en-h-006): the Walmart U.S. segment's table prints its own net sales only; the
    consolidated results table on the page before prints the whole (605,881). The answer was the part alone."""
    pages = real_pages(WALMART, [6, 5], tmp_path)
    ans = get_generator("extractive", embed=False).generate(
        "What share of Walmart's consolidated net sales in fiscal 2023 came from the Walmart U.S. segment?", pages)
    assert ans.answer.startswith("69.4% = 420,553 / 605,881"), ans.answer
    assert ans.meta["arithmetic"]["op"] == "share"
