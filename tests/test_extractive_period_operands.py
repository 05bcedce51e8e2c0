"""A change against a named year is a rate ("较2013年下降了约多少", rule 106 ``yoy_rate``), and a change whose
other year no cell names takes no operand of a year the question does not name (rule 125, ``unasked_period``)."""

from __future__ import annotations

from docrag.generation import get_generator
from docrag.generation.extractive_math import operation_of
from docrag.generation.extractive_operands import _span_asked
from docrag.types import BlockKind
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
