"""Ingest of generated PDFs and page images: geometry, text, OCR, tables, figures, CJK, rotation."""

from __future__ import annotations

import numpy as np
import pytest

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.geometry import Box, Space
from docrag.ingestion import IngestReport, ingest
from docrag.ingestion.textlayer import _merge_split_numbers, detect_lang, garbage_ratio, join_words
from docrag.types import BlockKind, TextSource
from tests.support.pdfs import (
    CJK_TEXT,
    OCR_WORDS,
    PARAGRAPHS,
    ROTATED_WORD,
    TABLE_ROWS,
    make_garbage_text_pdf,
    make_page_image,
    make_sample_pdf,
)
from tests.support.sysdeps import need


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    s = make_sample_pdf(folder / "sample.pdf")
    make_page_image(folder / "scan.png", dpi=200)
    make_page_image(folder / "nodpi.png", dpi=None, words=["Balance", "Sheet"])
    make_garbage_text_pdf(folder / "garbage.pdf")
    out = tmp_path_factory.mktemp("corpus") / "c"
    report = ingest([folder], out=out, show_progress=False)
    return s, folder, out, report


def _pages(out, file_name):
    corpus = Corpus.open(out)
    (doc,) = corpus.find_documents(file_name)
    return corpus.pages([doc.doc_id])


def _ink_bbox(img: np.ndarray, box: Box | None = None, thresh: int = 128):
    """Pixel bbox of dark pixels (optionally inside ``box``), or None."""
    gray = img.mean(axis=2) if img.ndim == 3 else img
    if box is not None:
        x0, y0, x1, y1 = (int(round(v)) for v in box.coords)
        sub = np.zeros_like(gray, dtype=bool)
        sub[y0:y1, x0:x1] = gray[y0:y1, x0:x1] < thresh
    else:
        sub = gray < thresh
    ys, xs = np.nonzero(sub)
    if len(xs) == 0:
        return None
    return xs.min(), ys.min(), xs.max() + 1, ys.max() + 1


def test_report_counts(sample):
    s, _, _, report = sample
    assert isinstance(report, IngestReport)
    assert report.failures == []
    assert len(report.added) == 4 and report.skipped == [] and report.replaced == []
    assert report.n_pages == s.n_pages + 3
    assert report.n_ocr_pages == 4  # image-only page, two page images, garbage text layer


def test_pages_have_images_sizes_and_boxes_inside(sample):
    s, _, out, _ = sample
    pages = Corpus.open(out).pages()
    assert len(pages) == s.n_pages + 3
    for p in pages:
        img = p.load_image()
        assert img.size == (p.image_width, p.image_height)
        if p.file_name.endswith(".pdf"):
            assert p.dpi == 144
            assert abs(p.image_width - p.width_pt * 2) <= 1 and abs(p.image_height - p.height_pt * 2) <= 1
        for item in [*p.words, *p.blocks]:
            assert item.box.is_valid() and item.box.is_inside_extent(tol=1e-3), (p.page_id, item)
            assert item.box.extent == (p.width_pt, p.height_pt)
        assert [b.block_id for b in p.blocks] == list(range(len(p.blocks)))


def test_word_boxes_match_pymupdf_and_sit_on_ink(sample):
    s, _, out, _ = sample
    page = _pages(out, "sample.pdf")[0]
    img = np.asarray(page.load_image())
    assert [w.text for w in page.words] == [t for _, t, _ in s.words]
    for w, (_, _, expected) in zip(page.words, s.words, strict=True):
        assert w.box.coords == pytest.approx(expected, abs=0.01)
        px = w.box.to_pixels(page.image_width, page.image_height)
        ink = _ink_bbox(img, px)
        assert ink is not None, w.text
        # the ink of the word fills its box horizontally (no offset, no scale error)
        assert ink[0] - px.x0 < 6 and px.x1 - ink[2] < 6, (w.text, ink, px.coords)


