"""The synthetic development corpus (tests/support/synthetic_corpus.py) and its ingest.

The corpus is only useful if its gold is right: every gold box holds the words of the answer in the
PDF itself, and ingestion finds every page, the tables and the chart where the gold says they are.
"""

from __future__ import annotations

import re

import numpy as np
import pymupdf
import pytest

from docrag.types import BlockKind, TextSource
from tests.support.synthetic_corpus import DOCS, N_PAGES, SURVEY, SURVEY_HEADER


def _facts(answer: str) -> list[str]:
    """The numbers of a gold answer (Chinese answers: the answer up to its first comma)."""
    nums = re.findall(r"\d[\d,.]*\d|\d", answer)
    return nums or [answer.split("，")[0]]


def test_gold_boxes_hold_the_answer_in_the_pdf(synthetic_source):
    recs = synthetic_source.records
    assert len(recs) == 12 and len({r["id"] for r in recs}) == 12
    assert {r["category"] for r in recs} == {"text", "table", "chart", "multi_page"}
    assert {r["lang"] for r in recs} == {"en", "zh"}
    for r in recs:
        assert r["pages"] == sorted({b["page"] for b in r["boxes"]}), r["id"]
        with pymupdf.open(synthetic_source.pdfs / r["doc"]) as pdf:
            inside = ""
            for b in r["boxes"]:
                page = pdf[b["page"] - 1]
                x0, y0, x1, y1 = b["bbox"]
                assert 0 <= x0 < x1 <= page.rect.width and 0 <= y0 < y1 <= page.rect.height, r["id"]
                inside += page.get_text("text", clip=pymupdf.Rect(x0, y0, x1, y1)).replace("\n", " ") + " "
        missing = [f for f in _facts(r["answer"]) if f.rstrip(".").lower() not in inside.lower()]
        # a chart's answer names its bar ("Q3") and reads its data label; both lie in the chart's box
        assert not missing, (r["id"], missing, inside)


def test_every_page_is_ingested_with_its_text_layer(synthetic_source, synthetic_corpus):
    assert sorted(d.file_name for d in synthetic_corpus.documents()) == sorted(DOCS)
    for name in DOCS:
        (doc,) = synthetic_corpus.find_documents(name)
        pages = synthetic_corpus.pages([doc.doc_id])
        assert [p.page_no for p in pages] == list(range(1, N_PAGES[name] + 1))
        for p in pages:
            assert p.text_source is TextSource.PDF and p.image_path.exists()
            assert p.lang == ("zh" if name.endswith("_zh.pdf") else "en"), (name, p.page_no, p.lang)
    assert len(synthetic_corpus.page_ids()) == synthetic_source.n_pages


def test_word_and_block_boxes_lie_inside_pages_and_on_ink(synthetic_corpus):
    for page in synthetic_corpus.pages():
        img = np.asarray(page.load_image().convert("L"))
        assert page.words and page.blocks, page.page_id
        for item in [*page.words, *page.blocks]:
            assert item.box.is_valid() and item.box.is_inside_extent(tol=1e-3), (page.page_id, item)
        for w in page.words:
            x0, y0, x1, y1 = (int(v) for v in w.box.to_pixels(page.image_width, page.image_height).coords)
            crop = img[y0:y1 + 1, x0:x1 + 1]
            assert crop.size and crop.min() < 160, (page.page_id, w.text)


def _gold(corpus, records, category):
    for r in records:
        if r["category"] == category:
            (doc,) = corpus.find_documents(r["doc"])
            for b in r["boxes"]:
                page = corpus.page(f"{doc.doc_id}:{b['page']}")
                yield r["id"], page, page.box_pt(*b["bbox"])


def test_gold_tables_and_chart_are_found_by_layout(synthetic_corpus, synthetic_qa):
    tables = list(_gold(synthetic_corpus, synthetic_qa, "table"))
    assert len(tables) == 4
    for qid, page, box in tables:
        found = [b for b in page.blocks if b.kind is BlockKind.TABLE]
        assert found and max(t.box.iou(box) for t in found) >= 0.9, (qid, [t.box for t in found], box)
    ((qid, page, box),) = _gold(synthetic_corpus, synthetic_qa, "chart")
    figs = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
    assert max((f.box.iou(box) for f in figs), default=0.0) >= 0.9, (qid, [f.box for f in figs], box)
    assert not [b for b in page.blocks if b.kind is BlockKind.TABLE]


def test_running_header_and_page_numbers_are_furniture(synthetic_corpus):
    from docrag.ingestion.furniture import FURNITURE_KEY

    (doc,) = synthetic_corpus.find_documents(SURVEY)
    for page in synthetic_corpus.pages([doc.doc_id]):
        marked = {b.text.strip() for b in page.blocks if b.meta.get(FURNITURE_KEY)}
        assert {SURVEY_HEADER, str(page.page_no)} <= marked, (page.page_no, marked)
        assert not any(b.meta.get(FURNITURE_KEY) for b in page.blocks if "households" in b.text)


@pytest.mark.parametrize("qid", ["syn-01", "syn-05", "syn-08", "syn-11"])
def test_gold_boxes_lie_on_ink_of_the_page_images(qid, synthetic_corpus, synthetic_qa):
    rec = next(r for r in synthetic_qa if r["id"] == qid)
    (doc,) = synthetic_corpus.find_documents(rec["doc"])
    for b in rec["boxes"]:
        page = synthetic_corpus.page(f"{doc.doc_id}:{b['page']}")
        x0, y0, x1, y1 = (int(v) for v in page.box_pt(*b["bbox"]).to_pixels(page.image_width,
                                                                                page.image_height).coords)
        crop = np.asarray(page.load_image().convert("L"))[y0:y1, x0:x1]
        assert crop.size and (crop < 128).mean() > 0.01, qid
