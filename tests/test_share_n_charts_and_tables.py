"""Rules 251-267, from the held-out reading of share n (Ulta Beauty's and Amcor's releases, 东方证券's and 兴业证券's
quant notes) and share m's leftovers: a segment compared in a table titled by the thing asked (251), a header logo
taking no chart's caption (252), a chart under another of its figure (253), bars painted in one path (254), a
company named outside the reference phrase (255), category labels painted as outlines (256), thousands commas
(257), labels and the nearest bar (258), months as categories (259), a release's dateline (260), a frame drawn round
one column (261), tables stacked in one block and their year-and-unit heads (262, 263), a table captioned "图 N"
(264), a formula in brackets (265), ordinals written out (266) and "fiscal" in a share's whole (267)."""

from __future__ import annotations

import pytest

from docrag.doc_names import DocumentNames
from docrag.generation import get_generator
from docrag.generation.extractive_chart_labels import data_labels
from docrag.generation.extractive_formula import formula_of
from docrag.generation.extractive_score import prior
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_units import Unit, tokenize, units_of
from docrag.geometry import Box
from docrag.types import Block, BlockKind, Page
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

DONGFANG = DEV_PDFS / "zh_dongfang_youxiu_jijinjingli_chaoe_2019.pdf"
AMCOR = DEV_PDFS / "en_amcor_fy2023_q4_earnings_release.pdf"
JNJ = DEV_PDFS / "en_jnj_q2_2023_earnings_release.pdf"


def _gen():
    return get_generator("extractive", embed=False)


def _figures(page) -> list[Unit]:
    return [u for u in units_of(page, 1) if u.kind == "figure"]


@pytest.mark.skipif(not JNJ.exists(), reason=NOT_FETCHED)
def test_a_segment_compared_in_the_table_titled_by_it(tmp_path):
    """Rule 251 (en-m-015): the highlights on page 1 outscore every cell of the segment table; "which ... segment had
    the highest reported sales growth" compares the "% Change Reported" column of "SEGMENT SALES RESULTS"."""
    pages = real_pages(JNJ, [1, 2], tmp_path)
    ans = _gen().generate("Which Johnson & Johnson segment had the highest reported sales growth in the second "
                          "quarter of 2023?", pages)
    assert ans.answer.startswith("12.9%") and "MedTech" in ans.answer.split("…")[0], ans.answer


@pytest.mark.skipif(not DONGFANG.exists(), reason=NOT_FETCHED)
def test_a_column_chart_painted_in_one_path_with_outlined_slanted_years(tmp_path):
    """Rules 252, 254, 256, 258 on 东方's 图3 (zh-n-002): its 22 bars are one path whose box holds the labels over the
    shorter bars (254: it was no figure); its years are outlines set at 45° (256: OCR'd turned level); bars stand 10
    pt apart, each label naming the nearest (258); the page header's logo above "图 3" is no chart of it (252)."""
    page = real_pages(DONGFANG, [2], tmp_path)[0]
    charts = [u for u in _figures(page) if u.text.startswith("图 3")]
    assert len(charts) == 1
    values = charts[0].extra["values"]
    assert (values["1998"], values["2014"], values["2015"], values["2019"]) == ("6", "94", "105", "139")
    ans = _gen().generate("东方证券《来自优秀基金经理的超额收益》图3中，2019年公募基金管理公司数量是多少？"
                          "1998年是多少？", [page])
    assert "139 — 2019" in ans.answer and "6 — 1998" in ans.answer, ans.answer


