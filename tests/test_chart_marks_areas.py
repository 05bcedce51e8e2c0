"""Net-value charts of broker notes read off their drawing (``docrag.ingestion.chart_marks``): a filled excess-return
area drawn against a right axis that only its legend entry names ("超额(右)"), lines drawn as steps, a line's
value where it ends ("期末"), and a chart whose date labels are outlines (no categories as text). The synthetic page
is drawn here after 西部证券's 图18; the real pages (西部证券 图18, 招商证券 图21) are read when the dev set's PDFs
are fetched."""

from __future__ import annotations

import pymupdf
import pytest

from docrag.generation.extractive_chart_drawn import drawn_answer
from docrag.generation.extractive_units import tokenize
from docrag.geometry import Box
from docrag.ingestion.chart_marks import read_series, staircase
from docrag.types import BlockKind, Word
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

RED, PINK, GREY = (0.76, 0.2, 0.11), (0.92, 0.7, 0.65), (0.85, 0.85, 0.85)
LEFT_BOTTOM, LEFT_STEP = 400.0, 40.0     # left axis: 0.5 at y=400, one tick (0.5) every 40 points
RIGHT_STEP = 0.2                        # right axis: 0.8 at y=400, 0.2 per tick
YEARS = ["2013/1/25", "2016/1/25", "2019/1/25", "2022/1/25"]
XS = [80.0, 180.0, 280.0, 380.0]
END_X = 430.0


def _y_left(v: float) -> float:
    return LEFT_BOTTOM - (v - 0.5) / 0.5 * LEFT_STEP


def _y_right(v: float) -> float:
    return LEFT_BOTTOM - (v - 0.8) / RIGHT_STEP * LEFT_STEP


def _words(page) -> list[Word]:
    w, h = page.rect.width, page.rect.height
    return [Word(t[4], Box.points(t[0], t[1], t[2], t[3], w, h)) for t in page.get_text("words")]


def _steps(page, values: list[float], colour) -> None:
    """A line drawn as a staircase of horizontal and vertical segments, as a daily net-value curve is."""
    xs = XS + [END_X]
    shape = page.new_shape()
    at_x, at_y = xs[0], _y_left(values[0])
    for x, v in zip(xs[1:], values[1:], strict=True):
        start, start_y = at_x, at_y
        for k in range(1, 6):   # five small steps between two categories, up and down
            step_x = start + (x - start) * k / 5
            y = _y_left(v) if k == 5 else start_y + (_y_left(v) - start_y) * k / 5 + (3.0 if k % 2 else -3.0)
            shape.draw_line((at_x, at_y), (step_x, at_y))
            shape.draw_line((step_x, at_y), (step_x, y))
            at_x, at_y = step_x, y
    shape.finish(color=colour, width=1.0, closePath=False)
    shape.commit()


def _chart(page, *, excess_right_label: bool = True) -> None:
    page.insert_text((60, 180), "图 18: 50% 底仓的上证 50ETF 日内动量策略累计超额收益", fontname="china-s", fontsize=8)
    for i in range(5):   # left axis 0.5 .. 2.5, right axis 0.8 .. 1.6
        page.insert_text((50, _y_left(0.5 + 0.5 * i) + 3), f"{0.5 + 0.5 * i:.1f}", fontsize=7)
        page.insert_text((455, _y_left(0.5 + 0.5 * i) + 3), f"{0.8 + RIGHT_STEP * i:.1f}", fontsize=7)
    for x, year in zip(XS, YEARS, strict=True):
        page.insert_text((x - 18, 412), year, fontsize=6)
    # the excess-return area: along the values rightwards, back along the plot's foot
    excess = [1.0, 1.15, 1.24, 1.31, 1.34]
    top = [(x, _y_right(v)) for x, v in zip(XS + [END_X], excess, strict=True)]
    page.draw_polyline([pymupdf.Point(*p) for p in top + [(END_X, LEFT_BOTTOM), (XS[0], LEFT_BOTTOM), top[0]]],
                       color=None, fill=GREY, width=0)
    _steps(page, [1.0, 1.3, 1.55, 1.95, 1.8], RED)
    _steps(page, [1.0, 1.1, 1.25, 1.5, 1.35], PINK)
    legend = ((90, GREY, "超额(右)" if excess_right_label else "超额"), (190, RED, "底仓50%改进策略1"),
              (330, PINK, "上证50ETF"))
    for x, colour, name in legend:
        if colour == GREY:
            page.draw_rect(pymupdf.Rect(x, 432, x + 18, 436), color=None, fill=colour)
        else:
            page.draw_line((x, 434), (x + 18, 434), color=colour, width=1.0)
        page.insert_text((x + 22, 437), name, fontname="china-s", fontsize=7)


