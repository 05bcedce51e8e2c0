"""Rules from the ninth session (2026-11-29), on share q: a table found without its header under a line naming no
year crashed the period-header reader; a mean of one unit (288), a part larger than its whole (289), the documents a
question names (290 a year, 291 initials, 292 more names), a chart beside the table of its values (293), "and for what"
(294), before or after costs (295), options in one pool (296), the report's owner (297) and nested group headers
(298). Real-page tests skip where
the dev PDFs are not fetched."""

from __future__ import annotations

import re

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_table_read import _period_heads
from docrag.generation.extractive_tables import Cell, Row, Table
from docrag.geometry import Box, Space
from docrag.types import Block, BlockKind, Word
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

PFIZER = DEV_PDFS / "en_pfizer_2022_10k.pdf"
GUANGFA = DEV_PDFS / "zh_guangfa_cgo_fengxian_pianhao_2017.pdf"
ZHAOSHANG = DEV_PDFS / "zh_zhaoshang_str_yinzi_2022.pdf"


def _box(x0: float, y0: float, x1: float, y1: float) -> Box:
    return Box(x0, y0, x1, y1, Space.POINT, (595.0, 842.0))


def test_a_line_above_without_a_year_heads_no_grid() -> None:
    """``lead_periods`` (rule 215) read a line above the grid whose words held no year as periods and crashed."""
    rows = [Row("组合", _box(40, 100, 90, 110), [Cell("12.5%", _box(200, 100, 240, 110)),
                                                Cell("8.1%", _box(300, 100, 340, 110))])]
    grid = Table(Block(BlockKind.TABLE, _box(40, 80, 400, 120), ""), "", [], rows)
    line = [Word("表8：", _box(40, 85, 70, 95)), Word("分层回测结果", _box(75, 85, 160, 95))]
    assert _period_heads(grid, line) == []
    dated = [Word("指标", _box(40, 85, 70, 95)), Word("2016", _box(205, 85, 235, 95)),
             Word("2017", _box(305, 85, 335, 95))]
    assert [c.text for c in _period_heads(grid, dated)[0]] == ["指标", "2016", "2017"]


def _column(values: list[tuple[str, str]], header: str = "超额收益") -> tuple[object, list[object]]:
    """Units (duck-typed: ``cell`` and ``table``) of one column of a table whose rows are ``(label, value)``."""
    from types import SimpleNamespace

    rows = [Row(label, _box(40, 100 + 12 * i, 90, 110 + 12 * i), [Cell(v, _box(200, 100 + 12 * i, 240, 110 + 12 * i))])
            for i, (label, v) in enumerate(values)]
    table = Table(Block(BlockKind.TABLE, _box(40, 80, 400, 200), ""), "", [[Cell(header, _box(200, 85, 240, 95))]],
                  rows)
    units = [SimpleNamespace(cell=tc, table=table) for tc in table.cells()]
    return units[0], units


def test_a_mean_is_of_one_unit_and_not_of_a_measure_a_row_prints() -> None:
    """Rule 288 ``mean_one_unit``: "IC均值" asked of 广发's 表2 (rows IC 均值 … 负IC占比 over 周度 / 月度) averaged the
    column's six rows of different measures, 62.7% among plain figures; a row printing the measure reads it, and
    rates beside plain figures are never averaged."""
    from docrag.generation.extractive_math import column_mean

    q = "2018-2020年各年超额收益的简单平均值是多少？"
    best, units = _column([("2018", "12.0%"), ("2019", "8.0%"), ("2020", "4.0%")])
    res = column_mean(best, q, units)
    assert res is not None and abs(res[0].value - 8.0) < 1e-9
    best, units = _column([("2018", "12.0%"), ("2019", "8.0"), ("2020", "4.0%")])
    assert column_mean(best, q, units) is None
    best, units = _column([("IC 均值", "-0.0553"), ("IC 标准差", "0.1788"), ("IC_IR", "-0.6120")], "周度")
    assert column_mean(best, "表2中周度IC均值是多少？", units) is None


def test_a_report_named_with_its_year_is_no_report_titled_with_another() -> None:
    """Rule 290 ``other_year``: 万科's 2014 report mentions a 政府工作报告 on its second page, and the work report's
    extract prints no title: "2024年北京市政府工作报告" named 万科's report alone (all seven questions declined)."""
    from docrag.doc_names import DocumentNames

    texts = {"wanke": "zh wanke 2014 nianbao pdf 万科企业股份有限公司 2014年 北京市 政府工作报告提出分类调控",
             "beijing": "zh beijing gov work report 2024 pdf 各位代表 我代表北京市人民政府 向大会报告政府工作",
             "maotai": "zh guizhou maotai 2024 nianbao pdf 贵州茅台酒股份有限公司 2024 年年度报告"}
    titles = {k: v.split(" pdf ")[0] + " pdf" for k, v in texts.items()}
    names = DocumentNames(texts, titles)
    assert names.named("2024年北京市政府工作报告中，2023年北京市地区生产总值增速是多少？") == {"beijing"}
    assert names.named("贵州茅台2024年年度报告中，营业收入是多少？") == {"maotai"}


