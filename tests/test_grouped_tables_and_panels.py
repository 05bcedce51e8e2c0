"""Rules 197-205, from the held-out reading of shares en-g / zh-g (AMD's 2022 annual report, Banxico's minutes
No. 104, 招商证券's life-cycle factor note): a measure the table prints is read, not computed (197, 201, 202); a group
label printed once beside its rows names each of them (198); "27.29%" starting a wrapped line starts no list item
(199); nested notes leave a row label whole (200); a full-bleed panel under the text is no figure (203); a paragraph
under a chart is not its caption (204); "$10.6B" is a data label (205); bars on one baseline are read left to right."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_chart_labels import data_labels
from docrag.generation.extractive_cues import _norm, amount_fit
from docrag.generation.extractive_lists import list_items
from docrag.generation.extractive_units import units_of
from docrag.geometry import Box, Space
from docrag.ingestion.figures import is_background
from docrag.ingestion.table_spans import TextCell, relabelled, spanned_labels
from docrag.types import Block, BlockKind, Word
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.test_extractive_tables_zh import _table_page

EXTENT = (595.0, 842.0)
NOTE = DEV_PDFS / "zh_zhaoshang_shengmingzhouqi_yinzi_2022.pdf"
AMD = DEV_PDFS / "en_amd_2022_annual_report.pdf"


def _box(x0: float, y0: float, x1: float, y1: float) -> Box:
    return Box(x0, y0, x1, y1, Space.POINT, EXTENT)


def _line(y: float, *cells: tuple[float, str]) -> list[TextCell]:
    return [TextCell(text, _box(x, y, x + 6 * len(text), y + 10)) for x, text in cells]


def _grouped() -> list[list[TextCell]]:
    """Table 4's layout: the factor's name on its group's middle row, a wrapped one alone on two lines."""
    lines = [_line(100, (190, "分组"), (250, "IC均值"), (320, "IC胜率"))]
    y = 116.0
    for name in ("VolAvg_20D", None, "ILLIQ_20D"):
        for k in (1, 2, 3):
            cells = [(190, f"group{k}"), (250, f"{k}.{k}0%"), (320, f"7{k}.00%")]
            lines.append(_line(y, *([(100, name)] if name and k == 2 else []), *cells))
            y += 16
    # the middle group's name wraps: "Realized" / "Skewness", each line between two rows
    lines[5:5] = [_line(172, (100, "Realized"))]
    lines[7:7] = [_line(188, (100, "Skewness"))]
    return lines


def test_a_group_label_printed_once_names_every_row_of_its_group():
    lines = _grouped()
    spans = spanned_labels(lines)
    assert spans is not None
    texts = relabelled([[c.text for c in line] for line in lines], spans)
    assert texts[0] == ["", "分组", "IC均值", "IC胜率"]
    assert [t[:2] for t in texts[1:]] == [["VolAvg_20D", "group1"], ["VolAvg_20D", "group2"], ["VolAvg_20D", "group3"],
                                          ["Realized Skewness", "group1"], ["Realized Skewness", "group2"],
                                          ["Realized Skewness", "group3"], ["ILLIQ_20D", "group1"],
                                          ["ILLIQ_20D", "group2"], ["ILLIQ_20D", "group3"]]


def test_a_plain_table_has_no_groups():
    lines = [_line(100, (100, "Item"), (250, "2022"), (320, "2021"))]
    lines += [_line(116 + 16 * i, (100, f"Row {i}"), (250, f"{i}.0"), (320, f"{i}.5")) for i in range(4)]
    lines.append(_line(190, (250, "9.0"), (320, "9.5")))   # one row missing its label is no group
    assert spanned_labels(lines) is None


