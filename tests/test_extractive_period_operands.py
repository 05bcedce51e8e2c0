"""A change against a named year is a rate ("较2013年下降了约多少", rule 106 ``yoy_rate``), a change whose
other year no cell names takes no operand of a year the question does not name (rule 125, ``unasked_period``), and a
row the question does not name is no operand (rule 164, ``unnamed_row``)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_math import operation_of
from docrag.generation.extractive_operands import _row_named, _span_asked
from docrag.types import BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page
from tests.test_extractive_tables_zh import GREY
from tests.test_generation_extractive import _cell_unit

DINGTAI = ("受此影响，2013年、2014年和2015年，上市公司实现的净利润分别为4,028.10万元、2,412.44万元和2,513.06万元，"
           "整体呈快速下滑趋势。")


def test_a_change_against_a_named_year_is_asked_as_a_rate_unless_a_unit_follows(tmp_path):
    """鼎泰新材's restructuring plan (zh-a-079): "2015年净利润较2013年下降了约多少" asks the rate, -37.6 %, read off the
    sentence giving each year its figure; "约" and a named year had hidden the change, so the sentence was quoted."""
    assert operation_of("上市公司2015年净利润较2013年下降了约多少？") == "growth"
    assert operation_of("2015年末净资产较2014年末增长了约多少？") == "growth"
    assert operation_of("比2023年实际治理提升的数量多还是少、比2023年增加多少条？") == "difference"
    assert operation_of("营业收入较上年增加多少万元？") == "difference"
    page = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, DINGTAI)], doc_id="dingtai")
    ans = get_generator("extractive", embed=False).generate("上市公司2015年净利润较2013年下降了约多少？", [page])
    assert ans.answer.startswith("-37.6% = (2,513.06 − 4,028.10) / 4,028.10"), ans.answer


def test_a_change_to_a_year_no_cell_names_takes_no_operand_of_another_year(tmp_path):
    """鼎泰新材 (zh-a-083): "需较2015年增长约多少" to reach 2016's commitment had divided 2015's cell by 2014's
    (-43.3 %), a year the question does not name; another item of 2015 stays a candidate, and a fiscal year (headed
    by its calendar date, "Apr 27, 2025" for fiscal 2026) keeps every candidate."""
    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY, "t", BlockKind.TABLE)], doc_id="dingtai")
    best = _cell_unit(page, "扣除非经常性损益后归属于母公司所有者的净利润", ["2015 年度"], "162,348.91")
    before = _cell_unit(page, "扣除非经常性损益后归属于母公司所有者的净利润", ["2014 年度"], "92,045.87")
    item = _cell_unit(page, "净利润", ["2015 年度"], "196,010.24")
    cands = [(0.9, before), (0.5, item)]
    q = "要实现2016年度业绩承诺，扣除非经常性损益后归属于母公司所有者的净利润需较2015年增长约多少？"
    assert [u for _, u in _span_asked(q, best.cell, cands)] == [item]
    fiscal = _cell_unit(page, "China", ["Three Months Ended", "Apr 26, 2026"], "4,550")
    year_before = _cell_unit(page, "China", ["Three Months Ended", "Apr 27, 2025"], "9,659")
    q = "By how much did revenue from China change between the first quarter of fiscal 2026 and of fiscal 2027?"
    assert _span_asked(q, fiscal.cell, [(0.9, year_before)]) == [(0.9, year_before)]


PAST = ("按照与本次交易对2016年度、2017年度和2018年度业绩承诺的一致口径进行计算，2013年度、2014年度和2015年度"
        "以可比口径计算的扣除非经常性损益后归属于母公司所有者的净利润分别为18.90亿元、"
        "9.20亿元和16.23亿元。")
PROMISED = ("交易对方承诺，顺丰控股在2016年度、2017年度和2018年度预测实现的合并报表范围扣除非经常性损益后归属于母公司"
            "所有者的净利润分别不低于21.8亿元、28亿元和34.8亿元。")


def test_a_change_between_years_two_sentences_give_is_computed_across_them(tmp_path):
    """鼎泰新材 (zh-a-083): 2015's comparable profit is in one sentence, 2016's commitment in another; the growth
    needed, +34.3 % = (21.8 − 16.23) / 16.23, reads both (rule 82 ``prose_across``), and the years 2016-2018 said
    before 2013-2015 in the first sentence do not take its figures. Another measure ("营业收入") or another scale
    (万元) in the second sentence gives no arithmetic."""
    from docrag.generation.extractive_prose_math import prose_across
    from docrag.generation.extractive_units import units_of

    q = "要实现2016年度业绩承诺，扣除非经常性损益后归属于母公司所有者的净利润需较2015年增长约多少？"
    page = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, PAST), Region((72, 200, 540, 260), GREY, PROMISED)],
                     doc_id="dingtai")
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert ans.answer.startswith("+34.3% = (21.8 − 16.23) / 16.23"), ans.answer
    assert len(ans.citations[0].boxes) >= 2 or len(ans.meta["units"]) >= 2

    def across(second: str):
        p = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, PAST), Region((72, 200, 540, 260), GREY, second)],
                      doc_id="dingtai")
        units = units_of(p, 1)
        return prose_across("growth", q, units, [1.0] * len(units), units[0])

    assert across(PROMISED) is not None
    assert across("公司2016年度、2017年度和2018年度的营业收入预计分别为580亿元、700亿元和850亿元。") is None
    assert across(PROMISED.replace("亿元", "万元")) is None


SANLIAN_VALUED = ("2021年5月15日，中水致远资产评估有限公司出具《关于芜湖三联锻造股份有限公司前期会计差错更正对股改"
                  "基准日评估净资产影响的说明》，将三联有限截至2018年7月31日净资产的评估价值调整为36,433.51万元。")
SANLIAN_RESTATED = ("2、发行人对股份改制折股净资产的调整与复核 2021年5月15日，容诚会计师出具容诚专字【2021】241Z0034号"
                    "《芜湖三联锻造股份有限公司股改净资产出资到位情况专项复核的报告》及《关于芜湖三联锻造股份有限公司前期会计差错"
                    "事项对股改基准日净资产影响的说明》，因前期会计差错更正，将三联有限股改基准日净资产由308,886,389.01元调整为298,285,000.14元。")


def test_a_change_asked_is_computed_from_a_close_sentence_stating_it(tmp_path):
    """三联锻造's prospectus (zh-a-069): "股改基准日净资产调减了多少" is best matched by the valuation's sentence, which
    states one figure; the restatement beside it ("由 308,886,389.01 元调整为 298,285,000.14 元") answers with
    10,601,388.87 (rule 82 ``prose_change``). A sentence scoring far below the best is not read."""
    from docrag.generation.extractive_prose_math import prose_change
    from docrag.generation.extractive_units import units_of

    q = "三联锻造招股说明书中，因前期会计差错更正，股改基准日净资产调减了多少？"
    page = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, SANLIAN_VALUED),
                                Region((72, 200, 540, 260), GREY, SANLIAN_RESTATED)], doc_id="sanlian")
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert ans.answer.startswith("10,601,388.87 = 308,886,389.01 − 298,285,000.14"), ans.answer
    units = units_of(page, 1)
    valued = next(u for u in units if "36,433.51" in u.text)
    for other, found in ((0.9, True), (0.5, False)):
        scores = [1.0 if u is valued else other for u in units]
        order = sorted(range(len(units)), key=lambda i: -scores[i])
        assert (prose_change("difference", q, units, scores, order, valued) is not None) is found, other


REAL_JINYU = DEV_PDFS / "zh_jinyu_shengwu_2020_nianbao.pdf"


@pytest.mark.skipif(not REAL_JINYU.exists(), reason=NOT_FETCHED)
def test_a_row_the_question_does_not_name_is_no_operand(tmp_path):
    """金宇生物 2020 年报 (zh-a-005, rule 164 ``unnamed_row``): asked which segment's gross margin fell more, the answer
    had subtracted 生物制药's margin from 其他收入's (-48.20 = 14.75 − 62.95), two rows the question never names; the
    margins are quoted instead."""
    pages = real_pages(REAL_JINYU, [5], tmp_path)
    q = "生物股份2020年年度报告的主营业务分行业情况中，哪个分行业的毛利率比上年下降幅度更大？下降了多少？"
    ans = get_generator("extractive").generate(q, pages)
    assert "62.95%" in ans.answer and " = " not in ans.answer, ans.answer


def test_a_row_is_named_by_half_its_words_its_day_numbers_aside():
    """"October 1 - 31" is named by "the end of October" (its numbers are days, no words); "Share-based compensation
    expense" is not named by "through share repurchases" (one word of four)."""
    from types import SimpleNamespace

    from docrag.generation.extractive_units import content_words

    asked = content_words("By how much did the value fall from the end of October 2022 to the end of December 2022?")
    assert _row_named(SimpleNamespace(row=SimpleNamespace(own_label="October 1 - 31")), asked)
    asked = content_words("its net income did Apple return to shareholders through share repurchases and dividends")
    assert not _row_named(SimpleNamespace(row=SimpleNamespace(own_label="Share-based compensation expense")), asked)