@pytest.mark.skipif(not DONGFANG.exists(), reason=NOT_FETCHED)
def test_a_bar_chart_under_the_curve_of_its_figure_is_named_by_its_caption(tmp_path):
    """Rule 253 on 东方's 图28 (zh-n-011, zh-n-012): the yearly-return bar chart under the net-value curve and its
    statistics table has only its own title, the table none; "图28的…分年收益柱状图", "图28中…跟踪误差" name them."""
    page = real_pages(DONGFANG, [7], tmp_path)[0]
    bars = [u for u in _figures(page) if "2017" in (u.extra.get("values") or {})]
    assert bars and bars[0].extra["caption"].startswith("图 28")
    stats = [u for u in units_of(page, 1) if u.cell is not None and u.cell.row.label.startswith("跟踪误差")]
    assert stats and stats[0].table.title.startswith("图 28")   # the statistics table between them (zh-n-012)
    ans = _gen().generate("东方证券《来自优秀基金经理的超额收益》图28的沪深300全市场增强组合分年收益柱状图中，"
                          "2017年常规组合与优选基金重仓股调整组合的收益各是多少？", [page])
    assert "15.9%" in ans.answer and "18.2%" in ans.answer, ans.answer


@pytest.mark.skipif(not DONGFANG.exists(), reason=NOT_FETCHED)
def test_stacked_tables_captioned_as_a_figure(tmp_path):
    """Rules 262, 264 on 东方's 图12 (zh-n-007): 绝对收益 and 超额收益 are two tables in one block, the second under a
    repeated head line "年份 | 一个月 | …"; the caption "图 12" above them names them (no figure was linked to it)."""
    page = real_pages(DONGFANG, [4], tmp_path)[0]
    block = next(b for b in page.blocks if b.kind is BlockKind.TABLE)
    tables = parse_tables(block, page)
    assert len(tables) == 2 and "超额收益" in tables[1].title
    assert [r.label for r in tables[1].rows][:2] == ["2007", "2008"]
    ans = get_generator("extractive").generate(
        "东方证券《来自优秀基金经理的超额收益》图12中，2008年获奖基金组合持有一年的绝对收益和超额收益分别是多少？",
        [page])
    assert "62.9%" in ans.answer and "-2.6%" in ans.answer, ans.answer


@pytest.mark.skipif(not AMCOR.exists(), reason=NOT_FETCHED)
def test_a_frame_round_one_column_cuts_no_cells_and_stacked_heads_repeat(tmp_path):
    """Rules 261-263 on Amcor's "Key Financials" (en-n-013): the blue frame round "Comparable constant currency ∆%"
    made a two-column grid ("Net sales 14,544 | 14,694"); the adjusted table under the GAAP one repeats "2022 $ million
    | 2023 $ million", each year one head with its unit."""
    page = real_pages(AMCOR, [1], tmp_path)[0]
    block = next(b for b in page.blocks if b.kind is BlockKind.TABLE)
    assert block.meta["source"] != "rule_grid" and ["Net sales", "14,544", "14,694"] in block.meta["rows"]
    tables = parse_tables(block, page)
    assert len(tables) == 2 and "Adjusted non-GAAP results" in tables[1].title
    ebit = next(c for c in tables[1].cells() if c.row.label == "EBIT" and c.value == "1,608")
    assert ebit.headers[-1] == "2023 $ million"
    ans = _gen().generate("What were Amcor's adjusted EBIT and adjusted diluted EPS for fiscal 2023 (twelve months "
                          "ended June 30, 2023)?", [page])
    assert "1,608" in ans.answer and "73.3" in ans.answer, ans.answer


def test_a_company_named_outside_the_reference_phrase():
    """Rule 255 (en-n-003): "In its August 24, 2023 release, ... did Ulta Beauty ..." names nothing in its reference;
    the question's own names then scope it (the prior range had been read from Amcor's release)."""
    names = DocumentNames({"u": "ulta beauty q2 release ulta beauty inc announces", "a": "amcor fiscal 2023 release",
                           "w": "walmart 10-k"},
                          {"u": "en ulta beauty q2 fy2023 earnings release", "a": "en amcor fy2023 q4 earnings release",
                           "w": "en walmart 10k"})
    assert names.named("In its August 24, 2023 release, to what range did Ulta Beauty update its fiscal 2023 "
                       "diluted EPS outlook?") == {"u"}


def test_a_comma_groups_thousands_only():
    """Rule 257 (zh-n-003): "图3，2014年" was one token "32014" (NFKC makes "，" a comma)."""
    assert {"3", "2014", "2019"} <= set(tokenize("根据图3，2014年至2019年"))
    assert "1234567" in tokenize("1,234,567") and "1234.5" in tokenize("1,234.5")


