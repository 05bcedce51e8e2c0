"""``extractive`` rule 160 (``named_figures``): arithmetic on the two figures a question names when a sentence, not
a cell, states one of them; refused for a count against money, and when a sentence states the share itself."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_named_figures import named_figures
from docrag.generation.extractive_units import units_of
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page
from tests.test_extractive_tables_zh import GREY, _table_page

SIFANG_REGIONS = [["地区", "营业收入", "营业成本"], ["境内", "397,875,535.30", "321,614,730.86"],
                  ["境外", "737,763,832.75", "601,896,081.32"]]
SIFANG_Q = "境外业务营业收入占主营业务收入的比例约为多少？"
REAL_CAICT = DEV_PDFS / "zh_caict_computing_power_index_2021.pdf"


def _prose_page(tmp_path, *sentences: str):
    regions = [Region((72, 100 + 40 * i, 540, 130 + 40 * i), GREY, s) for i, s in enumerate(sentences)]
    return make_page(tmp_path, regions, doc_id="prose")


def _named(question: str, page):
    units = units_of(page, 1)
    return named_figures(question, units, [1.0] * len(units), units[0])


def test_a_share_whose_whole_only_a_sentence_states_is_computed_from_the_sentence_and_the_cell(tmp_path):
    """四方科技's 2019 report (zh-a-016): the part is the 境外 row's 营业收入 cell, the whole (主营业务收入) is stated
    in a sentence only; the answer divides them, shows both and cites both."""
    page = _table_page(tmp_path, SIFANG_REGIONS, "报告期内，公司实现主营业务收入1,135,639,368.05元，比上年减少5.07%。")
    ans = get_generator("extractive", embed=False).generate(SIFANG_Q, [page])
    assert ans.answer.startswith("65.0% = 737,763,832.75 / 1,135,639,368.05"), ans.answer
    assert ans.meta["arithmetic"]["inputs"] == "named figures"
    assert {u["kind"] for u in ans.meta["units"][:2]} == {"cell", "sentence"}


def test_a_count_is_never_divided_into_money_and_a_stated_share_is_not_recomputed(tmp_path):
    """The whole's name on a count ("以数字经济命名的产业园超过200家") is no operand of an amount in 万亿元; a sentence
    stating the part and its share ("……8.35万亿元，占数字经济比重为18.3%") is quoted, not divided."""
    q = "2021年我国数字产业化规模占数字经济的比重是多少？"
    count = _prose_page(tmp_path, "2021年，我国数字产业化规模为8.35万亿元，同比名义增长11.9%。",
                        "我国以“数字经济”命名的产业园累计超过200家。")
    assert _named(q, count) is None
    amount = _prose_page(tmp_path, "2021年，我国数字产业化规模为8.35万亿元，同比名义增长11.9%。",
                         "2021年，我国数字经济规模达到45.5万亿元。")
    res, part, whole, _ = _named(q, amount)
    assert res.text == "18.4% = 8.35 / 45.5" and "8.35" in part.text and "45.5" in whole.text
    stated = _prose_page(tmp_path, "2021年，我国数字产业化规模为8.35万亿元，占数字经济比重为18.3%。",
                         "2021年，我国数字经济规模达到45.5万亿元。")
    assert _named(q, stated) is None


@pytest.mark.skipif(not REAL_CAICT.exists(), reason=NOT_FETCHED)
def test_the_real_white_paper_share_of_world_computing_power_is_computed_from_two_pages(tmp_path):
    """中国信通院's 算力 white paper (zh-b-045): China's 135 EFlops (page 4) over the world's 429 EFlops (page 2, its
    sentence running on to page 3), both sentences quoted; the paper's own "约为 31%" is a rounded statement."""
    pages = real_pages(REAL_CAICT, [4, 2, 3], tmp_path)
    q = "2020年我国算力总规模占全球算力总规模的比重是多少？请用报告给出的总量计算并与报告表述对照。"
    ans = get_generator("extractive", embed=False).generate(q, pages)
    assert ans.answer.startswith("31.5% = 135 / 429"), ans.answer
    assert {c.page_id.split(":")[1] for c in ans.citations} >= {"1", "2"}   # pages 4 and 2 of the PDF, in that order


REAL_HANGTIAN = DEV_PDFS / "zh_hangtian_dianqi_2019_nianbao.pdf"


@pytest.mark.skipif(not REAL_HANGTIAN.exists(), reason=NOT_FETCHED)
def test_a_total_named_by_its_tables_title_is_the_operand_not_a_row_holding_some_of_its_words(tmp_path):
    """航天电器 2019 年报 (rule 162 ``titled_total``): "非经常性损益合计" is the 合计 row of the table under
    "九、非经常性损益项目及金额" (page 3, its title above the notes "√ 适用 □ 不适用" and "单位：元"), not the row
    beside the net profit whose label holds 非经常性损益 among other words (扣除非经常性损益的净利润, page 2)."""
    pages = real_pages(REAL_HANGTIAN, [2, 3], tmp_path)
    q = "2019年归属于上市公司股东的净利润减去非经常性损益合计是多少？"
    ans = get_generator("extractive", embed=False).generate(q, pages)
    assert ans.answer.startswith("370,143,518.21 = 402,233,891.06 − 32,090,372.85"), ans.answer
