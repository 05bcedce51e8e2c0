"""Values read off a vector chart's drawing (``docrag.ingestion.chart_marks``) and the answers quoting them
(rule 118 ``drawn_read``). The pages are drawn here with PyMuPDF after the BLS CPI release's Chart 2 (two
lines with markers, a legend under the plot, no data labels) and its Chart 1 (bars as thick strokes, one
negative); the real release is read in the last test when the dev set's PDFs are fetched."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.geometry import Box
from docrag.ingestion import ingest
from docrag.ingestion.chart_marks import read_series, value_axes
from docrag.types import BlockKind, Word
from tests.support.real_pdfs import real_pages

MONTHS = ["Jul'24", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul'25"]
ALL_ITEMS = [2.9, 2.5, 2.4, 2.6, 2.7, 2.9, 3.0, 2.8, 2.4, 2.3, 2.4, 2.7, 2.7]
CORE = [3.2, 3.2, 3.3, 3.3, 3.3, 3.2, 3.3, 3.1, 2.8, 2.8, 2.8, 2.9, 3.1]
BOTTOM_Y, PER_UNIT = 480.0, 150.0     # y of 2.2 and points per 1.0 on the value axis
BLUE, PURPLE = (0.0, 0.0, 1.0), (0.6, 0.2, 0.4)
REAL_BLS = Path(__file__).resolve().parents[1] / "benchmarks" / "devset" / "pdfs" / "en_bls_cpi_release_2025-07.pdf"


def _y(value: float) -> float:
    return BOTTOM_Y - (value - 2.2) * PER_UNIT


def _line_chart(page, *, right_axis: bool = False, legend_shade: float = 0.0) -> None:
    page.draw_rect(pymupdf.Rect(54, 274, 557, 518), color=(0.5, 0.5, 0.5), width=0.5)
    page.insert_text((56, 283), "Chart 2. 12-month percent change in CPI for All Urban Consumers (CPI-U), "
                     "not seasonally adjusted", fontsize=8)
    for i in range(7):
        value = 2.2 + 0.2 * i
        page.insert_text((58, _y(value) + 3), f"{value:.1f}", fontsize=8)
        if right_axis:   # a second axis on the right, mapped differently
            page.insert_text((540, _y(value) + 3), f"{10 * i}", fontsize=8)
    for i, month in enumerate(MONTHS):
        page.insert_text((92 + 36 * i, 492), month, fontsize=8)
    for series, colour in ((ALL_ITEMS, BLUE), (CORE, PURPLE)):
        points = [pymupdf.Point(100 + 36 * i, _y(v)) for i, v in enumerate(series)]
        page.draw_polyline(points, color=colour, width=0.7)
        for p in points:   # markers on the line, as BLS draws them
            page.draw_circle(p, 1.5, color=colour, fill=colour)
    # the legend under the plot: a short line with a marker, then the series' name
    for x, colour, name in ((160, BLUE, "All items"), (300, PURPLE, "All items less food and energy")):
        colour = tuple(min(1.0, c + legend_shade) for c in colour)   # a legend drawn a shade off its series
        page.draw_line((x, 510), (x + 24, 510), color=colour, width=0.7)
        page.draw_circle((x + 12, 510), 1.5, color=colour, fill=colour)
        page.insert_text((x + 36, 513), name, fontsize=8)


def _words(page) -> list[Word]:
    w, h = page.rect.width, page.rect.height
    return [Word(t[4], Box.points(t[0], t[1], t[2], t[3], w, h)) for t in page.get_text("words")]


@pytest.fixture(scope="module")
def line_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linechart")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page)
    page.insert_text((54, 680), "The all items index rose 2.7 percent for the 12 months ending July.", fontsize=10)
    doc.save(folder / "cpi2.pdf")
    out = tmp_path_factory.mktemp("corpus") / "c"
    ingest([folder / "cpi2.pdf"], out=out, show_progress=False)
    corpus = Corpus.open(out)
    return corpus.pages([corpus.documents()[0].doc_id])[0]


def test_a_line_charts_values_are_read_through_its_value_axis(line_page):
    figure = next(b for b in line_page.blocks if b.kind is BlockKind.FIGURE)
    series = {s["name"]: s for s in figure.meta["series"]}
    assert set(series) == {"All items", "All items less food and energy"}   # named by the legend
    for name, want in (("All items", ALL_ITEMS), ("All items less food and energy", CORE)):
        got = series[name]["values"]
        assert [c for c, _ in got] == MONTHS
        assert [v for _, v in got] == pytest.approx(want, abs=0.011)
        assert series[name]["kind"] == "line"
    assert series["All items"]["min"] == ["Apr", pytest.approx(2.3, abs=0.011)]
    assert series["All items less food and energy"]["max"][1] == pytest.approx(3.3, abs=0.011)


def test_the_low_point_of_a_named_line_is_answered_as_read_off_the_drawing(line_page):
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("In Chart 2, approximately what was the low point of the 12-month percent change in "
                       "all items CPI-U, and in which month?", [line_page])
    assert "2.30 — Apr" in ans.answer and "read off the drawing" in ans.answer
    assert "All items less food" not in ans.answer.split(" (Chart 2")[0]   # the series named, not its sibling


def test_which_series_is_lower_at_the_end_compares_the_series():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page)
    series = read_series(page.get_drawings(), _words(page), Box.points(54, 274, 557, 518, 612, 792))
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    question = "Which of the two series ended the period with the lower value, and about what was it?"
    idf = dict.fromkeys(tokenize(question), 1.0)
    assert drawn_answer(series, question + " lowest", idf).startswith("All items — about 2.70 at Jul'25")


def test_a_legend_drawn_a_shade_off_its_series_still_names_it():
    """Alphabet's performance graph draws the NASDAQ legend line 0.07 lighter than the NASDAQ line."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page, legend_shade=0.07)
    series = read_series(page.get_drawings(), _words(page), Box.points(54, 274, 557, 518, 612, 792))
    assert sorted(s["name"] for s in series) == ["All items", "All items less food and energy"]