def test_common_initials_name_no_company() -> None:
    """Rule 291 ``initialism``: "R&D" read as the initials of a name printed whole named Pfizer's 10-K (its first pages
    print "research & development") for a question about AMD's letter; "J&J" still names Johnson & Johnson."""
    from docrag.doc_names import DocumentNames

    texts = {"pfizer": "en pfizer 2022 10k pdf pfizer inc. research & development expenses",
             "jnj": "en jnj q2 2023 earnings release pdf johnson & johnson reports q2 2023 results",
             "amd": "en amd 2022 annual report pdf amd dear shareholders"}
    names = DocumentNames(texts, {k: v.split(" pdf ")[0] + " pdf" for k, v in texts.items()})
    assert "pfizer" not in names.named("AMD's 2022 Annual Report letter charts R&D investment of $5.0B for 2022; what "
                                       "exact research and development expense does it show?")
    assert names.named("What were J&J's worldwide sales in Q2 2023?") == {"jnj"}


def test_a_name_several_documents_hold_goes_to_the_one_holding_more_of_the_reference() -> None:
    """Rule 292 ``more_names``: "广发证券凸显理论报告" -- 凸显理论 is in 广发's salience note and 招商's STR note
    (fewest holders, two), 广发证券 in three documents: 广发's note holds both."""
    from docrag.doc_names import DocumentNames

    texts = {"guangfa": "zh guangfa tuxian lilun 2023 广发证券 凸显理论 与 因子",
             "zhaoshang": "zh zhaoshang str yinzi 2022 招商证券 凸显理论 str 因子",
             "cgo": "zh guangfa cgo 2017 广发证券 资本利得突出量",
             "sifang": "zh sifang keji 2019 nianbao 广发证券 保荐机构",
             **{f"other{i}": f"zh other {i} 年度报告" for i in range(26)}}   # 30 documents: a name of three is rare
    assert DocumentNames(texts).named("广发证券凸显理论报告中，STR因子在2018年的年化收益率是多少？") == {"guangfa"}
    assert DocumentNames(texts).named("招商证券凸显理论报告中，STR因子的IC均值是多少？") == {"zhaoshang"}


@pytest.mark.skipif(not PFIZER.exists(), reason=NOT_FETCHED)
def test_a_part_larger_than_its_whole_is_no_share(tmp_path) -> None:
    """Rule 289 ``part_over_whole``: Pfizer's revenue table heads its "% Change" columns with a spanning header the
    columns do not all get, and "What share ... came from the U.S.?" divided 390 by the 23 of a change column:
    1695.7%. A share whose part exceeds its whole is refused."""
    page = real_pages(PFIZER, [6], tmp_path)[0]
    ans = get_generator("extractive", embed=False).generate(
        "What share of Pfizer's 2022 worldwide revenues came from the U.S.?", [page]).answer
    shares = [float(m) for m in re.findall(r"(-?[\d.]+)% = ", ans)]
    assert all(0 <= v <= 100 for v in shares), ans


@pytest.mark.skipif(not PFIZER.exists(), reason=NOT_FETCHED)
def test_a_chart_beside_the_table_of_its_values_yields_to_the_table(tmp_path) -> None:
    """Rule 293 ``tabled_chart``: Pfizer's performance graph (a picture without data labels, its lines traced) and
    the "Five Year Performance" table under it print the same series over 2017-2022; the graph's approximate reading
    ("about $50 -- 2022 (PEERGROUP; read off the drawing)") won over the table's $179.5."""
    pages = real_pages(PFIZER, [2, 3], tmp_path)
    ans = get_generator("extractive").generate(
        "In which year did the value of $100 invested in Pfizer stock at the end of 2017 peak in the five-year "
        "performance table of Pfizer's 2022 Form 10-K, and what was the value?", pages).answer
    assert "179.5" in ans and "read off the drawing" not in ans, ans


