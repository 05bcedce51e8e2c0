"""Test PDFs and page images generated with PyMuPDF, with the positions of what they contain.

``make_sample_pdf(path)`` writes a six-page PDF (paragraphs, a ruled table, a vector chart, an
image-only page, Chinese text, a page with /Rotate 90) and returns a :class:`SamplePdf` describing
where everything is, in the *displayed* page's points (top-left origin). ``make_bad_files(folder)``
writes broken inputs (corrupt, truncated, encrypted, zero-page, absurd page size, not a PDF).
Other engineers may import these helpers.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from PIL import Image, ImageDraw, ImageFont

from tests.support.sysdeps import CJK_FONT, require_cjk_font

LATIN_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")

PARAGRAPHS = [
    "Quarterly revenue grew strongly in every region, driven by demand for storage products.",
    "Operating margin improved to eighteen percent while inventory levels remained stable.",
    "The board approved a dividend of forty cents per share payable in the second quarter.",
]
TABLE_ROWS = [
    ["Region", "2022", "2023", "Change"],
    ["North", "1,200", "1,380", "15.0%"],
    ["South", "950", "1,020", "7.4%"],
    ["East", "2,310", "2,450", "6.1%"],
    ["West", "780", "905", "16.0%"],
]
CHART_VALUES = [12, 30, 22, 41, 35]
OCR_WORDS = ["Invoice", "Total", "Amount", "Payable"]
CJK_TEXT = "营业收入同比增长百分之十五"
ROTATED_WORD = "Landscape"


@dataclass
class SamplePdf:
    path: Path
    n_pages: int
    # page number -> expected things on it (boxes are displayed-page points)
    paragraph_boxes: dict[int, list[tuple[float, float, float, float]]] = field(default_factory=dict)
    table_box: tuple[int, tuple[float, float, float, float]] = (0, (0, 0, 0, 0))
    chart_box: tuple[int, tuple[float, float, float, float]] = (0, (0, 0, 0, 0))
    chart_caption: str = ""
    image_page: int = 0
    cjk_page: int = 0
    rotated_page: int = 0
    # (page number, word, box) of the text-layer words PyMuPDF reports on the paragraph page
    words: list[tuple[int, str, tuple[float, float, float, float]]] = field(default_factory=list)


def _text_image(words: list[str], width_px: int = 1700, height_px: int = 1000) -> bytes:
    """A PNG with large black words on white (for the OCR page)."""
    im = Image.new("RGB", (width_px, height_px), "white")
    draw = ImageDraw.Draw(im)
    font = ImageFont.truetype(str(LATIN_FONT), 64)
    y = 80
    for w in words:
        draw.text((120, y), w, fill="black", font=font)
        y += 200
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def _paragraph_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Annual Report 2023", fontsize=20, fontname="hebo")
    boxes = []
    y = 130
    for para in PARAGRAPHS:
        rect = pymupdf.Rect(72, y, 540, y + 60)
        page.insert_textbox(rect, para, fontsize=11, fontname="helv")
        boxes.append((72, y, 540, y + 40))
        y += 90
    sample.paragraph_boxes[page.number + 1] = boxes
    sample.words = [(page.number + 1, w[4], tuple(w[:4])) for w in page.get_text("words")]


def _table_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "Table 1: Revenue by region", fontsize=12, fontname="helv")
    x0, y0, col_w, row_h = 72.0, 110.0, 110.0, 24.0
    n_cols, n_rows = len(TABLE_ROWS[0]), len(TABLE_ROWS)
    x1, y1 = x0 + n_cols * col_w, y0 + n_rows * row_h
    shape = page.new_shape()
    for r in range(n_rows + 1):
        shape.draw_line((x0, y0 + r * row_h), (x1, y0 + r * row_h))
    for c in range(n_cols + 1):
        shape.draw_line((x0 + c * col_w, y0), (x0 + c * col_w, y1))
    shape.finish(color=(0, 0, 0), width=0.8)
    shape.commit()
    for r, row in enumerate(TABLE_ROWS):
        for c, cell in enumerate(row):
            page.insert_text((x0 + c * col_w + 6, y0 + r * row_h + 16), cell, fontsize=10, fontname="helv")
    page.insert_text((72, y1 + 40), "Totals include all divisions reported in the consolidated accounts.",
                     fontsize=10, fontname="helv")
    sample.table_box = (page.number + 1, (x0, y0, x1, y1))


def _chart_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Results by quarter are shown below.", fontsize=11, fontname="helv")
    ox, oy, w, h = 120.0, 420.0, 360.0, 280.0   # axes origin at bottom-left
    shape = page.new_shape()
    shape.draw_line((ox, oy), (ox + w, oy))
    shape.draw_line((ox, oy), (ox, oy - h))
    shape.finish(color=(0, 0, 0), width=1)
    bar_w = w / (len(CHART_VALUES) * 2)
    for i, v in enumerate(CHART_VALUES):
        bx = ox + bar_w * (2 * i + 0.5)
        shape.draw_rect(pymupdf.Rect(bx, oy - v * 6, bx + bar_w, oy))
        shape.finish(color=None, fill=(0.2, 0.4, 0.8))
    pts = [(ox + bar_w * (2 * i + 1), oy - v * 6 - 10) for i, v in enumerate(CHART_VALUES)]
    for a, b in zip(pts, pts[1:], strict=False):
        shape.draw_line(a, b)
    shape.finish(color=(0.9, 0.1, 0.1), width=1.5)
    shape.commit()
    for i in range(len(CHART_VALUES)):
        page.insert_text((ox + bar_w * (2 * i + 0.5), oy + 14), f"Q{i + 1}", fontsize=9, fontname="helv")
    caption = "Figure 1: Revenue by quarter"
    page.insert_text((ox, oy + 40), caption, fontsize=10, fontname="helv")
    sample.chart_box = (page.number + 1, (ox, oy - h, ox + w, oy))
    sample.chart_caption = caption


def _image_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_image(pymupdf.Rect(0, 0, 612, 360), stream=_text_image(OCR_WORDS))
    sample.image_page = page.number + 1


def _cjk_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    require_cjk_font("the sample PDF's Chinese page")
    page = doc.new_page(width=612, height=792)
    page.insert_font(fontname="wqy", fontfile=str(CJK_FONT))
    page.insert_text((72, 100), "财务报告摘要", fontsize=18, fontname="wqy")
    page.insert_text((72, 150), CJK_TEXT, fontsize=12, fontname="wqy")
    page.insert_text((72, 180), "净利润为三亿两千万元人民币", fontsize=12, fontname="wqy")
    sample.cjk_page = page.number + 1


def _rotated_page(doc: pymupdf.Document, sample: SamplePdf) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text((100, 150), ROTATED_WORD, fontsize=28, fontname="helv")
    page.set_rotation(90)
    sample.rotated_page = page.number + 1


def make_sample_pdf(path: Path) -> SamplePdf:
    """Write the six-page sample PDF to ``path`` and describe it."""
    doc = pymupdf.open()
    sample = SamplePdf(path=Path(path), n_pages=0)
    for build in (_paragraph_page, _table_page, _chart_page, _image_page, _cjk_page, _rotated_page):
        build(doc, sample)
    sample.n_pages = doc.page_count
    doc.save(path)
    doc.close()
    return sample


def make_text_pdf(path: Path, text: str = "A small test document.", n_pages: int = 1) -> Path:
    """A plain PDF with ``n_pages`` pages, each saying ``text`` and its page number."""
    doc = pymupdf.open()
    for i in range(n_pages):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 100), f"{text} Page {i + 1}.", fontsize=12, fontname="helv")
    doc.save(path)
    doc.close()
    return Path(path)


def make_garbage_text_pdf(path: Path) -> Path:
    """A page whose visible text is an image, under an invisible text layer of junk characters."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_image(pymupdf.Rect(0, 0, 612, 360), stream=_text_image(OCR_WORDS))
    junk = "".join(chr(0xE000 + i) for i in range(60))
    page.insert_text((72, 500), junk, fontsize=10, fontname="helv", render_mode=3)
    doc.save(path)
    doc.close()
    return Path(path)


