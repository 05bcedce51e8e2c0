"""kill -9 at awkward moments: an index rebuild, an ingest with a worker mid-page, an eval mid-run.
Each leaves a loadable state and the next run resumes to the result of an uninterrupted one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import docrag.index as di
from docrag.corpus import Corpus
from docrag.ingestion import ingest
from tests.support.fuzz_pdfs import heavy_pdf
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.pdfs import make_text_pdf

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("where", ["_add_segment", "finish_rebuild"])
def test_killed_rebuild_leaves_the_previous_index_loadable(tmp_path, where):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    idx = di.open_index(corpus, "bm25", show_progress=False)
    before = [h.page_id for h in idx.search("abrasives revenue", k=5)]
    proc = _run(f"""
        import os, signal
        from docrag.corpus import Corpus
        from docrag.index import open_index, store
        def die(*a, **k):
            os.kill(os.getpid(), signal.SIGKILL)
        setattr(store.PageIndex, {where!r}, die)
        open_index(Corpus.open({str(tmp_path / "corpus")!r}), "bm25", rebuild=True, show_progress=False)
    """)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    old = di.open_index(Corpus.open(tmp_path / "corpus"), "bm25", build=False, show_progress=False)
    assert [h.page_id for h in old.search("abrasives revenue", k=5)] == before
    rebuilt = di.open_index(Corpus.open(tmp_path / "corpus"), "bm25", rebuild=True, show_progress=False)
    assert [h.page_id for h in rebuilt.search("abrasives revenue", k=5)] == before
    assert len(list((rebuilt.dir / "segments").iterdir())) == len(rebuilt.manifest["segments"])


def _marked_processes(marker: str) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if marker.encode() in (d / "cmdline").read_bytes():
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


@pytest.mark.slow
def test_killed_ingest_with_a_worker_mid_page_leaves_no_worker_and_resumes(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    make_text_pdf(folder / "a.pdf", "First file.", n_pages=3)
    (folder / "b.pdf").write_bytes(heavy_pdf(60_000))   # a worker is busy on it when the kill comes
    make_text_pdf(folder / "c.pdf", "Last file.", n_pages=2)
    clean = ingest([folder], out=tmp_path / "clean", show_progress=False, ocr="never", workers=2, page_timeout=0)
    marker = f"docrag-kill-marker-{os.getpid()}"
    proc = _run(f"""
        # {marker}
        import os, signal, threading
        from docrag.ingestion import ingest
        def hook(doc, page):
            if doc.file_name == "a.pdf" and page.page_no == 3:   # then b.pdf starts in a worker
                threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGKILL)).start()
        ingest([{str(folder)!r}], out={str(tmp_path / "c")!r}, show_progress=False, ocr="never", workers=2,
               page_timeout=0, on_page=hook)
    """)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    deadline = time.time() + 10
    while _marked_processes(marker) and time.time() < deadline:
        time.sleep(0.2)
    assert _marked_processes(marker) == []   # orphaned workers noticed their parent died and exited
    report = ingest([folder], out=tmp_path / "c", show_progress=False, ocr="never", workers=2, page_timeout=0)
    assert report.failures == [] and len(clean.added) == 3
    a, b = Corpus.open(tmp_path / "clean"), Corpus.open(tmp_path / "c")
    assert [p.to_json() for p in a.pages()] == [p.to_json() for p in b.pages()]


@pytest.fixture()
def small_corpus(tmp_path):
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    words = ("alpha", "bravo", "charlie", "delta", "echo")
    for i, w in enumerate(words):
        make_text_pdf(pdfs / f"{w}.pdf", f"The {w} revenue was {i + 10} million.", n_pages=1)
    ingest([pdfs], out=tmp_path / "corpus", ocr="never", show_progress=False, workers=1)
    (tmp_path / "qa.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "question": f"What was the {w} revenue?", "answer": f"{i + 10} million",
                    "doc": f"{w}.pdf", "pages": [1]}) + "\n" for i, w in enumerate(words)), encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_killed_eval_resumes_asking_only_the_unanswered_questions(small_corpus, tmp_path):
    def answer(req):
        text = json.dumps(req)
        word = next(w for w in ("alpha", "bravo", "charlie", "delta", "echo") if w in text)
        return json.dumps({"answer": f"{word} answer", "coordinates": {"1": [[0, 0, 200, 100]]}})

    cfg = tmp_path / "docrag.toml"

    def run(out, srv, kill_after=None):
        cfg.write_text(f'[openai]\nbase_url = "{srv.base_url}"\nmax_retries = 0\n')
        env = {**os.environ, "DOCRAG_CONFIG": str(cfg), "OPENAI_API_KEY": "x"}
        args = [sys.executable, "-c", "from docrag.apps.cli import main; main()", "eval",
                str(small_corpus / "corpus"), "--qa", str(small_corpus / "qa.jsonl"), "--out", str(out),
                "--retriever", "bm25", "--generator", "openai:m", "--judge", "none", "--answer-judge", "proxy",
                "-k", "2", "--no-progress"]
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        if kill_after is not None:
            while len(srv.requests) < kill_after and proc.poll() is None:
                time.sleep(0.01)
            time.sleep(0.05)
            proc.kill()
        _, err = proc.communicate(timeout=300)
        return proc.returncode, err

    with ScriptedOpenAIServer(answer) as srv:
        code, err = run(tmp_path / "clean", srv)
        assert code == 0, err
    with ScriptedOpenAIServer(answer) as srv:
        code, _ = run(tmp_path / "run", srv, kill_after=3)
        assert code == -signal.SIGKILL
    answered = (tmp_path / "run" / "answers.jsonl").read_text(encoding="utf-8").count("\n")  # whole records
    with ScriptedOpenAIServer(answer) as srv:
        code, err = run(tmp_path / "run", srv)
        asked = len(srv.requests)
    assert code == 0, err
    assert asked == 5 - answered
    clean = json.loads((tmp_path / "clean" / "report.json").read_text(encoding="utf-8"))
    resumed = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    assert resumed["generation"] == clean["generation"] and resumed["errors"]["n"] == 0
