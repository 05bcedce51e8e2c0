"""``extractive`` on tables asked about in Chinese and English: the stub header, count columns ("时区数"),
"which row has the most", comparisons ("A比B多几个") and charts read from their caption."""

from __future__ import annotations

import pytest

import docrag.generation.extractive_score as extractive_score
from docrag.generation import get_generator
from docrag.generation.extractive_counts import count_fit, counted_noun
from docrag.generation.extractive_cues import label_fit
from docrag.generation.extractive_extremes import extreme_row
from docrag.generation.extractive_math import operation_of
from docrag.generation.extractive_rivals import repeat_named
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_units import units_of
from docrag.types import BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
ZONES_ZH = [["地区", "时区数", "国家和地区数", "最北纬度", "最南纬度"], ["欧洲", "58", "49", "60.17", "35.90"],
            ["美洲", "144", "53", "76.77", "-54.80"], ["亚洲", "82", "50", "67.47", "-8.55"]]
ZONES_EN = [["Region", "Time zones", "Countries", "Northernmost", "Southernmost"],
            ["Europe", "58", "49", "60.17", "35.90"], ["America", "144", "53", "76.77", "-54.80"],
            ["Asia", "82", "50", "67.47", "-8.55"]]
COUNTRIES = [["国家", "时区数", "占比(%)"], ["美国", "29", "6.94"], ["巴西", "16", "3.83"]]


def _table_page(tmp_path, rows, prose, doc_id="tz"):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 130), GREY, prose),
        Region((72, 150, 540, 150 + 18 * len(rows)), GREY, "\n".join(" | ".join(r) for r in rows),
               BlockKind.TABLE),
    ], doc_id=doc_id)
    page.blocks[1].meta["rows"] = rows
    return page


def _two_tables(tmp_path, first, second, doc_id):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 180), GREY, "\n".join(" | ".join(r) for r in first), BlockKind.TABLE),
        Region((72, 200, 540, 260), GREY, "\n".join(" | ".join(r) for r in second), BlockKind.TABLE),
    ], doc_id=doc_id)
    page.blocks[0].meta["rows"], page.blocks[1].meta["rows"] = first, second
    return page


@pytest.fixture()
def zones_zh(tmp_path):
    return _table_page(tmp_path, ZONES_ZH, "时区表列出了418个时区，其中216个国家和地区只有一个时区。")


def _cells(page):
    return [u for u in units_of(page, 1) if u.cell is not None]


def test_the_stub_header_named_in_the_question_does_not_demote_value_columns(zones_zh):
    cells = _cells(zones_zh)
    fit = {(u.cell.row.label, u.cell.headers[0]): f for u, f in zip(cells, label_fit(cells, "欧洲地区有多少个时区？"),
                                                                   strict=True)}
    assert fit[("欧洲", "时区数")] == 1.0 and fit[("欧洲", "国家和地区数")] == 1.0   # "地区" heads the row labels


def test_a_chinese_count_question_prefers_the_column_that_counts_its_noun(zones_zh):
    assert counted_noun("时区表中欧洲地区有多少个时区？") == "时区"
    assert counted_noun("非洲地区有时区的国家和地区有多少个？") == "国家和地区"
    cells = _cells(zones_zh)
    fit = {(u.cell.row.label, u.cell.headers[0]): f for u, f in zip(cells, count_fit(cells, "欧洲有多少个时区？"),
                                                                   strict=True)}
    assert fit[("欧洲", "时区数")] > fit[("欧洲", "国家和地区数")] == 1.0 > fit[("欧洲", "最北纬度")]
    gen = get_generator("extractive", embed=False)
    assert gen.generate("时区表中欧洲地区有多少个时区？", [zones_zh]).answer.startswith("58 — 欧洲, 时区数")


