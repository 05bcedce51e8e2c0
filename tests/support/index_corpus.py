"""Small corpora for index tests, written with the corpus writer (no PDF ingestion needed)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from docrag.corpus import Corpus
from docrag.types import Document, Page, TextSource


def add_text_document(corpus: Corpus, doc_id: str, texts: list[str], lang: str = "en") -> None:
    """Add a document whose pages carry ``texts`` (text layer and a rendered PNG of the text)."""
    writer = corpus.writer()
    doc = Document(doc_id=doc_id, file_name=f"{doc_id}.pdf", source_path=f"/src/{doc_id}.pdf", sha256=doc_id,
                   n_pages=len(texts))
    staged = writer.begin(doc)
    for no, text in enumerate(texts, 1):
        img = Image.new("RGB", (180, 240), "white")
        ImageDraw.Draw(img).text((8, 8 + 12 * no), text[:30], fill="black")
        img.save(staged.staged_image_path(no, "png"))
        staged.add_page(Page(doc_id=doc_id, page_no=no, width_pt=135, height_pt=180,
                             image=staged.image_relpath(no, "png"), image_width=180, image_height=240, dpi=96,
                             text=text, text_source=TextSource.PDF, lang=lang, file_name=doc.file_name))
    staged.commit()


def make_corpus(root: Path, docs: dict[str, list[str]]) -> Corpus:
    corpus = Corpus.create(root)
    for doc_id, texts in docs.items():
        add_text_document(corpus, doc_id, texts, lang="zh" if any("\u4e00" <= ch <= "\u9fff" for t in texts for ch in t)
                          else "en")
    return Corpus.open(root)


FINANCE_DOCS = {
    "alpha": ["Total revenue grew 12% in 2011 to 4.2 billion dollars", "Operating costs and employee salaries"],
    "beta": ["Abrasives production in the United States, 2010", "Arrests by offense category, 2009 table"],
    "gamma": ["总收入是多少 二零一一年 营业收入增长", "Household financial literacy survey results"],
}