def test_a_sentence_printing_two_figures_and_their_difference_states_it():
    """``stated_difference`` (rule 171): the figures of a sentence include the difference of two others, to the
    last decimal printed; a year is no figure, and two figures whose difference is not printed state none."""
    from docrag.generation.extractive_prose_math import states_difference

    assert states_difference("2019 年公司经营活动产生的现金流量净额 265,348,926.68 元与净利润 402,233,891.06 元"
                             "相比存在 136,884,964.38 元差异的原因")
    assert states_difference("Revenue rose from $10.2 billion to $12.5 billion in 2023, up $2.3 billion.")
    assert not states_difference("Revenue was $1,000 million and costs $400 million, a 35% margin.")
    assert not states_difference("In 2023 revenue was 2,021 million, 2 more than in 2019.")


HANGTIAN_GAP = ("2019 年公司经营活动产生的现金流量净额 265,348,926.68 元与净利润 402,233,891.06 元相比存在 "
               "136,884,964.38 元差异的原因:一是报告期公司全面实施“领域营销”市场策略。")
HANGTIAN_CASH = [["项目", "2019 年", "2018 年"], ["经营活动现金流出小计", "2,418,396,771.24", "2,103,554,229.31"],
                 ["经营活动产生的现金流量净额", "265,348,926.68", "121,711,831.73"]]