def test_which_row_has_the_most_takes_the_largest_value_of_the_named_column(zones_zh, tmp_path):
    gen = get_generator("extractive", embed=False)
    assert gen.generate("哪个地区的时区最多？", [zones_zh]).answer.startswith("144 — 美洲, 时区数")
    assert gen.generate("哪个地区的时区最少？", [zones_zh]).answer.startswith("58 — 欧洲, 时区数")
    en = _table_page(tmp_path, ZONES_EN, "The table lists 418 time zones.", doc_id="tzen")
    assert gen.generate("Which region has the most time zones?", [en]).answer.startswith("144 — America")
    cells = _cells(zones_zh)
    europe = next(u for u in cells if u.cell.row.label == "欧洲" and u.cell.headers == ["时区数"])
    ones = [1.0] * len(cells)
    assert extreme_row(cells, ones, europe, "欧洲有多少个时区？") is None            # no superlative
    assert extreme_row(cells, ones, europe, "时区最多的是多少个？") is None          # not a "which" question


def test_a_chinese_comparison_is_a_difference_in_the_order_the_question_names(tmp_path):
    for q in ("美国的时区比巴西多几个？", "从2005年到2007年，年末收盘价上涨了多少？", "男性比女性多多少人？"):
        assert operation_of(q) == "difference", q
    assert operation_of("收盘价上涨了百分之多少？") == "growth" and operation_of("哪个地区比欧洲多？") == ""
    page = _table_page(tmp_path, COUNTRIES, "共有九个国家和地区的时区最多。", doc_id="cc")
    gen = get_generator("extractive", embed=False)
    for q in ("美国的时区比巴西多几个？", "巴西的时区比美国少几个？"):
        ans = gen.generate(q, [page])
        assert ans.meta["arithmetic"]["value"] == 13 and ans.answer.startswith("13 = 29 − 16"), q


def test_a_chart_read_from_its_caption_is_weighed_as_a_figure_not_a_caption(tmp_path):
    labels = [((117, 250, 138, 260), "151.80"), ((117, 312, 142, 323), "2005年"), ((201, 210, 222, 219), "411.19"),
              ((201, 312, 226, 323), "2006年"), ((70, 96, 85, 106), "美元")]
    caption = Region((72, 331, 300, 342), GREY, "图1 各年平均收盘价(美元)", BlockKind.CAPTION)
    page = make_page(tmp_path, [*(Region(box, GREY, t) for box, t in labels), caption], doc_id="goog")
    fig = next(u for u in units_of(page, 1) if u.kind == "figure")
    assert fig.block.kind is BlockKind.CAPTION
    assert extractive_score.prior(fig, True, True, False) == pytest.approx(1.5)
    ans = get_generator("extractive", embed=False).generate("图1中2006年的平均收盘价是多少？", [page])
    assert ans.answer.startswith("411.19 — 2006年")


LANGS = [["Type", "Individual", "Total"], ["Living", "7001", "7063"], ["Extinct", "608", "608"],
         ["Constructed", "23", "23"]]
LANGS_ZH = [["类型", "个体语言", "合计"], ["现存语言", "7001", "7063"], ["灭绝语言", "608", "608"],
            ["人造语言", "23", "23"]]


def test_a_count_question_prefers_the_row_it_names_over_a_general_count(tmp_path):
    from docrag.generation.extractive_counts import _counted_phrase

    assert _counted_phrase("How many constructed languages have an ISO 639-3 code?") == "constructed languages"
    assert counted_noun("有多少种人造语言拥有 ISO 639-3 代码？") == "人造语言"
    gen = get_generator("extractive", embed=False)
    en = _table_page(tmp_path, LANGS, "ISO 639-3 assigns a three-letter code to 7,910 languages.", doc_id="en")
    prose = "ISO 639-3 为7910种语言分配了三字母代码，其中184种语言还有两字母代码。"
    zh = _table_page(tmp_path, LANGS_ZH, prose, doc_id="zh")
    units = units_of(en, 1)
    fit = dict(zip((u.text if u.cell is None else (u.cell.row.label, u.cell.headers[0]) for u in units),
                   count_fit(units, "How many constructed languages have an ISO 639-3 code?"), strict=True))
    assert fit[("Constructed", "Total")] == 1.25 and fit[("Extinct", "Total")] == 1.0   # the row it names
    assert fit["ISO 639-3 assigns a three-letter code to 7,910 languages."] == 0.85   # languages in general
    assert gen.generate("有多少种人造语言拥有 ISO 639-3 代码？", [zh]).answer.startswith("23 — 人造语言")
    fits = count_fit(units_of(zh, 1), "ISO 639-3 为多少种语言分配了代码？")   # 7910种语言 counts 语言
    assert max(fits) == 1.5


