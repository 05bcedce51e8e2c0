"""Tables as annual reports and 10-Qs draw them: cells set over several lines inside a ruled grid, a
header drawn over spanning data cells, tables stacked in one ruled region, and what the ``extractive``
generator reads from them.

The pages are drawn here with PyMuPDF after the layouts met in the real dev set (a Chinese annual
report's 主要会计数据 grid, a 10-Q's segment tables); the numbers on the real set are in BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_tables import _cells as line_cells
from docrag.geometry import Box
from docrag.ingestion import ingest
from docrag.ingestion.table_finder import joined_between_rules, joined_wrapped_labels, merged_columns
from docrag.ingestion.tables import _segments_between_prose, _stacked_tables, is_two_row_table, text_rows
from docrag.types import BlockKind, Word
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.support.sysdeps import CJK_FONT, require_cjk_font

# columns of the Chinese grid (x of its vertical rules) and its data: label lines, then the values
XS = [90, 210, 300, 390, 440, 530]
ZH_ROWS = [
    (["营业收入"], ["1,581,905,632.48", "1,126,782,253.35", "40.39", "1,896,608,630.19"]),
    (["归属于上市公司股东的", "净利润"], ["406,195,463.57", "221,041,634.94", "83.76", "754,465,552.70"]),
    (["归属于上市公司股东的", "扣除非经常性损益的净", "利润"], ["392,188,209.82", "215,115,789.00", "82.31",
                                                     "732,655,536.82"]),
    (["经营活动产生的现金流", "量净额"], ["699,612,782.08", "405,242,914.07", "72.64", "422,460,842.44"]),
]
LINE = 13.0
KEY_VALUES = [("公司选定的信息披露媒体名称", "《中国证券报》《上海证券报》"),
              ("登载年度报告的中国证监会指定网站的网址", "www.sse.com.cn"),
              ("公司年度报告备置地点", "公司董事会办公室")]


def _cjk_page(what: str, size: float) -> tuple[pymupdf.Document, pymupdf.Page, Callable[[float, float, str], None]]:
    """A new A4 page with the CJK font, and a function that writes a line of it at ``size`` points."""
    require_cjk_font(what)
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="wqy", fontfile=str(CJK_FONT))

    def text(x: float, y: float, s: str) -> None:
        page.insert_text((x, y), s, fontname="wqy", fontsize=size)

    return doc, page, text


def _zh_grid_pdf(path: Path) -> None:
    """A ruled grid whose labels wrap over two or three lines and whose change column's header is set
    one or two characters a line ("本期 / 比上 / 年同 / 期增 / 减(%)"), as in 金宇生物's 2020 annual report."""
    doc, page, text = _cjk_page("the Chinese table page", 9)

    text(300, 52, "2020 年年度报告")   # the running header and its rule, grouped with the grid's rules
    page.draw_line((XS[0], 58), (XS[-1], 58), width=0.6)
    text(90, 110, "(一) 主要会计数据")
    text(430, 128, "单位:元 币种:人民币")
    top = 140.0
    header_h = 5 * LINE + 6
    rules = [top, top + header_h]
    for i, s in enumerate(["本期", "比上", "年同", "期增", "减(%)"]):
        text(XS[3] + 6, top + 12 + i * LINE, s)
    for x, s in zip([XS[0] + 20, XS[1] + 20, XS[2] + 20, XS[4] + 20], ["主要会计数据", "2020年", "2019年", "2018年"],
                    strict=True):
        text(x, top + 12 + 2 * LINE, s)
    y = top + header_h
    for labels, values in ZH_ROWS:
        for i, s in enumerate(labels):
            text(XS[0] + 4, y + 11 + i * LINE, s)
        for x1, v in zip(XS[2:], values, strict=True):   # values right-aligned in their column, first line
            width = pymupdf.get_text_length(v, fontname="helv", fontsize=9)
            page.insert_text((x1 - 6 - width, y + 11), v, fontname="helv", fontsize=9)
        y += len(labels) * LINE + 4
        rules.append(y)
    for r in rules:
        page.draw_line((XS[0], r), (XS[-1], r), width=0.6)
    for x in XS:
        page.draw_line((x, top), (x, rules[-1]), width=0.6)
    # a key-value grid whose middle label runs up to the rule, its value right after it
    y0, split = 420.0, XS[0] + 4 + 9 * len(KEY_VALUES[1][0]) + 1.5   # full-width characters, 9 pt each
    for i, (key, value) in enumerate(KEY_VALUES):
        text(XS[0] + 4, y0 + 12 + i * 16, key)
        text(split - 1, y0 + 12 + i * 16, f" {value}")   # a space, as in the report, then the value
    for i in range(len(KEY_VALUES) + 1):
        page.draw_line((XS[0], y0 + i * 16), (XS[-1], y0 + i * 16), width=0.6)
    for x in (XS[0], split, XS[-1]):
        page.draw_line((x, y0), (x, y0 + 16 * len(KEY_VALUES)), width=0.6)
    doc.save(path)


def _stacked_pdf(path: Path) -> None:
    """Two tables under one another between horizontal rules only, each with its title and header, as a
    10-Q sets "Revenue by Reportable Segments" above "Operating Income by Reportable Segments"."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 120.0
    page.draw_line((40, y - 14), (570, y - 14), width=0.6)
    for title, rows in [("Revenue by Reportable Segments", [("Compute & Networking", "74,550", "39,589", "88 %"),
                                                             ("Graphics", "7,065", "4,473", "58 %"),
                                                             ("Total", "81,615", "44,062", "85 %")]),
                        ("Operating Income by Reportable Segments", [("Compute & Networking", "53,335", "22,054",
                                                                      "142 %"),
                                                                     ("Graphics", "2,941", "1,640", "79 %"),
                                                                     ("Total", "56,276", "23,694", "138 %")])]:
        page.insert_text((40, y), title, fontname="helv", fontsize=9)
        y += 16
        for x, s in zip((300, 390, 500), ("Apr 26, 2026", "Apr 27, 2025", "Change %"), strict=True):
            page.insert_text((x, y), s, fontname="helv", fontsize=9)
        page.draw_line((40, y + 4), (570, y + 4), width=0.6)
        for label, *values in rows:
            y += 16
            page.insert_text((40, y), label, fontname="helv", fontsize=9)
            for x, v in zip((320, 410, 510), values, strict=True):
                page.insert_text((x, y), v, fontname="helv", fontsize=9)
            page.draw_line((40, y + 4), (570, y + 4), width=0.6)
        y += 30
    doc.save(path)


STATEMENT = [("Net sales:", None), ("Products", ("96,388", "104,429")), ("Services", ("20,766", "19,516")),
             ("Total net sales", ("117,154", "123,945")), ("Cost of sales:", None),
             ("Products", ("60,765", "64,309")), ("Services", ("6,057", "5,393")),
             ("Total cost of sales", ("66,822", "69,702")), ("Gross margin", ("50,332", "54,243")),
             ("Operating expenses:", None), ("Research and development", ("7,709", "6,306")),
             ("Selling, general and administrative", ("6,607", "6,449")),
             ("Total operating expenses", ("14,316", "12,755")),
             ("Operating income", ("36,016", "41,488")), ("Other income/(expense), net", ("(393)", "(247)")),
             ("Income before provision for income taxes", ("35,623", "41,241")),
             ("Provision for income taxes", ("5,625", "6,611")), ("Net income", ("29,998", "34,630"))]
BARS = [120, 160, 90, 200, 140, 180]   # heights of the bar chart under the statement


def _shaded_statement_pdf(path: Path) -> None:
    """An income statement whose every other row is shaded in pieces (label, value, gutter, value), as
    Apple's 10-Q draws its statements, and a bar chart under it."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    grey = (0.937, 0.937, 0.937)
    for centre, lines in ((454.5, ("December 31,", "2022")), (527.5, ("December 25,", "2021"))):
        for k, line in enumerate(lines):   # centred over the column; the values below are right-aligned
            page.insert_text((centre - pymupdf.get_text_length(line, "helv", 9) / 2, 100 + 11 * k), line,
                             fontname="helv", fontsize=9)
    pieces = [(50, 420), (420, 489), (489, 493), (493, 562)]
    y = 120.0
    for i, (label, values) in enumerate(STATEMENT):
        if i % 2 == 0:
            for x0, x1 in pieces:
                page.draw_rect(pymupdf.Rect(x0, y, x1, y + 14.4), color=None, fill=grey, width=0)
        page.insert_text((52, y + 10.5), label, fontname="helv", fontsize=9)
        for x1, v in zip((486, 559), values or (), strict=False):
            page.insert_text((x1 - pymupdf.get_text_length(v, "helv", 9), y + 10.5), v, fontname="helv", fontsize=9)
        y += 14.4
    base = 720.0
    for i, h in enumerate(BARS):
        page.draw_rect(pymupdf.Rect(120 + i * 48, base - h * 0.8, 160 + i * 48, base), color=None, fill=(0.2, 0.4, 0.7))
    page.draw_line((100, base), (500, base), width=0.8)
    doc.save(path)