def test_labels_set_a_little_above_their_own_rows_are_no_groups():
    """浙商's 分位数 table prints each row's name 4 pt above its figures: every name is its own row's, not a group's
    (``own_line``); a margin note set upright ("Downloaded ... 2014") names no rows either."""
    lines = [_line(100, (280, "0-0.2"), (340, "0.2-0.4"), (400, "0.4-0.6"))]
    for k, name in enumerate(("年化收益", "夏普比率", "最大回撤")):
        lines.append(_line(117 + 17 * k, (164, name)))
        lines.append(_line(121 + 17 * k, (280, f"{k}.1"), (340, f"{k}.2"), (400, f"{k}.3")))
    assert spanned_labels(lines) is None
    upright = [_line(100, (190, "分组"), (250, "A"), (320, "B"))]
    for k in range(6):
        upright.append(_line(116 + 16 * k, (190, f"g{k}"), (250, f"{k}.0"), (320, f"{k}.5")))
        if k % 3 == 1:
            upright.append([TextCell("at", _box(40, 124 + 16 * k, 46, 140 + 16 * k))])
    assert spanned_labels(upright) is None


@pytest.mark.skipif(not NOTE.exists(), reason=NOT_FETCHED)
def test_the_factor_note_s_grouped_tables_read_whole(tmp_path):
    """表4 (factor names centred beside group1-3) and 表11 (强势/因子 wrapped beside 多头 … 多空组合): every row gets
    its group's name, in the ingested rows and in the generator's reading."""
    p3, p5 = real_pages(NOTE, [3, 5], tmp_path)
    t4 = next(b for b in p3.blocks if b.kind is BlockKind.TABLE and "表4" in str(b.meta.get("caption")))
    assert ["ILLIQ_20D", "group1", "10.15%"] == t4.meta["rows"][10][:3]
    assert ["RealizedSkewness_240D", "group3"] == t4.meta["rows"][9][:2]
    t11 = next(b for b in p5.blocks if b.kind is BlockKind.TABLE and "表11" in str(b.meta.get("caption")))
    assert ["强势因子", "多空组合", "2346.15%"] == t11.meta["rows"][3][:3]
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("表4量价指标的IC测试中，ILLIQ_20D因子在group1的IC均值和IC胜率分别是多少？", [p3]).answer
    assert "10.15%" in ans and "76.06%" in ans and " / " not in ans, ans   # rule 197/202: no mean of the column


def test_a_measure_the_table_prints_is_read_not_computed(tmp_path):
    """Banxico's Table 1 prints annual percentage changes: "the annual change in energy product prices in October
    2023" is the October cell, not the change from August (``printed_measure``)."""
    rows = [["", "August 2023", "September 2023", "October 2023"], ["Energy products", "-5.99", "-4.61", "-2.59"],
            ["Food, beverages and tobacco", "7.82", "7.19", "6.95"]]
    page = _table_page(tmp_path, rows, "Inflation eased in October.")
    page.blocks[1].meta["caption"] = "Table 1 Consumer Price Index and components, annual percentage change"
    ans = get_generator("extractive", embed=False).generate(
        "According to Table 1, what was the annual change in energy product prices in October 2023?", [page]).answer
    assert ans.startswith("-2.59"), ans


def test_a_rate_the_row_prints_is_read(tmp_path):
    """AMD's MD&A summary: "gross margin as a percentage of net revenue" is the Gross margin row (45%, 48%), not a
    division of 48% by $16,434 refused and quoted (``printed_rate``)."""
    rows = [["(In millions, except for percentages)", "2022", "2021"], ["Net revenue", "$23,601", "$16,434"],
            ["Gross profit", "10,603", "7,929"], ["Gross margin", "45%", "48%"]]
    page = _table_page(tmp_path, rows, "The following table summarizes our results of operations.")
    ans = get_generator("extractive", embed=False).generate(
        "What was the gross margin as a percentage of net revenue for 2022 and for 2021?", [page]).answer
    assert ans.startswith("45% — Gross margin, 2022; 48% — Gross margin, 2021"), ans


def test_nested_notes_leave_the_row_label_whole():
    assert _norm("Embedded (Operating income (loss))") == "embedded"
    assert _norm("花萼长度（厘米）") == "花萼长度"


def test_a_line_starting_with_a_decimal_starts_no_item():
    text = "多头组合年化收益由25.26%提升至\n27.29%,夏普比率由0.92 提升至0.97。多空组合年化收益由36.61%提升至\n" \
           "39.74%,而夏普比率则由3.36 提升至3.54,收益回撤比由3.87 提升至\n6.65。"
    block = Block(BlockKind.TEXT, _box(200, 550, 570, 630), text)
    page = _table_page_free(block)
    assert list_items(block, page) == []
    numbered = Block(BlockKind.TEXT, _box(72, 100, 500, 160), "1. Revenue grew.\n2. Margins fell.\n3. Cash rose.")
    assert len(list_items(numbered, _table_page_free(numbered))) == 3