def test_which_row_looks_in_the_table_whose_column_the_question_names(tmp_path):
    bands = [["区划数", "国家和地区数"], ["少于10个", "50"], ["10至19个", "76"]]
    countries = [["国家", "行政区划数"], ["英国", "220"], ["法国", "119"]]
    page = _two_tables(tmp_path, bands, countries, "subdiv")
    ans = get_generator("extractive", embed=False).generate("哪个国家的行政区划最多？", [page])
    assert ans.answer.startswith("220 — 英国, 行政区划数")


def test_which_row_prefers_the_table_whose_row_header_the_question_names(tmp_path):
    countries = [["国家或地区", "时区数"], ["美国", "29"], ["俄罗斯", "26"]]
    page = _two_tables(tmp_path, ZONES_ZH, countries, "tz2")
    gen = get_generator("extractive", embed=False)
    assert gen.generate("哪个地区的时区最多？", [page]).answer.startswith("144 — 美洲")
    assert gen.generate("哪个国家或地区的时区最多？", [page]).answer.startswith("29 — 美国")


def test_a_clause_after_the_counted_noun_narrows_the_count(tmp_path):
    rows = [["国家", "行政区划数", "有上级区划数"], ["法国", "127", "101"]]
    page = _table_page(tmp_path, rows, "共有4,800个行政区划。", doc_id="fr")
    cells = _cells(page)
    narrow = dict(zip([u.cell.headers[0] for u in cells],
                      count_fit(cells, "法国有多少个行政区划位于更大的行政区划之内？"), strict=True))
    plain = dict(zip([u.cell.headers[0] for u in cells], count_fit(cells, "法国有多少个行政区划？"), strict=True))
    assert plain["行政区划数"] == 1.25 and narrow["行政区划数"] == 1.0


def test_a_quoted_key_picks_the_row_and_the_row_is_named_by_all_its_text_cells(tmp_path):
    from docrag.generation.extractive_cues import key_fit
    from docrag.generation.extractive_tables import _UNIT

    ranges = [["文字类型", "编号范围", "代码数"], ["从右向左书写的字母文字", "100-199", "33"],
              ["从左向右书写的字母文字", "200-299", "40"], ["元音附标文字", "300-399", "58"]]
    page = _table_page(tmp_path, ranges, "ISO 15924 为182种书写系统分配了代码。", doc_id="sc")
    cells = _cells(page)
    keys = dict(zip([u.cell.value for u in cells], key_fit(cells, "编号范围 300-399 中有多少个代码？"), strict=True))
    assert keys["300-399"] == keys["100-199"] == 0.5 and keys["58"] == 1.0   # the column of keys
    gen = get_generator("extractive", embed=False)
    assert gen.generate("编号范围 300-399 中有多少个代码？", [page]).answer.startswith("58 — 元音附标文字, 代码数")
    ans = gen.generate("200-299 范围的代码比 100-199 范围多多少个？", [page])
    assert ans.meta["arithmetic"]["value"] == 7      # 多多少 is "how many more", not 少
    assert not _UNIT.search("元音附标文字") and _UNIT.search("收入(元)")
    codes = [["代码", "编号", "文字"], ["Hira", "410", "平假名"], ["Hang", "286", "谚文"]]
    page2 = _table_page(tmp_path, codes, "东亚文字的代码。", doc_id="ea")
    assert _cells(page2)[1].cell.row.notes == ["谚文"]
    assert gen.generate("谚文的编号是多少？", [page2]).answer.startswith("286 — Hang")