def make_page_image(path: Path, dpi: int | None = 200, words: list[str] | None = None) -> Path:
    """A page image with large words (PNG/JPEG/TIFF by suffix), with ``dpi`` metadata when given."""
    im = Image.open(io.BytesIO(_text_image(words or OCR_WORDS)))
    kwargs = {"dpi": (dpi, dpi)} if dpi else {}
    im.save(path, **kwargs)
    return Path(path)


def _raw_pdf(count: int, mediabox: str = "[0 0 612 792]") -> bytes:
    """A minimal hand-written PDF with ``count`` empty pages (count 0 gives a zero-page PDF)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(count))
    objs = ["<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {count} >>"]
    objs += [f"<< /Type /Page /Parent 2 0 R /MediaBox {mediabox} >>" for _ in range(count)]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n{body}\nendobj\n".encode())
    xref = out.tell()
    out.write(f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def make_bad_files(folder: Path) -> dict[str, Path]:
    """Broken inputs, by the kind of problem. Every one must be reported, none ingested."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bad: dict[str, Path] = {}
    bad["not_pdf"] = folder / "notes.txt"
    bad["not_pdf"].write_text("just some text, not a document\n")
    bad["fake_pdf"] = folder / "fake.pdf"
    bad["fake_pdf"].write_bytes(b"<html><body>404 not found</body></html>\n")
    good = make_text_pdf(folder / "_tmp_good.pdf", "Truncated soon.", n_pages=3).read_bytes()
    (folder / "_tmp_good.pdf").unlink()
    bad["truncated"] = folder / "truncated.pdf"
    bad["truncated"].write_bytes(good[:120])
    bad["corrupt"] = folder / "corrupt.pdf"
    bad["corrupt"].write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret", fontname="helv")
    bad["encrypted"] = folder / "encrypted.pdf"
    doc.save(bad["encrypted"], encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    doc.close()
    bad["zero_pages"] = folder / "zero.pdf"
    bad["zero_pages"].write_bytes(_raw_pdf(0))
    bad["absurd_size"] = folder / "huge.pdf"
    bad["absurd_size"].write_bytes(_raw_pdf(1, "[0 0 200000 200000]"))
    bad["bad_image"] = folder / "broken.png"
    bad["bad_image"].write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    return bad


REPORT_HEADER = "Northwind Quarterly Report"
REPORT_TABLE = [["Product", "2022", "2023"], ["Falcon", "1,200", "1,500"], ["Heron", "800", "640"],
                ["Total", "2,000", "2,140"]]
REPORT_BARS = [("North", 120), ("South", 75), ("West", 210)]


@dataclass
class ReportPdf:
    """Where things are in :func:`make_report_pdf`'s output (displayed-page points, top-left origin)."""

    path: Path
    n_pages: int = 3
    furniture_y: tuple[float, float] = (60.0, 745.0)  # furniture lies above the first / below the second
    table_rows: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)  # page 1
    table_box: tuple[float, float, float, float] = (0, 0, 0, 0)
    shipped_box: tuple[float, float, float, float] = (0, 0, 0, 0)     # page 1 paragraph
    staff_box: tuple[float, float, float, float] = (0, 0, 0, 0)       # page 2 paragraph
    chart_box: tuple[float, float, float, float] = (0, 0, 0, 0)       # page 3, with its caption