def test_two_value_axes_neither_in_percent_are_not_read():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page, right_axis=True)
    words = _words(page)
    assert len(value_axes([w for w in words if w.box.x0 < 100])) == 1   # the left axis alone reads
    assert read_series(page.get_drawings(), words, Box.points(54, 274, 557, 518, 612, 792)) == []


def test_bars_stand_on_the_baseline_the_sign_asked_is_found_and_floating_bars_are_not_read():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for value in (0, 10, 20, 30):
        page.insert_text((60, 400 - 10 * value + 3), str(value), fontsize=8)
    heights = (12, 25, -8, 18)
    for i, (label, h) in enumerate(zip(("2019", "2020", "2021", "2022"), heights, strict=True)):
        x = 110 + 60 * i
        rect = pymupdf.Rect(x, 400 - 10 * max(h, 0), x + 30, 400 - 10 * min(h, 0))
        page.draw_rect(rect, color=None, fill=(0.8, 0.1, 0.1))
        page.insert_text((x + 4, 420), label, fontsize=8)
    box = Box.points(50, 80, 400, 500, 612, 792)
    (bars,) = read_series(page.get_drawings(), _words(page), box)
    assert bars["kind"] == "bar"
    assert bars["values"] == [["2019", 12.0], ["2020", 25.0], ["2021", -8.0], ["2022", 18.0]]
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    question = "In which year did the value decline?"   # signed_bars: the negative bar
    assert drawn_answer([bars], question, dict.fromkeys(tokenize(question), 1.0)).startswith("about -8 — 2021")
    page.draw_rect(pymupdf.Rect(170, 100, 200, 120), color=None, fill=(0.1, 0.1, 0.8))   # floating over 2020
    assert read_series(page.get_drawings(), _words(page), box) == []


def _combo_chart(page) -> None:
    """After the CAICT computing-power white paper's Figure 2: one path paints every bar (rect items), a line
    on a right-hand percentage axis, a legend of a swatch and a short line under the plot."""
    for i in range(4):
        page.insert_text((60, 400 - 40 * i + 3), str(150 * i), fontsize=8)          # 0 .. 450, left
        page.insert_text((470, 400 - 40 * i + 3), f"{15 * i}%", fontsize=8)        # 0% .. 45%, right
    bars, growth = (138, 173, 230, 305, 425), (24, 24, 33, 32, 39)
    shape = page.new_shape()
    for i, v in enumerate(bars):
        shape.draw_rect(pymupdf.Rect(110 + 65 * i, 400 - v * 40 / 150, 130 + 65 * i, 400))
    shape.finish(color=None, fill=(0.31, 0.51, 0.74))
    shape.commit()
    page.draw_polyline([pymupdf.Point(120 + 65 * i, 400 - g * 40 / 15) for i, g in enumerate(growth)],
                       color=(0.75, 0.31, 0.3), width=1.5)
    for i in range(5):
        page.insert_text((110 + 65 * i, 415), str(2016 + i), fontsize=8)
    page.draw_rect(pymupdf.Rect(150, 431, 156, 437), color=None, fill=(0.31, 0.51, 0.74))
    page.insert_text((160, 437), "全球算力规模(EFlops)", fontsize=8, fontname="china-s")
    page.draw_line((300, 434), (320, 434), color=(0.75, 0.31, 0.3), width=1.5)
    page.insert_text((324, 437), "全球算力增速", fontsize=8, fontname="china-s")


def test_a_combination_chart_reads_bars_on_the_amount_axis_and_the_line_on_the_percent_axis():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=808)
    _combo_chart(page)
    box = Box.points(50, 250, 500, 445, 595, 808)
    series = {s["name"]: s for s in read_series(page.get_drawings(), _words(page), box)}
    assert set(series) == {"全球算力规模(EFlops)", "全球算力增速"}   # the swatch under the plot names, it is no bar
    size, growth = series["全球算力规模(EFlops)"], series["全球算力增速"]
    assert size["kind"] == "bar" and [v for _, v in size["values"]] == pytest.approx([138, 173, 230, 305, 425], abs=1)
    assert growth["suffix"] == "%" and [v for _, v in growth["values"]] == pytest.approx([24, 24, 33, 32, 39], abs=1)
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    def answer(question: str) -> str:
        return drawn_answer(list(series.values()), question, dict.fromkeys(tokenize(question), 1.0)) or ""

    assert answer("图2中，全球算力规模首次超过300 EFlops是在哪一年？").startswith("约305 — 2019（全球算力规模")
    assert answer("图2中，全球算力增速最高的是哪一年？约为多少？").startswith("约39% — 2020（全球算力增速")
    assert answer("图2中，2016-2019年全球算力增速最高的是哪一年？").startswith("约33% — 2018")   # within the span