def _grid_page(tmp_path, rows, doc_id):
    """A table block whose cells came from the table finder with boxes (``meta["rows"]`` and
    ``meta["cell_boxes"]``), one row every 18 points, columns 90 points wide."""
    page = _table_page(tmp_path, rows, "分组测试结果如下。", doc_id=doc_id)
    page.blocks[1].meta["cell_boxes"] = [[[72 + 90 * i, 150 + 18 * n, 162 + 90 * i, 168 + 18 * n]
                                          for i in range(len(row))] for n, row in enumerate(rows)]
    return page


def test_a_year_in_the_first_column_of_a_table_names_its_row(tmp_path):
    """国盛证券's 图表13 heads its first column 年份 and lists 2013, 2014, ... there: the years are the row
    labels, so "哪一年 ... 最高" answers with its year (they had been read as values of rows without labels)."""
    rows = [["年份", "分组1收益率", "分组5收益率", "分组1对冲分组5收益率"], ["2013", "44.07%", "24.43%", "16.15%"],
            ["2014", "51.82%", "34.71%", "13.13%"], ["2015", "125.86%", "66.93%", "33.65%"],
            ["2016", "-3.42%", "-20.15%", "20.91%"]]
    page = _grid_page(tmp_path, rows, "byyear")
    cells = _cells(page)
    assert {u.cell.row.label for u in cells} == {"2013", "2014", "2015", "2016"}
    ans = get_generator("extractive", embed=False).generate("哪一年分组1对冲分组5的收益率最高？是多少？", [page])
    assert ans.answer.startswith("33.65% — 2015, 分组1对冲分组5收益率")


def test_which_row_leaves_out_the_total_row_and_a_named_table_names_no_column(tmp_path):
    """Alphabet's repurchase table ends with a Total row (the sum of the months compared): "in which month
    ... the most shares in total" is November's, not the Total, and "in total" names no row to read across.
    "Table 2" names the table, not the column headed "2"; "the one-quarter horizon" names the column "1"."""
    months = [["Period", "Total shares purchased under announced programs", "Average price"],
              ["October", "54,644", "100.63"], ["November", "57,342", "95.89"], ["December", "49,336", "92.37"],
              ["Total", "161,322", "96.35"]]
    page = _table_page(tmp_path, months, "The following table presents our share repurchases.", doc_id="buyback")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("In which month did the company repurchase the most shares purchased in total?", [page])
    assert ans.answer.startswith("57,342 — November")
    only_total = _table_page(tmp_path, [["Period", "Shares purchased"], ["Total", "161,322"]],
                             "Shares purchased in the quarter.", doc_id="total")
    assert gen.generate("Which period had the most shares purchased?", [only_total]).citations   # no row to compare
    horizons = [["Variable", "1 quarter", "2 quarters", "4 quarters"], ["Y", "16.3", "23.4", "10.0"],
                ["I", "17.8", "12.0", "30.1"], ["R", "27.3", "8.0", "5.5"]]
    page = _table_page(tmp_path, horizons, "Table 2: RMSE improvement by forecast horizon.", doc_id="rmse")
    ans = gen.generate("At the one-quarter horizon in Table 2, which variable has the largest improvement?", [page])
    assert ans.answer.startswith("27.3 — R")