def _series(**kw) -> dict[str, dict]:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _chart(page, **kw)
    read = read_series(page.get_drawings(), _words(page), Box.points(40, 170, 480, 445, 595, 842))
    return {s["name"]: s for s in read}


def test_an_area_on_the_axis_its_legend_names_and_lines_on_the_other():
    series = _series()
    assert set(series) == {"超额(右)", "底仓50%改进策略1", "上证50ETF"}
    excess = dict(series["超额(右)"]["values"])   # read on the right axis (0.8 .. 1.6)
    assert excess["2019/1/25"] == pytest.approx(1.24, abs=0.02)
    assert series["超额(右)"]["last"] == ["", pytest.approx(1.34, abs=0.02)]   # it ends past the last label
    strategy = dict(series["底仓50%改进策略1"]["values"])   # a staircase, read on the left axis (0.5 .. 2.5)
    assert strategy["2022/1/25"] == pytest.approx(1.95, abs=0.05)
    assert series["底仓50%改进策略1"]["last"][1] == pytest.approx(1.8, abs=0.05)


def test_a_dual_axis_chart_no_legend_entry_assigns_is_not_read():
    assert _series(excess_right_label=False) == {}


def test_the_value_where_a_line_ends_answers_a_question_about_the_end():
    series = list(_series().values())
    question = "西部证券报告图18中，50%底仓上证50ETF日内动量策略的累计超额（右轴）在期末大约是多少？"
    idf = dict.fromkeys(tokenize(question), 1.0)
    answer = drawn_answer(series, question, idf)
    assert answer.startswith("约1.34 — 期末（超额(右)，读图估计")


def test_a_staircase_is_a_data_line_and_a_grid_is_not():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _steps(page, [1.0, 1.3, 1.55, 1.95, 1.8], RED)
    shape = page.new_shape()   # a grid drawn as one path: its segments go back and apart
    for y in (100, 120, 140, 160):
        shape.draw_line((50, y), (300, y))
    for x in (50, 100, 150, 200):
        shape.draw_line((x, 100), (x, 160))
    shape.finish(color=(0, 0, 0), width=0.5)
    shape.commit()
    stair, grid = sorted(page.get_drawings(), key=lambda d: d["rect"].y0, reverse=True)
    assert staircase(stair["items"])
    assert not staircase(grid["items"])


@pytest.mark.skipif(not (DEV_PDFS / "zh_xibu_etf_rinei_dongliang_2024.pdf").exists(), reason=NOT_FETCHED)
def test_the_real_excess_area_reads_on_its_right_axis(tmp_path):
    """西部证券's 图18 (real): the grey "超额(右)" area ends near 1.3 on the right axis (表19: excess 34.1%)."""
    (page,) = real_pages(DEV_PDFS / "zh_xibu_etf_rinei_dongliang_2024.pdf", [8], tmp_path)
    figure = min((b for b in page.blocks if b.kind is BlockKind.FIGURE), key=lambda b: (b.box.y0, b.box.x0))
    series = {s["name"]: s for s in figure.meta["series"]}
    assert series["超额(右)"]["last"][1] == pytest.approx(1.33, abs=0.03)
    assert series["底仓50%改进策略1"]["max"][1] == pytest.approx(2.15, abs=0.05)