def test_stacked_columns_give_each_segment_its_height():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=808)
    for i in range(6):
        page.insert_text((60, 400 - 40 * i + 3), f"{0.5 * i:.2f}", fontsize=8)   # 0.00 .. 2.50
    stacks = {"2018": (1.48, 0.13, 0.19), "2019": (1.49, 0.21, 0.18), "2020": (1.59, 0.22, 0.20)}
    colours = ((0.31, 0.51, 0.74), (0.75, 0.31, 0.3), (0.61, 0.73, 0.35))
    for i, (year, parts) in enumerate(stacks.items()):
        y = 400.0
        for part, colour in zip(parts, colours, strict=True):
            page.draw_rect(pymupdf.Rect(120 + 110 * i, y - part * 80, 160 + 110 * i, y), color=None, fill=colour)
            y -= part * 80
        page.insert_text((130 + 110 * i, 415), year, fontsize=8)
    for i, (colour, name) in enumerate(zip(colours, ("IT hardware", "IT software", "IT services"), strict=True)):
        page.draw_rect(pymupdf.Rect(150 + 80 * i, 431, 156 + 80 * i, 437), color=None, fill=colour)
        page.insert_text((160 + 80 * i, 437), name, fontsize=8)
    box = Box.points(50, 150, 500, 445, 595, 808)
    series = {s["name"]: s for s in read_series(page.get_drawings(), _words(page), box)}
    assert series["IT hardware"]["kind"] == "segment"
    assert dict(series["IT hardware"]["values"]) == pytest.approx({"2018": 1.48, "2019": 1.49, "2020": 1.59}, abs=0.011)
    assert dict(series["IT software"]["values"]) == pytest.approx({"2018": 0.13, "2019": 0.21, "2020": 0.22}, abs=0.011)


