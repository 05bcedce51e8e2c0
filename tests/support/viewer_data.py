"""Small on-disk data for the viewer tests: a synthetic corpus, a tiny PDF and an evaluation run.

The corpus is written with the real :class:`~docrag.corpus.CorpusWriter` (no ingestion, no OCR),
so viewer tests do not depend on the rendering stack; the run directory is written by the real
evaluation runner (``docrag.eval.runner.Evaluator``) with a deterministic generator.
"""

from __future__ import annotations

import json
from pathlib import Path

from docrag.corpus import Corpus
from docrag.geometry import Box
from docrag.types import Answer, Block, BlockKind, Citation, Document, Hit, Page, TextSource, Word

PAGE_W, PAGE_H = 612.0, 792.0   # US letter, points
DPI = 72.0                      # 1 pixel per point keeps the images small

PAGES = {
    "alpha": ["Revenue grew to 42 million dollars in 2011.", "Costs fell by 3 percent."],
    "beta": ["Arrests for fraud totalled 1,200 in 2009.", "The table lists arrests by offense."],
}


def _page_image(path: Path, lines: list[str]) -> None:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (int(PAGE_W), int(PAGE_H)), "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((72, 100 + 200 * i), line, fill="black")
    img.save(path)


def _words(block: Block) -> list[Word]:
    """The block's words with boxes splitting the block's width in proportion to their length."""
    tokens = block.text.split()
    total = sum(len(t) + 1 for t in tokens)
    x, out = block.box.x0, []
    for t in tokens:
        w = block.box.width * (len(t) + 1) / total
        out.append(Word(t, Box.points(x, block.box.y0, x + w, block.box.y1, PAGE_W, PAGE_H)))
        x += w
    return out


def make_corpus(root: Path, pages: dict[str, list[str]] | None = None) -> Corpus:
    """A corpus of one-page documents (default ``alpha.pdf``, ``beta.pdf``) with text blocks."""
    corpus = Corpus.create(root)
    writer = corpus.writer()
    for name, lines in (pages or PAGES).items():
        doc = Document(doc_id=f"doc{name}", file_name=f"{name}.pdf", source_path=f"/src/{name}.pdf",
                       sha256=f"sha-{name}", n_pages=1)
        staged = writer.begin(doc)
        _page_image(staged.staged_image_path(1, "png"), lines)
        blocks = [Block(BlockKind.TEXT, Box.points(72, 100 + 200 * i, 400, 130 + 200 * i, PAGE_W, PAGE_H),
                        text=line, block_id=i) for i, line in enumerate(lines)]
        words = [w for b in blocks for w in _words(b)]
        staged.add_page(Page(doc_id=doc.doc_id, page_no=1, width_pt=PAGE_W, height_pt=PAGE_H,
                             image=staged.image_relpath(1, "png"), image_width=int(PAGE_W),
                             image_height=int(PAGE_H), dpi=DPI, text="\n".join(lines),
                             text_source=TextSource.PDF, lang="en", words=words, blocks=blocks,
                             file_name=doc.file_name))
        staged.commit()
    return Corpus.open(root)


def make_pdf(path: Path, text: str = "Uploaded report: net income was 7 million.") -> Path:
    """A one-page born-digital PDF."""
    import pymupdf

    with pymupdf.open() as doc:
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        page.insert_text((72, 100), text, fontsize=12)
        doc.save(path)
    return path


def answer_for(question: str, page: Page) -> Answer:
    """An answer citing the first block of ``page`` (what an extractive generator would return)."""
    block = page.blocks[0]
    return Answer(question=question, answer=block.text, citations=[Citation(page.page_id, [block.box], 1)],
                  hits=[Hit(page.page_id, 3.5, 1, "fixed")], raw=json.dumps({"answer": block.text}),
                  generator="fixed", retriever="fixed")


class FirstBlockGenerator:
    """A deterministic generator: answers with the first text block of the top page and cites it
    (or, for questions in ``cite_wrong_block``, cites the page's last block instead).

    Lets the real evaluation runner write a run in a second instead of loading a text model."""

    name = "first-block"

    def __init__(self, cite_wrong_block: set[str] = frozenset()) -> None:
        self.cite_wrong_block = set(cite_wrong_block)

    def generate(self, question: str, pages) -> Answer:
        if not pages:
            return Answer(question=question, answer="", raw="{}", generator=self.name)
        ans = answer_for(question, pages[0])
        if question in self.cite_wrong_block:
            ans.citations[0].boxes = [pages[0].blocks[-1].box]
        ans.hits, ans.generator = [], self.name
        ans.raw = json.dumps({"answer": ans.answer, "coordinates": {"1": [ans.citations[0].boxes[0].to_list()]}})
        return ans


QUESTIONS = [  # (qid, question, gold answer, category, lang, gold page)
    ("q1", "What was revenue in 2011?", "42 million dollars", "text", "en", "docalpha:1"),
    ("q2", "How many arrests for fraud in 2009?", "1,200", "table", "en", "docbeta:1"),
    # worded like the alpha page, so bm25 with k=1 misses the gold page: a retrieval miss, and the
    # generator cites a block that does not hold its answer: citation recall 0
    ("q3", "By how many percent did costs fall?", "1,200 arrests", "table", "zh", "docbeta:1"),
]
WRONG_CITATION = {QUESTIONS[2][1]}


def make_run(run_dir: Path, corpus: Corpus) -> Path:
    """A three-question run written by the real evaluation runner (bm25, k=1, grounding judge)."""
    from docrag.eval.data import GoldBox, QAItem
    from docrag.eval.runner import EvalConfig, Evaluator

    items = []
    for qid, question, gold, category, lang, pid in QUESTIONS:
        page = corpus.page(pid)
        items.append(QAItem(qid, question, gold, category, lang, "short", [pid], [GoldBox(pid, page.blocks[0].box)]))
    config = EvalConfig(retriever="bm25", generator="first-block", judge="grounding", k=1)
    Evaluator(corpus, items, run_dir, config, show_progress=False, generator=FirstBlockGenerator(WRONG_CITATION)).run()
    return run_dir
