"""``extractive`` on a broker note's and an annual report's tables (share zh-f): the column a question names over one
listing it among its parts (rule 184), rows told apart by the section the question names and the options it lists
(rules 185, 186), no share computed of one row's two years nor read into an indicator's name (rule 187), and no
"%" unit taken from a measure named "(NH-NL)%" (rule 188)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_math import operation_of
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.test_extractive_tables_zh import _table_page

PERIODS = [["统计时间", "", "电子", "通信", "计算机", "传媒", "科技板块 (电子+通信+计算机+传媒) 收益率"],
           ["2010.6.29-2015.12.31", "累计收益率", "17.18%", "21.97%", "11.38%", "55.86%", "109.31%"],
           ["", "最大回撤", "-15.35%", "-20.25%", "-23.29%", "-18.93%", "-40.46%"],
           ["2020.1.1-2022.12.31", "累计收益率", "17.68%", "14.44%", "30.31%", "6.35%", "81.68%"],
           ["", "最大回撤", "-4.94%", "-0.29%", "-7.15%", "-3.98%", "-15.26%"]]


def test_the_column_named_by_the_member_asked_beats_the_composite_listing_it(tmp_path):
    """"计算机行业的累计收益率" is the 计算机 column, not 科技板块 whose header lists 计算机 among its parts and also
    says 收益率 (``listed_member``)."""
    page = _table_page(tmp_path, PERIODS, "图表36：净新高占比在科技板块复合表现与各行业表现对比（分时间段）")
    ans = get_generator("extractive", embed=False).generate(
        "图表36中，2020.1.1-2022.12.31期间计算机行业的累计收益率是多少？", [page]).answer
    assert ans.startswith("30.31% — ") and ans.split(";")[0].split("…")[0].strip().endswith("计算机"), ans


def test_which_listed_column_is_highest_reads_the_row_of_the_period_named(tmp_path):
    """"2010.6.29-2015.12.31期间电子、通信、计算机、传媒四个行业中哪个累计收益率最高": the four columns listed are the
    options (``listed_options``: the composite column is none of them), read across the 累计收益率 row of the period
    the question names (``section_named``), not down the best-named column."""
    page = _table_page(tmp_path, PERIODS, "图表36：净新高占比在科技板块复合表现与各行业表现对比（分时间段）")
    ans = get_generator("extractive", embed=False).generate(
        "图表36中，2010.6.29-2015.12.31期间电子、通信、计算机、传媒四个行业中哪个累计收益率最高？", [page]).answer
    assert ans.startswith("55.86% — ") and ans.split(";")[0].endswith("传媒"), ans


def test_no_share_is_computed_of_one_row_s_two_years(tmp_path):
    """建新股份 2019 年报's 研发投入 table: "研发人员数量是多少人，占员工比例是多少" had been answered
    "82.4% = 108 / 131" (2018's staff over 2019's); one row's two periods are no part and its whole
    (``share_of_itself``), and the row stating the share is read (``share_row``)."""
    rows = [["项目", "2019 年", "2018 年", "变动比例"], ["研发人员数量（人）", "131", "108", "21.30%"],
            ["研发人员数量占比", "15.39%", "17.83%", "-2.44%"]]
    page = _table_page(tmp_path, rows, "近三年公司研发投入金额及占营业收入的比例")
    question = "公司2019年研发人员数量是多少人，占员工比例是多少？"
    ans = get_generator("extractive", embed=False).generate(question, [page])
    assert "108 / 131" not in ans.answer and "131" in ans.answer, ans.answer
    assert "15.39%" in ans.answer, ans.answer   # ``share_row``: the row stating the share is read


def test_an_indicator_named_with_a_share_asks_no_share():
    """"净新高占比提示恐慌时，…维持了多少天" names an indicator; "占…的比例" asks a share only within one clause
    (``share_in_clause``)."""
    assert operation_of("2018年10月中旬净新高占比提示恐慌时，电子行业的恐慌信号维持了多少天？") == ""
    assert operation_of("研发人员占员工总数的比例是多少？") == "share"


def test_a_measure_named_with_a_percent_sign_gives_the_table_no_unit(tmp_path):
    """图表3 "净新高占比((NH-NL)%)提示电子行业底部的准确率": its 维持天数 are days, not "10%" (``named_percent``)."""
    rows = [["(NH-NL)%提示恐慌", "维持天数", "阶段性底部"], ["2018年6月下旬", "5", ""], ["2018年10月中旬", "10", "是"]]
    page = _table_page(tmp_path, rows, "图表3：净新高占比（(NH-NL)%）提示电子行业底部的准确率（2010-2022）")
    page.blocks[1].meta["caption"] = "图表3：净新高占比（(NH-NL)%）提示电子行业底部的准确率（2010-2022）"
    question = "2018年10月中旬电子行业的恐慌信号维持了多少天？"
    ans = get_generator("extractive", embed=False).generate(question, [page]).answer
    assert ans.startswith("10 — 2018年10月中旬"), ans


HUAFU = DEV_PDFS / "zh_huafu_jingxingao_zhanbi_2023.pdf"


@pytest.mark.skipif(not HUAFU.exists(), reason=NOT_FETCHED)
def test_the_real_broker_table_reads_the_member_column_and_the_period_named(tmp_path):
    """华福证券's 图表36 (real, page 11; zh-f-022, zh-f-023): two header lines ("科技板块 (电子+通信+计算机+传媒)"
    over "收益率及回撤 | 盈亏比"), periods as the sections of 累计收益率 / 最大回撤 rows. 计算机's own column is read,
    not the composite's (``listed_member``), and the period the question names picks its row (``section_named``)."""
    (page,) = real_pages(HUAFU, [11], tmp_path)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("图表36中，2016.1.1-2019.12.31期间计算机行业的累计收益率和最大回撤分别是多少？", [page]).answer
    assert "29.51%" in ans and "-5.01%" in ans and "90.09%" not in ans, ans
    question = "图表36中，2010.6.29-2015.12.31期间电子、通信、计算机、传媒四个行业中哪个累计收益率最高？"
    ans = gen.generate(question, [page]).answer
    assert ans.startswith("55.86% — 累计收益率 (2010.6.29-2015.12.31), 传媒"), ans
    # ``header_named``: the composite's column ties with 通信's on score; its own header holds 科技板块 and 收益率
    question = "图表36中，科技板块复合策略2020.1.1-2022.12.31的累计收益率比2016.1.1-2019.12.31低多少个百分点？"
    ans = gen.generate(question, [page]).answer
    assert "81.68%" in ans and "90.09%" in ans, ans


JIANXIN = DEV_PDFS / "zh_jianxin_huagong_2019_nianbao.pdf"


@pytest.mark.skipif(not JIANXIN.exists(), reason=NOT_FETCHED)
def test_a_table_s_header_line_at_the_foot_of_the_page_before_heads_its_rows(tmp_path):
    """建新股份 2019 年报 (real, pages 1-2; zh-f-003): "六、分季度主要财务指标", "单位：元" and "第一季度 …
    第四季度" end page 1, the rows start page 2 with no header; each value takes the quarter standing over its
    column (``header_before_break``)."""
    pages = real_pages(JIANXIN, [1, 2], tmp_path)
    ans = get_generator("extractive", embed=False).generate(
        "根据建新股份2019年年度报告的分季度主要财务指标，2019年哪个季度的营业收入最高？金额是多少？", pages).answer
    assert ans.startswith("293,815,663.51 — 营业收入, 第一季度"), ans
