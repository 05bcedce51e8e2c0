"""The viewer ingests uploads in a child process: other requests are answered meanwhile."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.support.viewer_data import FirstBlockGenerator, make_corpus, make_pdf


def test_viewer_answers_other_requests_during_a_slow_upload(tmp_path: Path) -> None:
    from docrag.apps.viewer import Viewer
    from docrag.apps.viewer_upload import ChildProcessIngest, Uploader
    from docrag.pipeline import RAG

    corpus = make_corpus(tmp_path / "corpus")
    viewer = Viewer(corpus, upload_dir=tmp_path / "uploads", k=2, rag_factory=lambda c, r, g: RAG(
        c, retriever=r, generator=FirstBlockGenerator(), index_dir=tmp_path / "index", show_progress=False))
    # the slow ingest holds its process's GIL for 3 s (as MuPDF does on a hostile page)
    viewer.uploader = Uploader(corpus, tmp_path / "uploads",
                               ingest=ChildProcessIngest("tests.support.slow_ingest:ingest"))
    viewer.ask("What was revenue?", "bm25", "first-block")   # warm: index built
    (tmp_path / "in").mkdir()
    pdf = make_pdf(tmp_path / "in" / "income.pdf")
    out: list[str] = []
    t = threading.Thread(target=lambda: out.append(viewer.upload([str(pdf)])))
    t.start()
    time.sleep(1.0)   # the child is now inside its GIL-holding part
    latencies = []
    for _ in range(5):
        t0 = time.perf_counter()
        res = viewer.ask("What was revenue?", "bm25", "first-block")
        info = viewer.corpus_info()
        latencies.append(time.perf_counter() - t0)
        assert res.citation_rows and "document(s)" in info
    assert t.is_alive(), "the upload finished before the other requests were timed"
    assert max(latencies) < 0.5, latencies
    t.join(timeout=120)
    assert out == ["added income.pdf"]
    assert "income.pdf" in viewer.corpus_info()