@pytest.mark.skipif(not REAL_BLS.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_bls_release_charts_read_as_published():
    page = pymupdf.open(REAL_BLS)[1]
    words, drawings = _words(page), page.get_drawings()
    (bars,) = read_series(drawings, words, Box.points(54, 54, 557.25, 231.46, 612, 792))
    assert dict(bars["values"])["Mar"] == pytest.approx(-0.1, abs=0.011)   # the only negative bar
    lines = {s["name"]: s for s in read_series(drawings, words, Box.points(54, 273.9, 557.27, 517.97, 612, 792))}
    assert lines["All items"]["min"] == ["Apr", pytest.approx(2.3, abs=0.011)]   # BLS: 2.3 percent in April
    assert dict(lines["All items"]["values"])["Jan"] == pytest.approx(3.0, abs=0.011)


REAL_GTJA = REAL_BLS.parent / "zh_guotaijunan_shulianghua_qushi_xuangu_2017.pdf"


def _real_page(folder: Path, src: Path, page_no: int):
    """Page ``page_no`` of a real dev-set PDF, ingested alone into a corpus under ``folder``."""
    (page,) = real_pages(src, [page_no], folder, name=f"p{page_no}.pdf")
    return page


def test_a_picture_charts_bars_are_read_off_its_pixels():
    """A bar chart printed as a picture (issue 23: 国泰君安's 图7, ten bars, no data labels): its bars are the solid
    regions of one colour in its pixels (not the paper, a light grey grid line's dashes or the black axis and
    text), read through the value axis of its OCR'd ticks like a drawing's fills."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import bar_fills

    values = [5.4, 7.4, 8.5, 14.9]
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    base, per_unit = 250, 10   # pixels: the zero line, and pixels per 1.0
    for v in (0, 5, 10, 15, 20):
        for x in range(50, 390, 8):   # a dashed light grey grid line
            draw.line([(x, base - per_unit * v), (x + 3, base - per_unit * v)], fill=(220, 220, 220))
    draw.line([(48, 40), (48, base)], fill=(0, 0, 0), width=2)   # the axis, black
    for i, v in enumerate(values):
        x = 80 + 80 * i
        draw.rectangle([x, round(base - per_unit * v), x + 40, base], fill=(69, 114, 196))
    box = Box.points(100, 100, 300, 250, 612, 792)   # the picture's place on the page: half its pixel size
    fills = bar_fills(image, box)
    assert len(fills) == 4 and all(f["fill"][2] > 0.7 for f in fills)

    def at(px: float, py: float, text: str) -> Word:
        return Word(text, Box.points(100 + px / 2, 100 + py / 2 - 3, 100 + px / 2 + 4 * len(text), 100 + py / 2 + 3,
                                     612, 792))

    words = [at(20, base - per_unit * v, str(v)) for v in (0, 5, 10, 15, 20)]
    words += [at(95 + 80 * i, base + 12, str(i + 1)) for i in range(4)]
    (bars,) = read_series(fills, words, box)
    read = dict(bars["values"])
    assert [read[str(i + 1)] for i in range(4)] == [pytest.approx(v, abs=0.35) for v in values]


@pytest.mark.skipif(not REAL_GTJA.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_picture_chart_of_size_groups_reads_its_bars(tmp_path):
    """国泰君安's 图7 (real, page 6): the smallest group's 5.4 % and the largest's 14.9 %, as the text states them."""
    page = _real_page(tmp_path, REAL_GTJA, 6)
    (series,) = [b.meta["series"] for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("series")]
    read = dict(series[0]["values"])
    assert read["1"] == pytest.approx(5.4, abs=0.2) and read["10"] == pytest.approx(14.9, abs=0.2)


def test_a_figures_number_names_no_category_of_its_chart():
    """"国泰君安的图7中，…最小和最大流通市值分组…" (issue 23, zh-a-051): the "7" of 图7 had named the chart's seventh
    group, and group 7's bar was quoted; a number said outside the reference still names one ("第7组")."""
    from docrag.generation.extractive_chart_drawn import _asked
    from docrag.generation.extractive_units import tokenize
    values = [[str(i), float(i)] for i in range(1, 11)]
    for question, want in (("图7中，最小和最大流通市值分组中的占比分别是多少？", []),
                           ("In Figure 7, what share does the smallest group hold?", []),
                           ("图7中第7组的占比是多少？", [["7", 7.0]])):
        assert _asked(values, dict.fromkeys(tokenize(question), 1.0), question) == want, question


def _column(values: list[str], *, x: float = 60.0, top: float = 100.0, per_tick: float = 20.0,
            skip: tuple[int, ...] = ()) -> list[Word]:
    """Tick labels right-aligned at ``x``, one every ``per_tick`` points from ``top``; ticks at ``skip`` unread."""
    return [Word(v, Box.points(x - 5 * len(v), top + per_tick * i - 3, x, top + per_tick * i + 3, 612, 792))
            for i, v in enumerate(values) if i not in skip]


def test_a_value_axis_is_read_with_a_tick_ocr_missed_or_misread():
    """Picture charts' ticks as OCR reads them (issue 23): "12 10 8 6 _ _ 0" (two ticks not read), "0.0 ... -2.0
    2.5 -3.0" (a minus lost): the axis maps y to values through the ticks read; a column of data labels, unevenly
    stepped, is no axis."""
    (axis,) = value_axes(_column(["12", "10", "8", "6", "4", "2", "0"], skip=(4, 5)))
    assert axis.value(100) == pytest.approx(12) and axis.value(220) == pytest.approx(0) and axis.step == 2
    (axis,) = value_axes(_column(["0.0", "-0.5", "-1.0", "-1.5", "-2.0", "2.5", "-3.0", "-3.5"]))
    assert axis.value(100) == pytest.approx(0.0) and axis.value(240) == pytest.approx(-3.5)
    assert value_axes(_column(["45.5", "39.2", "35.8", "31.3", "27.2", "22.6"])) == []
    assert value_axes(_column(["12", "10", "8", "6", "4", "2", "0"], skip=(2, 3, 4, 5))) == []   # "12 10 0"


def test_a_number_ocr_cut_at_its_point_is_joined_again():
    from docrag.ingestion.figure_ocr import join_decimal_parts

    def at(x0: float, x1: float, text: str, y: float = 100.0) -> Word:
        return Word(text, Box.points(x0, y, x1, y + 6, 612, 792))

    joined = join_decimal_parts([at(10, 15, "4."), at(17, 20, "0"), at(10, 16, "-1.", 130), at(18, 24, "06", 130),
                                 at(10, 15, "3."), at(40, 44, "5")])
    assert [w.text for w in joined] == ["4.0", "-1.06", "3.", "5"]
    assert (joined[0].box.x0, joined[0].box.x1) == (10, 20)


def test_lines_of_one_hue_at_different_opacities_are_told_apart_by_their_legend(tmp_path):
    """浙商证券's 图11 draws five groups' lines in one red at five opacities: each is its own series, named by the
    legend line drawn at its opacity (they had been read as one line, named after the first group)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    red = (0.7, 0.13, 0.13)
    groups = {"G1": ([1.0, 1.2, 1.1, 1.3], 0.2), "G2": ([1.0, 1.6, 1.9, 2.2], 0.5), "G3": ([1.0, 2.1, 2.6, 2.9], 0.9)}
    for i, v in enumerate(["3.0", "2.5", "2.0", "1.5", "1.0"]):
        page.insert_text((60, 103 + 40 * i), v, fontsize=8)
    for i, q in enumerate(["Q1", "Q2", "Q3", "Q4"]):
        page.insert_text((110 + 80 * i, 280), q, fontsize=8)
    for j, (name, (values, alpha)) in enumerate(groups.items()):
        pts = [pymupdf.Point(115 + 80 * i, 260 - (v - 1.0) * 80) for i, v in enumerate(values)]
        page.draw_polyline(pts, color=red, width=1, stroke_opacity=alpha)
        page.draw_line((420, 110 + 12 * j), (440, 110 + 12 * j), color=red, width=1, stroke_opacity=alpha)
        page.insert_text((446, 113 + 12 * j), name, fontsize=8)
    series = read_series(page.get_drawings(), _words(page), Box.points(50, 90, 500, 290, 612, 792))
    read = {s["name"]: dict(s["values"]) for s in series}
    assert set(read) == set(groups)
    for name, (values, _) in groups.items():
        assert [read[name][q] for q in ["Q1", "Q2", "Q3", "Q4"]] == [pytest.approx(v, abs=0.03) for v in values]


def test_upright_category_labels_and_a_legend_swatch_read_as_text():
    """国泰君安's 图6: 28 industries written top to bottom under the bars (each OCR'd as one tall word), its
    legend's swatches OCR'd as "■" before each name: each bar is named by its industry, each series by its
    legend."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import bar_fills

    dark, light = (68, 114, 196), (157, 195, 230)
    values = {"农林牧渔": ([3.0, 3.4]), "化工": ([9.8, 10.4]), "有色金属": ([4.9, 3.6]), "银行": ([1.0, 0.7])}
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    base, per_unit = 200, 15
    for i, (a, b) in enumerate(values.values()):
        x = 60 + 80 * i
        draw.rectangle([x, round(base - per_unit * a), x + 20, base], fill=dark)
        draw.rectangle([x + 22, round(base - per_unit * b), x + 42, base], fill=light)
    for x, colour in ((120, dark), (240, light)):   # the legend's swatches
        draw.rectangle([x, 270, x + 8, 278], fill=colour)
    box = Box.points(100, 100, 300, 250, 612, 792)   # half the picture's pixel size

    def at(px0: float, py0: float, px1: float, py1: float, text: str) -> Word:
        return Word(text, Box.points(100 + px0 / 2, 100 + py0 / 2, 100 + px1 / 2, 100 + py1 / 2, 612, 792))

    words = [at(10, base - per_unit * v - 5, 30, base - per_unit * v + 5, str(v)) for v in (0, 2, 4, 6, 8, 12)]
    words += [at(75 + 80 * i, base + 8, 85 + 80 * i, base + 8 + 12 * len(name), name)
              for i, name in enumerate(values)]
    words += [at(118, 268, 200, 280, "■组合行业占比"), at(236, 268, 320, 280, "■A股行业占比")]
    read = {s["name"]: dict(s["values"]) for s in read_series(bar_fills(image, box), words, box)}
    assert set(read) == {"组合行业占比", "A股行业占比"}
    for name, (a, b) in values.items():
        assert read["组合行业占比"][name] == pytest.approx(a, abs=0.25)
        assert read["A股行业占比"][name] == pytest.approx(b, abs=0.25)


