"""Interrupted ingests resume to the same corpus; bad inputs are reported and leave nothing behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from docrag.corpus import Corpus
from docrag.ingestion import ingest
from tests.support.pdfs import make_bad_files, make_text_pdf

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(out: Path) -> dict[str, bytes]:
    """Every visible file of a corpus except its bookkeeping (timestamps differ between runs)."""
    skip = {"corpus.json", "manifest.json"}
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "docs").rglob("*"))
            if p.is_file() and p.name not in skip}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    make_text_pdf(folder / "a.pdf", "Alpha report.", n_pages=5)
    make_text_pdf(folder / "b.pdf", "Beta report.", n_pages=3)
    clean = tmp_path_factory.mktemp("clean") / "c"
    ingest([folder], out=clean, show_progress=False)
    return folder, clean


@pytest.mark.slow
def test_run_stopped_by_a_page_hook_resumes_to_the_same_corpus(tmp_path, inputs):
    folder, clean = inputs
    out = tmp_path / "c"
    seen = []

    def stop_after_three(doc, page):
        seen.append((doc.file_name, page.page_no))
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest([folder], out=out, show_progress=False, on_page=stop_after_three)
    assert Corpus.open(out).doc_ids() == []  # nothing half-written is visible
    staged = list((out / ".staging").iterdir())
    assert len(staged) == 1 and (staged[0] / "pages.partial.jsonl").exists()

    resumed_pages = []
    report = ingest([folder], out=out, show_progress=False,
                    on_page=lambda doc, page: resumed_pages.append((doc.file_name, page.page_no)))
    assert resumed_pages[:2] == [("a.pdf", 4), ("a.pdf", 5)]  # pages 1-3 were not redone
    assert len(report.added) == 2 and report.n_pages == 8
    assert _snapshot(out) == _snapshot(clean)
    assert not (out / ".staging").exists()  # an empty staging folder is removed at the end


@pytest.mark.slow
def test_killed_process_resumes_to_the_same_corpus(tmp_path, inputs):
    folder, clean = inputs
    out = tmp_path / "c"
    script = textwrap.dedent(f"""
        import os, signal
        from docrag.ingestion import ingest
        count = 0
        def hook(doc, page):
            global count
            count += 1
            if count == 4:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no exception handlers
        ingest([{str(folder)!r}], out={str(out)!r}, show_progress=False, on_page=hook)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert Corpus.open(out).doc_ids() == []
    report = ingest([folder], out=out, show_progress=False)
    assert report.failures == [] and len(report.added) == 2
    assert _snapshot(out) == _snapshot(clean)


def test_bad_files_are_reported_and_good_ones_land(tmp_path):
    folder = tmp_path / "in"
    bad = make_bad_files(folder)
    good = make_text_pdf(folder / "good.pdf", "Good file.", n_pages=2)
    (folder / ".hidden.pdf").write_bytes(b"not looked at")
    out = tmp_path / "c"
    report = ingest([folder, tmp_path / "missing.pdf"], out=out, show_progress=False)
    failed = {Path(p).name: reason for p, reason in report.failures}
    assert set(failed) == {p.name for p in bad.values()} | {"missing.pdf"}
    expect = {"not_pdf": "unsupported file type", "fake_pdf": "not a PDF", "truncated": "no pages",
              "corrupt": "corrupt", "encrypted": "encrypted", "zero_pages": "no pages",
              "absurd_size": "absurd size", "bad_image": "corrupt or truncated image"}
    for kind, needle in expect.items():
        assert needle in failed[bad[kind].name], (kind, failed[bad[kind].name])
    assert "no such file" in failed["missing.pdf"]
    corpus = Corpus.open(out)
    assert [d.file_name for d in corpus.documents()] == [good.name] and len(corpus) == 2
    assert {Path(f["path"]).name for f in corpus.failures()} == set(failed)
    assert not (out / ".staging").exists()  # nothing of a failed file is kept


def test_truncated_pdf_that_mupdf_repairs_keeps_its_readable_pages(tmp_path):
    """A PDF cut short after its page content still opens (MuPDF repairs the xref): good pages land."""
    pdf = make_text_pdf(tmp_path / "cut.pdf", "Readable page.", n_pages=2)
    data = pdf.read_bytes()
    pdf.write_bytes(data[: data.rindex(b"xref")])  # drop the cross-reference table and trailer
    report = ingest(pdf, out=tmp_path / "c", show_progress=False)
    assert report.failures == []
    pages = Corpus.open(tmp_path / "c").pages()
    assert len(pages) == 2 and "Readable page. Page 2." in pages[1].text


def test_ingesting_into_a_foreign_folder_is_refused(tmp_path):
    from docrag.errors import CorpusError

    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    pdf = make_text_pdf(tmp_path / "a.pdf")
    with pytest.raises(CorpusError, match="not empty"):
        ingest(pdf, out=tmp_path / "out", show_progress=False)
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_output_inside_input_folder_is_not_ingested(tmp_path):
    make_text_pdf(tmp_path / "a.pdf")
    out = tmp_path / "corpus"
    ingest([tmp_path], out=out, show_progress=False)
    report = ingest([tmp_path], out=out, show_progress=False)  # the corpus's PNGs are not inputs
    assert report.failures == [] and report.added == [] and len(report.skipped) == 1


@pytest.mark.slow
def test_worker_pool_gives_the_same_corpus_and_resumes(tmp_path):
    import pymupdf

    from tests.support.pdfs import make_sample_pdf

    sample = make_sample_pdf(tmp_path / "sample.pdf")
    (tmp_path / "in").mkdir()
    with pymupdf.open(sample.path) as src:  # 12 pages: enough to start the pool
        doc = pymupdf.open()
        doc.insert_pdf(src)
        doc.insert_pdf(src)
        doc.save(tmp_path / "in" / "twice.pdf")
    serial = tmp_path / "serial"
    ingest([tmp_path / "in"], out=serial, show_progress=False, workers=1, ocr="never")
    pooled = tmp_path / "pooled"
    count = []

    def stop(doc, page):
        count.append(page.page_no)
        if len(count) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest([tmp_path / "in"], out=pooled, show_progress=False, workers=2, ocr="never", on_page=stop)
    assert Corpus.open(pooled).doc_ids() == []
    report = ingest([tmp_path / "in"], out=pooled, show_progress=False, workers=2, ocr="never")
    assert report.failures == [] and report.n_pages == 12
    assert _snapshot(pooled) == _snapshot(serial)


def test_a_second_concurrent_ingest_is_refused(tmp_path):
    from docrag.errors import CorpusError

    pdf = make_text_pdf(tmp_path / "a.pdf")
    out = tmp_path / "c"
    Corpus.create(out)
    script = textwrap.dedent(f"""
        import fcntl, sys, time
        fh = open({str(out / ".lock")!r}, "a+")
        fcntl.lockf(fh.fileno(), fcntl.LOCK_EX)  # what a running ingest holds
        print("locked", flush=True)
        time.sleep(60)
    """)
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(CorpusError, match="another 'docrag ingest'"):
            ingest(pdf, out=out, show_progress=False)
    finally:
        holder.kill()
        holder.wait()
    assert ingest(pdf, out=out, show_progress=False).added == [str(pdf.resolve())]