# a broker note's yearly table: its header's words are set closer than a cell gap, one over each column
YEARLY_HEADER = ["Average(%)", "Excess(%)", "WinRate(%)", "Drawdown(%)"]
YEARLY = [("2009", ("2.14", "26.67", "83.3", "1.4")), ("2010", ("-0.09", "-1.84", "41.7", "5.4")),
          ("2011", ("0.48", "5.90", "58.3", "2.8")), ("2012", ("1.66", "19.01", "75.0", "2.3"))]


def _yearly_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    centres = [230.0, 290.0, 350.0, 410.0]
    page.insert_text((72, 150), "Period", fontname="helv", fontsize=9)
    for c, h in zip(centres, YEARLY_HEADER, strict=True):
        page.insert_text((c - pymupdf.get_text_length(h, "helv", 9) / 2, 150), h, fontname="helv", fontsize=9)
    for k, (year, values) in enumerate(YEARLY):
        y = 166 + 14 * k
        page.insert_text((72, y), year, fontname="helv", fontsize=9)
        for c, v in zip(centres, values, strict=True):
            page.insert_text((c - pymupdf.get_text_length(v, "helv", 9) / 2, y), v, fontname="helv", fontsize=9)
    doc.save(path)


# a clause-and-technology grid of a white paper: each cell's text set over several lines of a narrow column
TEXT_XS = [116, 281, 382, 465]
TEXT_ROWS = [
    (["数据出境和境外接收方处理数据的目", "的、范围、方式等的合法性、正当性、", "必要性"], ["目标、范围、方式"], ["/"]),
    (["出境数据的规模、范围、种类、敏感程", "度,数据出境可能对国家安全、公共利", "益,个人或者组织合法权益带来的风险"],
     ["数量、范围、种类、敏", "感程度、风险"], ["数据分类分级"]),
    (["数据出境中和出境后遭到篡改、破坏、", "泄露、丢失、转移或者被非法获取、非", "法利用等风险,个人信息权益维护的渠",
      "道是否通畅等"], ["个人信息权益维护通道"], ["去标识化、隐私计", "算、数据水印、区", "块链存证"]),
]


def _zh_text_grid_pdf(path: Path) -> None:
    """A ruled grid whose cells are lines of Chinese text in narrow columns (开放群岛's 对照表): each line
    of a cell is long enough to read as prose on its own, yet it stays inside one column of the grid."""
    doc, page, text = _cjk_page("the Chinese text grid", 8.5)

    text(90, 120, "企业牵涉到数据出境且数据规模、数据敏感性达到一定程度时需要进行安全风险自评估。")
    text(156, 150, "表:《数据出境安全评估办法》部分条款与技术对照表")
    top = 165.0
    rules = [top, top + 26]
    for x, s in zip(TEXT_XS, ["《数据出境安全评估办法》条款", "关键词", "相关技术"], strict=False):
        text(x + 5, top + 16, s)
    y = top + 26
    for cells in TEXT_ROWS:
        height = max(len(c) for c in cells) * 12.0 + 12
        for x, lines in zip(TEXT_XS, cells, strict=False):
            first = y + 6 + (height - len(lines) * 12.0) / 2 + 9
            for i, s in enumerate(lines):
                text(x + 5, first + i * 12.0, s)
        y += height
        rules.append(y)
    for r in rules:
        page.draw_line((TEXT_XS[0], r), (TEXT_XS[-1], r), width=0.96)
    for x in TEXT_XS:
        page.draw_line((x, top), (x, rules[-1]), width=0.96)
    text(90, rules[-1] + 40, "新冠肺炎疫情让社会治理体系面临前所未见的考验，如何兼顾疫情防控与复工复产。")
    doc.save(path)


# an earnings release's cash flow statement: headers over the value columns, long label lines between rows
CASH_HEADER = [("Three Months Ended", "Twelve Months Ended"), ("June 30,", "June 30,"),
               ("2025", "2024", "2025", "2024")]
CASH_ROWS = [("Operations", None), ("Net income", ("$27,233", "$22,036", "$101,832", "$88,136")),
             ("Adjustments to reconcile net income to net cash from operations:", None),
             ("Depreciation, amortization, and other", ("11,203", "6,380", "34,153", "22,287")),
             ("Stock-based compensation expense", ("3,010", "2,610", "11,974", "10,734")),
             ("Net cash from operations", ("42,647", "37,195", "136,162", "118,548")),
             ("Proceeds from issuance (repayments) of debt, maturities of 90 days or", None),
             ("less, net", ("0", "(1,142)", "(5,746)", "5,250")),
             ("Additions to property and equipment", ("(17,079)", "(13,873)", "(64,551)", "(44,477)"))]
CASH_XS = [377, 446, 513, 578]   # right edges of the value columns


