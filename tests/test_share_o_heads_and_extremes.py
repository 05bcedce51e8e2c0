"""Rules 268-277, from the held-out reading of share o (天风证券's index-enhancement note, Banco Central do Brasil's
Copom minutes) and a review leftover: the thing an English which-question asks for (268), one line of column heads
set staggered (269), a Chinese head wrapped mid-word (270), a report's title naming no column (271), rows of years
only when a year is asked (272), "哪一年X最低、哪一年最高" asked twice (273), bullets a PDF maps to private-use
glyphs (274), a chart's text stating its figures (275), footnotes (276) and the text that states what a chart does
not print (277)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_answer import figure_answer
from docrag.generation.extractive_asked import asked_word
from docrag.generation.extractive_extremes import _compared_terms
from docrag.generation.extractive_figure_fit import described_chart
from docrag.generation.extractive_lists import _ITEM_START
from docrag.generation.extractive_parts import parts_of
from docrag.generation.extractive_score import prior
from docrag.generation.extractive_table_heads import column_heads
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_tables import Cell, Row, is_number
from docrag.generation.extractive_units import Unit, tokenize
from docrag.geometry import Box, Space
from docrag.types import Block, BlockKind, Page
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

TIANFENG = DEV_PDFS / "zh_tianfeng_zishiying_zhishu_zengqiang_2018.pdf"


def _cell(text: str, x0: float, y0: float, x1: float, y1: float) -> Cell:
    return Cell(text, Box(x0, y0, x1, y1, Space.POINT, (595.0, 842.0)))


def test_an_english_which_question_asks_for_the_noun_past_names_and_function_words():
    """Rule 268 ``asked_noun``: "Which Johnson & Johnson segment" asks for a segment (it read "johnson"), "Which of
    Walmart's three segments" for segments (it read "of", inside many a header), "What was ..." for nothing."""
    assert asked_word("Which Johnson & Johnson segment had the highest reported sales growth?") == "segment"
    assert asked_word("Which of Walmart's three segments had the highest net sales growth?") == "segments"
    assert asked_word("In which quarter of 2021 was Lyft's revenue per Active Rider highest?") == "quarter"
    assert asked_word("Which CPI component in Table 1 had the highest annual rate?") == "component"
    assert asked_word("What was Apple's gross margin percentage in Q1 fiscal 2023?") == ""
    assert asked_word("哪个季度的营业收入最高？") == "季度"


def test_heads_set_staggered_head_their_own_columns_and_wrapped_words_join():
    """Rules 269 ``staggered_heads`` and 270 ``wrapped_word`` (天风's 表5, zh-o-025): the one-line heads
    "年份 | 超额收益" sit between the two lines of the wrapped ones "绝对收/益 | 指数收/益"; read as group headers
    spread over the table, "超额收益" headed the 指数收益 column too, and "绝对收" + "益" were two words."""
    heads = [[_cell("绝对收", 101, 75, 128, 86), _cell("指数收", 148, 75, 175, 86), _cell("相对最", 240, 75, 267, 86),
              _cell("收益回", 281, 75, 308, 86)],
             [_cell("年份", 58, 83, 76, 94), _cell("超额收益", 191, 83, 227, 94), _cell("信息比", 320, 83, 347, 94)],
             [_cell("益", 110, 91, 119, 101), _cell("益", 157, 91, 166, 101), _cell("大回撤", 240, 91, 267, 101),
              _cell("撤比", 285, 91, 303, 101)]]
    xs = [(102, 127), (149, 174), (196, 222), (241, 266), (286, 302), (326, 342)]
    years = [("2010", 108, ["26.84%", "10.35%", "16.49%", "-1.89%", "8.73", "3.55"]),
             ("2011", 123, ["-22.89%", "-33.83%", "10.94%", "-0.82%", "13.35", "5.78"])]
    rows = [Row(year, _cell(year, 58, y, 76, y + 9).box,
                [_cell(v, x0, y, x1, y + 9) for v, (x0, x1) in zip(vs, xs, strict=True)], i)
            for i, (year, y, vs) in enumerate(years)]
    columns, out = column_heads(rows, heads, is_number)
    named = [[line[j].text for line in out if j in line] for j in range(len(columns))]
    assert named == [["绝对收益"], ["指数收益"], ["超额收益"], ["相对最大回撤"], ["收益回撤比"], ["信息比"]]


