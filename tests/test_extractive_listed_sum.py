"""``extractive`` rule 163 (``listed_sum``): a sum the question lists by name adds one cell per name,
all of one column (the one the question dates), each row its own; when no column holds them all, no other cells
are added in their place."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_listed_sum import listed_names
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.test_extractive_tables_zh import _table_page

BALANCE = [["In millions", "December 31, 2022", "September 24, 2022"],
           ["Cash and cash equivalents", "20,535", "23,646"],
           ["Marketable securities, current", "30,820", "24,658"],
           ["Accounts receivable, net", "23,752", "28,184"],
           ["Marketable securities, non-current", "114,095", "120,805"],
           ["Other non-current assets", "60,924", "54,428"],
           ["Total assets", "346,747", "352,755"]]
CASH_Q = ("What was the total of cash and cash equivalents plus current and non-current marketable securities "
          "as of December 31, 2022?")


@pytest.mark.parametrize(("question", "names"), [
    (CASH_Q, ["cash and cash equivalents", "current marketable securities", "non-current marketable securities"]),
    ("What was the sum of revenue, cost of revenue and operating income for 2024?",
     ["revenue", "cost of revenue", "operating income"]),
    ("What were net sales and cost of sales together in 2022?", ["net sales", "cost of sales"]),
    ("What were cash and cash equivalents and inventories combined?", ["cash and cash equivalents", "inventories"]),
    ("营业收入、营业成本和税金及附加合计是多少？", ["营业收入", "营业成本", "税金及附加"]),
    ("How many shares did NVIDIA repurchase in total during the first quarter?", []),   # one quantity, no list
    ("前五名客户销售额合计多少？", []),
])
def test_the_names_a_sum_lists(question, names):
    assert listed_names(question) == names


def test_each_listed_name_is_its_own_row_of_the_dated_column(tmp_path):
    """"current marketable securities" fits both securities rows ("non-current" holds "current"); the non-current one
    fits its own name better, so each name takes its own row, and the column dated December 31, 2022 is added, not
    September's (the same year)."""
    page = _table_page(tmp_path, BALANCE, "Condensed consolidated balance sheets (in millions).")
    ans = get_generator("extractive", embed=False).generate(CASH_Q, [page])
    assert ans.answer.startswith("165,450 = 20,535 + 30,820 + 114,095"), ans.answer
    assert ans.meta["arithmetic"]["inputs"] == ["20,535", "30,820", "114,095"]


def test_no_other_cells_are_added_when_a_listed_name_labels_none(tmp_path):
    """Goodwill is on no row: the sum is not made of the cells that are (cash and the best row beside it)."""
    page = _table_page(tmp_path, BALANCE[:-1], "Condensed consolidated balance sheets (in millions).")
    q = "What was the total of cash and cash equivalents plus goodwill as of December 31, 2022?"
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert " = " not in ans.answer and "arithmetic" not in ans.meta, ans.answer


REAL_APPLE = DEV_PDFS / "en_apple_q1fy23_condensed_financial_statements.pdf"


@pytest.mark.skipif(not REAL_APPLE.exists(), reason=NOT_FETCHED)
def test_the_real_balance_sheets_cash_and_securities_are_summed_not_cash_flow_lines(tmp_path):
    """Apple's Q1 FY23 statements (en-a-066): read with the cash flow statement first, the sum is still the balance
    sheet's three named rows, not "Other current and non-current assets" plus "Purchases of marketable securities"."""
    pages = real_pages(REAL_APPLE, [3, 2], tmp_path)
    q = ("What was the total of Apple's cash and cash equivalents plus current and non-current marketable securities "
         "as of December 31, 2022?")
    ans = get_generator("extractive", embed=False).generate(q, pages)
    assert ans.answer.startswith("165,450 = 20,535 + 30,820 + 114,095"), ans.answer
    assert ans.citations[0].page_id == pages[1].page_id