def _cash_flow_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)

    def right(x1: float, y: float, s: str) -> None:
        page.insert_text((x1 - pymupdf.get_text_length(s, "helv", 8), y), s, fontname="helv", fontsize=8)

    page.insert_text((236, 56), "CASH FLOWS STATEMENTS", fontname="helv", fontsize=8)
    for (a, b), y in zip(CASH_HEADER[:2], (90, 100), strict=True):
        right(CASH_XS[1], y, a)
        right(CASH_XS[3], y, b)
    for x1, year in zip(CASH_XS, CASH_HEADER[2], strict=True):
        right(x1, 110, year)
    y = 122.0
    for label, values in CASH_ROWS:
        page.insert_text((16, y), label, fontname="helv", fontsize=8)
        for x1, v in zip(CASH_XS, values or (), strict=False):
            right(x1, y, v)
        y += 10.5
    doc.save(path)


# ACCIONA's country-by-country table (sustainability report 2020, p. 86): row rules drawn one column at a
# time, an arrow under each column head, and the report's section index at the page's right, its entries
# parted by rules, level with the table's rows
CBC_XS = [80, 190, 300, 390, 530, 660]
CBC_HEAD = ["Tax jurisdiction", "Total sales (EURm)", "EBT (EURm)", "Corporate Income", "Employees at the"]
CBC_ROWS = [("Spain", "2,673", "367", "51", "20,860"), ("Germany", "12", "75", "-8", "428"),
            ("Mexico", "238", "54", "19", "1,978"), ("Australia", "881", "33", "13", "1,704"),
            ("Poland", "335", "19", "4", "1,523"), ("Total", "6,472", "508", "97", "38,355")]
INDEX = [("1", "Letter from the", "Chairman"), ("2", "The first", "company"), ("3", "Degree of", "fulfilment"),
         ("4", "People", "centric"), ("5", "Planet", "positive"), ("6", "Exponential", "leadership")]


def _side_index_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=800, height=600)
    page.insert_text((80, 60), "Country-by-Country information", fontname="helv", fontsize=14)
    page.insert_text((80, 80), "The following table includes information on all the tax jurisdictions.",
                     fontname="helv", fontsize=9)
    top = 100.0
    for x, head in zip(CBC_XS, CBC_HEAD, strict=False):
        page.insert_text((x + 2, top + 12), head, fontname="helv", fontsize=8)
        page.draw_line((x + 2, top + 16), (x + 2, top + 40), width=0.6)   # the arrow under the head
    y = top + 46

    def row_rule(at: float) -> None:
        for x0, x1 in zip(CBC_XS, CBC_XS[1:], strict=False):   # one segment per column
            page.draw_line((x0, at), (x1, at), width=0.4)

    row_rule(top)
    row_rule(y)
    for values in CBC_ROWS:
        for x, v in zip(CBC_XS, values, strict=False):
            page.insert_text((x + 2, y + 13), v, fontname="helv", fontsize=8)
        y += 18
        row_rule(y)
    iy = 90.0
    for number, *words in INDEX:   # the section index: a rule above each entry
        page.draw_line((690, iy), (760, iy), width=0.4)
        page.insert_text((690, iy + 14), number, fontname="helv", fontsize=12)
        for i, w in enumerate(words):
            page.insert_text((690, iy + 26 + i * 10), w, fontname="helv", fontsize=8)
        iy += 64
    page.draw_line((690, iy), (760, iy), width=0.4)
    doc.save(path)


NAMES = ("zh_grid.pdf", "stacked.pdf", "shaded.pdf", "yearly.pdf", "zh_text_grid.pdf", "cash_flow.pdf",
         "side_index.pdf")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables")
    _zh_grid_pdf(folder / "zh_grid.pdf")
    _stacked_pdf(folder / "stacked.pdf")
    _shaded_statement_pdf(folder / "shaded.pdf")
    _yearly_pdf(folder / "yearly.pdf")
    _zh_text_grid_pdf(folder / "zh_text_grid.pdf")
    _cash_flow_pdf(folder / "cash_flow.pdf")
    _side_index_pdf(folder / "side_index.pdf")
    out = folder / "corpus"
    ingest([folder / name for name in NAMES], out, show_progress=False)
    corpus = Corpus.open(out)
    return {name: corpus.pages([corpus.find_documents(name)[0].doc_id])[0] for name in NAMES}


def _tables(page):
    return [b for b in page.blocks if b.kind is BlockKind.TABLE]


def test_grid_with_wrapped_cells_is_one_table_with_whole_cells(pages):
    """Wrapped labels and a header set a few characters a line make many one-line rows of one cell; they
    are the grid's own cells (the table was left as loose text), and each cell is read whole."""
    page = pages["zh_grid.pdf"]
    tables = _tables(page)
    assert len(tables) == 2, [b.text[:40] for b in page.blocks]
    assert page.to_page_points(tables[0].box).y0 >= 136   # not from the page's header rule down
    # a vertical rule parts a label from its value however close: the row is two cells, not prose
    assert tables[1].meta["rows"] == [list(kv) for kv in KEY_VALUES]
    rows = tables[0].meta["rows"]
    assert ["主要会计数据", "2020年", "2019年", "本期比上年同期增减(%)", "2018年"] in rows
    assert ["归属于上市公司股东的净利润", *ZH_ROWS[1][1]] in rows
    assert ["归属于上市公司股东的扣除非经常性损益的净利润", *ZH_ROWS[2][1]] in rows
    boxes = tables[0].meta["cell_boxes"]
    assert [len(r) for r in boxes] == [len(r) for r in rows]
    label = page.box_pt(*boxes[rows.index(["营业收入", *ZH_ROWS[0][1]])][0])
    assert label.x0 >= XS[0] - 1 and label.x1 <= XS[1] + 1   # the label column's cell, in page points


def test_generator_reads_the_whole_label_and_the_header_of_the_grid(pages):
    page = pages["zh_grid.pdf"]
    table = parse_tables(_tables(page)[0], page)[0]
    cells = {(tc.row.label, tc.header_text): tc.value for tc in table.cells()}
    assert cells[("归属于上市公司股东的净利润", "本期比上年同期增减(%)")] == "83.76"
    assert cells[("经营活动产生的现金流量净额", "2019年")] == "405,242,914.07"
    # lines above the grid inside its block (a title row the block took in) title the table
    block = _tables(page)[0]
    taller = replace(block, box=Box(block.box.x0, 95, block.box.x1, block.box.y1, block.box.space, block.box.extent))
    assert "单位:元" in parse_tables(taller, page)[0].title
    assert "单位:元" not in table.title
    ans = get_generator("extractive", embed=False).generate("归属于上市公司股东的净利润2020年是多少？", [page])
    assert "406,195,463.57" in ans.answer, ans.answer


def test_a_grid_of_text_cells_is_one_table_however_long_its_lines(pages):
    """Lines of a cell inside one column of a ruled grid are the cell's text, not prose between two
    tables: the whole grid is one table (only its last row had been found), its cells read whole."""
    page = pages["zh_text_grid.pdf"]
    tables = _tables(page)
    assert len(tables) == 1, [(b.kind.value, b.text[:30]) for b in page.blocks]
    box = page.to_page_points(tables[0].box)
    assert box.y0 <= 166 and box.y1 >= 165 + 26 + 3 * 12 + 36 + 4 * 12 and box.x0 <= 117 and box.x1 >= 464, box
    rows = tables[0].meta["rows"]
    assert ["".join(c) for c in TEXT_ROWS[2]] in rows, rows
    assert ["".join(c) for c in TEXT_ROWS[1]] in rows, rows