def _word(text: str, x0: float, y0: float, width: float = 0.0, height: float = 8.0) -> Block:
    return Block(BlockKind.TEXT, Box.points(x0, y0, x0 + (width or 6 * len(text)), y0 + height, 600, 800), text)


def test_months_written_as_numbers_are_categories():
    """Rule 259 (东方's 图6): "201901 … 201911" under a chart are its months, not data labels of the legend under
    them."""
    months = [_word(f"2019{m:02d}", 331 + 20 * m, 640, width=11) for m in range(11)]
    legend = [_word("发行份额(亿份)", 402, 648, width=22), _word("总数", 436, 648, width=7),
              _word("平均发行份额(亿份)", 456, 648, width=28)]
    assert not any(v.startswith("2019") for v in data_labels(months + legend, need_axis=True).values())


def test_a_data_label_names_the_nearest_bar():
    """Rule 258 (东方's 图3): bars 10 pt apart; "105" over 2014, 2 pt to the right of 2013's 6 pt of slack, named
    2013 too ("2014: 105, 94")."""
    years = [_word(str(2010 + i), 100 + 10 * i, 300, width=6, height=4) for i in range(6)]
    labels = [_word(str(10 + i), 100 + 10 * i, 260 - 5 * i, width=6, height=4) for i in (0, 1, 2, 5)]
    labels += [_word("94", 128, 250, width=6, height=4), _word("105", 137, 240, width=8, height=4)]
    values = data_labels(years + labels, need_axis=True)
    assert (values["2013"], values["2014"]) == ("94", "105")


def test_a_release_dateline_points_at_the_figures():
    """Rule 260 (en-n-005, en-n-006): "Ulta Beauty, Inc. (NASDAQ: ULTA) today announced financial results for ..."
    names the company, quarter and periods of every question; it states none of the figures."""
    page = Page(doc_id="d", page_no=1, width_pt=600, height_pt=800)
    block = Block(BlockKind.TEXT, Box.points(50, 50, 550, 90, 600, 800), "")
    dateline = Unit("BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Ulta Beauty, Inc. (NASDAQ: ULTA) today announced financial "
                    "results for the thirteen-week period ended July 29, 2023.", page, 1, block, block.box)
    stated = Unit("Net sales increased 10.1% to $2.5 billion in the second quarter.", page, 1, block, block.box)
    assert prior(dateline, True, False, False) < 0.6 * prior(stated, True, False, False)


def test_a_formula_written_in_brackets_in_words():
    """Rule 265 (en-n-010): "free cash flow (operating cash flow minus capital expenditures)" asks that difference
    (the capital expenditures cell alone answered)."""
    formula = formula_of("What was Ulta Beauty's free cash flow (operating cash flow minus capital expenditures) for "
                         "the 26 weeks ended July 29, 2023?")
    assert formula is not None and (formula.op, formula.a, formula.b) == (
        "difference", "operating cash flow", "capital expenditures")
    assert formula_of("What was Ulta Beauty's capital expenditure (including software) in 2023?") is None


def test_an_ordinal_written_out_meets_its_figure():
    """Rule 266 (en-n-008): "the second quarter" is the store table's "2nd Quarter" row, not its "1st Quarter"."""
    assert tokenize("in the second quarter") == tokenize("in the 2nd Quarter")
    assert "1st" in tokenize("First Six Months") and "21" in tokenize("21st")


def test_fiscal_is_a_period_word_of_a_share_named():
    """Rule 267 (en-n-017): "what share of Amcor's fiscal 2023 net sales came from the Flexibles segment" is Flexibles
    over net sales; "fiscal" left in the whole's name ("fiscal net sales") matched no row, and no share was computed."""
    formula = formula_of("What share of fiscal 2023 net sales came from the Flexibles segment?")
    assert formula is not None and (formula.op, formula.a, formula.b) == ("share", "Flexibles segment", "net sales")
