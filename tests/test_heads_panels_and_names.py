"""Rules 238-247, from the held-out reading of share m (Johnson & Johnson's and FedEx's filings, 安信证券's and
华创证券's quant notes) and share l's leftovers: English heads of a Chinese table (238), the row the question names
(239), columns printed newest first (240), group headers over repeated runs of columns and a line of column heads
(241), a company named with "&" (242, 244), the printed change of a comparison (243), a group header's span (245),
a picture of several charts (246) and a labelled chart asked without the word "chart" (247)."""

from __future__ import annotations

import pytest

from docrag.doc_names import DocumentNames
from docrag.generation import get_generator
from docrag.generation.extractive_chart_labels import data_labels
from docrag.generation.extractive_chart_panels import chart_panels, respelled
from docrag.generation.extractive_figure_fit import CAPTIONED_TABLE, figure_fit
from docrag.generation.extractive_glossary import english_heads
from docrag.generation.extractive_parts import parts_of
from docrag.generation.extractive_units import units_of
from docrag.geometry import Box
from docrag.types import Block, BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

ZHONGTAI = DEV_PDFS / "zh_zhongtai_icu_junxian_zeshi_2023.pdf"
SANXIE = DEV_PDFS / "zh_sanxie_dianji_zhaogushu.pdf"
ANXIN = DEV_PDFS / "zh_anxin_beixiang_zijin_2020.pdf"
JNJ = DEV_PDFS / "en_jnj_q2_2023_earnings_release.pdf"
FEDEX = DEV_PDFS / "en_fedex_fy2023_10k.pdf"


def _gen():
    return get_generator("extractive", embed=False)


def _heads(page) -> dict[tuple[str, str], list[str]]:
    return {(u.cell.row.label, u.cell.value): u.cell.headers for u in units_of(page, 1) if u.cell is not None}


@pytest.mark.skipif(not ZHONGTAI.exists(), reason=NOT_FETCHED)
def test_a_chinese_question_reads_the_english_heads_of_a_chinese_note(tmp_path):
    """Rule 238: 中泰's 表1 and 表2 are headed "Sharpe Ratio", "Maximum Drawdown", "Depth"; the question's 夏普比率,
    最大回撤 and 深度 are read as those heads (表2's deepest drawdown was declined)."""
    page = real_pages(ZHONGTAI, [4], tmp_path)[0]
    read = english_heads("ICU均线策略的夏普比率是多少？表2中哪一轮回撤的深度最大？", [page])
    assert "Sharpe Ratio" in read and "Depth" in read and "夏普" not in read
    ans = _gen().generate("中泰证券ICU均线择时报告的表2中，哪一轮回撤的深度最大？", [page])
    assert "14.04%" in ans.answer, ans.answer


def test_a_term_a_page_prints_in_chinese_is_left_alone():
    """Rule 238: nothing changes where a page prints the Chinese term, nor for English pages' heads."""
    class _Page:
        def __init__(self, text):
            self.text, self.blocks = text, []
    assert english_heads("策略的夏普比率是多少？", [_Page("夏普比率 1.69 Sharpe Ratio")]) == "策略的夏普比率是多少？"
    assert english_heads("策略的夏普比率是多少？", [_Page("Annualized Sharpe Ratio 1.69")]) == "策略的夏普比率是多少？"
    assert "Sharpe Ratio" in english_heads("策略的夏普比率是多少？", [_Page("表1 Sharpe Ratio 1.69")])


@pytest.mark.skipif(not SANXIE.exists(), reason=NOT_FETCHED)
def test_growth_is_read_from_the_row_named_and_in_time_order(tmp_path):
    """Rules 239, 240 on 三协's 研发费用 table (zh-l-012): the 占比 row under it had won on the sentence model (-3.4%
    from two 占比 cells), and the columns printed 2024 before 2023 gave -13.8%."""
    page = real_pages(SANXIE, [2], tmp_path)[0]
    ans = get_generator("extractive").generate("三协电机2024年度营业收入较2023年度增长了多少（百分比）？", [page])
    assert ans.answer.startswith("+16.1%"), ans.answer