def test_which_row_prefers_the_column_named_in_full_over_one_named_in_part(tmp_path):
    """"分组1对冲分组5的收益率最高": the column 分组1对冲分组5 is named in full, and so is 分组1 (a part of it):
    the one whose header the question names more of is compared (two columns named as well had meant none)."""
    rows = [["组合", "分组1", "分组1对冲分组5"], ["A", "44.07%", "16.15%"], ["B", "51.82%", "33.65%"],
            ["C", "60.10%", "13.13%"]]
    page = _table_page(tmp_path, rows, "各组合的收益率如下。", doc_id="hedge")
    ans = get_generator("extractive", embed=False).generate("哪个组合的分组1对冲分组5收益率最高？", [page])
    assert ans.answer.startswith("33.65% — B, 分组1对冲分组5")


def test_a_text_cell_right_of_an_empty_first_column_names_its_row(tmp_path):
    """航天电器's 产销量 table prints its product (行业分类) once for three rows: the rows without it are named
    by their 项目 cell ("销售量"), not left without a label."""
    rows = [["行业分类", "项目", "单位", "2019 年", "2018 年"], ["", "销售量", "万只", "788.57", "974"],
            ["继电器", "生产量", "万只", "823.43", "926"], ["", "库存量", "万只", "170.86", "136"]]
    cells = _cells(_grid_page(tmp_path, rows, "output"))
    labels = {u.cell.value: u.cell.row.label for u in cells}
    assert labels["788.57"].startswith("销售量") and labels["170.86"].startswith("库存量"), labels


def test_a_year_on_year_change_is_asked_as_a_rate_and_quoted_with_its_amount(tmp_path):
    """Chinese annual reports (issue 23: zh-a-001, zh-a-011, zh-c-001, zh-c-006, zh-b-005, zh-b-034, zh-a-008 all
    expect a percentage): "同比增长了多少" asks for the rate, unless a unit follows ("增加多少万元"); a printed change
    column answers it, quoted with the period's own amount, not the year before's (rule 106)."""
    assert operation_of("经营活动产生的现金流量净额同比增长了多少？") == "growth"
    assert operation_of("营业收入较上年同期减少多少？") == "growth"
    assert operation_of("营业收入同比增加多少万元？") == "difference"
    assert operation_of("员工人数比上年增加了多少人？") == "difference"
    rows = [["项目", "本期数", "上年同期数", "变动比例(%)"],
            ["经营活动产生的现金流量净额", "369,100,908.49", "22,934,667.53", "1,509.36"],
            ["投资活动产生的现金流量净额", "-120,385,200.10", "-80,241,511.02", "-50.03"]]
    page = _table_page(tmp_path, rows, "现金流量表相关科目变动分析表 单位：元", doc_id="sf")
    ans = get_generator("extractive", embed=False).generate("经营活动产生的现金流量净额同比增长了多少？", [page])
    assert ans.answer.startswith("1,509.36% — 经营活动产生的现金流量净额"), ans.answer
    assert "369,100,908.49" in ans.answer and "22,934,667.53" not in ans.answer, ans.answer

    # a change column named "本年比上年增减" printing percentages answers the rate too, quoted once with the amount;
    # the part "同比增长多少？" is asked of the measure before it (rule 107)
    rows = [["项目", "2019 年", "2018 年", "本年比上年增减"],
            ["归属于上市公司股东的净利润", "402,233,891.06", "358,950,104.80", "12.06%"],
            ["营业收入", "3,044,713,569.07", "2,808,001,411.32", "8.43%"]]
    page = _table_page(tmp_path, rows, "主要会计数据和财务指标 单位：元", doc_id="ht")
    ans = get_generator("extractive", embed=False).generate("2019年归属于上市公司股东的净利润是多少？同比增长多少？",
                                                            [page])
    assert "12.06%" in ans.answer and ans.answer.count("402,233,891.06") <= 2, ans.answer
    assert "-10.8" not in ans.answer and "358,950,104.80" not in ans.answer, ans.answer