@pytest.mark.skipif(not (DEV_PDFS / "zh_zhaoshang_eyuxian_zeshi_2024.pdf").exists(), reason=NOT_FETCHED)
def test_the_real_step_lines_under_outlined_dates_are_a_figure_read_at_their_ends(tmp_path):
    """招商证券's 图21 (real): six step lines, dates drawn as outlines. Its legend and ticks were read as a table and
    the figure cut to the dates; now the figure holds the plot and each line's end: 轮动策略(加入债券) near 40,
    轮动策略 near 21 (read on the rendered page)."""
    (page,) = real_pages(DEV_PDFS / "zh_zhaoshang_eyuxian_zeshi_2024.pdf", [9], tmp_path)
    assert not any(b.kind is BlockKind.TABLE and b.box.y1 < 380 for b in page.blocks)
    figure = next(b for b in page.blocks if b.kind is BlockKind.FIGURE and b.box.y0 < 300)
    series = {s["name"]: s for s in figure.meta["series"]}
    assert series["轮动策略(加入债券)"]["last"][1] == pytest.approx(40, abs=1.0)
    assert series["轮动策略"]["last"][1] == pytest.approx(21, abs=1.0)
    assert series["轮动策略"]["values"] == []


@pytest.mark.skipif(not (DEV_PDFS / "en_bot_mpc_minutes_2021-06.pdf").exists(), reason=NOT_FETCHED)
def test_a_slides_axis_labels_a_little_off_the_plot_belong_to_its_figure(tmp_path):
    """Bank of Thailand's slide (real, page 11): the "Headline inflation projection" chart's value ticks (-3 ... 3)
    stand 13 points left of its drawing and its quarters (Q1-19 ... Q4-22) under it, each word its own text block;
    the figure holds them (the gold box does), and its data labels."""
    (page,) = real_pages(DEV_PDFS / "en_bot_mpc_minutes_2021-06.pdf", [11], tmp_path)
    figure = next(b for b in page.blocks if b.kind is BlockKind.FIGURE and b.box.x0 > 450 and b.box.y1 < 380)
    assert figure.box.x0 < 492 and figure.box.y1 > 330
    assert "-2.67" in figure.text and "Q1-19" in figure.text


def _line(name: str, last: float) -> dict:
    return {"name": name, "kind": "line", "values": [["2013/1/25", 1.0], ["2023/1/25", last - 0.5]], "prefix": "",
            "suffix": "", "decimals": 1, "max": ["2023/1/25", last], "min": ["2013/1/25", 1.0], "last": ["", last]}


def test_the_series_said_is_the_longer_name_its_words_continue_and_the_head_of_de():
    """西部证券's charts (zh-e-001, zh-e-005): "中证500指数日内动量策略" says the strategy's line "中证500日内交易策略",
    not the index line "中证500" it starts with (``said_longer``); "上证50ETF日内动量策略的累计超额" asks the excess,
    the name after "的", not the ETF's line before it (``said_head``)."""
    question = "西部证券报告图3中，中证500指数日内动量策略净值在回测期末大约达到多少？"
    answer = drawn_answer([_line("中证500日内交易策略", 13.9), _line("中证500", 1.4)], question,
                          dict.fromkeys(tokenize(question), 1.0))
    assert answer.startswith("约13.9 — 期末（中证500日内交易策略") and "中证500，" not in answer, answer
    question = "图18中，50%底仓上证50ETF日内动量策略的累计超额（右轴）在期末大约是多少？"
    answer = drawn_answer([_line("上证50ETF", 1.3), _line("超额(右)", 1.3)], question,
                          dict.fromkeys(tokenize(question), 1.0))
    assert answer.startswith("约1.3 — 期末（超额(右)") and "上证50ETF" not in answer, answer
