"""docrag.corpus: creating, staging, committing, resuming, replacing and removing documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from docrag.corpus import Corpus
from docrag.errors import CorpusError
from docrag.types import Block, BlockKind, Document, Page, TextSource, Word


def _doc(doc_id: str, n_pages: int = 2, source: str = "/data/a.pdf") -> Document:
    return Document(doc_id=doc_id, file_name=Path(source).name, source_path=source, sha256=doc_id * 4,
                    n_pages=n_pages)


def _stage_page(staged, page_no: int, text: str = "hello") -> Page:
    path = staged.staged_image_path(page_no, "png")
    Image.new("RGB", (60, 80), (page_no * 40 % 255, 0, 0)).save(path)
    page = Page(doc_id=staged.document.doc_id, page_no=page_no, width_pt=30.0, height_pt=40.0,
                image=staged.image_relpath(page_no, "png"), image_width=60, image_height=80, dpi=144.0,
                text=text, text_source=TextSource.PDF, lang="en", file_name=staged.document.file_name)
    page.words = [Word("hello", page.box_pt(1, 2, 10, 6))]
    page.blocks = [Block(BlockKind.TEXT, page.box_pt(1, 2, 10, 6), "hello", block_id=0)]
    staged.add_page(page)
    return page


def _add(corpus: Corpus, doc: Document) -> None:
    staged = corpus.writer().begin(doc)
    for n in range(1, doc.n_pages + 1):
        _stage_page(staged, n, text=f"{doc.doc_id} page {n}")
    staged.commit()


def test_create_open_and_refuse_foreign_folders(tmp_path):
    root = tmp_path / "c"
    Corpus.create(root)
    assert json.loads((root / "corpus.json").read_text())["schema"] == "docrag.corpus"
    assert len(Corpus.open(root)) == 0
    with pytest.raises(CorpusError, match="not a docrag corpus"):
        Corpus.open(tmp_path / "missing")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "x.txt").write_text("x")
    with pytest.raises(CorpusError, match="not empty"):
        Corpus.create(foreign)


def test_newer_schema_is_refused(tmp_path):
    root = tmp_path / "c"
    Corpus.create(root)
    meta = json.loads((root / "corpus.json").read_text())
    meta["schema_version"] = 99
    (root / "corpus.json").write_text(json.dumps(meta))
    with pytest.raises(CorpusError, match="newer"):
        Corpus.open(root)


def test_commit_makes_pages_visible_with_geometry_and_images(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    _add(corpus, _doc("d1"))
    again = Corpus.open(tmp_path / "c")
    assert again.doc_ids() == ["d1"] and len(again) == 2
    assert again.page_ids() == ["d1:1", "d1:2"]
    page = again.page("d1:2")
    assert page.text == "d1 page 2" and page.root == again.root
    assert page.words[0].box.extent == (30.0, 40.0)
    assert page.blocks[0].kind is BlockKind.TEXT
    assert page.load_image().size == (60, 80)
    assert again.find_documents("a.pdf")[0].doc_id == "d1"
    assert again.find_documents("other.pdf") == []
    with pytest.raises(CorpusError, match="no page 3"):
        again.page("d1:3")
    with pytest.raises(CorpusError, match="no document"):
        again.page("zz:1")


def test_staged_document_is_invisible_until_commit(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    staged = corpus.writer().begin(_doc("d1"))
    _stage_page(staged, 1)
    assert Corpus.open(tmp_path / "c").doc_ids() == []
    with pytest.raises(CorpusError, match="cannot commit"):
        staged.commit()
    _stage_page(staged, 2)
    staged.commit()
    assert Corpus.open(tmp_path / "c").doc_ids() == ["d1"]
    assert not (tmp_path / "c" / ".staging" / "d1").exists()


def test_begin_resumes_staged_pages_and_ignores_torn_lines(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    staged = corpus.writer().begin(_doc("d1", n_pages=3))
    _stage_page(staged, 1)
    _stage_page(staged, 2)
    (staged.dir / "pages.partial.jsonl").open("a").write('{"doc_id": "d1", "page_')  # crash mid-write
    staged.images_dir.joinpath("p0002.png").unlink()  # record without its image: redo the page
    staged.images_dir.joinpath(".p0003.png.x1y2.tmp").write_bytes(b"half an image")  # killed mid-write
    resumed = Corpus.open(tmp_path / "c").writer().begin(_doc("d1", n_pages=3))
    assert resumed.done_pages() == {1}
    assert not list(resumed.images_dir.glob(".*.tmp"))
    _stage_page(resumed, 2)
    _stage_page(resumed, 3)
    resumed.commit()
    assert [p.page_no for p in Corpus.open(tmp_path / "c").pages()] == [1, 2, 3]


def test_abort_discards_staging(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    staged = corpus.writer().begin(_doc("d1"))
    _stage_page(staged, 1)
    staged.abort()
    assert not staged.dir.exists()
    assert corpus.writer().begin(_doc("d1")).done_pages() == set()


def test_changed_source_replaces_old_document(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    _add(corpus, _doc("old"))
    corpus.writer().record_failure("/data/a.pdf", "earlier failure")
    _add(corpus, _doc("new", n_pages=1))
    again = Corpus.open(tmp_path / "c")
    assert again.doc_ids() == ["new"]
    assert not (tmp_path / "c" / "docs" / "old").exists()
    assert again.manifest["sources"] == {"/data/a.pdf": "new"}
    assert again.failures() == []  # a success clears the file's earlier failure


def test_remove_failures_and_fingerprint(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    _add(corpus, _doc("d1"))
    fp1 = corpus.fingerprint()
    _add(corpus, _doc("d2", source="/data/b.pdf"))
    assert corpus.fingerprint() != fp1
    writer = corpus.writer()
    writer.remove("d2")
    assert corpus.fingerprint() == fp1
    assert not (tmp_path / "c" / "docs" / "d2").exists()
    writer.record_failure("/data/bad.pdf", "corrupt")
    writer.record_failure("/data/bad.pdf", "still corrupt")
    fails = Corpus.open(tmp_path / "c").failures()
    assert [(f["path"], f["reason"]) for f in fails] == [("/data/bad.pdf", "still corrupt")]


def test_manifest_rebuilt_from_docs_when_it_lags(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    _add(corpus, _doc("d1"))
    (tmp_path / "c" / "manifest.json").write_text(json.dumps(
        {"schema_version": 1, "documents": {}, "sources": {}, "failures": []}))
    again = Corpus.open(tmp_path / "c")
    assert again.doc_ids() == ["d1"]
    assert again.manifest["sources"] == {"/data/a.pdf": "d1"}


def test_missing_pages_file_is_reported(tmp_path):
    corpus = Corpus.create(tmp_path / "c")
    _add(corpus, _doc("d1"))
    (tmp_path / "c" / "docs" / "d1" / "pages.jsonl").unlink()
    with pytest.raises(CorpusError, match="damaged"):
        Corpus.open(tmp_path / "c").pages()