@pytest.mark.skipif(not ANXIN.exists(), reason=NOT_FETCHED)
def test_group_headers_head_their_runs_and_a_line_of_heads_is_no_group_line(tmp_path):
    """Rule 241 on 安信's 表1: "未来1日" is printed over its run's last column (right-aligned), nearer the next run's
    first; the runs of 收益率 均值 / 中位数 / 胜率 repeat, so each group header heads its own run, and 阈值K and 总天数
    none. "阈值K | 总天数 | 胜率 | 胜率 | 胜率" is a line of column heads (a text repeats), not group headers."""
    heads = _heads(real_pages(ANXIN, [2], tmp_path)[0])
    assert heads[("u+1σ", "44.76")] == ["阈值K"]
    assert heads[("u+1σ", "0.46%")] == ["未来1 日", "收益率均值"]   # "收益率 / 均值" one word (rule 270)
    assert heads[("u+1σ", "0.80%")] == ["未来3 日", "收益率均值"]
    assert heads[("u+1σ", "68.06%")] == ["未来5 日", "胜率"]


@pytest.mark.skipif(not JNJ.exists(), reason=NOT_FETCHED)
def test_a_group_header_spanning_its_columns_heads_no_other(tmp_path):
    """Rule 245 on J&J's segment table: "% Change" spans Reported..Adjusted Operational; the 2022 column under no
    header is "Q2"'s, though "% Change"'s centre is the nearer."""
    heads = _heads(real_pages(JNJ, [2], tmp_path)[0])
    assert heads[("MedTech", "6,898")] == ["Q2", "2022"]
    assert heads[("MedTech", "12.9")] == ["% Change", "Reported"]


def test_an_ampersand_joins_a_name_not_a_list():
    """Rule 242: "Johnson & Johnson's reported sales, net earnings and diluted EPS" asks three things of one company
    (it was split at "&" into "What were Johnson ..." and "Johnson's reported sales")."""
    parts = parts_of("What were Johnson & Johnson's reported sales, net earnings and diluted EPS for the second "
                     "quarter of 2023?")
    assert parts == ["What were Johnson & Johnson's reported sales for the second quarter of 2023",
                     "What were Johnson & Johnson's net earnings for the second quarter of 2023",
                     "What were Johnson & Johnson's diluted EPS for the second quarter of 2023"]
    assert parts_of("What was Johnson & Johnson's adjusted diluted EPS in Q2 2023 compared with Q2 2022?") == [
        "What was Johnson & Johnson's adjusted diluted EPS in Q2 2023 compared with Q2 2022?"]


@pytest.mark.skipif(not JNJ.exists(), reason=NOT_FETCHED)
def test_a_comparison_of_two_periods_quotes_the_printed_change(tmp_path):
    """Rule 243: "in Q2 2023 compared with Q2 2022" quotes both periods and the row's "% Change"."""
    page = real_pages(JNJ, [1], tmp_path)[0]
    ans = _gen().generate("What was Johnson & Johnson's adjusted diluted EPS in Q2 2023 compared with Q2 2022?", [page])
    assert all(x in ans.answer for x in ("$2.80", "$2.59", "8.1%")), ans.answer


def test_a_company_named_with_an_ampersand_names_its_report():
    """Rule 244: "Johnson" alone names nothing (the file name says "jnj"); "Johnson & Johnson" and "J&J" name the
    report printing "Johnson & Johnson"; "S&P" names none of the reports printing "S&P 500"."""
    texts = {"jnj": "en jnj q2 2023 earnings release johnson & johnson reports q2 2023 results",
             "jci": "en jci 10k johnson controls international annual report",
             **{f"k{i}": f"en company{i} 10k annual report s&p 500 index" for i in range(6)}}
    names = DocumentNames(texts)
    assert names.named("Which Johnson & Johnson segment had the highest reported sales growth?") == {"jnj"}
    assert names.named("What were J&J's international sales in Q2 2023?") == {"jnj"}
    assert names.named("How did the S&P 500 index perform over five years?") == set()


def _word(text: str, x0: float, y0: float, w: float = 20.0) -> Block:
    return Block(BlockKind.TEXT, Box.points(x0, y0, x0 + w, y0 + 9, 600, 800), text)


def _panel(x: float, y: float, title: list[str], labels: list[str]) -> list[Block]:
    words = [_word(t, x + 10 + 45 * i, y) for i, t in enumerate(title)]
    words += [_word(v, x + 12 + 42 * i, y + 60 - 8 * i) for i, v in enumerate(labels)]
    words += [_word(str(2020 + i), x + 10 + 42 * i, y + 100) for i in range(4)]
    return words


