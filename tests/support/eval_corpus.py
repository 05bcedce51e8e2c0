"""A synthetic corpus with a question file for evaluation runs (no ../shared, no PDF ingestion).

``make_eval_corpus(folder)`` writes, with the real :class:`~docrag.corpus.CorpusWriter`, ten two-page
English documents and one Chinese document. Every English page states one fact about one company
("Harbor Bank reported net revenue of 4,210 million dollars in 2011.") in a text block with word
boxes, between a title block and a filler block; ``qa.jsonl`` asks one question per fact, with the
fact's page and block box as gold evidence, in our QA JSONL format (``id``, ``question``, ``answer``,
``category``, ``doc``, ``pages``, ``boxes`` in PDF points, ``answer_type``). A third block names two
peer companies with their own metric and year, so two pages compete for every question: a lexical
retriever ranks the gold page first for some questions and second for others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from docrag.corpus import Corpus
from docrag.geometry import Box
from docrag.types import Block, BlockKind, Document, Page, TextSource, Word
from tests.support.sysdeps import CJK_FONT

PAGE_W, PAGE_H = 612.0, 792.0   # US letter, points
DPI = 72.0                      # one pixel per point keeps the images small

COMPANIES = ["Harbor Bank", "Nordic Steel", "Quartz Mining", "Pelican Airlines", "Juniper Foods", "Falcon Motors",
             "Cobalt Energy", "Willow Insurance", "Saffron Textiles", "Granite Cement", "Orchid Pharma",
             "Maple Railways", "Tundra Shipping", "Lotus Telecom", "Beacon Retail", "Cedar Logistics",
             "Opal Chemicals", "Raven Media", "Summit Hotels", "Vertex Software"]
METRICS = ["net revenue", "operating profit", "total assets", "capital spending", "export sales"]
CATEGORIES = ["text", "table"]
ZH_FACTS = [("营业收入", "一千二百万元", "公司二零一一年营业收入为一千二百万元。"),
            ("员工人数", "三百五十人", "公司年末员工人数为三百五十人。")]


@dataclass
class Fact:
    qid: str
    question: str
    answer: str
    doc: str          # file name
    page_no: int
    box: tuple[float, float, float, float]   # the fact's block, PDF points
    category: str
    lang: str


def _value(i: int) -> str:
    return f"{1000 + 317 * i:,}"


def _words(text: str, box: Box, cjk: bool) -> list[Word]:
    """Word boxes splitting the block's width in proportion to the words' lengths."""
    tokens = list(text) if cjk else text.split()
    total = sum(len(t) + (0 if cjk else 1) for t in tokens)
    x, out = box.x0, []
    for t in tokens:
        w = box.width * (len(t) + (0 if cjk else 1)) / total
        out.append(Word(t, Box.points(x, box.y0, x + w, box.y1, PAGE_W, PAGE_H)))
        x += w
    return out


def _add_document(corpus: Corpus, name: str, pages: list[list[str]], lang: str) -> list[list[Box]]:
    """One document of ``pages`` (each a list of block texts); returns the block boxes per page."""
    writer = corpus.writer()
    doc = Document(doc_id=f"d{name}", file_name=f"{name}.pdf", source_path=f"/src/{name}.pdf",
                   sha256=f"sha-{name}", n_pages=len(pages))
    staged = writer.begin(doc)
    cjk = lang == "zh"
    font = ImageFont.truetype(str(CJK_FONT), 14) if cjk and CJK_FONT.exists() else None
    boxes_out = []
    for no, texts in enumerate(pages, start=1):
        img = Image.new("RGB", (int(PAGE_W), int(PAGE_H)), "white")
        draw = ImageDraw.Draw(img)
        blocks, words, boxes = [], [], []
        for i, text in enumerate(texts):
            box = Box.points(60, 90 + 150 * i, 552, 130 + 150 * i, PAGE_W, PAGE_H)
            draw.text((box.x0, box.y0), text, fill="black", font=font)
            blocks.append(Block(BlockKind.TEXT, box, text=text, block_id=i))
            words += _words(text, box, cjk)
            boxes.append(box)
        img.save(staged.staged_image_path(no, "png"))
        staged.add_page(Page(doc_id=doc.doc_id, page_no=no, width_pt=PAGE_W, height_pt=PAGE_H,
                             image=staged.image_relpath(no, "png"), image_width=int(PAGE_W),
                             image_height=int(PAGE_H), dpi=DPI, text="\n".join(texts),
                             text_source=TextSource.PDF, lang=lang, words=words, blocks=blocks,
                             file_name=doc.file_name))
        boxes_out.append(boxes)
    staged.commit()
    return boxes_out


def make_eval_corpus(folder: Path, n_docs: int = 10) -> tuple[Path, Path, list[Fact]]:
    """``(corpus dir, qa.jsonl, facts)`` under ``folder``: ``2 * n_docs`` English questions, two Chinese."""
    folder = Path(folder)
    corpus_dir, qa = folder / "corpus", folder / "qa.jsonl"
    corpus = Corpus.create(corpus_dir)
    facts: list[Fact] = []
    for d in range(n_docs):
        name = f"annual_report_{d:02d}"
        pages, page_facts = [], []
        for p in range(2):
            i = 2 * d + p
            company, metric = COMPANIES[i % len(COMPANIES)], METRICS[i % len(METRICS)]
            year, value = 2005 + i % 12, _value(i)
            peers = [(COMPANIES[(i + s) % len(COMPANIES)], METRICS[(i + s) % len(METRICS)], 2005 + (i + s) % 12)
                     for s in (3, 7)]
            pages.append([f"Annual review, section {p + 1}",
                          f"{company} reported {metric} of {value} million dollars in {year}.",
                          "Peers: " + "; ".join(f"{c} {m} {y}" for c, m, y in peers) + "."])
            page_facts.append((f"q{i:02d}", f"What {metric} did {company} report in {year}?",
                               f"{value} million dollars", CATEGORIES[i % 2]))
        boxes = _add_document(corpus, name, pages, "en")
        for p, (qid, question, answer, category) in enumerate(page_facts):
            facts.append(Fact(qid, question, answer, f"{name}.pdf", p + 1, boxes[p][1].coords, category, "en"))
    zh_pages = [[f"年度报告 第{n}页", text, "数据未经审计。"] for n, (_, _, text) in enumerate(ZH_FACTS, start=1)]
    boxes = _add_document(corpus, "nianbao", zh_pages, "zh")
    for n, (metric, answer, _) in enumerate(ZH_FACTS, start=1):
        facts.append(Fact(f"zh{n}", f"公司的{metric}是多少？", answer, "nianbao.pdf", n, boxes[n - 1][1].coords,
                          "text", "zh"))
    with open(qa, "w", encoding="utf-8") as fh:
        for f in facts:
            fh.write(json.dumps({"id": f.qid, "question": f.question, "answer": f.answer, "category": f.category,
                                 "lang": f.lang, "doc": f.doc, "pages": [f.page_no],
                                 "boxes": [{"page": f.page_no, "bbox": list(f.box)}], "answer_type": "numeric"},
                                ensure_ascii=False) + "\n")
    return corpus_dir, qa, facts
