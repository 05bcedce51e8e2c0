"""Ingest of the real PDFs in ../shared/corpus (deselected when absent), checked against qa.jsonl gold boxes:
measured floors and regressions of real documents (the same checks on the synthetic corpus:
``test_synthetic_corpus.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from docrag.types import BlockKind, TextSource

pytestmark = pytest.mark.real_corpus

# Floors measured on the development corpus (see BENCHMARKS.md "## Ingest"): every gold table box is
# covered >= 45% by one detected table block (min 0.45, ECB tables whose gold box includes the
# caption); mean best IoU 0.66; every chart gold box matches a figure block with IoU 1.0.
MIN_TABLE_COVERAGE = 0.4
MIN_MEAN_TABLE_IOU = 0.55
MIN_CHART_IOU = 0.8


def _gold(dev_corpus, qa_records, category):
    out = []
    for rec in qa_records:
        if rec["category"] != category:
            continue
        (doc,) = dev_corpus.find_documents(rec["doc"])
        for b in rec["boxes"]:
            page = dev_corpus.page(f"{doc.doc_id}:{b['page']}")
            out.append((rec["id"], page, page.box_pt(*b["bbox"])))
    return out


def test_every_page_of_every_pdf_is_present(dev_corpus, shared_corpus):
    import pymupdf

    pdfs = sorted((shared_corpus / "pdfs").glob("*.pdf"))
    assert len(dev_corpus.documents()) == len(pdfs)
    for pdf in pdfs:
        (doc,) = dev_corpus.find_documents(pdf.name)
        with pymupdf.open(pdf) as src:
            assert doc.n_pages == src.page_count
        pages = dev_corpus.pages([doc.doc_id])
        assert [p.page_no for p in pages] == list(range(1, doc.n_pages + 1))
        for p in pages:
            assert p.text_source is TextSource.PDF and p.lang == "en" and len(p.text) > 200
            assert p.image_path.exists()


def test_boxes_inside_pages_and_on_ink(dev_corpus):
    for page in dev_corpus.pages():
        img = np.asarray(page.load_image().convert("L"))
        for item in [*page.words, *page.blocks]:
            assert item.box.is_valid() and item.box.is_inside_extent(tol=1e-3), (page.page_id, item)
        on_ink = 0
        sample = page.words[:: max(1, len(page.words) // 40)]
        for w in sample:
            px = w.box.to_pixels(page.image_width, page.image_height)
            x0, y0, x1, y1 = (int(v) for v in px.coords)
            crop = img[y0:y1 + 1, x0:x1 + 1]
            on_ink += crop.size > 0 and crop.min() < 160
        assert on_ink >= 0.95 * len(sample), page.page_id


def test_split_numbers_are_rejoined(dev_corpus):
    (doc,) = dev_corpus.find_documents("census_statab2012_table324_arrests.pdf")
    page = dev_corpus.page(f"{doc.doc_id}:1")
    texts = [w.text for w in page.words]
    assert "11,062.6" in texts and "11,062." not in texts
    assert "11,062.6" in page.text


def test_gold_table_boxes_overlap_detected_tables(dev_corpus, qa_records):
    gold = _gold(dev_corpus, qa_records, "table")
    assert len(gold) >= 8
    ious = []
    for qid, page, box in gold:
        tables = [b for b in page.blocks if b.kind is BlockKind.TABLE]
        assert tables, f"{qid}: no table block on {page.page_id}"
        assert max(t.box.coverage_of(box) for t in tables) >= MIN_TABLE_COVERAGE, qid
        ious.append(max(t.box.iou(box) for t in tables))
    assert sum(ious) / len(ious) >= MIN_MEAN_TABLE_IOU, ious


def test_gold_chart_boxes_match_figures(dev_corpus, qa_records):
    gold = _gold(dev_corpus, qa_records, "chart")
    assert len(gold) >= 3
    for qid, page, box in gold:
        figs = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
        assert max((f.box.iou(box) for f in figs), default=0.0) >= MIN_CHART_IOU, qid
        assert not any(t.box.coverage_of(box) > 0.3 for t in page.blocks if t.kind is BlockKind.TABLE), qid


def test_table_rows_carry_cell_text(dev_corpus):
    (doc,) = dev_corpus.find_documents("usgs_mcs2011_abrasives_manufactured.pdf")
    page = dev_corpus.page(f"{doc.doc_id}:1")
    (table,) = [b for b in page.blocks if b.kind is BlockKind.TABLE]
    rows = table.meta["rows"]
    assert any("United States and Canada" in " ".join(r) for r in rows)
    assert "60,400" in table.text


@pytest.mark.slow
def test_real_page_as_png_is_ocrd_with_table_regions(tmp_path, dev_corpus, qa_records, shared_corpus):
    """A real page shipped as a 144-dpi PNG (as FinRAGBench-V ships its corpus): OCR + layout regions."""
    import pymupdf

    from docrag.corpus import Corpus
    from docrag.ingestion import ingest

    name = "census_statab2012_table324_arrests.pdf"
    with pymupdf.open(shared_corpus / "pdfs" / name) as doc:
        pix = doc[0].get_pixmap(dpi=144)
        pix.set_dpi(144, 144)
        pix.save(tmp_path / "census.png")
    report = ingest(tmp_path / "census.png", out=tmp_path / "c", lang="en", show_progress=False)
    assert report.failures == [] and report.n_ocr_pages == 1
    (page,) = Corpus.open(tmp_path / "c").pages()
    assert (page.width_pt, page.height_pt) == pytest.approx((420, 660), abs=0.5)  # 840 x 1320 px at 144 dpi
    (doc,) = dev_corpus.find_documents(name)
    pdf_page = dev_corpus.page(f"{doc.doc_id}:1")
    want = [w.text for w in pdf_page.words if any(c.isalnum() for c in w.text)]
    got = {w.text for w in page.words}
    assert sum(t in got for t in want) / len(want) >= 0.75  # measured 0.86-0.90
    for w in page.words:  # an OCR word sits where the PDF has the same word
        same = [p for p in pdf_page.words if p.text == w.text]
        if w.text == "11,062.6" and same:
            assert max(p.box.iou(page.box_pt(*w.box.coords)) for p in same) > 0.5
    tables = [b for b in page.blocks if b.kind is BlockKind.TABLE]
    gold = [page.box_pt(*b["bbox"]) for r in qa_records if r["doc"] == name and r["category"] == "table"
            for b in r["boxes"]]
    assert tables and gold
    for g in gold:
        assert max(t.box.coverage_of(g) for t in tables) >= 0.8