def test_a_picture_of_several_charts_is_read_panel_by_panel():
    """Rule 246: two panels side by side over two more; each row of years set apart makes a panel with its own
    title and data labels (read as one chart, every panel's 2023 was one category)."""
    words = (_panel(70, 70, ["Ground", "Volume"], ["3,911", "4,312", "4,549", "4,361"])
             + _panel(300, 70, ["Freight", "Shipments"], ["72.5", "76.2", "79.1", "70.1"])
             + _panel(70, 260, ["Express", "Yield"], ["$18.30", "$17.79", "$20.15", "$22.54"])
             + _panel(300, 260, ["Ground", "Yield"], ["$8.93", "$9.70", "$10.64", "$11.70"]))
    panels = chart_panels(words)
    assert [p.title for p in panels] == ["Ground Volume", "Freight Shipments", "Express Yield", "Ground Yield"]
    assert data_labels(panels[3].words)["2023"] == "$11.70"
    assert data_labels(panels[0].words)["2022"] == "4,549"
    assert chart_panels(_panel(70, 70, ["Ground", "Volume"], ["1", "2", "3", "4"])) == []   # one chart
    assert respelled("Fed ExExpress Groundcommercial", "FedEx Express and FedEx Ground: Ground commercial") == \
        "Express FedEx Ground commercial"


@pytest.mark.skipif(not FEDEX.exists(), reason=NOT_FETCHED)
def test_a_panel_of_a_volume_trends_picture_answers_without_the_word_chart(tmp_path):
    """Rules 246, 247 on FedEx's volume trends (six raster panels, one picture): the footnote defining the measure
    (no figure in it) had answered; now the Express freight-pounds panel's 2023 label does."""
    page = real_pages(FEDEX, [4], tmp_path)[0]
    ans = get_generator("extractive").generate(
        "What were FedEx Express's international average daily freight pounds in fiscal 2023?", [page])
    assert "17,024" in ans.answer, ans.answer


HUACHUANG = DEV_PDFS / "zh_huachuang_chengjiaoliang_zeshi_2019.pdf"


@pytest.mark.skipif(not ANXIN.exists(), reason=NOT_FETCHED)
def test_a_statistics_table_under_a_chart_is_read_as_the_chart(tmp_path):
    """Rules 248, 249 on 安信's 图10: the one-row table printed under the strategy's curve (年化收益率 15.99% ... Sharpe
    1.325) was split into loose words as the chart's labels, headed by the chart's OCR'd legend and labelled by its
    first figure; now it is a table the chart's caption names, its first figure a value, read for "图10中…"."""
    page = real_pages(ANXIN, [5], tmp_path)[0]
    heads = _heads(page)
    assert heads[("", "15.99%")] == ["年化收益率"] and heads[("", "1.325")] == ["Sharpe"]
    cell = next(u for u in units_of(page, 1) if u.cell is not None and u.cell.value == "10.15%")
    assert figure_fit([cell], "图10中最大回撤是多少？", True, [True]) == [CAPTIONED_TABLE]   # read as the figure named
    assert figure_fit([cell], "图9中最大回撤是多少？", True, [False]) == [1.0]   # not when another is named
    ans = get_generator("extractive").generate(
        "安信证券北向资金研报图10中，择时指标构建策略的年化收益率、最大回撤和Sharpe比率分别是多少？", [page])
    assert all(x in ans.answer for x in ("15.99%", "10.15%", "1.325")), ans.answer


@pytest.mark.skipif(not HUACHUANG.exists(), reason=NOT_FETCHED)
def test_the_last_lines_of_wrapped_heads_are_no_group_headers(tmp_path):
    """Rule 241 on 华创's 图表7: "数 | 次数 | 期" end "总交易次数", "每年交易次数" and "空头(仓)周期"; read as
    group headers they had headed every column ("夏普, 次数")."""
    heads = _heads(real_pages(HUACHUANG, [3], tmp_path)[0])
    assert heads[("创业板指", "-0.018")] == ["夏普"]
    assert heads[("创业板指", "31.29")] == ["最大回撤"]


@pytest.mark.skipif(not FEDEX.exists(), reason=NOT_FETCHED)
def test_the_highest_is_compared_within_the_best_cells_section(tmp_path):
    """Rule 250 on FedEx's consolidated results: the 2023 column holds revenue, operating income and margins; "which
    segment had the highest operating margin" had taken the column's largest figure (consolidated revenue 90,155)."""
    page = real_pages(FEDEX, [2], tmp_path)[0]
    ans = get_generator("extractive").generate(
        "Which FedEx transportation segment had the highest operating margin in fiscal 2023?", [page])
    assert ans.answer.startswith("20.0% — FedEx Freight segment"), ans.answer
