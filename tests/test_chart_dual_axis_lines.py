"""A broker note's dual-axis line charts (华福证券, share zh-f): ticks standing past the plot's lines belong to the
figure (``axis_ends``), a legend row under it names the lines (``legend_below``), a drawdown line is read on the
percentage axis and the net value on the other (``rate_named``), the caption over the chart is the chart's, not the
page header logo's (``caption_side``), and a question asking a line's highest point and its end gets both
(``extreme_and_end``); rules 189-193."""

from __future__ import annotations

import pytest

from docrag.generation.extractive_chart_drawn import drawn_answer
from docrag.generation.extractive_units import tokenize
from docrag.geometry import Box, Space
from docrag.ingestion.figures import attach_captions
from docrag.types import Block, BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

HUAFU = DEV_PDFS / "zh_huafu_jingxingao_zhanbi_2023.pdf"


def _block(kind: BlockKind, box: tuple[float, float, float, float], text: str, n: int) -> Block:
    return Block(kind=kind, box=Box(*box, space=Space.POINT, extent=(595.0, 842.0)), text=text, block_id=n)


def test_a_caption_goes_to_the_figure_on_the_side_the_page_prints_its_captions():
    """A white paper's captions stand under their charts: "图 5" is 34 points under its chart and 20 over the next
    one, whose own "图 6" stands under it; "图 5" is the first chart's (``caption_side``)."""
    blocks = [_block(BlockKind.FIGURE, (92, 139, 494, 348), "", 1), _block(BlockKind.TEXT, (212, 382, 377, 395),
              "图 5 我国算力发展规模及增速", 2), _block(BlockKind.FIGURE, (113, 415, 473, 631), "", 3),
              _block(BlockKind.TEXT, (230, 661, 359, 674), "图 6 我国算力内部结构", 4)]
    attach_captions(blocks)
    assert blocks[0].meta["caption"].startswith("图 5") and blocks[2].meta["caption"].startswith("图 6")


def test_a_lone_caption_between_a_logo_and_a_chart_is_the_nearer_chart_s():
    """A broker note's page: the header logo (an image figure) 29 points over "图表18", the chart 17 points under
    it; the logo, read first, had taken the caption."""
    blocks = [_block(BlockKind.FIGURE, (43, 14, 205, 47), "", 1), _block(BlockKind.TEXT, (48, 76, 389, 87),
              "图表18：净新高占比反转策略在通信行业指数的累计表现（2010-2022）", 2),
              _block(BlockKind.FIGURE, (61, 104, 538, 376), "", 3)]
    attach_captions(blocks)
    assert "caption" not in blocks[0].meta and blocks[2].meta["caption"].startswith("图表18")


def test_a_line_s_highest_point_and_its_end_are_both_read():
    line = {"name": "策略累计表现(多空,单笔3%)", "kind": "line", "values": [], "prefix": "", "suffix": "",
            "decimals": 2, "max": ["", 1.96], "min": ["", 0.97], "last": ["", 1.88]}
    question = "策略累计表现最高约为多少，期末约为多少？"
    ans = drawn_answer([line], question, dict.fromkeys(tokenize(question), 1.0)) or ""
    assert "1.96" in ans and "1.88" in ans and "期末" in ans, ans


@pytest.mark.skipif(not HUAFU.exists(), reason=NOT_FETCHED)
def test_the_real_dual_axis_chart_is_a_figure_whose_lines_are_read_on_their_axes(tmp_path):
    """华福证券's 图表18 and 图表26 (real, pages 9 and 10; zh-f-028, zh-f-027): the ticks "1.70" and "0.50" stand past
    the lines' extent, and had been left to a "table" with the legend, which swallowed the chart; the legend row
    stands under the plot with short-line samples; the strategy's net value is read on the left axis (it had been
    read on the percentage axis: "57%"), the drawdown on the right."""
    nine, ten = real_pages(HUAFU, [9, 10], tmp_path)
    charts = [b for b in nine.blocks if b.kind is BlockKind.FIGURE and b.meta.get("source") == "drawing"]
    assert len(charts) == 1 and not any(b.kind is BlockKind.TABLE for b in nine.blocks)
    assert charts[0].meta.get("caption", "").startswith("图表18")
    series = {s["name"]: s for s in charts[0].meta["series"]}
    strategy = next(s for n, s in series.items() if n.startswith("策略累计表现"))
    assert strategy["suffix"] == "" and abs(strategy["last"][1] - 1.60) <= 0.03
    assert series["回撤"]["suffix"] == "%"
    chart = next(b for b in ten.blocks if b.kind is BlockKind.FIGURE and b.meta.get("series"))
    strategy = next(s for s in chart.meta["series"] if s["name"].startswith("策略累计表现"))
    assert abs(strategy["max"][1] - 1.95) <= 0.03 and abs(strategy["last"][1] - 1.88) <= 0.03