def test_rotated_page_word_lands_on_its_pixels(sample):
    s, _, out, _ = sample
    page = _pages(out, "sample.pdf")[s.rotated_page - 1]
    assert page.rotation == 90
    assert (page.width_pt, page.height_pt) == (792.0, 612.0)
    assert page.image_width > page.image_height  # rendered as displayed (landscape)
    assert page.text_source is TextSource.PDF and page.text.strip() == ROTATED_WORD
    (word,) = page.words
    px = word.box.to_pixels(page.image_width, page.image_height)
    ink = _ink_bbox(np.asarray(page.load_image()))  # the word is the only thing on the page
    assert ink is not None
    assert px.x0 - 3 <= ink[0] and ink[2] <= px.x1 + 3 and px.y0 - 3 <= ink[1] and ink[3] <= px.y1 + 3
    ink_box = Box.pixels(*ink, page.image_width, page.image_height)
    assert ink_box.iou(px) > 0.6  # the text runs top-to-bottom: box is tall and thin like the ink
    assert px.height > 3 * px.width


def test_paragraphs_and_title(sample):
    s, _, out, _ = sample
    page = _pages(out, "sample.pdf")[0]
    assert page.text_source is TextSource.PDF and page.lang == "en"
    for para in PARAGRAPHS:
        assert join_words(para.split()) in page.text.replace("\n", " ")
    titles = [b for b in page.blocks if b.kind is BlockKind.TITLE]
    assert [t.text for t in titles] == ["Annual Report 2023"]
    texts = [b for b in page.blocks if b.kind is BlockKind.TEXT]
    for exp in s.paragraph_boxes[1]:
        best = max(b.box.iou(page.box_pt(*exp)) for b in texts)
        assert best > 0.3


