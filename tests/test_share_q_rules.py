"""Findings of the ninth session (2026-11-29) on share q: a table found without its header under a line that
names no year (广发's 表8) crashed the period-header reader. Real-page tests skip where the dev PDFs are not
fetched."""

from __future__ import annotations

from docrag.generation.extractive_table_read import _period_heads
from docrag.generation.extractive_tables import Cell, Row, Table
from docrag.geometry import Box, Space
from docrag.types import Block, BlockKind, Word


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
