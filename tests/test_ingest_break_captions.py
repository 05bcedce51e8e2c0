"""A figure caption ending one page captions the chart opening the next (:mod:`docrag.ingestion.break_captions`),
on pages shaped after 方正证券's "水中行舟" report, and on the real report's pages 5 and 6."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_units import units_of
from docrag.ingestion.break_captions import CAPTION_FROM_PAGE, CAPTIONS_NEXT_PAGE, link_break_captions
from docrag.types import BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
CAPTION = "图表 9 : “水中行舟”因子在全部一级行业中均表现较为出色( Rank IC 均值)"


def _pages(tmp_path, last_line: str = CAPTION, below: list[Region] | None = None):
    first = make_page(tmp_path, [Region((57, 100, 534, 300), GREY, "分年度来看,“水中行舟”因子各年份表现均较为显著。"),
                                 Region((57, 540, 534, 566), GREY, "分行业来看,大多数行业内 IC 均值超过 -6% 。"),
                                 Region((57, 571, 423, 583), GREY, last_line, BlockKind.CAPTION), *(below or [])],
                      doc_id="fz", page_no=1)
    second = make_page(tmp_path, [Region((57, 63, 539, 283), (190, 0, 0), "银行 钢铁 煤炭 石油石化", BlockKind.FIGURE),
                                  Region((57, 290, 235, 300), GREY, "资料来源:米筐,Wind,方正证券研究所",
                                         BlockKind.CAPTION)],
                       doc_id="fz", page_no=2)
    return first, second


def test_a_caption_ending_a_page_captions_the_figure_opening_the_next(tmp_path):
    first, second = _pages(tmp_path)
    assert link_break_captions([first, second]) == 1
    figure = second.blocks[0]
    assert figure.meta["caption"] == CAPTION and figure.meta[CAPTION_FROM_PAGE] == 1
    assert first.blocks[2].meta[CAPTIONS_NEXT_PAGE]
    (unit,) = [u for u in units_of(second, 1) if u.kind == "figure"]
    assert unit.text == CAPTION and unit.box == figure.box   # cited on its own page
    # the caption is no chart of its own made of the lines above it
    assert not [u for u in units_of(first, 1) if u.kind == "figure"]


def test_prose_about_a_figure_or_a_caption_with_more_below_it_captions_nothing(tmp_path):
    first, second = _pages(tmp_path, "图 9 所示。从图 9 我们可以看出:各行业 IC 均值为负")
    assert link_break_captions([first, second]) == 0
    first, second = _pages(tmp_path, below=[Region((57, 600, 534, 640), GREY, "2.4 剥离其他风格因子影响后")])
    assert link_break_captions([first, second]) == 0
    assert "caption" not in second.blocks[0].meta


REAL_FANGZHENG = DEV_PDFS / "zh_fangzheng_jingong_shuizhongxingzhou_2023.pdf"


@pytest.mark.skipif(not REAL_FANGZHENG.is_file(), reason=NOT_FETCHED)
def test_the_real_industry_chart_is_found_by_the_caption_on_the_page_before(tmp_path):
    """方正证券 prints "图表 9" at the foot of page 5 and the chart of 30 industries' Rank IC at the top of page 6
    (issue 23, zh-a-024): the chart is captioned by it and answers which industry's Rank IC is largest in absolute
    value (石油石化, about -13.7 %) and which smallest (银行, about -4.8 %), read off the drawing."""
    fifth, sixth = real_pages(REAL_FANGZHENG, [5, 6], tmp_path, name="p5-6.pdf")
    (chart,) = [b for b in sixth.blocks if b.kind is BlockKind.FIGURE and b.meta.get(CAPTION_FROM_PAGE)]
    assert chart.meta["caption"].startswith("图表 9") and chart.meta["series"]
    ans = get_generator("extractive", embed=False).generate(
        "图表9中，哪个行业的Rank IC均值绝对值最大、哪个最小？大约是多少？", [fifth, sixth])
    assert ans.citations and ans.citations[0].page_no == sixth.page_no, ans.answer   # the chart's own page
    assert ans.answer.index("石油石化") < ans.answer.index("银行"), ans.answer   # both ends, in the order asked
    assert "13.7" in ans.answer and "4.8" in ans.answer, ans.answer