def test_ruled_table_found_with_cells(sample):
    s, _, out, _ = sample
    page_no, expected = s.table_box
    page = _pages(out, "sample.pdf")[page_no - 1]
    tables = [b for b in page.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    assert tables[0].box.iou(page.box_pt(*expected)) > 0.85
    assert tables[0].meta["rows"] == TABLE_ROWS
    assert tables[0].meta["caption"] == "Table 1: Revenue by region"
    captions = [b for b in page.blocks if b.kind is BlockKind.CAPTION]
    assert captions and captions[0].block_id == tables[0].meta["caption_block"]
    # the words of the table are not repeated as text blocks
    assert not any(b.kind is BlockKind.TEXT and "1,380" in b.text for b in page.blocks)


def test_vector_chart_is_a_figure_with_caption(sample):
    s, _, out, _ = sample
    page_no, expected = s.chart_box
    page = _pages(out, "sample.pdf")[page_no - 1]
    figs = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
    assert len(figs) == 1
    assert figs[0].box.iou(page.box_pt(*expected)) > 0.7
    assert figs[0].meta["caption"] == s.chart_caption
    assert not [b for b in page.blocks if b.kind is BlockKind.TABLE]


def test_image_only_page_is_ocrd(sample):
    s, _, out, _ = sample
    page = _pages(out, "sample.pdf")[s.image_page - 1]
    assert page.text_source is TextSource.OCR
    found = {w.text.lower() for w in page.words}
    assert sum(w.lower() in found for w in OCR_WORDS) >= 3, found
    for w in page.words:  # the words are in the image at the top of the page, in order
        assert w.box.y1 <= 362
    ys = [next(w.box.y0 for w in page.words if w.text.lower() == t.lower()) for t in OCR_WORDS
          if t.lower() in found]
    assert ys == sorted(ys)
    assert not [b for b in page.blocks if b.kind is BlockKind.FIGURE]  # the scan is not a figure


def test_cjk_page(sample):
    s, _, out, _ = sample
    page = _pages(out, "sample.pdf")[s.cjk_page - 1]
    assert page.lang == "zh"
    assert CJK_TEXT in page.text.replace(" ", "")
    assert any(CJK_TEXT in w.text for w in page.words)


def test_page_images_become_ocrd_one_page_documents(sample):
    _, _, out, _ = sample
    (scan,) = _pages(out, "scan.png")
    assert scan.dpi == 200 and scan.width_pt == pytest.approx(1700 * 72 / 200)
    assert scan.height_pt == pytest.approx(1000 * 72 / 200)
    assert scan.text_source is TextSource.OCR
    assert sum(w.lower() in scan.text.lower() for w in OCR_WORDS) >= 3
    assert scan.words[0].box.to_pixels(scan.image_width, scan.image_height).x0 == pytest.approx(120, abs=15)
    (nodpi,) = _pages(out, "nodpi.png")
    assert nodpi.dpi == 144 and nodpi.width_pt == pytest.approx(1700 * 72 / 144)
    assert "balance" in nodpi.text.lower()
    assert Corpus.open(out).find_documents("scan.png")[0].kind == "image"


def test_garbage_text_layer_is_replaced_by_ocr(sample):
    _, _, out, _ = sample
    (page,) = _pages(out, "garbage.pdf")
    assert page.text_source is TextSource.OCR
    assert garbage_ratio(page.text) == 0.0
    assert sum(w.lower() in page.text.lower() for w in OCR_WORDS) >= 3


def test_second_run_changes_nothing(sample):
    _, folder, out, _ = sample
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    fp = Corpus.open(out).fingerprint()
    report = ingest([folder], out=out, show_progress=False)
    assert report.added == [] and report.replaced == [] and report.failures == []
    assert len(report.skipped) == 4
    assert Corpus.open(out).fingerprint() == fp
    after = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert before == after


@pytest.mark.slow
def test_changed_file_replaces_its_pages(tmp_path):
    from tests.support.pdfs import make_text_pdf

    pdf = make_text_pdf(tmp_path / "doc.pdf", "First version.", n_pages=2)
    out = tmp_path / "c"
    ingest([pdf], out=out, show_progress=False)
    (old,) = Corpus.open(out).doc_ids()
    make_text_pdf(pdf, "Second version.", n_pages=3)
    report = ingest([pdf], out=out, show_progress=False)
    assert report.replaced == [str(pdf.resolve())] and report.added == []
    corpus = Corpus.open(out)
    (new,) = corpus.doc_ids()
    assert new != old and len(corpus) == 3
    assert "Second version." in corpus.page(f"{new}:1").text
    assert not (out / "docs" / old).exists()


def test_ocr_never_and_jpeg_and_options(tmp_path):
    pdf = make_garbage_text_pdf(tmp_path / "g.pdf")
    out = tmp_path / "c"
    report = ingest(pdf, out=out, ocr="never", image_format="jpeg", show_progress=False)
    assert report.n_ocr_pages == 0
    (page,) = Corpus.open(out).pages()
    assert page.image.endswith(".jpg") and page.image_path.exists()
    assert page.text_source is not TextSource.OCR
    for bad in ({"dpi": 5}, {"renderer": "cairo"}, {"ocr": "sometimes"}, {"lang": "klingon"},
                {"image_format": "gif"}):
        with pytest.raises(InputError):
            ingest(pdf, out=tmp_path / "c2", show_progress=False, **bad)


@pytest.mark.slow
def test_pdf2image_renderer_matches_pymupdf_geometry(tmp_path, sample):
    need("poppler-utils")
    s, _, out, _ = sample
    report = ingest(s.path, out=tmp_path / "c", renderer="pdf2image", ocr="never", show_progress=False)
    assert report.failures == []
    poppler = Corpus.open(tmp_path / "c").pages()
    mupdf = _pages(out, "sample.pdf")
    for a, b in zip(poppler, mupdf, strict=True):
        assert abs(a.image_width - b.image_width) <= 2 and abs(a.image_height - b.image_height) <= 2
        assert (a.width_pt, a.height_pt, a.rotation) == (b.width_pt, b.height_pt, b.rotation)
    rot = poppler[s.rotated_page - 1]
    (word,) = rot.words
    px = word.box.to_pixels(rot.image_width, rot.image_height)
    assert _ink_bbox(np.asarray(rot.load_image()), px.expanded(2)) is not None


# -- text layer helpers ------------------------------------------------------------------------

def test_split_numbers_are_joined_but_columns_are_not():
    words = [(139.7, 92.5, 158.1, 99.6, "11,062."), (159.7, 92.5, 163.1, 99.6, "6"),
             (214.4, 92.5, 217.7, 99.6, "6")]
    merged = _merge_split_numbers(words)
    assert [w[4] for w in merged] == ["11,062.6", "6"]
    assert merged[0][0] == 139.7 and merged[0][2] == 163.1


def test_lang_detection_and_joining():
    assert detect_lang("Revenue grew") == "en"
    assert detect_lang("营业收入同比增长 2023 revenue") == "zh"
    assert detect_lang("12 34") == ""
    assert join_words(["营业", "收入", "grew", "5%"]) == "营业收入 grew 5%"
    assert garbage_ratio("ok \ue000\ue001") == pytest.approx(2 / 4)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_word_boxes_on_ink_with_cropbox_and_rotation(tmp_path, rotation):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((100, 150), "Cropped", fontsize=30, fontname="helv")
    page.set_cropbox(pymupdf.Rect(50, 60, 500, 700))  # origin offset: text coordinates shift
    page.set_rotation(rotation)
    doc.save(tmp_path / "p.pdf")
    ingest(tmp_path / "p.pdf", out=tmp_path / "c", ocr="never", show_progress=False)
    (p,) = Corpus.open(tmp_path / "c").pages()
    assert (p.width_pt, p.height_pt) == ((640.0, 450.0) if rotation % 180 else (450.0, 640.0))
    (word,) = p.words
    px = word.box.to_pixels(p.image_width, p.image_height)
    ink = Box.pixels(*_ink_bbox(np.asarray(p.load_image())), p.image_width, p.image_height)
    assert px.contains(ink, tol=3) and px.iou(ink) > 0.55


def test_multi_frame_tiff_and_jpeg_page_images(tmp_path):
    from PIL import Image

    frames = [Image.new("RGB", (400, 500), c) for c in ("white", "lightgray")]
    frames[0].save(tmp_path / "two.tiff", save_all=True, append_images=frames[1:], dpi=(100, 100))
    Image.new("RGB", (300, 200), "white").save(tmp_path / "one.jpg", dpi=(72, 72))
    report = ingest([tmp_path], out=tmp_path / "c", ocr="never", show_progress=False)
    assert report.failures == [] and report.n_pages == 3
    corpus = Corpus.open(tmp_path / "c")
    tiff = corpus.pages([corpus.find_documents("two.tiff")[0].doc_id])
    assert [p.page_no for p in tiff] == [1, 2]
    assert tiff[1].load_image().getpixel((10, 10)) == (211, 211, 211)
    assert (tiff[0].width_pt, tiff[0].height_pt, tiff[0].dpi) == (288.0, 360.0, 100.0)
    (jpg,) = corpus.pages([corpus.find_documents("one.jpg")[0].doc_id])
    assert (jpg.width_pt, jpg.height_pt) == (300.0, 200.0) and jpg.text_source is TextSource.NONE


def test_garbage_detection_keeps_accounting_tables_and_flags_junk():
    from docrag.ingestion.pdfpage import text_is_garbage
    from docrag.ingestion.textlayer import looks_like_words

    table = "Net income $(1.2) (3.4) 12,345 (5.6)% — — 7.8 " * 5
    assert looks_like_words(table) == 1.0 and not text_is_garbage(table)
    junk = "3#(% &*@! )(#@ x!#% ^&*(q " * 5  # a font without a usable encoding
    assert looks_like_words(junk) < 0.6 and text_is_garbage(junk)
    assert text_is_garbage("\ue000\ue001\ue002 abc")
    assert text_is_garbage("·" * 60)  # an invisible layer of symbols only
    assert not text_is_garbage("") and not text_is_garbage("Q3 $(1)")


def test_chinese_body_paragraphs_are_text_not_titles():
    """The body size is weighed by printed width (a Chinese character is two Latin ones wide), and a line
    ending in 。 is a sentence: short Chinese paragraphs beside long small-print ids stay body text."""
    from docrag.ingestion.layout import TextLine, classify

    def line(y: float, text: str, size: float) -> list[TextLine]:
        return [TextLine(Box(72, y, 72 + 7 * len(text), y + size, Space.POINT, (612, 792)), text, size, False)]

    groups = [line(70, "关于会话与座位的日志消息", 15.0)]
    for i in range(4):
        y = 100 + 80 * i
        groups += [line(y, f"座位 {i} 已被移除", 12.0), line(y + 20, f"消息 ID {i}e7852bfe46784ed0accde04bc864c2", 8.5),
                   line(y + 40, f"座位 {i} 已被移除并不再可用。", 10.5)]
    kinds = [b.kind for b in classify(groups)]
    assert kinds[0] is BlockKind.TITLE and kinds[1::3] == [BlockKind.TITLE] * 4
    assert kinds[3::3] == [BlockKind.TEXT] * 4 and kinds[2::3] == [BlockKind.TEXT] * 4


def test_a_sentence_about_a_numbered_table_or_figure_is_text_not_its_caption():
    """国泰君安's "表 2 展示了每个样本区间…" paragraph and a paper's "Figure 2 shows …" start with a caption's
    number but say what the table or figure shows: body text. "表 1 中国算力发展指标体系" and "Figure 3: Returns"
    stay captions."""
    from docrag.ingestion.layout import TextLine, classify

    def group(y: float, *texts: str) -> list[TextLine]:
        return [TextLine(Box(72, y + 14 * i, 520, y + 14 * i + 10, Space.POINT, (612, 792)), t, 10.0, False)
                for i, t in enumerate(texts)]

    groups = [group(60, "表 2 展示了每个样本区间符合上文定义的异常交易的样本占比,可以看",
                    "出, 2007 、 2009 和 2015 年在牛市的作用下。"),
              group(120, "Figure 2 shows the logarithm of the marginal likelihood of the model",
                    "for different values."),
              group(180, "表 1 中国算力发展指标体系"), group(220, "Figure 3: Returns by decile"),
              group(260, "Body text of the report that runs over a line and says something about the page."),
              group(300, "Body text again, long enough to weigh as the body size of the page and more.")]
    kinds = [b.kind for b in classify(groups)]
    assert kinds[:4] == [BlockKind.TEXT, BlockKind.TEXT, BlockKind.CAPTION, BlockKind.CAPTION]


def test_a_sentence_set_in_bold_inside_a_paragraph_stays_in_it():
    """The Bank of Thailand's minutes (en-b-058, en-b-059) set each paragraph's lead sentence in bold: "The Thai economy
    was projected to expand by 2.6 and 3.0 percent in 2024 and 2025," (bold) | "respectively, supported by ..."
    had been cut into a title and a paragraph, so the sentence was quoted without its "respectively". A line opening
    in lower case mid-sentence is one paragraph with the line above, bold or not; a bold heading stays apart."""
    from docrag.ingestion.layout import TextLine, paragraphs

    def line(i: int, text: str, bold: bool) -> TextLine:
        return TextLine(Box(72, 480 + 14.6 * i, 526, 492 + 14.6 * i, Space.POINT, (595, 842)), text, 12.0, bold)

    lines = [line(0, "Domestic Demand", True),
             line(2, "The Thai economy was projected to expand by 2.6 and 3.0 percent in 2024 and 2025,", True),
             line(3, "respectively, supported by several factors: (1) an expansion in the tourism sector,", False),
             line(4, "and deteriorating competitiveness. Although the Thai", False),
             line(5, "economy was expected to expand in the latter half of the year, some uncertainties", True),
             line(6, "remained, including the recovery in manufacturing and merchandise exports.", False)]
    assert [len(g) for g in paragraphs(lines)] == [1, 5]


def test_a_list_items_lines_under_its_text_stay_with_it():
    """Kroger's guidance (en-a-042) and the Bank of Thailand's bullets: a list item's second line stands under its text,
    right of its bullet (a hanging indent); it had been cut off as a paragraph of its own ("from the 53rd week of
    approximately $0.15"). The next bullet stays a new item of the list; a title over a scale line stays apart."""
    from docrag.ingestion.layout import TextLine, classify, paragraphs

    def line(i: int, x0: float, text: str, bold: bool = False) -> TextLine:
        return TextLine(Box(x0, 500 + 14 * i, 540, 511 + 14 * i, Space.POINT, (612, 792)), text, 11.0, bold)

    lines = [line(0, 72, "• Adjusted net earnings per diluted share of $4.45 – $4.60, including an estimated benefit"),
             line(1, 90, "from the 53rd week of approximately $0.15"),
             line(2, 72, "• Capital expenditures of $3.4 – $3.6 billion")]
    groups = paragraphs(lines)
    assert [len(g) for g in groups] == [3]
    assert classify(groups)[0].kind is BlockKind.LIST
    title = [TextLine(Box(250, 60, 362, 72, Space.POINT, (612, 792)), "Apple Inc.", 11.0, True),
             TextLine(Box(150, 74, 462, 86, Space.POINT, (612, 792)), "CONDENSED CONSOLIDATED BALANCE SHEETS", 11.0,
                      True),
             TextLine(Box(130, 88, 482, 100, Space.POINT, (612, 792)), "(In millions, except number of shares)", 11.0,
                      False)]
    assert [len(g) for g in paragraphs(title)] == [2, 1]


def test_a_paragraphs_last_line_under_its_indented_first_and_a_figure_reference_stay_in_it():
    """浙商's report: a paragraph's last line ("益。") stands left of its indented first line and had been cut off;
    国泰君安's "…行业分布如" | "图 6 所示。" had been cut at the caption-like "图 6". A bullet printed on a line of
    its own ("•") and a subheading under a short heading ("(二)发行人境外子公司情况" | "1 、香港影石") stay apart."""
    from docrag.ingestion.layout import TextLine, paragraphs

    def line(y: float, x0: float, x1: float, text: str) -> TextLine:
        return TextLine(Box(x0, y, x1, y + 10, Space.POINT, (595, 842)), text, 10.0, False)

    last = [line(540, 183, 543, "易见,增强后的券商金股组合相对全体券商金股所构成的组合能产生稳定的超额收"),
            line(555, 162, 184, "益。")]
    assert [len(g) for g in paragraphs(last)] == [2]
    referred = [line(100, 90, 500, "计算 A 股市场中每个行业股票所占比例与股票组合中属于该行业的个"),
                line(114, 90, 500, "股的比例。全部 A 股股票的行业分布和趋势模型选出的股票行业分布如"),
                line(128, 90, 150, "图 6 所示。")]
    assert [len(g) for g in paragraphs(referred)] == [3]
    bullet = [line(200, 72, 480, "Revenue was $76.4 billion and increased 18% (up 17% in constant currency)"),
              line(214, 54, 60, "•")]
    assert [len(g) for g in paragraphs(bullet)] == [1, 1]
    heading = [line(489, 90, 250, "(二)发行人境外子公司情况"), line(503, 114, 183, "1 、香港影石"),
               line(517, 114, 397, "截至 2024 年 12 月 31 日,香港影石的基本情况如下:"),
               line(531, 90, 505, "香港影石主要从事产品的境外销售及售后服务,是公司境外销售的主要平台之一,注册于香港。")]
    assert len(paragraphs(heading)[0]) == 1