@pytest.mark.skipif(not TIANFENG.exists(), reason=NOT_FETCHED)
def test_a_year_table_read_for_its_lowest_and_highest_year(tmp_path):
    """Rules 269-273 on 天风's 表4 (zh-o-024): "哪一年超额收益最低、哪一年最高" asks twice (273); the report's title
    "…指数增强策略》" named the 指数收益 column as well as 超额收益 (271: no extreme row was read); the part-year row
    "20180629" and 全样本期 are no year (272)."""
    page = real_pages(TIANFENG, [7], tmp_path)[0]
    heads = {h for b in page.blocks if b.kind.value == "table" for t in parse_tables(b, page)
             for tc in t.cells() for h in tc.headers}
    assert {"绝对收益", "指数收益", "超额收益", "相对最大回撤"} <= heads
    ans = get_generator("extractive", embed=False).generate(
        "天风证券《基于自适应风险控制的指数增强策略》表4（沪深300增强组合分年度表现）中，哪一年超额收益最低、"
        "哪一年最高？分别是多少？", [page])
    first, *rest = ans.answer.split(" … ")
    assert first.startswith("8.41% — 2011, 超额收益") and rest and rest[-1].startswith("26.65% — 2015"), ans.answer


def test_a_reports_title_names_no_column():
    """Rule 271 ``title_names_no_column``: the words of 《…》 name the report, not the column compared."""
    question = "天风证券《基于自适应风险控制的指数增强策略》表4中，哪一年超额收益最低？"
    terms = _compared_terms(question, {"min": ["最低"]})
    assert "超额" in terms and "指数" not in terms and "风险" not in terms


def test_which_lowest_and_which_highest_are_two_parts_of_one_measure():
    """Rule 273: the second "哪一年最高" asks for the measure the first named."""
    parts = parts_of("表4中，哪一年超额收益最低、哪一年最高？分别是多少？")
    assert [p.split("，")[1] for p in parts] == ["哪一年超额收益最低", "哪一年超额收益最高"]


def test_private_use_bullets_start_list_items():
    """Rule 274 ``glyph_bullets``: Wingdings / Symbol bullets a PDF maps to private-use code points (天风's "\\uf09f",
    "\\uf06c", "\\uf0b7") start list items, as "•" does; a Symbol-font bracket ("\\uf028") does not."""
    for bullet in ("\uf09f", "\uf06c", "\uf0b7", "•"):
        assert _ITEM_START.match(f"{bullet} 沪深300 指数增强组合年化超额收益14.11%")
    assert not _ITEM_START.match("\uf028 1 + r \uf029")


def _figure(text: str) -> Unit:
    return Unit(text, None, 1, None, None, kind="figure", extra={"caption": text, "labels": "", "values": {}})  # type: ignore[arg-type]