def test_a_preposition_and_question_word_alone_stays_with_the_piece_before() -> None:
    """Rule 294 ``dangling_wh``: "..., and which member dissented and for what?" was cut into "which member
    dissented" and "for what", both too short to stand alone, so the whole question was read as one and only the
    vote was answered."""
    from docrag.generation.extractive_parts import parts_of

    assert parts_of("How did the Bank of England's Monetary Policy Committee vote at its meeting ending on 20 March "
                    "2024, and which member dissented and for what?") == [
        "How did the Bank of England's Monetary Policy Committee vote at its meeting ending on 20 March 2024",
        "which member dissented and for what"]


@pytest.mark.skipif(not GUANGFA.exists(), reason=NOT_FETCHED)
def test_a_return_asked_before_costs_is_read_from_the_column_before_costs(tmp_path) -> None:
    """Rule 295 ``cost_basis``: 广发's 表3 prints each portfolio before and after costs ("中证800" and "中证800(扣除交易
    成本)"); "未扣交易成本" was answered from the after-cost columns (18.61%, -27.12%), whose heads share more words
    with the question."""
    page = real_pages(GUANGFA, [6], tmp_path)[0]
    ans = get_generator("extractive").generate(
        "广发证券CGO报告表3“整体业绩统计”中，中证800等权组合（未扣交易成本）的超额收益和最大回撤是多少？",
        [page]).answer
    assert "23.92%" in ans and "18.61%" not in ans, ans


def test_the_pool_noun_after_the_last_option_is_every_options() -> None:
    """Rule 296 ``shared_noun``: "沪深300和中证500成分股里哪个…" names the options 沪深300 and 中证500 ("成分股" is the
    pool of both, "里" ends the list as "中" does)."""
    from docrag.generation.extractive_choice import options_of

    assert options_of("招商证券STR因子报告表5中，沪深300和中证500成分股里哪个的STR因子IC胜率更高？分别是多少？") == [
        "沪深300", "中证500"]


@pytest.mark.skipif(not ZHAOSHANG.exists(), reason=NOT_FETCHED)
def test_options_told_apart_by_their_brackets_are_both_answered(tmp_path) -> None:
    """Rule 296: 招商's 表5 labels its rows "STR(沪深300)" and "STR(中证500)"; a row's name drops a last bracketed note,
    so both were "STR" and the choice found no row per option: only the higher rate was quoted."""
    page = real_pages(ZHAOSHANG, [3], tmp_path)[0]
    ans = get_generator("extractive").generate(
        "招商证券STR因子报告表5中，沪深300和中证500成分股里哪个的STR因子IC胜率更高？分别是多少？", [page]).answer
    assert ans.startswith("STR(中证500)") and "64.74%" in ans and "68.95%" in ans, ans


def test_the_owner_of_the_report_owns_and_a_product_stays_asked() -> None:
    """Rule 297 ``owner_or_subject``: "Paxlovid's worldwide revenues … according to Pfizer's 2022 Form 10-K" took the
    product for the report's owner and asked for "worldwide revenues" alone; "Pfizer's 2022 total revenues" (a year
    after the owner) left "Pfizer" asked, and the row "Pfizer CentreOne" matched it."""
    from docrag.generation.extractive_score import document_reference

    asked, ref = document_reference("What were Paxlovid's worldwide revenues in 2022 according to Pfizer's 2022 Form "
                                    "10-K, and how were they split between the U.S. and international markets?")
    assert "Paxlovid" in asked and ref == "Pfizer"
    assert document_reference("What were Pfizer's 2022 total revenues in the U.S. and internationally?") == (
        "What were 2022 total revenues in the U.S. and internationally?", "Pfizer")
    assert document_reference("What were RIL's revenue and net profit?") == ("What were revenue and net profit?", "RIL")


def _heads_of(page, label: str) -> dict[str, list[str]]:
    from docrag.generation.extractive_table_read import parse_tables

    return {tc.value: tc.headers for b in page.blocks if b.kind is BlockKind.TABLE for t in parse_tables(b, page)
            for tc in t.cells() if tc.row.label.startswith(label)}


@pytest.mark.skipif(not PFIZER.exists(), reason=NOT_FETCHED)
def test_nested_group_headers_head_the_runs_under_them(tmp_path) -> None:
    """Rule 298 ``nested_groups``: Pfizer's revenue table heads "Worldwide | U.S. | International" over three runs of
    "2022 2021 2020", again over three runs of "22/21 21/20", and "Year Ended December 31, | % Change" over those; each
    header headed only the column it overlapped (International 2022 had no "International", the change columns no
    "% Change")."""
    heads = _heads_of(real_pages(PFIZER, [6], tmp_path)[0], "Total revenues")
    assert heads["$ 57,857"] == ["Year Ended December 31,", "International", "2022"]
    assert heads["$ 100,330"] == ["Year Ended December 31,", "Worldwide", "2022"]
    assert heads["12"] == ["% Change", "International", "22/21"]

