"""Rules 209-213, from the held-out reading of share h (Walmart's FY2023 10-K, 云汉芯城's prospectus): a grid drawn
without outer verticals keeps its label and last columns (209); a measure written as a formula is no value (210); a
cell printing a figure the question states is not what it asks (211); a chart's gridlines and value axis are no table
(212); a chart read off its drawing loses to the table under it that prints its series (213)."""

from __future__ import annotations

import pymupdf
import pytest

from docrag.doc_names import DocumentNames
from docrag.generation import get_generator
from docrag.generation.extractive_cues import missing_entities
from docrag.generation.extractive_formula import formula_of
from docrag.generation.extractive_printed import TABLED_CHART_LOSS, given_figure, tabled_chart
from docrag.generation.extractive_score import formula_definition, year_fit
from docrag.generation.extractive_units import units_of
from docrag.ingestion.plot_grids import is_plot_grid
from docrag.types import BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page
from tests.test_extractive_tables_zh import GREY, _table_page

YUNHAN = DEV_PDFS / "zh_yunhan_xincheng_zhaogushu.pdf"
WALMART = DEV_PDFS / "en_walmart_fy2023_annual_report.pdf"
BOT = DEV_PDFS / "en_bot_mpc_minutes_2021-08.pdf"
LABELS = ("Current ratio", "Quick ratio", "Debt ratio", "Interest cover")