def test_a_chart_text_that_states_its_figures_is_not_said_to_be_read_off_the_drawing():
    """Rule 275 ``stated_not_drawn`` (zh-o-030): ingest took "图 13 是组合每个月的超额收益序列，…均值 1.76%，…最低
    一期为 -2.11%" for 图13's caption; the answer quotes it without "图中未标注"; a caption alone still says so."""
    q = "图13中，月度超额收益均值是多少？"
    idf = {t: 1.0 for t in tokenize(q)}
    stated = "图 13 是组合每个月的超额收益序列，在回测期的 44 个月份中月度超额收益均值 1.76%，最低一期为 -2.11%。"
    assert "图中未标注" not in figure_answer(_figure(stated), q, idf)
    assert "图中未标注" in figure_answer(_figure("图 21：50% 底仓的中证 1000ETF 日内动量策略累计超额收益"), q, idf)
    ticks = ("Central U.S. Choice White Grease 43.00 40.00 37.00 34.00 31.00 $/cwt 28.00 25.00 22.00 19.00 16.00 13.00 "
             "J F M A M J J A S O N D 2017 2016 5 Yr Avg")
    q = "What was the Choice white grease price in June 2017?"
    assert "read off the drawing" in figure_answer(_figure(ticks), q, {t: 1.0 for t in tokenize(q)})   # axis ticks



def test_a_footnote_at_the_foot_of_the_page_weighs_less():
    """Rule 276 ``footnote`` (en-o-015, en-o-023, en-g-018): Copom's "2 Corresponds to the rounded value of the average
    exchange rate ..." under the paragraph stating the exchange-rate assumption outscored it; a footnote in the page's
    bottom fifth keeps 0.7 of its prior, a numbered paragraph ("5. In the reference scenario ...") all of it."""
    page = Page(doc_id="d", page_no=3, width_pt=595, height_pt=842)
    foot = Block(BlockKind.TEXT, Box.points(163, 735, 548, 763, 595, 842),
                 "2 Corresponds to the rounded value of the average exchange rate observed over the ten working days")
    body = Block(BlockKind.TEXT, Box.points(163, 344, 549, 413, 595, 842),
                 "5. In the reference scenario, the interest rate path is extracted from the Focus survey")
    low = Block(BlockKind.TEXT, Box.points(163, 700, 549, 740, 595, 842), body.text)
    note, text, last = (Unit(b.text, page, 1, b, b.box) for b in (foot, body, low))
    assert prior(note, False, False, False) == pytest.approx(0.7 * prior(text, False, False, False))
    assert prior(last, False, False, False) == prior(text, False, False, False)   # a paragraph low on the page


def test_the_text_describing_a_chart_answers_what_the_chart_does_not_print():
    """Rule 277 ``described_chart`` (zh-o-032): 天风's 图21 is a raster bar chart with no data labels; "图21 是
    组合每个月的超额收益序列，…均值1.47%，…最低一期为-1.3%" under it (ingested as a caption block: it kept a
    caption's x0.6, now not) answers; a text naming another figure, or one stating no figures, does not."""
    page = Page(doc_id="d", page_no=12, width_pt=595, height_pt=842)
    cap = Block(BlockKind.CAPTION, Box.points(158, 277, 552, 316, 595, 842), "")
    chart = Unit("图 21 :自适应风控中证 1000 增强组合月度超额收益", page, 1, cap, cap.box, kind="figure",
                 extra={"caption": "图 21", "labels": "", "values": {}})
    told = Unit("图 21 是组合每个月的超额收益序列，在回测期的 44 个月份中月度超额收益均值 1.47%，"
                "只有 3 个月的超额收益为负，最低一期的超额收益为 -1.3%。", page, 1, cap, cap.box)
    other = Unit(told.text.replace("图 21", "图 19"), page, 1, cap, cap.box)
    drawn = "图 21 :自适应风控中证 1000 增强组合月度超额收益 （图中未标注该数值，只能从图形上读取）"
    assert described_chart(chart, drawn, [chart, other, told], [0, 1, 2], [1.0, 0.7, 0.5]) is told
    assert described_chart(chart, drawn, [chart, other], [0, 1], [1.0, 0.7]) is None
    assert described_chart(chart, "1.47% — 2015", [chart, told], [0, 1], [1.0, 0.5]) is None   # a label answers
    title = Unit("图 21 :自适应风控中证 1000 增强组合月度超额收益", page, 1, cap, cap.box)
    assert prior(told, True, True, False) > prior(title, True, True, False) / 0.6 * 0.99   # no caption's x0.6