def test_a_difference_the_text_states_is_quoted_over_a_close_cell(tmp_path):
    """航天电器 2019 年报 (zh-c-011, rule 171): asked how far its operating cash flow fell short of its net profit, the
    text states both and their difference; a cash-flow cell scoring within rule 38's 0.7 of that sentence had taken
    its place, and its arithmetic subtracted it from another cash-flow line."""
    page = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, HANGTIAN_GAP),
                                Region((72, 200, 540, 260), GREY, "\n".join(" | ".join(r) for r in HANGTIAN_CASH),
                                       BlockKind.TABLE)], doc_id="hangtian")
    page.blocks[1].meta["rows"] = HANGTIAN_CASH
    q = "航天电器2019年经营活动产生的现金流量净额与净利润相差多少？"
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "136,884,964.38" in ans.answer and "2,418,396,771.24" not in ans.answer, ans.answer


def test_a_change_in_percentage_points_is_a_difference_of_two_rates():
    """Intel's gross margin chart (en-f-006): "by how many percentage points did gross margin as a percentage of
    revenue fall" had been read as a share asked ("as a percentage of"), and the two labels quoted; ``points_asked``:
    a change in points is a difference (61.7% − 56.0% = 5.7 points, by rule 99 over the chart's labels)."""
    q = ("Using the 'Gross Margin $B' chart, by how many percentage points did gross margin as a percentage of revenue "
         "fall from 2018 to 2020?")
    assert operation_of(q) == "difference"
    assert operation_of("What was gross margin as a percentage of revenue in 2020?") == "share"
    assert operation_of("轮动策略的年化收益率比沪深300指数高多少个百分点？") == "difference"