def test_bars_hanging_from_a_zero_line_at_the_top_are_named_by_the_labels_above_them():
    """方正证券's industry chart (issue 23, zh-a-024): every value negative, the bars hang from the zero line at the
    plot's top and the industries stand upright above it. Each bar is named by the label over it; with nothing
    above the plot, no bar is named (so none is read)."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import bar_fills

    values = {"银行": -4.8, "钢铁": -6.6, "社会服务": -7.6, "石油石化": -13.7}
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    zero, per_unit = 80, 12
    for i, v in enumerate(values.values()):
        x = 80 + 70 * i
        draw.rectangle([x, zero, x + 24, round(zero - per_unit * v)], fill=(192, 0, 0))
    box = Box.points(100, 100, 300, 250, 612, 792)   # half the picture's pixel size

    def at(px0: float, py0: float, px1: float, py1: float, text: str) -> Word:
        return Word(text, Box.points(100 + px0 / 2, 100 + py0 / 2, 100 + px1 / 2, 100 + py1 / 2, 612, 792))

    ticks = [at(10, zero - per_unit * v - 5, 50, zero - per_unit * v + 5, f"{v:.2f}%") for v in (0, -4, -8, -12, -16)]
    labels = [at(86 + 70 * i, zero - 6 - 12 * len(name), 98 + 70 * i, zero - 6, name) for i, name in enumerate(values)]
    (bars,) = read_series(bar_fills(image, box), ticks + labels, box)
    read = dict(bars["values"])
    assert set(read) == set(values)
    for name, value in values.items():
        assert read[name] == pytest.approx(value, abs=0.2)
    assert read_series(bar_fills(image, box), ticks, box) == []


REAL_FANGZHENG = REAL_BLS.parent / "zh_fangzheng_jingong_shuizhongxingzhou_2023.pdf"


@pytest.mark.skipif(not REAL_FANGZHENG.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_picture_chart_of_industries_over_hanging_bars_reads_them(tmp_path):
    """方正证券's 图表9 (real, page 6): 30 industries written top to bottom over bars hanging from 0 %: 银行 the
    shortest (about -4.8 %), 石油石化 the longest (about -13.7 %), as the report's reader reads them."""
    page = _real_page(tmp_path, REAL_FANGZHENG, 6)
    (series,) = [b.meta["series"] for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("series")]
    read = dict(series[0]["values"])
    assert len(read) == 30
    assert read["银行"] == pytest.approx(-4.8, abs=0.3) and read["石油石化"] == pytest.approx(-13.7, abs=0.3)