def make_report_pdf(path: Path) -> ReportPdf:
    """A three-page report with page furniture on every page (running header, dateline, page
    number), a revenue table, paragraphs stating facts and a vector bar chart with data labels."""
    doc = pymupdf.open()
    rep = ReportPdf(Path(path))
    for n in range(1, 4):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 40), REPORT_HEADER, fontsize=9, fontname="helv")
        page.insert_text((450, 40), "March 3, 2024", fontsize=9, fontname="helv")
        page.insert_text((300, 770), str(n), fontsize=9, fontname="helv")
    p1, p2, p3 = doc[0], doc[1], doc[2]
    p1.insert_text((72, 100), "Revenue and shipments", fontsize=16, fontname="hebo")
    p1.insert_textbox(pymupdf.Rect(72, 120, 540, 170), "Northwind shipped 4,250 Falcon drones to customers "
                      "during 2023, its best year so far.", fontsize=11, fontname="helv")
    rep.shipped_box = (72, 120, 540, 150)
    p1.insert_text((72, 200), "Table 1. Revenue by product (USD thousands)", fontsize=10, fontname="helv")
    y = 215.0
    for r, row in enumerate(REPORT_TABLE):
        for c, cell in enumerate(row):
            p1.insert_text((80 + c * 150, y + 14), cell, fontsize=10, fontname="helv")
        rep.table_rows[row[0]] = (72, y, 540, y + 20)
        if r == 0:
            p1.draw_line((72, y + 20), (540, y + 20), width=0.6)
        y += 20
    p1.draw_line((72, 215), (540, 215), width=0.9)
    p1.draw_line((72, y), (540, y), width=0.9)
    rep.table_box = (72, 215, 540, y)
    p2.insert_text((72, 100), "People", fontsize=16, fontname="hebo")
    p2.insert_textbox(pymupdf.Rect(72, 120, 540, 170), "The company employed 312 people at the end of the "
                      "year, most of them in the assembly plant.", fontsize=11, fontname="helv")
    rep.staff_box = (72, 120, 540, 150)
    ox, oy = 120.0, 400.0
    shape = p3.new_shape()
    shape.draw_line((ox, oy), (480, oy))
    shape.draw_line((ox, oy), (ox, 160))
    shape.finish(color=(0, 0, 0), width=1)
    for i, (_label, v) in enumerate(REPORT_BARS):
        bx = ox + 30 + i * 110
        shape.draw_rect(pymupdf.Rect(bx, oy - v, bx + 60, oy))
        shape.finish(color=None, fill=(0.2, 0.4, 0.8))
    shape.commit()
    for i, (label, v) in enumerate(REPORT_BARS):
        bx = ox + 30 + i * 110
        p3.insert_text((bx + 15, oy - v - 4), str(v), fontsize=9, fontname="helv")
        p3.insert_text((bx + 12, oy + 14), label, fontsize=9, fontname="helv")
    p3.insert_text((ox, oy + 40), "Figure 1. Orders by region in 2023", fontsize=10, fontname="helv")
    rep.chart_box = (ox, 160, 480, oy + 44)
    doc.save(path)
    doc.close()
    return rep