def test_a_statement_keeps_its_header_lines_and_its_long_label_lines(pages):
    """A cash flow statement with no rules (Microsoft's earnings release): the period headers set over the
    value columns belong to the table, and a label line too long to be a cell ("Adjustments to reconcile
    net income to net cash from operations:") ends left of the value columns, so it is a label, not prose
    parting the statement into three tables without headers."""
    page = pages["cash_flow.pdf"]
    tables = _tables(page)
    assert len(tables) == 1, [(b.kind.value, b.text[:40]) for b in page.blocks]
    box = page.to_page_points(tables[0].box)
    assert box.y0 <= 84 and box.y1 >= 122 + 8 * 10.5, box   # from "Three Months Ended" to the last row
    table = parse_tables(tables[0], page)[0]
    cells = {(tc.row.label, tc.header_text): tc.value for tc in table.cells()}
    header = next(h for (label, h), v in cells.items()
                  if label.startswith("Net cash from operations") and v == "136,162")
    assert "Twelve" in header and "2025" in header, header
    assert any(label.startswith("Proceeds from issuance (repayments) of debt, maturities of 90 days or less, net")
               and v == "(5,746)" for (label, _), v in cells.items())   # the wrapped label read whole


def test_stacked_tables_in_one_ruled_region_are_separate_blocks(pages):
    """A title row after a table's data rows, leading into a new header row, starts a new table."""
    tables = _tables(pages["stacked.pdf"])
    assert len(tables) == 2, [t.text for t in tables]
    first, second = tables
    assert "Revenue by Reportable Segments" in first.text and "142 %" not in first.text
    assert second.text.startswith("Operating Income by Reportable Segments") and "58 %" not in second.text
    assert first.box.y1 <= second.box.y0


def test_row_shading_is_a_table_not_a_figure(pages):
    """Shaded rows of a statement are no chart: its empty shaded pieces (the gutter, a section row's value
    cells) had made one figure of the whole statement, read as 'chart text'; the bars under it stay one."""
    page = pages["shaded.pdf"]
    figures = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
    assert len(figures) == 1 and figures[0].box.y0 > 120 + 14.4 * len(STATEMENT), [b.box for b in figures]
    statement = [t for t in _tables(page) if "Total net sales" in t.text]
    assert statement and "29,998" in statement[0].text
    ans = get_generator("extractive", embed=False).generate("What was the total net sales?", [page])
    assert "117,154" in ans.answer and "chart text" not in ans.answer, ans.answer


def test_a_centred_year_heads_right_aligned_values_and_a_year_earlier_is_read(pages):
    """A year centred over right-aligned values heads them all (only the widest value's centre was near it),
    "a year earlier" asks for the year before the answering column's, and a glyph the PDF maps to no
    character (Apple prints its "$" so) beside a value leaves it a number."""
    page = pages["shaded.pdf"]
    statement = next(t for t in _tables(page) if "Total net sales" in t.text)
    cells = {(tc.row.label, tc.header_text): tc.value for tc in parse_tables(statement, page)[0].cells()}
    # the dates set above the table block head its columns too (rule 226): "December 31, 2022"
    assert cells[("Services (Net sales)", "December 31, 2022")] == "20,766", cells
    assert [v for (label, year), v in cells.items() if label.startswith("Net income") and year.endswith("2021")] == [
        "34,630"]
    ans = get_generator("extractive", embed=False).generate(
        "What was net income in 2022, and what was it a year earlier?", [page])
    assert "29,998" in ans.answer and "34,630" in ans.answer, ans.answer
    # a row set under the wrong section ("Net income (Operating expenses)") is still the row the question names
    both = get_generator("extractive", embed=False).generate(
        "What were total net sales and net income in 2022, and what were they a year earlier?", [page])
    assert all(v in both.answer for v in ("117,154", "123,945", "29,998", "34,630")), both.answer
    value = next(w for w in page.words if w.text == "96,388")
    dollar = Word(text="\ufffd", box=Box(value.box.x1 + 1, value.box.y0, value.box.x1 + 6, value.box.y1,
                                       value.box.space, value.box.extent))
    with_glyph = replace(page, words=[*page.words, dollar])
    cells = {(tc.row.label, tc.header_text): tc.value for tc in parse_tables(statement, with_glyph)[0].cells()}
    assert cells[("Products (Net sales)", "December 31, 2022")] == "96,388", cells


def test_a_header_set_tight_over_its_columns_is_one_header_per_column(pages):
    """A broker note printed "平均收益(%) 超额收益(%) 区间胜率(%) 最大回撤(%)" closer than a cell gap: one header
    over four columns, so "2010年的超额收益和区间胜率" had no column to read."""
    page = pages["yearly.pdf"]
    table = parse_tables(_tables(page)[0], page)[0]
    assert [c.text for c in table.header_lines[-1]][-4:] == YEARLY_HEADER
    cells = {(tc.row.label, tc.header_text): tc.value for tc in table.cells()}
    assert cells[("2010", "Excess(%)")] == "-1.84" and cells[("2010", "WinRate(%)")] == "41.7"


def _cell(x0: float, x1: float, y: float, text: str) -> tuple[Box, str]:
    return Box.points(x0, y, x1, y + 10, 600, 800), text


def test_a_header_drawn_over_a_spanning_cell_joins_its_column():
    """The finder gives "2015 年12 月31 日" a column of its own (4) while its values sit in column 3, whose
    cells span columns 3-5 (鼎泰新材's 重组预案): one column. Two data columns under one spanning
    header stay two."""
    grid = [
        [None, None, None, _cell(191, 196, 0, ""), _cell(196, 290, 0, "2015 年12 月31 日"), _cell(290, 295, 0, "")],
        [_cell(84, 191, 10, "总资产"), None, None, _cell(191, 295, 10, "3,471,657.33"), None, None],
        [_cell(84, 191, 20, "资产负债率"), None, None, _cell(191, 295, 20, "60.37"), None, None],
    ]
    rows, boxes = merged_columns(grid)
    assert rows == [["", "2015 年12 月31 日"], ["总资产", "3,471,657.33"], ["资产负债率", "60.37"]]
    assert boxes[0][0] is None and boxes[1][1].x0 == 191
    split = [
        [_cell(0, 100, 0, ""), _cell(100, 300, 0, "2020"), None],
        [_cell(0, 100, 10, "Sales"), _cell(100, 200, 10, "1,200"), _cell(200, 300, 10, "35%")],
    ]
    rows, _ = merged_columns(split)
    assert rows == [["", "2020", ""], ["Sales", "1,200", "35%"]]