def test_which_parameter_value_reads_the_row_across_the_columns_it_heads(tmp_path):
    """开源证券 表1 (issue 23, zh-a-042): "哪个t对应的年化收益率最高" over columns "t=1 … t=5" asks for the column of
    the row's largest value; the question naming the options ("t=1至3") names no column to read."""
    from docrag.generation.extractive_asked import asked_word
    from docrag.generation.extractive_extremes import _heads_asked

    assert asked_word("哪个t对应的年化收益率最高？") == "t" and asked_word("哪个季度的收入最高？") == "季度"
    assert _heads_asked("t", "t=1") and not _heads_asked("t", "Net income")
    rows = [["指标", "t=1", "t=2", "t=3"], ["年化收益率", "19.58%", "19.64%", "18.59%"],
            ["最大回撤", "8.85%", "8.39%", "9.02%"]]
    page = _table_page(tmp_path, rows, "最极端收益率结合前 t 分钟的参数敏感性不高。", doc_id="kysec")
    ans = get_generator("extractive", embed=False).generate(
        "最极端收益率结合前t分钟（t=1至3）时，哪个t对应的年化收益率最高？", [page])
    assert ans.answer.startswith("19.64% — 年化收益率, t=2"), ans.answer
    # rule 117 ``which_then``: the next part is asked of the t chosen, the row it names in that column
    both = get_generator("extractive", embed=False).generate(
        "最极端收益率结合前t分钟（t=1至3）时，哪个t对应的年化收益率最高？最大回撤是多少？", [page])
    assert "19.64% — 年化收益率, t=2" in both.answer and "8.39% — 最大回撤, t=2" in both.answer, both.answer
    assert "_chosen" not in both.meta   # the chosen cell serves the next part only: nothing unserialisable stays


def test_a_label_centred_over_the_rows_it_spans_names_each_of_them(tmp_path):
    """航天电器 2019 年报's 产销量情况分析表 sets "电子元器件制造业 (连接器)" in the first column, centred over its
    销售量, 生产量 and 库存量 rows; the table finder reads its two printed lines as label-only rows between them,
    and read top-down they named the wrong product's rows (64,227.98, the 连接器's 销售量, was read as 继电器's)."""
    def row(y0: float, item: str, value: str) -> tuple[list[str], list]:
        return ["", item, "万只", value], [None, *([x0, y0, x0 + 80, y0 + 20] for x0 in (136.6, 216.6, 296.6))]

    def label(y0: float, text: str) -> tuple[list[str], list]:   # one printed line of the spanning label
        return [text, "", "", ""], [[57.0, y0, 130.0, y0 + 9], None, None, None]

    head = [[57.0 + 80 * i, 554.0, 136.6 + 80 * i, 574.0] for i in range(4)]
    lines = [(["行业分类", "项目", "单位", "2019 年"], head),
             row(574, "销售量", "788.57"), label(592, "电子元器件制造业"), row(594, "生产量", "823.43"),
             label(608, "(继电器)"), row(614, "库存量", "170.86"),
             row(634, "销售量", "64,227.98"), label(652, "电子元器件制造业"), row(654, "生产量", "68,953.76"),
             label(668, "(连接器)"), row(674, "库存量", "6,226.78")]
    grid, boxes = [t for t, _ in lines], [b for _, b in lines]
    page = _table_page(tmp_path, grid, "(2). 产销量情况分析表", doc_id="ht")
    page.blocks[1].meta["cell_boxes"] = boxes
    labels = {tc.value: tc.row.label for t in parse_tables(page.blocks[1], page) for tc in t.cells()}
    assert labels["64,227.98"] == "销售量 (电子元器件制造业 (连接器))", labels
    assert labels["170.86"] == "库存量 (电子元器件制造业 (继电器))" and labels["788.57"].endswith("(继电器))")