def _open_sided_grid(path) -> None:
    """A table ruled like 云汉芯城's 主要财务指标: horizontal rules across the page, verticals only between the columns
    (none at the left of the labels, none at the right of the last column)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    xs, top, step = (90, 250, 340, 430, 508), 140.0, 22.0
    rows = [("Indicator", "2024", "2023", "2022"), *((label, f"{k + 1}.{k}8", f"{k + 2}.{k}6", f"{k + 3}.{k}1")
                                                       for k, label in enumerate(LABELS))]
    for i, row in enumerate(rows):
        y = top + i * step
        page.draw_line((xs[0], y), (xs[-1], y), width=0.6)
        page.insert_text((xs[0] + 4, y + 15), row[0], fontsize=10)
        for j, text in enumerate(row[1:], start=1):
            page.insert_text((xs[j + 1] - 6 - 5.5 * len(text), y + 15), text, fontsize=10)
    bottom = top + len(rows) * step
    page.draw_line((xs[0], bottom), (xs[-1], bottom), width=0.6)
    for x in xs[1:-1]:   # inner verticals only
        page.draw_line((x, top), (x, bottom), width=0.6)
    doc.save(path)


def test_a_grid_without_outer_verticals_keeps_its_label_and_last_columns(tmp_path):
    _open_sided_grid(tmp_path / "grid.pdf")
    page = real_pages(tmp_path / "grid.pdf", [1], tmp_path)[0]
    table = next(b for b in page.blocks if b.kind is BlockKind.TABLE)
    rows = table.meta["rows"]
    assert rows[0] == ["Indicator", "2024", "2023", "2022"]
    assert [r[0] for r in rows[1:]] == list(LABELS)
    assert rows[3] == ["Debt ratio", "3.28", "4.26", "5.21"]


@pytest.mark.skipif(not YUNHAN.exists(), reason=NOT_FETCHED)
def test_the_prospectus_indicator_table_keeps_its_labels_and_2022(tmp_path):
    p4, p8 = real_pages(YUNHAN, [4, 8], tmp_path)
    rows = next(b for b in p4.blocks if b.kind is BlockKind.TABLE).meta["rows"]
    assert rows[4] == ["资产负债率(合并)", "30.81%", "30.52%", "45.69%"]
    projects = next(b for b in p8.blocks if b.kind is BlockKind.TABLE).meta["rows"]
    assert projects[0][0] == "序号" and projects[0][-1] == "建设期"
    assert projects[1][1] == "大数据中心及元器件交易平台升级项目"   # the finder's cells keep wrapped names whole
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("云汉芯城招股说明书中，2024年末公司合并口径资产负债率和流动比率分别是多少？", [p4]).answer
    assert "30.81%" in ans and "2.68" in ans, ans


def test_a_formula_is_no_value():
    assert formula_definition("流动比率 = 流动资产 / 流动负债 速动比率 = (流动资产 - 存货) / 流动负债")
    assert formula_definition("加权平均净资产收益率 =P0/ ( E0 + NP ÷ 2 + Ei × Mi ÷ M0 ) 其中: P0 为净利润")
    assert formula_definition("Return on assets = net income / average total assets")
    assert not formula_definition("流动比率 = 2.68")
    assert not formula_definition("Revenue was $1,234 million = 12.5% of the total")


@pytest.mark.skipif(not YUNHAN.exists(), reason=NOT_FETCHED)
def test_a_formula_loses_to_the_table_that_prints_the_value(tmp_path):
    page = real_pages(YUNHAN, [5], tmp_path)[0]   # the formulas' notes under the three years' tables
    ans = get_generator("extractive", embed=False).generate(
        "云汉芯城2022年归属于公司普通股股东的净利润对应的加权平均净资产收益率是多少？", [page]).answer
    assert ans.startswith("26.72%"), ans


def test_a_figure_the_question_states_is_not_its_answer(tmp_path):
    rows = [["", "2018", "2023"], ["Walmart Inc.", "100.00", "147.89"], ["S&P 500 Index", "100.00", "157.71"]]
    page = _table_page(tmp_path, rows, "The graph assumes $100 was invested in our stock and in each index.")
    units = units_of(page, 1)
    question = "What was $100 invested in Walmart stock on February 1, 2018 worth at the end of fiscal 2023?"
    scores = given_figure(units, [1.0] * len(units), question)
    worth = {u.cell.value: s for u, s in zip(units, scores, strict=True) if u.cell is not None}
    assert worth["100.00"] < worth["147.89"] == 1.0
    assert given_figure(units, [1.0] * len(units), "What was Walmart worth in 2023?") == [1.0] * len(units)


def test_a_chart_s_gridlines_with_their_value_axis_are_no_table():
    axis = [["", "and S&P 500 Retailing Index", ""], ["$250", "", ""], ["$200", "", ""], ["$150", "", ""],
            ["$100", "", ""], ["$50", "", ""], ["$0", "", ""], ["", "Walmart Inc. S&P 500 Index", ""]]
    assert is_plot_grid(axis)
    assert not is_plot_grid(axis[:4])   # three ticks: no axis yet
    assert not is_plot_grid([*axis, ["Walmart Inc.", "100.00", "92.03"]])   # a row of figures: a table
    assert not is_plot_grid([["Q1", ""], ["250", ""], ["210", ""], ["150", ""], ["100", ""]])   # no even step


@pytest.mark.skipif(not WALMART.exists(), reason=NOT_FETCHED)
def test_a_performance_graph_is_a_figure_and_its_table_answers(tmp_path):
    page = real_pages(WALMART, [1], tmp_path)[0]
    chart = next(b for b in page.blocks if b.kind is BlockKind.FIGURE)
    assert chart.box.y0 < 300 and chart.box.y1 <= 551 and "$250" in chart.text
    assert not any("$250" in b.text for b in page.blocks if b.kind is BlockKind.TABLE)
    units = units_of(page, 1)
    scores = tabled_chart(units, [1.0] * len(units))   # rule 213: the table under it prints what the chart draws
    figure = next(i for i, u in enumerate(units) if u.kind == "figure")
    assert units[figure].extra["drawn"] and scores[figure] == TABLED_CHART_LOSS
    assert all(s == 1.0 for i, s in enumerate(scores) if i != figure)
    alone = [u for u in units if u.kind != "cell"]   # without the table, the drawing is all there is to read
    assert tabled_chart(alone, [1.0] * len(alone)) == [1.0] * len(alone)


def test_a_numbered_document_is_told_apart_from_its_siblings():
    texts = {"m94": "en banxico minutes 94 2022 08 pdf minutes number 94 meeting of the governing board of "
                    "banco de mexico",
             "m104": "en banxico minutes 104 2023 11 pdf meeting of the governing board of banco de mexico",
             "m105": "en banxico minutes 105 2023 12 pdf meeting of the governing board of banco de mexico",
             "bot": "monetary policy committee meeting (no.5/2021) 4 august 2021 bank of thailand"}
    titles = {"m94": "en banxico minutes 94 2022 08 pdf", "m104": "en banxico minutes 104 2023 11 pdf",
              "m105": "en banxico minutes 105 2023 12 pdf", "bot": "en bot mpc minutes 2021 08 pdf"}
    names = DocumentNames(texts, titles)
    ask = "According to Table 1 in Banco de México's Minutes number {}, what was annual inflation in October 2023?"
    assert names.named(ask.format(104)) == {"m104"}   # by its file name's "minutes 104"
    assert names.named(ask.format(94)) == {"m94"}     # by its cover's "minutes number 94"
    assert names.named("How did the Bank of Thailand's MPC vote at its meeting No. 5/2021?") == {"bot"}
    # without its number, no name tells the three minutes apart (each is held by too many of four documents)
    assert names.named("According to Banco de México's minutes, what was annual inflation?") == set()


def test_a_name_the_file_name_holds_is_not_missing(tmp_path):
    page = make_page(tmp_path, [Region((72, 100, 540, 130), GREY, "Table 1 Consumer Price Index and components")],
                     file_name="en_banxico_minutes_104_2023-11.pdf")
    question = "According to Table 1 of Banco de México's Minutes number 104, what was annual inflation?"
    assert "Minutes" not in missing_entities(question, [page])
    assert "Banco" in missing_entities(question, [page])   # printed neither on the page nor in its file name


@pytest.mark.skipif(not WALMART.exists(), reason=NOT_FETCHED)
def test_a_table_of_other_measures_leaves_the_chart_alone(tmp_path):
    page = real_pages(WALMART, [1], tmp_path)[0]
    units = units_of(page, 1)
    figure = next(i for i, u in enumerate(units) if u.kind == "figure")
    drawn = [{**s, "values": [[f"Q{k}", v] for k, (_, v) in enumerate(s["values"])]}
             for s in units[figure].extra["drawn"]]   # the same series over other categories than the table's years
    units[figure].extra["drawn"] = drawn
    assert tabled_chart(units, [1.0] * len(units))[figure] == 1.0


@pytest.mark.skipif(not BOT.exists(), reason=NOT_FETCHED)
def test_a_header_row_the_finder_dropped_is_read_from_the_line_above(tmp_path):
    page = real_pages(BOT, [11], tmp_path)[0]
    heads = {(u.cell.row.label.split(" (")[0], u.text): u.cell.headers for u in units_of(page, 1) if u.cell is not None}
    assert heads[("Delayed reopening and lower confidence among foreign tourists", "-1.3")] == ["2022"]
    assert heads[("Jun-21 forecast", "1.8")] == ["2021"]



@pytest.mark.skipif(not YUNHAN.exists(), reason=NOT_FETCHED)
def test_a_table_titled_by_another_year_is_less_likely(tmp_path):
    page = real_pages(YUNHAN, [5], tmp_path)[0]   # three tables, each under its year: "2024 年", "2023 年", "2022 年"
    fits = {u.text: year_fit(u, {"2022"}, {}) for u in units_of(page, 1)
            if u.cell is not None and u.cell.row.label == "归属于公司普通股股东的净利润" and "%" in u.text}
    assert fits == {"12.55%": 0.75, "12.69%": 0.75, "26.72%": 1.0}


def test_a_one_line_table_under_its_years_is_a_table(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((50, 380), "Liquidity and capital resources are discussed below.", fontsize=9)
    page.insert_text((50, 424), "(Amounts in millions)", fontsize=8)
    for x, year in ((381, "2023"), (443, "2022"), (505, "2021")):
        page.insert_text((x, 424), year, fontsize=8)
    page.insert_text((50, 435), "Net cash provided by operating activities", fontsize=8)
    for x, value in ((363, "$"), (392, "28,841"), (424, "$"), (454, "24,181"), (486, "$"), (516, "36,074")):
        page.insert_text((x, 435), value, fontsize=8)
    page.insert_text((50, 470), "Net cash provided by operating activities was $28.8 billion.", fontsize=9)
    doc.save(tmp_path / "one_line.pdf")
    ingested = real_pages(tmp_path / "one_line.pdf", [1], tmp_path)[0]
    table = next(b for b in ingested.blocks if b.kind is BlockKind.TABLE)   # rule 218: years are headers, not figures
    assert table.meta["rows"][0] == ["(Amounts in millions)", "2023", "2022", "2021"]
    assert "28,841" in table.meta["rows"][1]


def test_what_was_a_minus_b_asks_the_difference():
    question = ("What was Walmart's net cash provided by operating activities minus its total capital expenditures "
                "in fiscal 2023?")
    formula = formula_of(question)
    assert formula is not None and formula.op == "difference"
    assert (formula.a, formula.b) == ("net cash provided by operating activities", "total capital expenditures")
    assert formula_of("What was the growth, less than expected?") is None   # "less than" is no operation
    assert formula_of("What was the total of cash plus goodwill?") is None   # a sum is rule 163's, by listed names