def test_rules_drawn_a_column_at_a_time_and_a_side_index_leave_the_table_whole(pages):
    """Row rules drawn one segment per column make one ruled table (not one per column), arrows under the
    column heads make no grid, and the section index at the page's right is no column of the table."""
    page = pages["side_index.pdf"]
    tables = _tables(page)
    assert len(tables) == 1, [b.text[:40] for b in page.blocks]
    assert tables[0].meta["source"] == "rules"   # cells from the text's columns, not from the arrows
    rows = tables[0].meta["rows"]
    assert rows[0] == CBC_HEAD
    for values in CBC_ROWS:
        assert list(values) in rows
    box = page.to_page_points(tables[0].box)
    assert box.x1 < 690 and box.y0 >= 95   # neither the index nor the sentence above
    assert not any(w in tables[0].text for _, *words in INDEX for w in words)


def test_rules_under_a_label_column_are_no_side_column(tmp_path):
    """Rules under the section labels at the left (USGS's "World Production Capacity:") sit over the rows'
    own labels: the labels stay in the table."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_line((45, 60), (175, 60), width=0.6)
    page.insert_text((45, 56), "World Production Capacity:", fontname="helv", fontsize=9)
    y = 90.0
    for x, s in zip((230, 330, 430, 510), ("2009", "2010", "2009", "2010"), strict=True):
        page.insert_text((x, y), s, fontname="helv", fontsize=9)
    for country, a, b in [("United States", "60,400", "42,600"), ("Argentina", "5,000", "5,000"),
                          ("Brazil", "50,000", "43,000"), ("China", "700,000", "455,000"),
                          ("France", "40,000", "16,000"), ("Germany", "80,000", "36,000")]:
        y += 14
        page.insert_text((45, y), country, fontname="helv", fontsize=9)
        for x, v in zip((230, 330, 430, 510), (a, a, b, b), strict=True):
            page.insert_text((x, y), v, fontname="helv", fontsize=9)
    page.draw_line((45, y + 30), (128, y + 30), width=0.6)
    page.insert_text((45, y + 26), "Substitutes:", fontname="helv", fontsize=9)
    page.draw_line((45, y + 80), (100, y + 80), width=0.6)
    page.insert_text((45, y + 76), "Sources:", fontname="helv", fontsize=9)
    doc.save(tmp_path / "capacity.pdf")
    ingest([tmp_path / "capacity.pdf"], tmp_path / "corpus", show_progress=False)
    corpus = Corpus.open(tmp_path / "corpus")
    tables = _tables(corpus.pages([corpus.find_documents("capacity.pdf")[0].doc_id])[0])
    assert len(tables) == 1
    assert ["China", "700,000", "700,000", "455,000", "455,000"] in tables[0].meta["rows"]


def test_leader_dots_part_a_label_from_its_value_however_close():
    """The Statistical Abstract's "Fraud. . . . . 173.7": the value's box starts right after the last dot
    (its right-aligned figure is padded), and it is still a cell of its own."""
    texts = [("Fraud.", 40, 66), *((".", 70 + 6.7 * i, 71.7 + 6.7 * i) for i in range(10)), ("173.7", 134.4, 163.1),
             ("5.1", 182, 190)]
    words = [Word(text=t, box=Box.points(x0, 100, x1, 108, 612, 792)) for t, x0, x1 in texts]
    row = text_rows(words)[0]
    assert [" ".join(w.text for w in c) for c in row.cells][1:] == ["173.7", "5.1"]


def _cell_by_cell_grid_pdf(path: Path) -> None:
    """A statistics office's grid drawn one cell at a time: every cell outlined by its own rectangle, the
    header 60 pt high, one wrapped row 20 pt, the other rows 10 pt (Stats SA's CPI Table A)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    xs = [56, 200, 260, 320, 380]
    page.insert_text((56, 100), "Table A - Consumer price index: main indices", fontname="helv", fontsize=10)
    rows = [*GROUPS, *PROVINCES]
    heights = [60.0] + [20.0 if "\n" in name else 10.0 for name, *_ in rows]
    edges = [120.0]
    for h in heights:
        edges.append(edges[-1] + h)
    for top, bottom in zip(edges, edges[1:], strict=False):
        for x0, x1 in zip(xs, xs[1:], strict=False):   # each edge a hairline rectangle of its own
            for edge in ((x0, top, x1, top), (x0, bottom, x1, bottom), (x0, top, x0, bottom), (x1, top, x1, bottom)):
                page.draw_rect(pymupdf.Rect(*edge), color=None, fill=(0, 0, 0), width=0)
    for x, head in zip((60, 205, 265, 325), ("Group", "Weight", "Index", "% change"), strict=True):
        page.insert_text((x, 155), head, fontname="helv", fontsize=8)
    for top, bottom, (name, *values) in zip(edges[1:-1], edges[2:], rows, strict=True):
        for k, line in enumerate(name.split("\n")):
            page.insert_text((60, top + 8 + 10 * k), line, fontname="helv", fontsize=7)
        for x, v in zip((205, 265, 325), values, strict=True):
            page.insert_text((x, bottom - 2), v, fontname="helv", fontsize=7)
    doc.save(path)


GROUPS = [("All items", "100,00", "109,6", "6,3"), ("CPI for goods", "48,68", "113,0", "8,0"),
          ("CPI for services", "51,32", "106,3", "4,6"), ("CPI excluding administered\nprices and fuel", "11,54",
                                                          "106,4", "5,2")]
PROVINCES = [("Western Cape", "17,21", "109,6", "6,6"), ("Eastern Cape", "8,03", "110,9", "7,3"),
             ("Free State", "5,95", "111,2", "7,8"), ("North West", "5,31", "109,8", "6,4"),
             ("Gauteng", "36,29", "109,2", "5,9"), ("Limpopo", "5,71", "110,6", "6,4")]


def test_a_grid_drawn_one_cell_at_a_time_is_one_table(tmp_path):
    """Column rules drawn one row at a time are each shorter than a rule (10 pt rows): joined, they run
    through the grid, which keeps all its rows; before, only the tall header's rules counted, and the grid
    was cut to the header and the rows below were loose text."""
    _cell_by_cell_grid_pdf(tmp_path / "cells.pdf")
    ingest([tmp_path / "cells.pdf"], tmp_path / "corpus", show_progress=False)
    corpus = Corpus.open(tmp_path / "corpus")
    tables = _tables(corpus.pages([corpus.find_documents("cells.pdf")[0].doc_id])[0])
    assert len(tables) == 1, [t.text for t in tables]
    assert tables[0].box.y1 >= 120 + 60 + 20 + 10 * (len(GROUPS) + len(PROVINCES) - 1) - 1
    assert all(name in tables[0].text for name, *_ in PROVINCES)


REAL_STATSSA = DEV_PDFS / "en_statssa_cpi_release_2023-05.pdf"
REAL_DINGTAI = DEV_PDFS / "zh_dingtai_xincai_shunfeng_chongzu_yuan_2016.pdf"
REAL_YINGSHI = DEV_PDFS / "zh_yingshi_chuangxin_zhaogushu.pdf"
REAL_FANGZHENG = DEV_PDFS / "zh_fangzheng_jingong_shuizhongxingzhou_2023.pdf"


def _real_pages(pdf: Path, first: int, last: int, tmp_path: Path) -> list:
    """Pages ``first``..``last`` (1-based) of a real dev-set PDF, ingested on their own."""
    return real_pages(pdf, range(first, last + 1), tmp_path)


@pytest.mark.skipif(not REAL_STATSSA.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_stats_sa_table_a_is_one_table_from_its_header_to_its_last_province(tmp_path):
    """The real page: its column rules are drawn one row at a time; the table was cut to the rows of its tall
    (wrapped) cells, leaving the provinces loose."""
    tables = _tables(_real_pages(REAL_STATSSA, 4, 4, tmp_path)[0])
    assert len(tables) == 1, [t.text[:80] for t in tables]
    assert "Weight" in tables[0].text and "Free State" in tables[0].text and "Limpopo" in tables[0].text


def test_rule_pieces_join_only_when_dark_and_long_enough_and_no_colour_is_light():
    """``rule_segments``: 10-pt pieces of a dark column rule join into one rule; light pieces (row shading) and tiny
    ones (glyph strokes) do not count; a drawing with no colour, or an empty one, is light, not an error."""
    import pymupdf

    from docrag.geometry import Box
    from docrag.ingestion.table_rules import rule_segments

    def column(x: float, step: float, n: int, **colour) -> dict:
        items = [("l", pymupdf.Point(x, 100 + i * step), pymupdf.Point(x, 100 + (i + 1) * step)) for i in range(n)]
        return {"items": items, **colour}

    def to_display(x0, y0, x1, y1):
        return Box.points(x0, y0, x1, y1, 612.0, 792.0)

    _, vert = rule_segments([column(50, 10, 6, color=(0.0, 0.0, 0.0))], to_display)
    assert len(vert) == 1 and vert[0].height >= 59                      # six 10-pt dark pieces: one rule
    for colour in ({"fill": (0.9, 0.9, 0.9)}, {"fill": (), "color": ()}, {"color": ()}, {}):
        assert rule_segments([column(50, 10, 6, **colour)], to_display)[1] == []   # light, empty or none
    assert rule_segments([column(50, 3, 20, color=(0.0, 0.0, 0.0))], to_display)[1] == []   # 3-pt strokes


def _line(y: float, *cells: tuple[float, str]) -> list[Word]:
    """Words of one line: (x0, text) per cell, each word 6 pt a character wide."""
    out = []
    for x, text in cells:
        for w in text.split():
            out.append(Word(text=w, box=Box.points(x, y, x + 6 * len(w), y + 9, 595, 842)))
            x += 6 * len(w) + 3
    return out


def test_a_caption_or_source_row_parts_the_tables_above_and_below_it():
    """Tables stacked in a column with their captions and source lines between them (方正证券's 图表18/20/22
    beside their charts, in one frame drawn round the page) are one table each: a numbered caption or a
    source line in any cell of a row is no table row and no part of either table."""
    lines = []
    y = 100.0
    for n in (18, 20):
        lines.append(_line(y, (60, f"图表{n - 1}: 历史表现"), (300, f"图表{n}: 分年度表现")))
        for i in range(3):
            y += 12
            lines.append(_line(y, (300, f"{2013 + i}年"), (360, f"{i + 1}.5%"), (420, f"{i}.2%"), (480, "3.1%")))
        y += 12
        lines.append(_line(y, (60, "资料来源: Wind"), (300, "资料来源: Wind")))
        y += 12
    rows = text_rows([w for ln in lines for w in ln])
    segments = _segments_between_prose(rows, [])
    assert [[r.cells[0][0].text for r in seg] for seg in segments] == [["2013年", "2014年", "2015年"]] * 2
    english = text_rows(_line(100, (60, "Source: Wind, company filings")) + _line(112, (60, "Table 3. Returns")))
    assert _segments_between_prose(english, []) == []


@pytest.mark.skipif(not REAL_FANGZHENG.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_three_tables_stacked_beside_three_charts_are_three_tables(tmp_path):
    """方正证券's page 7 (real): three yearly-return tables under one another, each beside its chart, in a frame
    drawn round the page. They were one table from the first to the last row, captions and sources in it."""
    tables = _tables(_real_pages(REAL_FANGZHENG, 7, 7, tmp_path)[0])
    assert [t.text.split("|")[0].strip() for t in tables] == ["沪深300增强", "中证500增强", "中证1000增强"]
    assert not any("资料来源" in t.text or "图表" in t.text for t in tables)



def test_a_header_over_one_row_of_figures_is_a_table_and_two_loose_lines_are_not():
    """国泰君安's "表 1. RankIC 统计量" is a header and one row (均值 | 标准差 | 最小值 | 最大值 | T 值 over
    Rank IC | 7.4% | ...): a table. Two lines that do not line up, or whose "header" holds figures other than years,
    are not."""
    head = [(274, "均值"), (329, "标准差"), (386, "最小值"), (446, "最大值"), (503, "T值")]
    data = [(219, "Rank IC"), (274, "7.4%"), (329, "13.8%"), (386, "-25.6%"), (446, "45.0%"), (503, "5.9")]
    assert is_two_row_table(text_rows(_line(660, *head) + _line(676, *data)))
    shifted = [(219, "Rank IC"), (600, "7.4%"), (660, "13.8%"), (720, "-25.6%"), (780, "45.0%")]
    assert not is_two_row_table(text_rows(_line(660, *head) + _line(676, *shifted)))
    years = [(274, "2019"), (329, "2020"), (386, "2021"), (446, "2022"), (503, "2023")]
    # rule 218: years over the columns are headers (a 10-K's one-line table under "2023 2022 2021"); other figures not
    assert is_two_row_table(text_rows(_line(660, *years) + _line(676, *data)))
    figures = [(274, "12.5"), (329, "13.0"), (386, "14.1"), (446, "15.2"), (503, "16.3")]
    assert not is_two_row_table(text_rows(_line(660, *figures) + _line(676, *data)))
    assert not is_two_row_table(text_rows(_line(660, *head[:3]) + _line(676, *data[:3])))


def test_a_wrapped_cell_line_is_no_title_of_a_new_table():
    """A filing number wrapped onto a line of its own in the table's last column, run into by the next row's
    lines (影石创新's "深自贸备案" over "影石创新深圳研 | 前海", the lines of one row of wrapped cells), is the cell's
    line: one table. A one-cell line clear of the next, after data rows and over a header, starts a table."""
    def rows(next_y: float) -> list:
        lines = [_line(100, (60, "序号"), (120, "项目名称"), (260, "总投资"), (340, "备案情况")),
                 _line(112, (60, "1"), (120, "生产基地项目"), (260, "19,543.30"), (340, "2020-440402")),
                 _line(124, (60, "2"), (120, "研发中心项目"), (260, "26,834.23"), (340, "2020-0047")),
                 _line(136, (340, "深自贸备案")),
                 _line(next_y, (120, "影石创新深圳研"), (260, "前海影石")),
                 _line(next_y + 12, (60, "合计"), (260, "46,377.53"), (340, "-"))]
        return text_rows([w for ln in lines for w in ln])
    assert len(_stacked_tables(rows(141))) == 1
    assert len(_stacked_tables(rows(150))) == 2


@pytest.mark.skipif(not REAL_YINGSHI.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_project_table_with_wrapped_cells_is_one_table_to_its_total(tmp_path):
    """影石创新's page 8 (real): the 募集资金 project grid was two tables, cut at a wrapped filing number."""
    (table,) = _tables(_real_pages(REAL_YINGSHI, 8, 8, tmp_path)[0])
    assert "序号" in table.text and "合计" in table.text and "46,377.53" in table.text


def test_a_light_tint_behind_a_header_is_no_figure_but_a_chart_is():
    """鼎泰新材's project table tints its header cells grey in pieces: light filled rectangles in one band, no
    chart. Coloured bars, or light ones reaching higher than a header, are a chart's marks."""
    from docrag.ingestion.figures import is_header_tint

    def rect(x0: float, y0: float, x1: float, y1: float, fill: tuple) -> dict:
        return {"type": "f", "items": [("re", pymupdf.Rect(x0, y0, x1, y1), 1)], "rect": pymupdf.Rect(x0, y0, x1, y1),
                "fill": fill}
    grey = (0.85, 0.85, 0.85)
    assert is_header_tint([rect(84 + 60 * i, 701, 89 + 60 * i, 715, grey) for i in range(8)])
    assert not is_header_tint([rect(84 + 30 * i, 600 - 20 * i, 104 + 30 * i, 715, grey) for i in range(8)])  # tall
    assert not is_header_tint([rect(84 + 60 * i, 701, 89 + 60 * i, 715, (0.2, 0.4, 0.8)) for i in range(8)])
    assert not is_header_tint([])


@pytest.mark.skipif(not REAL_DINGTAI.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_table_whose_header_is_tinted_in_pieces_is_a_table_not_a_figure(tmp_path):
    """鼎泰新材's pages 8 and 9 (real): the 募集资金 project table's tinted header was taken for a figure, its
    rows left out of table detection."""
    for page in _real_pages(REAL_DINGTAI, 8, 9, tmp_path):
        assert not [b for b in page.blocks if b.kind is BlockKind.FIGURE], page.page_no
        assert any("项目名称" in t.text for t in _tables(page)), page.page_no


def test_a_currency_sign_set_close_after_a_figure_starts_the_next_cell():
    """Alphabet's repurchase table sets each price's "$" a few points after the share count to its left
    ("55,374 $ 95.89"): read as one cell, "55,374 $" was no figure and the row's values shifted a column.
    The sign starts the next cell; a sign before a figure, or after a word, stays where it is."""
    texts = [("November", 40, 80), ("55,374", 150, 176), ("$", 178, 183), ("95.89", 185, 207),
             ("Total", 240, 262), ("$", 264, 269)]
    words = [Word(text=t, box=Box.points(x0, 100, x1, 108, 612, 792)) for t, x0, x1 in texts]
    cells = [" ".join(w.text for w in c) for c in text_rows(words)[0].cells]
    assert cells == ["November", "55,374", "$ 95.89", "Total $"]
    assert [c.text for c in line_cells(words)] == cells   # the reader cuts its lines alike


REAL_JPMORGAN = DEV_PDFS / "en_jpmorgan_investment_funds_prospectus_2025-12.pdf"
PROSE = ["Investor profile Investors who understand", "the risks of the Sub-Fund, including the risk",
         "of capital loss, and seek long-term capital", "growth through exposure to European",
         "equity markets; are looking to use it as part", "of an investment portfolio and not as a",
         "complete investment plan. Hedging method", "for currency hedged Share Classes is",
         "Portfolio hedge. Dealing Requests received", "before 14:30 CET on any Valuation Day will",
         "be processed that day and the rest the next.", "Sub-Fund launch date in July of that year."]
FEES = [("A", "5.00%", "1.00%", "1.50%", "0.30%"), ("C", "–", "1.00%", "0.50%", "0.20%"),
        ("D", "5.00%", "1.00%", "1.50%", "0.30%"), ("I", "–", "1.00%", "0.50%", "0.16%"),
        ("X", "–", "1.00%", "–", "0.15%")]


def test_a_table_beside_a_column_of_prose_keeps_its_row_labels_and_no_prose():
    """A prospectus page in two columns (JPMorgan's sub-fund pages, issue 23): the "Investor profile" prose at
    the left runs on the fee table's rows at its own spacing. Read across the page, each class letter had gone
    into a prose cell and the table kept no row labels; the prose column is no part of the table."""
    from docrag.ingestion.table_beside import beside_prose
    from docrag.ingestion.tables import detect_tables

    def word_line(x: float, y: float, text: str) -> list[Word]:
        out = []
        for w in text.split():
            width = 3.4 * len(w)
            out.append(Word(text=w, box=Box.points(x, y, x + width, y + 8, 612, 792)))
            x += width + 2.5
        return out

    words = [w for i, line in enumerate(PROSE) for w in word_line(40, 60 + 11 * i, line)]
    head = ["Base Class", "Initial Charge", "Switch Charge", "Annual Fee", "Expenses (Max)"]
    xs = [210, 270, 340, 410, 480]
    words += [w for x, h in zip(xs, head, strict=True) for w in word_line(x, 104, h)]
    for r, values in enumerate(FEES):
        words += [w for x, v in zip(xs, values, strict=True) for w in word_line(x, 120 + 13.5 * r, v)]
    region = Box.points(40, 100, 560, 190, 612, 792)
    table = beside_prose(region, words)
    assert table is not None and table.x0 >= 205
    blocks = detect_tables(None, None, words, [])
    assert len(blocks) == 1
    rows = blocks[0].text.split("\n")
    assert rows[0].startswith("Base Class") and "A | 5.00% | 1.00% | 1.50% | 0.30%" in rows
    assert not any(w in blocks[0].text for w in ("Investor", "capital", "Hedging"))
    # rows labelled by long names wrapped over lines, with marks for values: no prose beside them
    marks = [w for r in range(6) for w in word_line(40, 100 + 24 * r, "JPMorgan Investment Funds – Europe Select")
             + word_line(40, 112 + 24 * r, "Equity Fund") + word_line(260, 112 + 24 * r, "c   –   b   –   c")]
    assert beside_prose(Box.points(40, 98, 400, 250, 612, 792), marks) is None


@pytest.mark.skipif(not REAL_JPMORGAN.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_jpmorgans_fee_tables_beside_their_investor_profile_read_each_share_class(tmp_path):
    """JPMorgan's prospectus (real): pages 3 and 5 set a fee table beside the sub-fund's prose; its derivatives
    usage table on page 9 (fund names wrapped over lines, marks for values) is read as before."""
    pages = _real_pages(REAL_JPMORGAN, 3, 9, tmp_path)
    fees = _tables(pages[0])
    assert len(fees) == 1 and "A | 5.00% | 1.00% | 0.50% | 1.50% | – | 0.30%" in fees[0].text
    assert "Investor" not in fees[0].text and "Base Class" in fees[0].text
    assert any("F | – | 1.00% | 3.00%" in t.text for t in _tables(pages[2]))
    assert any("Europe Select Equity" in t.text and "Expected" in t.text for t in _tables(pages[6]))


def _at(x0: float, x1: float, y0: float, y1: float) -> Box:
    return Box.points(x0, y0, x1, y1, 600, 800)


def test_a_label_wrapped_round_its_figures_is_one_row():
    """航天电器's 主要会计数据: the finder gives a label's lines and the figures centred between them three
    rows; the figures join the label above them and the line under them ends that label. A label's last line
    under figures set on its first line joins it too; a section centred over rows that have labels of their
    own, and a section heading above a row that does not start inside it, stay apart."""
    rows = [
        ["归属于上市公司股东的扣除非经", "", ""],
        ["", "370,143,518.21", "13.43%"],
        ["常性损益的净利润(元)", "", ""],
        ["经营活动产生的现金流量净额", "", ""],
        ["", "265,348,926.68", "118.01%"],
        ["Applications and mashups", "237", "1,079"],
        ["developed by the public", "", ""],
        ["Current assets:", "", ""],
        ["", "1,200", "5%"],
        ["电子元器件制造业", "", ""],
        ["", "生产量", "823.43"],
    ]
    boxes = [
        [_at(50, 180, 148, 166), None, None],
        [None, _at(190, 270, 156, 176), _at(280, 330, 156, 176)],
        [_at(50, 180, 166, 184), None, None],
        [_at(50, 180, 184, 202), None, None],
        [None, _at(190, 270, 192, 212), _at(280, 330, 192, 212)],
        [_at(50, 180, 220, 236), _at(190, 270, 220, 260), _at(280, 330, 220, 260)],
        [_at(50, 180, 236, 252), None, None],
        [_at(50, 180, 262, 276), None, None],
        [None, _at(190, 270, 278, 292), _at(280, 330, 278, 292)],
        [_at(50, 180, 300, 318), None, None],
        [None, _at(190, 270, 310, 330), _at(280, 330, 310, 330)],
    ]
    out, out_boxes = joined_wrapped_labels(rows, boxes)
    assert out == [
        ["归属于上市公司股东的扣除非经常性损益的净利润(元)", "370,143,518.21", "13.43%"],
        ["经营活动产生的现金流量净额", "265,348,926.68", "118.01%"],
        ["Applications and mashups developed by the public", "237", "1,079"],
        ["Current assets:", "", ""],
        ["", "1,200", "5%"],
        ["电子元器件制造业", "", ""],
        ["", "生产量", "823.43"],
    ]
    assert (out_boxes[0][0].y0, out_boxes[0][0].y1) == (148, 184)


def test_lines_between_two_rules_join_only_in_a_grid_ruled_between_its_rows():
    """A label wrapped round one row of figures between two rules is one row; in a table ruled under its header
    only (a three-line table) every line is a row, and two rows of figures between two rules stay two."""
    rows = [["Item", "2019", "2018"], ["Gains on disposal of", "", ""], ["", "1,200", "900"],
            ["assets held for sale", "", ""], ["Grants", "300", "250"], ["Tax", "50", "40"]]
    tops = (10, 30, 35, 42, 62, 70)
    boxes = [[_at(50, 180, y, y + 10) if t else None for t in r] for r, y in zip(rows, tops, strict=True)]
    rules = [_at(48, 340, y, y + 0.5) for y in (5, 22, 55, 80)]
    joined, _ = joined_between_rules(rows, boxes, rules)
    assert joined == [["Item", "2019", "2018"], ["Gains on disposal of assets held for sale", "1,200", "900"],
                      ["Grants", "300", "250"], ["Tax", "50", "40"]]
    assert joined_between_rules(rows, boxes, [rules[0], rules[1], rules[-1]])[0] == rows
    three_line = [["Item", "2019", "2018"], ["Grants", "300", "250"], ["Of which unpaid", "", ""]]
    boxes = [[_at(50, 180, y, y + 10) if t else None for t in r] for r, y in zip(three_line, (10, 30, 42), strict=True)]
    assert joined_between_rules(three_line, boxes, [_at(48, 340, y, y + 0.5) for y in (5, 22, 60)])[0] == three_line


REAL_HANGTIAN = DEV_PDFS / "zh_hangtian_dianqi_2019_nianbao.pdf"


@pytest.mark.skipif(not REAL_HANGTIAN.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_annual_reports_wrapped_labels_hold_their_figures(tmp_path):
    """航天电器 2019 年报: 主要会计数据 (a grid the finder reads) and 非经常性损益项目 (a grid read from its
    rules) set each figure beside a label wrapped over lines; the 产销量 table's industry, centred over three
    rows, is still read as their section (rule 135)."""
    p2, p3, _, p5 = _real_pages(REAL_HANGTIAN, 2, 5, tmp_path)
    lines = [line for t in _tables(p2) + _tables(p3) for line in t.text.splitlines()]
    assert "归属于上市公司股东的扣除非经常性损益的净利润(元) | 370,143,518.21 | 326,313,802.92 | 13.43% | " \
        "293,127,544.85" in lines
    assert any(line.startswith("归属于上市公司股东的净利润(元) | 402,233,891.06") for line in lines)   # no space
    assert any(line.startswith("非流动资产处置损益(包括已计提资产减值准备的冲销部分) | -263,450.28") for line in lines)
    # six lines of label round one figure, and three of label beside four of notes, each between two rules
    assert any(line.startswith("除同公司正常经营业务相关的有效套期保值业务外,") and "的投资收益 | 720,388.56" in line
               for line in lines)
    assert any(line.startswith("计入当期损益的政府补助(与企业业务密切相关,") and line.endswith("税收优惠款。")
               for line in lines)
    read = [r for t in _tables(p5) for table in parse_tables(t, p5) for r in table.rows]
    assert any(r.label == "生产量 (电子元器件制造业 (连接器))" and r.cells[0].text == "68,953.76" for r in read)


def test_words_of_sentences_in_a_ruled_frame_are_no_table():
    """``cut_prose``: Banco de México's minutes set the cover's title in a ruled frame and the table finder cut it
    into one word a cell ("Meeting | of | Banco | de | México's | Governing | Board"); answers then quoted the cells.
    Cells holding "of" or "the" alone are words of sentences; a table of names and figures is kept."""
    from docrag.ingestion.table_finder import cut_prose

    cover = [["", "Minutes", "", "number", "94"], ["Meeting", "of", "Banco", "de", "México's"],
             ["the", "monetary", "policy", "decision", "announced"]]
    assert cut_prose(cover)
    assert not cut_prose([["Region", "Revenue", "Share of total"], ["United States", "1,234", "45%"],
                          ["Rest of world", "1,508", "55%"]])
    assert not cut_prose([["Item", "of which", "the total"], ["A", "1", "2"]])   # phrases, not lone words


@pytest.mark.skipif(not (DEV_PDFS / "en_banxico_minutes_94_2022-08.pdf").is_file(), reason=NOT_FETCHED)
def test_a_ruled_cover_title_is_read_as_text(tmp_path):
    cover = real_pages(DEV_PDFS / "en_banxico_minutes_94_2022-08.pdf", [1], tmp_path)[0]
    assert not [b for b in cover.blocks if b.kind == BlockKind.TABLE]
    assert any("Governing Board" in b.text for b in cover.blocks)
