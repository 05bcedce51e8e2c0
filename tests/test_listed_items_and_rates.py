"""Rules 220-229, from the held-out reading of shares i, j and k (Bank of England's March 2024 minutes, General
Mills' FY2023 10-K, Netflix's Q2 2023 10-Q, 赛分科技's and 星图测控's prospectuses, the CBC's September 2024 minutes):
every item a question lists is answered, years too (220); a growth rate's change is a difference in percentage points
(221); two objects of one preposition stay one question (222); "哪一期…占…的比例最高" reads the printed ratio row across
its periods (223, 224); a sentence announcing the table below names it (225); column heads set above the table block
head its columns (226); a cut quote keeps its figures (227); a row of nils is no header (228); a part takes the years
the question said (229)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_formula import formula_of, prints_share
from docrag.generation.extractive_listed_items import listed_items
from docrag.generation.extractive_math import operation_of
from docrag.generation.extractive_parts import parts_of
from docrag.generation.extractive_prose_math import prose_arithmetic
from docrag.generation.extractive_units import units_of
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page
from tests.test_extractive_tables_zh import GREY

BOE = DEV_PDFS / "en_boe_mpc_minutes_2024-03.pdf"
GENERAL_MILLS = DEV_PDFS / "en_generalmills_fy2023_10k.pdf"
SAIFEN = DEV_PDFS / "zh_saifen_keji_zhaogushu.pdf"
FASTEST = ("Per the Bank of England's March 2024 MPC minutes, which grew fastest in 2023 Q4 among the euro area, the "
           "United States and China, and at what rate?")


def test_the_items_of_a_list_are_read_with_their_words():
    assert listed_items(FASTEST) == [[["euro", "area"], ["United", "States"], ["China"]]]
    assert listed_items("How did UK household consumption, housing investment and business investment change in "
                        "2023 Q4?") == [[["UK", "household", "consumption"], ["housing", "investment"],
                                         ["business", "investment"]]]
    # the owner before an item is the document's name; a number ends an item
    assert listed_items("What were Netflix's total revenues and net income for the quarter?") == [
        [["total", "revenues"], ["net", "income"]]]
    assert listed_items("What were General Mills' reported and adjusted effective tax rates?") == [
        [["reported"], ["adjusted", "effective", "tax", "rates"]]]
    assert listed_items("What was revenue in 2023 and 2022?") == [[["2023"], ["2022"]]]   # years are items
    assert listed_items("What was the revenue of Apple in 2023 and its margin?") == []
    # a span, a quoted title and an aside list nothing (their items had been answered with noise)
    assert listed_items("How did the rate change between December 2023 and January 2024?") == []
    assert listed_items("In which quarter between Q4'21 and Q4'23 was it highest?") == []
    assert listed_items("In the paper 'Forward Guidance with Bayesian Learning and Estimation' (Gust, Herbst and "
                        "López-Salido), what is the mean?") == []


def test_each_listed_item_gets_its_own_figure(tmp_path):
    """The answer named China's growth only; the US figure (named by its initials) came from the sentence that says
    what the first one says, not from the US unemployment rate."""
    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY,
                                       "Growth had diverged, the United States again growing faster than "
                                       "expected. In China, GDP had grown by 1.0% in 2023 Q4. The US "
                                       "unemployment rate had increased to 3.9% in 2023 Q4, its highest. "
                                       "Inflation in Japan had been 2.8%. By contrast, US GDP had grown by 0.8% "
                                       "in 2023 Q4. Euro-area GDP had been flat. "
                                       "The unemployment rate in the euro area had edged down to 6.4% in January.")],
                     doc_id="m", page_no=1)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("Which grew fastest in 2023 Q4 among the euro area, the United States and China, and at "
                       "what rate?", [page])
    assert "1.0%" in ans.answer and "0.8%" in ans.answer, ans.answer
    assert "3.9%" not in ans.answer, ans.answer


@pytest.mark.skipif(not BOE.exists(), reason=NOT_FETCHED)
def test_the_minutes_answer_every_item_asked(tmp_path):
    pages = real_pages(BOE, [3, 4, 5], tmp_path)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("According to the Bank of England's March 2024 MPC minutes, how did UK household consumption, "
                       "housing investment and business investment change in 2023 Q4?", pages)
    assert all(x in ans.answer for x in ("0.4%", "1.9%", "1.5%")), ans.answer
    ans = gen.generate("What February 2024 headline and core inflation rates for the euro area and the United States "
                       "are cited in the Bank of England's March 2024 MPC minutes?", pages)
    assert all(x in ans.answer for x in ("2.6%", "3.1%", "3.2%", "3.8%")), ans.answer


def test_a_growth_rates_change_is_in_percentage_points():
    q = ("By how much did the annual growth rate of UK aggregate sterling broad money change between December 2023 "
         "and January 2024?")
    assert operation_of(q) == "difference"
    assert operation_of("What was the growth rate of revenue in 2023?") == "growth"
    res = prose_arithmetic("difference", q, "The annual growth rate of aggregate sterling broad money had decreased "
                                            "from -0.3% in December to -1.6% in January.")
    assert res is not None and res.text == "1.3 percentage points = -0.3% − -1.6%"
    amounts = prose_arithmetic("difference", "By how much did sales fall?",
                               "Sales fell from 6.8 million to 4.0 million.")
    assert amounts is not None and amounts.text == "2.8 = 6.8 − 4.0"


def test_two_objects_of_one_preposition_stay_one_question():
    q = ("What February 2024 headline and core inflation rates for the euro area and the United States are cited in "
         "the Bank of England's March 2024 MPC minutes?")
    assert parts_of(q) == [q]
    assert len(parts_of("What was the revenue in the Americas, and what was the operating margin?")) == 2


def test_a_which_period_question_names_the_ratio_not_the_question_word():
    f = formula_of("赛分科技招股书主要财务指标中，2021年至2024年1-6月哪一期研发投入占营业收入的比例最高？是多少？")
    assert f is not None and f.a == "研发投入" and f.b == "营业收入"


@pytest.mark.skipif(not SAIFEN.exists(), reason=NOT_FETCHED)
def test_the_printed_ratio_row_is_read_across_its_periods(tmp_path):
    page = real_pages(SAIFEN, [5], tmp_path)[0]
    q = "赛分科技招股书主要财务指标中，2021年至2024年1-6月哪一期研发投入占营业收入的比例最高？是多少？"
    f = formula_of(q)
    row = [u for u in units_of(page, 1) if u.cell is not None and "研发投入占营业收入" in u.cell.row.label]
    assert row and all(prints_share(f, u) for u in row)
    assert not any(prints_share(f, u) for u in units_of(page, 1) if u.cell is not None and u not in row)
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert ans.answer.startswith("19.12%"), ans.answer


@pytest.mark.skipif(not GENERAL_MILLS.exists(), reason=NOT_FETCHED)
def test_a_sentence_announcing_the_table_names_it(tmp_path):
    page = real_pages(GENERAL_MILLS, [8], tmp_path)[0]
    cells = [u for u in units_of(page, 1) if u.cell is not None and "credit" in u.cell.row.label.lower()]
    assert cells and all("fee-paid committed and uncommitted credit lines" in u.context for u in cells)
    ans = get_generator("extractive", embed=False).generate(
        "What fee-paid credit lines did General Mills have available as of May 28, 2023, and how much was borrowed "
        "under them?", [page])
    assert not ans.answer.startswith("The following table"), ans.answer


NETFLIX = DEV_PDFS / "en_netflix_10q_q2_2023.pdf"
XINGTU = DEV_PDFS / "zh_xingtu_cekong_zhaogushu.pdf"


def test_a_rate_said_to_have_changed_is_a_difference():
    assert operation_of("According to the CBC's September 2024 minutes, how had the annual growth rate of Taiwan's "
                        "housing loans changed by the end of August 2024?") == "difference"


@pytest.mark.skipif(not (GENERAL_MILLS.exists() and NETFLIX.exists()), reason=NOT_FETCHED)
def test_column_heads_set_above_the_table_block_head_its_columns(tmp_path):
    """Rule 226: layout left the heads outside the table block; the cells had none (General Mills) or took the
    three months' head for the six months' figures (Netflix's regional tables)."""
    page = real_pages(GENERAL_MILLS, [1], tmp_path / "gm")[0]
    heads = {u.cell.value: u.cell.headers for u in units_of(page, 1) if u.cell is not None}
    assert heads["20,094.2"] == ["Fiscal 2023"] and heads["18,992.8"] == ["Fiscal 2022"]
    assert heads["6 %"] == ["Fiscal 2023 vs. Fiscal 2022"]   # a head wrapped over two lines is one head
    page = real_pages(NETFLIX, [3], tmp_path / "nf")[0]
    heads = {u.cell.value: u.cell.headers for u in units_of(page, 1) if u.cell is not None}
    assert "Six Months Ended" in heads["2,147,627"][0] and "Three Months Ended" in heads["1,077,435"][0]


def test_a_cut_quote_keeps_its_figures():
    from docrag.generation.extractive_sentences import fit_quotes
    text = ("For the outlook of 2024 as a whole, given that late July saw fruit and vegetable prices surged in the "
            "aftermath of typhoons and torrential rain, the Bank slightly revised up this year's forecast for the CPI "
            "annual growth rate to 2.16% while slightly revised down the forecast for the core CPI annual growth rate "
            "to 1.94%, and forecasted that in 2025 the CPI would ease further.")
    cut = fit_quotes([text], 200, " … ")
    assert "2.16%" in cut and "1.94%" in cut and cut.startswith("... ") and len(cut) <= 210, cut
    plain = "The Committee met on 19 September 2024 and discussed " + "the outlook at length " * 12
    assert fit_quotes([plain], 120, " … ").startswith("The Committee met")   # no figure to keep: the start


@pytest.mark.skipif(not XINGTU.exists(), reason=NOT_FETCHED)
def test_a_row_of_nils_is_no_header_and_a_part_keeps_the_date_asked(tmp_path):
    """Rule 228: "库存现金 | - | - | - | -" had been read as the 货币资金 table's header (every column headed "-"); the
    dates above the grid head it. Rule 229: "其中其他货币资金多少" is asked of the date the question's first part
    names."""
    page = real_pages(XINGTU, [5], tmp_path)[0]
    heads = {(u.cell.row.label, u.cell.value): u.cell.headers for u in units_of(page, 1) if u.cell is not None}
    assert heads[("合计", "91,301,113.51")] == ["2023 年12 月31 日"]
    assert heads[("银行存款", "46,864,385.18")] == ["2024年6月30日"]
    ans = get_generator("extractive", embed=False).generate(
        "2023年12月31日的货币资金合计是多少元？其中其他货币资金多少？", [page])
    assert "91,301,113.51" in ans.answer and "3,202,000.00" in ans.answer, ans.answer



def test_each_year_listed_gets_its_figures(tmp_path):
    """"for 2024 and 2025" (the CBC's September 2024 minutes): the answer quoted one year's forecasts only."""
    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY,
                                       "The Bank revised up its forecast of the CPI annual growth rate for 2024 to "
                                       "2.16% and revised down core CPI to 1.94%. The economy was forecast to expand "
                                       "by 3.08% in 2025. In 2025 the CPI and core CPI annual growth rates would ease "
                                       "further to 1.89% and 1.79%.")], doc_id="cbc", page_no=1)
    ans = get_generator("extractive", embed=False).generate(
        "What CPI and core CPI annual growth rates did the Bank forecast for 2024 and 2025?", [page])
    assert all(x in ans.answer for x in ("2.16%", "1.94%", "1.89%", "1.79%")), ans.answer