def _titled_table(tmp_path, rows, title, page_no):
    page = make_page(tmp_path, [Region((72, 100, 540, 130), GREY, title),
                                Region((72, 150, 540, 150 + 18 * len(rows)), GREY,
                                       "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE)],
                     doc_id="sifang", page_no=page_no)
    page.blocks[1].meta["rows"] = rows
    return page


def test_a_figure_printed_twice_is_cited_where_the_question_places_it(tmp_path):
    """四方科技's 2019 report (zh-a-013, rule 168 ``repeat_named``): the 主营业务分产品情况 table (the retriever's first
    page) repeats the 分行业 table's margins row for row; asked about "两个分行业", the answer cites the 分行业 copy."""
    rows = [["项目", "营业收入", "毛利率(%)"], ["冷冻设备", "585,374,305.72", "32.51"],
            ["罐式集装箱", "529,263,102.26", "17.30"]]
    by_product = _titled_table(tmp_path, rows, "主营业务分产品情况", 5)
    by_industry = _titled_table(tmp_path, rows, "主营业务分行业情况", 4)
    q = "冷冻设备和罐式集装箱两个分行业中哪个毛利率更高？"
    ans = get_generator("extractive", embed=False).generate(q, [by_product, by_industry])
    assert "32.51" in ans.answer and ans.citations[0].page_id == by_industry.page_id, ans.citations



def test_a_measure_is_read_under_the_section_the_question_names():
    """航天电器 2019 年报 (zh-c-006, rule 168 ``repeat_named``): 销售量 is printed under 连接器 (the retriever's second
    page, 64,227.98) and under 光通信器件 (its first, 217.5); the question names 连接器, so that cell takes the best
    score of the two; a 销售量 of another column, and cells named alike, keep theirs."""
    from types import SimpleNamespace

    def cell(value, label, header):
        return SimpleNamespace(page=SimpleNamespace(doc_id="hangtian"), cell=SimpleNamespace(
            value=value, header_text=header, row=SimpleNamespace(own_label=label)))

    units = [cell("217.5", "销售量", "2019 年"), cell("64,227.98", "销售量", "2019 年"),
             cell("16.94%", "销售量", "同比增减"), cell("788.57", "销售量", "2019 年")]
    lex, scores = [0.37, 0.65, 0.33, 0.35], [0.61, 0.53, 0.49, 0.37]
    out = repeat_named(units, lex, scores)
    assert out[1] > out[0] == 0.61 and out[2:] == [0.49, 0.37]
    assert repeat_named(units, [0.37, 0.40, 0.33, 0.35], scores) == scores   # named alike


REAL_YINGSHI = DEV_PDFS / "zh_yingshi_chuangxin_zhaogushu.pdf"


@pytest.mark.skipif(not REAL_YINGSHI.exists(), reason=NOT_FETCHED)
def test_a_first_column_label_names_each_row_it_spans(tmp_path):
    """影石创新's prospectus (zh-c-022, rule 170 ``spanned_label``): the 净资产收益率 table prints
    "归属于母公司股东净利润" once beside its 2024 / 2023 / 2022年度 rows; each row is that year of that profit (the
    first row had lost its year, the next two their profit). Asked 2024 against 2023 (default generator), the plain
    profit's rows answer, not the 扣除非经常性损益后 rows named alike (rule 169 ``unasked_qualifier``, on sections)."""
    page = real_pages(REAL_YINGSHI, [7], tmp_path)[0]
    labels = {tc.value: tc.row.label for b in page.blocks if b.kind == BlockKind.TABLE
              for t in parse_tables(b, page) for tc in t.cells()}
    assert labels["37.07"].replace(" ", "") == "2024年度(归属于母公司股东净利润)", labels["37.07"]
    assert labels["46.67"].replace(" ", "") == "2023年度(归属于母公司股东净利润)", labels["46.67"]
    assert labels["44.50"].replace(" ", "") == "2023年度(扣除非经常性损益后归属于母公司股东净利润)"
    q = "影石创新归属于公司普通股股东的加权平均净资产收益率2024年较2023年如何变化？"
    ans = get_generator("extractive").generate(q, [page])
    assert ans.answer.startswith("46.67%") and "37.07%" in ans.answer and "44.50" not in ans.answer, ans.answer