REAL_ZHESHANG = REAL_BLS.parent / "zh_zheshang_jingu_shujuku_2022.pdf"


@pytest.mark.skipif(not REAL_ZHESHANG.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_real_chart_whose_text_is_outlines_is_ocrd_and_its_lines_read(tmp_path):
    """浙商证券's page 7 (real): matplotlib charts whose letters are filled outlines, not text. Their text is OCR'd,
    图12's one line read at its five groups (1.00 ... 4.26) and 图11's five lines, one hue at five opacities,
    each named by its legend (第5组 ends near 2.94, 第1组 near 1.25)."""
    page = _real_page(tmp_path, REAL_ZHESHANG, 7)
    figures = {b.meta.get("caption", "").split(":")[0].replace(" ", ""): b
               for b in page.blocks if b.kind is BlockKind.FIGURE}
    assert "第5组" in figures["图12"].meta["ocr_text"]
    (line,) = figures["图12"].meta["series"]
    assert dict(line["values"])["第5组"] == pytest.approx(4.26, abs=0.05)
    assert dict(line["values"])["第1组"] == pytest.approx(1.0, abs=0.05)
    lines = {s["name"]: s for s in figures["图11"].meta["series"]}
    assert set(lines) == {f"第{i}组" for i in range(1, 6)}
    assert lines["第5组"]["values"][-1][1] == pytest.approx(2.94, abs=0.05)
    assert lines["第1组"]["values"][-1][1] == pytest.approx(1.25, abs=0.05)


def test_the_series_the_question_says_whole_and_no_category_of_a_quoted_title_are_asked():
    """zh-a-050 (issue 23): "《综合期限多样性的趋势选股策略》的图6中，组合行业占比最高的是哪个行业": the series named
    whole (组合行业占比, not A股行业占比, whose characters the question also has) at its highest bar (化工), not
    the industry 综合 whose name is a word of the quoted title."""
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    cats = ["农林牧渔", "化工", "综合", "银行"]
    series = [{"name": name, "kind": "bar", "values": [[c, v] for c, v in zip(cats, values, strict=True)],
               "prefix": "", "suffix": "", "decimals": 1}
              for name, values in (("组合行业占比", [3.0, 9.8, 2.1, 1.0]), ("A股行业占比", [3.4, 10.4, 2.6, 0.7]))]
    question = "国泰君安《综合期限多样性的趋势选股策略》的图6中，组合行业占比最高的是哪个申万一级行业？大约占多少？"
    answer = drawn_answer(series, question, dict.fromkeys(tokenize(question), 1.0))
    assert answer.startswith("约9.8 — 化工（组合行业占比") and "A股" not in answer, answer
    series[0]["name"] = "组合行业占比（%）"   # a unit in brackets after the name: the name is still said whole
    answer = drawn_answer(series, question, dict.fromkeys(tokenize(question), 1.0))
    assert answer.startswith("约9.8 — 化工（组合行业占比（%）") and "A股" not in answer, answer
    asked = "图6中，综合行业的组合行业占比是多少？"   # said outside the title, a category is still asked
    assert drawn_answer(series, asked, dict.fromkeys(tokenize(asked), 1.0)).startswith("约2.1 — 综合")
    titled = "图8“组合行业占比、A股行业占比对比”中，化工行业占比最高的是哪一类？"   # names in a chart's title quoted
    answer = drawn_answer(series, titled, dict.fromkeys(tokenize(titled), 1.0))
    assert answer.startswith("A股行业占比 — 化工约10.4"), answer   # which series: both compared


def test_which_group_asks_for_a_line_when_the_groups_are_the_lines():
    """浙商证券's 图11 (zh-c-036): five groups' lines over dates; "期末累计净值最高的是哪一组" asks which line ends
    highest (第5组), not a group's highest point; where the groups are the categories it asks for a category."""
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    dates = ["2020-01", "2021-05", "2022-09"]
    lines = [{"name": f"第{i}组", "kind": "line", "prefix": "", "suffix": "", "decimals": 2,
              "values": [[d, round(1.0 + 0.3 * i * k, 2)] for k, d in enumerate(dates)]} for i in range(1, 6)]
    question = "图11（基于近1年推荐成功率分组测试）中，回测期末累计净值最高的是哪一组？约为多少？"
    assert drawn_answer(lines, question, dict.fromkeys(tokenize(question), 1.0)).startswith("第5组 — 2022-09约4.00")
    bars = [{"name": "月均收益率", "kind": "bar", "values": [[f"第{i}组", float(i)] for i in range(1, 6)],
             "prefix": "", "suffix": "", "decimals": 2}, {"name": "胜率", "kind": "bar", "values": [
             [f"第{i}组", 0.5] for i in range(1, 6)], "prefix": "", "suffix": "", "decimals": 2}]
    question = "图12中，月均收益率最高的是哪一组？"
    assert drawn_answer(bars, question, dict.fromkeys(tokenize(question), 1.0)).startswith("约5.00 — 第5组")


def test_a_picture_charts_lines_are_traced_and_named_by_their_legend_lines():
    """《财经》's "2011-2021年广告经营额与GDP增长对比" (issue 23, zh-b-035 / zh-b-036): two lines printed as a picture,
    no data label, years set at a slant under the plot, a legend of short thick lines. Each line is traced off
    the pixels, named by the legend line of its colour, and read at each year's tick (a slanted label ends at
    its tick: read at its box's middle, 2013 had been read as 30 % instead of 15 %)."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import line_strokes

    ads, gdp = [43.0, 58.0, 15.0, 19.0, 14.0], [9.5, 7.9, 7.8, 7.4, 7.0]
    image = Image.new("RGB", (600, 400), "white")
    draw = ImageDraw.Draw(image)
    base, per_unit, x0, dx = 300, 4, 100, 100   # pixels: the zero line, per 1 %, the first year's tick, apart

    def trace(values: list[float], colour: tuple[int, int, int]) -> None:
        draw.line([(x0 + dx * i, base - per_unit * v) for i, v in enumerate(values)], fill=colour, width=4)

    trace(ads, (237, 125, 49))
    trace(gdp, (91, 155, 213))
    for x, colour in ((100, (91, 155, 213)), (320, (237, 125, 49))):   # the legend's short lines
        draw.line([(x, 370), (x + 40, 370)], fill=colour, width=4)
    box = Box.points(100, 100, 400, 300, 612, 792)   # half the picture's pixel size
    strokes = line_strokes(image, box)
    assert sum(1 for s in strokes if s["rect"].width > 100) == 2   # two traced lines, and two legend samples

    def at(px0: float, py0: float, px1: float, py1: float, text: str) -> Word:
        return Word(text, Box.points(100 + px0 / 2, 100 + py0 / 2, 100 + px1 / 2, 100 + py1 / 2, 612, 792))

    words = [at(20, base - per_unit * v - 6, 60, base - per_unit * v + 6, f"{v}.00%") for v in range(0, 80, 10)]
    # each year slanted at 45°, its box about square, ending (right end) just past its tick
    words += [at(x0 + dx * i - 48, base + 6, x0 + dx * i + 12, base + 66, f"{2011 + i}年") for i in range(5)]
    words += [at(150, 362, 300, 378, "GDP规模年增长率"), at(370, 362, 520, 378, "广告经营额年增长率")]
    read = {s["name"]: dict(s["values"]) for s in read_series(strokes, words, box)}
    assert set(read) == {"GDP规模年增长率", "广告经营额年增长率"}
    for i, (a, g) in enumerate(zip(ads, gdp, strict=True)):
        assert read["广告经营额年增长率"][f"{2011 + i}年"] == pytest.approx(a, abs=1.5)
        assert read["GDP规模年增长率"][f"{2011 + i}年"] == pytest.approx(g, abs=1.5)


REAL_CAIJING = REAL_BLS.parent / "zh_caijing_personalized_ads_2022.pdf"
REAL_STATSSA = REAL_BLS.parent / "en_statssa_cpi_release_2023-05.pdf"


@pytest.mark.skipif(not (REAL_CAIJING.is_file() and REAL_STATSSA.is_file()),
                    reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_real_picture_lines_are_read_where_a_legend_names_them(tmp_path):
    """《财经》's line chart (page 3, real): its advertising line peaks at about 58 % in 2012 and its GDP line bottoms
    at about 3 % in 2020, as published. StatsSA's Figure 1 (page 5) plots an index on one axis and a rate on a
    second that OCR does not read, its legend naming no line by colour: none of its traced lines is read."""
    pages = {"ads": _real_page(tmp_path / "ads", REAL_CAIJING, 3), "cpi": _real_page(tmp_path / "cpi", REAL_STATSSA, 5)}
    (series,) = [b.meta["series"] for b in pages["ads"].blocks if b.meta.get("series")]
    lines = {s["name"][:3]: s for s in series}
    assert lines["广告经"]["max"][0] == "2012年" and lines["广告经"]["max"][1] == pytest.approx(58, abs=2)
    assert lines["GDP"]["min"][0] == "2020年" and lines["GDP"]["min"][1] == pytest.approx(2.5, abs=1.5)
    assert not [b for b in pages["cpi"].blocks if b.meta.get("series")]


def test_a_run_of_years_ocr_read_as_one_word_is_split_into_its_years():
    """RapidOCR reads closely set year labels as one word ("2016年2017年2018年2019年"): one word per year,
    the run's width shared out by characters; other words are left alone."""
    from docrag.ingestion.figure_ocr import split_year_runs

    run = Word("2016年2017年2018年2019年", Box.points(225, 672, 345, 682, 595, 842))
    words = split_year_runs([run, Word("收入增速（%）", Box.points(300, 690, 360, 700, 595, 842))])
    assert [w.text for w in words] == ["2016年", "2017年", "2018年", "2019年", "收入增速（%）"]
    assert words[0].box.x0 == 225 and words[3].box.x1 == pytest.approx(345)
    assert words[1].box.x0 == pytest.approx(255)


def test_a_bar_cut_by_a_watermark_and_a_crossing_line_is_one_bar():
    """A bar a watermark tints in part and a line crosses (中国信通院's charts): its pieces, one width, touching
    end to end or a line's width apart, nearly one colour, are one bar; two series' segments stacked are not."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import bar_fills

    image = Image.new("RGB", (200, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([20, 40, 39, 99], fill=(59, 105, 184))     # the tinted top of a bar
    draw.rectangle([20, 100, 39, 129], fill=(69, 115, 196))   # its body ...
    draw.rectangle([20, 136, 39, 179], fill=(69, 115, 196))   # ... below a line's crossing
    draw.rectangle([80, 100, 99, 179], fill=(69, 115, 196))   # a stacked column: one series ...
    draw.rectangle([80, 60, 99, 99], fill=(237, 125, 49))     # ... and another on it
    box = Box.points(0, 0, 100, 100, 612, 792)   # half the picture's pixel size
    rects = sorted((round(f["rect"].x0), round(f["rect"].y0), round(f["rect"].y1)) for f in bar_fills(image, box))
    assert rects == [(10, 20, 90), (40, 30, 50), (40, 50, 90)]


REAL_CAICT = REAL_BLS.parent / "zh_caict_digital_economy_2022.pdf"


@pytest.mark.skipif(not REAL_CAICT.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_watermarked_dual_axis_chart_reads_its_growth_lines(tmp_path):
    """中国信通院's 图5 (real, page 6; issue 23, zh-b-008): bars of 收入 and 增加值 on the left axis, two growth lines
    on the right, a watermark over all, its years OCR'd in runs. The bars, cut up by the watermark and the lines,
    are not read; the lines are, by year: 增加值增速 peaks in 2017 at about 23 %."""
    page = _real_page(tmp_path, REAL_CAICT, 6)
    (series,) = [b.meta["series"] for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("series")]
    lines = {s["name"]: s for s in series}
    assert set(lines) == {"收入增速（%）", "增加值增速（%）"} and all(s["kind"] == "line" for s in series)
    assert lines["增加值增速（%）"]["max"][0] == "2017年"
    assert lines["增加值增速（%）"]["max"][1] == pytest.approx(23, abs=1.5)
    q = "图5中，2014-2021年数字产业化增加值增速最高的是哪一年？"
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "2017年" in ans.answer.split("（")[0], ans.answer


def test_bars_below_the_lowest_tick_read_stand_on_the_axis_zero():
    """OCR missed a picture chart's lowest ticks ("5", "0"; 中国信通院's 图14): bars standing on the axis' zero
    below the lowest tick read are bars, not a legend's swatches, and their values are read under that tick;
    a baseline that is not the axis' zero moves nothing."""
    from PIL import Image, ImageDraw

    from docrag.ingestion.raster_marks import bar_fills

    values = {"北京": 44.6, "广东": 22.0, "四川": 4.5, "山东": 2.4}
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    base, per_unit = 260, 5
    for i, v in enumerate(values.values()):
        draw.rectangle([80 + 70 * i, round(base - per_unit * v), 104 + 70 * i, base], fill=(91, 155, 213))
    box = Box.points(100, 100, 300, 250, 612, 792)   # half the picture's pixel size

    def at(px0: float, py0: float, px1: float, py1: float, text: str) -> Word:
        return Word(text, Box.points(100 + px0 / 2, 100 + py0 / 2, 100 + px1 / 2, 100 + py1 / 2, 612, 792))

    ticks = [at(10, base - per_unit * v - 5, 40, base - per_unit * v + 5, str(v)) for v in (10, 20, 30, 40, 50)]
    labels = [at(84 + 70 * i, base + 8, 100 + 70 * i, base + 18, name) for i, name in enumerate(values)]
    (bars,) = read_series(bar_fills(image, box), ticks + labels, box)
    read = dict(bars["values"])
    assert set(read) == set(values)
    for name, value in values.items():   # to a unit: one digit finer than the step of 10
        assert read[name] == pytest.approx(value, abs=0.6)
    shifted = [at(10, base - per_unit * v - 5 - 40, 40, base - per_unit * v + 5 - 40, str(v)) for v in (10, 20, 30, 40)]
    assert "四川" not in dict(next(iter(read_series(bar_fills(image, box), shifted + labels, box)), {"values": []})
                              ["values"])


REAL_CAICT_POWER = REAL_BLS.parent / "zh_caict_computing_power_index_2021.pdf"


@pytest.mark.skipif(not REAL_CAICT_POWER.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_picture_chart_with_slanted_province_names_reads_its_bars(tmp_path):
    """中国信通院's 图14 (real, page 9; issue 23, zh-b-052): 31 provinces named at 45°, which OCR does not read level,
    and OCR missing the axis' "5" and "0". The names are read off the band turned level, each at its bar: 北京
    highest at about 45 EFlops, then 广东 about 22; 四川 about 4.5, under the lowest tick read."""
    page = _real_page(tmp_path, REAL_CAICT_POWER, 9)
    (series,) = [b.meta["series"] for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("series")]
    read = dict(series[0]["values"])
    assert read["北京"] == pytest.approx(45, abs=1.5) and read["广东"] == pytest.approx(22, abs=1.0)
    assert read["四川"] == pytest.approx(4.5, abs=0.6)
    assert max(read, key=read.get) == "北京"