def _table_page_free(block: Block):
    from docrag.types import Page

    return Page(doc_id="d", page_no=1, width_pt=EXTENT[0], height_pt=EXTENT[1], blocks=[block])


def test_a_rate_under_the_column_named_does_not_lose_to_a_plain_figure(tmp_path):
    """"IC均值是多少" asks for an amount (多少) but names the IC均值 column, whose cells are percentages (rule 202)."""
    rows = [["因子", "IC 均值", "T 值"], ["ILLIQ_20D", "10.15%", "9.08"]]
    page = _table_page(tmp_path, rows, "表4:量价指标的IC测试")
    cells = [u for u in units_of(page, 1) if u.cell is not None]
    fits = dict(zip([u.text for u in cells], amount_fit(cells, "ILLIQ_20D因子的IC均值是多少？"), strict=True))
    assert fits["10.15%"] == 1.0, fits


def _words(text: str, x0: float, y0: float) -> list[Word]:
    """``text``'s words 40 points apart, twelve to a line."""
    return [Word(t, _box(x0 + 40 * (i % 12), y0 + 14 * (i // 12), x0 + 40 * (i % 12) + 36, y0 + 14 * (i // 12) + 10))
            for i, t in enumerate(text.split())]


def test_a_full_bleed_panel_under_a_paragraph_is_no_figure():
    words = _words("Annual revenue grew 44 percent year-over-year to a record $23.6 billion despite the soft PC "
                   "market and the challenging macro environment in the second half of the year; we completed our "
                   "strategic acquisition of Xilinx, positioning AMD to address an expanded market", 27, 106)
    words += _words("body text further down the page " * 20, 27, 500)
    area = EXTENT[0] * EXTENT[1]
    assert is_background(_box(0, 0, 594, 194), words, area, EXTENT[0])
    assert not is_background(_box(80, 0, 500, 194), words, area, EXTENT[0])   # a picture within the margins


def test_a_currency_label_with_its_scale_letter_is_a_data_label():
    bars = ((90, "$9.8B", "2020"), (131, "$16.4B", "2021"), (172, "$23.6B", "2022"))
    labels = [Block(BlockKind.TEXT, _box(x, 240, x + 24, 250), t) for x, t, _ in bars]
    labels += [Block(BlockKind.TEXT, _box(x + 2, 350, x + 22, 358), year) for x, _, year in bars]
    assert data_labels(labels, need_axis=True) == {"2020": "$9.8B", "2021": "$16.4B", "2022": "$23.6B"}


@pytest.mark.skipif(not AMD.exists(), reason=NOT_FETCHED)
def test_three_bar_charts_side_by_side_are_three_figures_read_by_their_labels(tmp_path):
    """AMD's letter: REVENUE, GROSS PROFIT and R&D INVESTMENT stand on one baseline (their bars' feet within a point
    of each other, read left to right), under a banner image the opening paragraphs are printed on (rule 203); the
    paragraph under the charts is no caption of theirs (rule 204)."""
    page = real_pages(AMD, [1], tmp_path)[0]
    figures = [b for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("source") == "drawing"]
    titles = sorted(b.text.split(" 2022 ")[-1] for b in figures)
    assert titles == ["GROSS PROFIT", "R&D INVESTMENT", "REVENUE"], [b.text for b in figures]
    assert any(b.kind is BlockKind.TEXT and b.text.startswith("Annual revenue grew 44 percent") for b in page.blocks)
    ans = get_generator("extractive", embed=False).generate(
        "According to the Gross Profit bar chart in AMD's shareholder letter, by how much did gross profit increase "
        "from 2021 to 2022?", [page]).answer
    assert ans.startswith("2.7 = $10.6B − $7.9B"), ans


def test_the_words_of_a_widely_justified_line_are_one_line():
    """MuPDF gives each word of Banxico's justified "Although   inflation   has   been   decreasing,   its" a line of
    its own in one block: they are one line (rule 206), so the paragraph is one block, not six."""
    from docrag.ingestion.layout import pdf_text_lines
    from docrag.ingestion.textlayer import PageFrame

    words = [("Although", 324, 366), ("inflation", 375, 412), ("has", 421, 440), ("been", 448, 473),
             ("decreasing,", 482, 537), ("its", 545, 558)]
    lines = [{"bbox": (x0, 152, x1, 163), "spans": [{"text": t + " ", "size": 10.0, "flags": 0, "font": "Arial"}]}
             for t, x0, x1 in words]
    lines.append({"bbox": (324, 165, 558, 176),
                  "spans": [{"text": "convergence to the target in the second quarter of", "size": 10.0}]})
    frame = PageFrame(rotation=0, unrot_w=612.0, unrot_h=792.0, width=612.0, height=792.0)
    out = pdf_text_lines({"blocks": [{"type": 0, "number": 8, "lines": lines}]}, frame)
    assert [t.text for t in out] == ["Although inflation has been decreasing, its",
                                     "convergence to the target in the second quarter of"]


def test_a_name_alone_after_a_sentence_is_part_of_it():
    from docrag.generation.extractive_sentences import split_sentences

    assert split_sentences("Dissenting opinion on the monetary policy\nstatement. Irene Espinosa.") == [
        "Dissenting opinion on the monetary policy statement. Irene Espinosa."]
    assert split_sentences("It rose. The Board met.") == ["It rose.", "The Board met."]


def test_a_sentence_cut_by_a_column_break_goes_on_atop_the_next_column():
    """Banxico's minutes: "... Omar Mejía voted in favor of" ends the left column over a footnote; "maintaining the
    target ... at 11.25%." opens the right one (rule 208)."""
    from docrag.generation.extractive_breaks import CONTINUED, join_page_breaks
    from docrag.types import Page

    blocks = [Block(BlockKind.TEXT, _box(57, 416, 291, 439),
                    "Victoria Rodríguez, Galia Borja, Irene Espinosa,\n"
                    "Jonathan Heath, and Omar Mejía voted in favor of"),
              Block(BlockKind.TEXT, _box(57, 686, 289, 714), "3 The Bank of Japan indicated that it will allow these"),
              Block(BlockKind.TEXT, _box(324, 64, 558, 87),
                    "maintaining the target for the overnight interbank\ninterest rate at 11.25%."),
              Block(BlockKind.TEXT, _box(324, 119, 558, 141), "Dissenting opinion on the monetary policy statement.")]
    for i, b in enumerate(blocks):
        b.block_id = i
    page = Page(doc_id="d", page_no=2, width_pt=EXTENT[0], height_pt=EXTENT[1], blocks=blocks)
    units = units_of(page, 1)
    assert join_page_breaks(units) == 1
    tail = next(u for u in units if u.text.endswith("voted in favor of"))
    assert tail.extra[CONTINUED].text.startswith("maintaining the target")
    assert not any(CONTINUED in u.extra for u in units if u.text.startswith("3 The Bank"))   # a footnote runs on below


def test_a_paragraph_is_no_caption_but_a_chart_note_is():
    """Rule 204: the paragraph under AMD's charts is the page's text; Twilio's "Note: ..." under its chart is the
    chart's own (its caption, as before)."""
    from docrag.generation.extractive_units import _caption_of

    chart = Block(BlockKind.FIGURE, _box(80, 240, 500, 375), "$10.6B $7.9B $4.3B 2020 2021 2022 GROSS PROFIT")
    paragraph = Block(BlockKind.TEXT, _box(27, 397, 562, 422),
                      "We announced new reporting segments in the year aligned with our expanded portfolio: the Data\n"
                      "Center segment includes server CPUs. The Client segment includes desktop processors.")
    assert _caption_of(chart, [chart, paragraph]) is None
    note = Block(BlockKind.TEXT, _box(27, 397, 562, 422),
                 "Note: Non-GAAP gross profit and non-GAAP gross profit growth are non-GAAP financial measures.\n"
                 "Refer to the appendix for their definitions and a reconciliation. Growth is year over year.")
    assert _caption_of(chart, [chart, note]) is note
