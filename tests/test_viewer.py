"""The viewer's logic without a browser: drawing, uploads, run records, pipeline cache, CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from docrag.geometry import Box
from tests.support.viewer_data import FirstBlockGenerator, make_corpus, make_pdf, make_run


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("viewer") / "corpus").root


@pytest.fixture
def corpus(corpus_dir: Path, tmp_path: Path):
    """A private copy of the synthetic corpus (tests may change it)."""
    from docrag.corpus import Corpus

    return Corpus.open(shutil.copytree(corpus_dir, tmp_path / "corpus"))


@pytest.fixture(scope="module")
def run_dir(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from docrag.corpus import Corpus

    return make_run(tmp_path_factory.mktemp("viewer-run") / "run", Corpus.open(corpus_dir))


# -- drawing --------------------------------------------------------------------------------------

def test_draw_boxes_maps_points_onto_the_image_pixels() -> None:
    from PIL import Image

    from docrag.apps.viewer_render import GOLD_COLOR, PRED_COLOR, StyledBox, crop_box, draw_boxes

    img = Image.new("RGB", (1224, 1584), "white")        # a 612x792 pt page rendered at 144 dpi
    pred = Box.points(100, 200, 300, 400, 612, 792)       # -> pixels (200, 400, 600, 800)
    gold = Box.norm(0.5, 0.5, 0.75, 0.75)                 # -> pixels (612, 792, 918, 1188)
    out = draw_boxes(img, [StyledBox(pred, PRED_COLOR, "1"), StyledBox(gold, GOLD_COLOR, dashed=True)])
    assert out.size == img.size
    assert out.getpixel((200, 600)) == PRED_COLOR           # left edge of the predicted box
    assert out.getpixel((600, 600)) == PRED_COLOR           # right edge
    inside = out.getpixel((400, 600))
    assert inside != (255, 255, 255) and inside[0] > inside[1]   # translucent red fill
    assert out.getpixel((150, 600)) == (255, 255, 255)      # outside: untouched
    assert out.getpixel((613, 1000)) == GOLD_COLOR          # gold box's left edge
    assert img.getpixel((200, 600)) == (255, 255, 255)      # the input image is not modified
    crop = crop_box(img, pred, margin_px=0)
    assert crop is not None and crop.size == (400, 400)
    assert crop_box(img, Box.points(700, 800, 900, 900, 612, 792)) is None   # outside the page


def test_annotate_page_and_crops_use_the_stored_page_image(corpus) -> None:
    from docrag.apps.viewer_render import PRED_COLOR, annotate_page, page_crops

    page = corpus.page("docalpha:1")
    box = page.blocks[0].box
    img = annotate_page(page, predicted=[box])
    assert img.size == (page.image_width, page.image_height)
    assert img.getpixel((int(box.x0), int((box.y0 + box.y1) / 2))) == PRED_COLOR
    crops = page_crops(page, [box, page.blocks[1].box])
    assert len(crops) == 2 and crops[0].width == pytest.approx(box.width + 8, abs=2)


# -- uploads --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "safe"), [
    ("report.pdf", "report.pdf"),
    ("../../etc/passwd.PDF", "passwd.pdf"),
    ("C:\\Users\\me\\Annual Report (2011).pdf", "Annual_Report_2011.pdf"),
    ("Bilanz_Übersicht.pdf", "Bilanz_Ubersicht.pdf"),
    ("年报.pdf", "upload.pdf"),
    (".hidden.pdf", "hidden.pdf"),
    ("a" * 300 + ".pdf", "a" * 116 + ".pdf"),
])
def test_safe_file_name(name: str, safe: str) -> None:
    from docrag.apps.viewer_upload import safe_file_name

    assert safe_file_name(name) == safe


def test_check_upload_rejects_bad_files_with_a_reason(tmp_path: Path) -> None:
    import pymupdf

    from docrag.apps.viewer_upload import UploadPolicy, check_upload

    policy = UploadPolicy(max_bytes=20_000)
    good = make_pdf(tmp_path / "good.pdf")
    assert check_upload(good, "good.pdf", policy) is None
    assert "not accepted" in check_upload(good, "good.exe", policy)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    assert check_upload(empty, "empty.pdf", policy) == "file is empty"
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b"0" * 30_000)
    assert "limit" in check_upload(big, "big.pdf", policy)
    text = tmp_path / "notes.pdf"
    text.write_text("just text")
    assert "not a PDF" in check_upload(text, "notes.pdf", policy)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n garbage without objects")
    assert "cannot be read" in check_upload(broken, "broken.pdf", policy) or \
        "no pages" in check_upload(broken, "broken.pdf", policy)
    locked = tmp_path / "locked.pdf"
    with pymupdf.open(good) as doc:
        doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    assert "password" in check_upload(locked, "locked.pdf", policy)


def test_uploader_adds_good_pdfs_and_leaves_the_corpus_intact_on_bad_ones(corpus, tmp_path: Path) -> None:
    from docrag.apps.viewer_upload import Uploader, UploadPolicy

    before = corpus.doc_ids()
    manifest_before = (corpus.root / "manifest.json").read_text()
    up = Uploader(corpus, tmp_path / "uploads", UploadPolicy(max_files=3))
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"<html>not a pdf</html>")
    res = up.add([(bad, "bad.pdf")])
    assert res.added == [] and res.rejected[0][0] == "bad.pdf"
    assert corpus.doc_ids() == before
    assert (corpus.root / "manifest.json").read_text() == manifest_before
    assert not (tmp_path / "uploads" / "bad.pdf").exists()

    (tmp_path / "in").mkdir()
    good = make_pdf(tmp_path / "in" / "Q1 report.pdf")
    res = up.add([(good, "Q1 report.pdf"), (bad, "bad.pdf")])
    assert res.added == ["Q1_report.pdf"] and [n for n, _ in res.rejected] == ["bad.pdf"]
    assert len(corpus.doc_ids()) == len(before) + 1
    new_doc = corpus.find_documents("Q1_report.pdf")[0]
    assert "net income" in corpus.pages([new_doc.doc_id])[0].text
    # the same content again: reported, not duplicated; another file with the same name: renamed
    assert up.add([(good, "Q1 report.pdf")]).already == ["Q1 report.pdf"]
    other = make_pdf(tmp_path / "in" / "other.pdf", text="Different content entirely.")
    assert up.add([(other, "Q1 report.pdf")]).added == ["Q1_report-2.pdf"]
    assert len(corpus.doc_ids()) == len(before) + 2
    too_many = up.add([(good, f"{i}.pdf") for i in range(4)])
    assert not too_many.added and all("too many" in r for _, r in too_many.rejected)


# -- runs -----------------------------------------------------------------------------------------

def test_load_run_reads_the_runner_records(run_dir: Path, corpus_dir: Path) -> None:
    from docrag.apps import viewer_runs as runs
    from docrag.corpus import Corpus

    run = runs.load_run(run_dir, Corpus.open(corpus_dir))
    assert [r.qid for r in run.records] == ["q1", "q2", "q3"]
    q1, q3 = run.record("q1"), run.record("q3")
    assert q1.correct is True and q1.retrieval_miss is False and q1.gold_rank == 1
    assert q3.correct is False and q3.retrieval_miss is True and q3.stage == "retrieval_miss"
    assert q1.citation_score("block", "recall") == 1.0 and q3.citation_score("block", "recall") == 0.0
    assert q3.gold_pages == ["docbeta:1"] and q3.gold_boxes[0].page_id == "docbeta:1"
    assert q3.pages_to_show() == ["docbeta:1", "docalpha:1"]
    assert q3.predicted_boxes("docalpha:1") and not q3.predicted_boxes("docbeta:1")
    assert any(v["verdict"] == "no" for v in q3.verdicts)
    assert not run.problems
    rows = runs.table_rows(run.records)
    assert rows[2][:7] == ["q3", "table", "zh", "no", "no", "yes", ""]  # correct, cited gold page, miss, rank
    assert rows[0][3:5] == ["yes", "yes"]
    assert "grounding" in runs.summary_markdown(run)


def test_filter_records(run_dir: Path, corpus_dir: Path) -> None:
    from docrag.apps import viewer_runs as runs
    from docrag.corpus import Corpus

    recs = runs.load_run(run_dir, Corpus.open(corpus_dir)).records

    def ids(**kw) -> list[str]:
        return [r.qid for r in runs.filter_records(recs, **kw)]

    assert ids() == ["q1", "q2", "q3"]
    assert ids(category="table") == ["q2", "q3"]
    assert ids(lang="zh") == ["q3"]
    assert ids(correct=runs.YES) == ["q1", "q2"]
    assert ids(retrieval_miss=runs.YES) == ["q3"]
    assert ids(citation_recall=(0.0, 0.5)) == ["q3"]
    assert ids(citation_precision=(1.0, 1.0)) == ["q1", "q2"]
    assert ids(stage="correct") == ["q1", "q2"]
    assert ids(text="ARRESTS") == ["q2"]
    assert ids(category="table", correct=runs.YES) == ["q2"]


def test_load_run_errors_and_torn_last_line(tmp_path: Path, run_dir: Path) -> None:
    from docrag.apps.viewer_runs import load_run
    from docrag.errors import InputError

    with pytest.raises(InputError, match="not found"):
        load_run(tmp_path / "missing")
    with pytest.raises(InputError, match="generations.jsonl"):
        load_run(tmp_path)
    torn = shutil.copytree(run_dir, tmp_path / "torn")
    with open(torn / "generations.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"qid": "q4", "question": "half a rec')
    assert [r.qid for r in load_run(torn).records] == ["q1", "q2", "q3"]


def test_run_detail_shows_gold_and_predicted_pages(run_dir: Path, corpus) -> None:
    from docrag.apps.viewer import Viewer
    from docrag.apps.viewer_render import GOLD_COLOR, PRED_COLOR

    viewer = Viewer(corpus, allow_upload=False)
    run = viewer.load_run(run_dir)
    assert viewer.load_run(run_dir) is run   # cached until generations.jsonl changes
    d = viewer.run_detail(run, "q3")
    assert [cap.split(" ")[0] for _, cap in d["pages"]] == ["beta.pdf", "alpha.pdf"]
    gold_img, cited_img = d["pages"][0][0], d["pages"][1][0]
    gold_box = corpus.page("docbeta:1").blocks[0].box
    assert gold_img.getpixel((int(gold_box.x0) + 1, int(gold_box.y1))) == GOLD_COLOR
    cited_box = corpus.page("docalpha:1").blocks[-1].box
    assert cited_img.getpixel((int(cited_box.x0), int((cited_box.y0 + cited_box.y1) / 2))) == PRED_COLOR
    assert len(d["crops"]) == 2
    assert "1,200 arrests" in d["markdown"] and "Revenue grew" in d["raw"]


# -- asking ---------------------------------------------------------------------------------------

def test_pipeline_cache_builds_once_per_pair_and_asks_render(corpus) -> None:
    from docrag.apps.viewer import Viewer
    from docrag.pipeline import RAG

    built: list[tuple[str, str]] = []

    def factory(c, retriever: str, generator: str):
        built.append((retriever, generator))
        return RAG(c, retriever=retriever, generator=FirstBlockGenerator(), show_progress=False)

    viewer = Viewer(corpus, rag_factory=factory, allow_upload=False, k=2)
    t0 = time.perf_counter()
    first = viewer.ask("What was revenue in 2011?", "bm25", "first-block")
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    second = viewer.ask("How many arrests for fraud?", "bm25", "first-block")
    warm = time.perf_counter() - t0
    assert built == [("bm25", "first-block")]
    assert warm < max(cold, 0.5)
    assert first.answer.answer.startswith("Revenue grew") and second.answer.answer.startswith("Arrests")
    assert first.citation_rows[0][1:4] == ["alpha.pdf", "1", "[72, 100, 400, 130]"]
    assert [row[4] for row in first.hit_rows][0] == "yes"   # the top hit is the cited page
    assert len(first.cited_pages) == 1 and len(first.crops) == 1
    assert len(first.retrieved) == len(first.answer.hits) >= 1
    viewer.ask("Anything?", "dummy", "first-block")
    assert len(viewer.pipelines) == 2
    viewer.pipelines.clear()
    viewer.ask("Anything?", "dummy", "first-block")
    assert built[-1] == ("dummy", "first-block") and len(built) == 3


def test_ask_with_judge_fills_verdicts_and_reports_errors(corpus) -> None:
    from docrag.apps.viewer import Viewer
    from docrag.pipeline import RAG

    viewer = Viewer(corpus, allow_upload=False, k=1, rag_factory=lambda c, r, g: RAG(
        c, retriever=r, generator=FirstBlockGenerator(), show_progress=False))
    res = viewer.ask("What was revenue in 2011?", "bm25", "first-block", judge="grounding")
    assert res.citation_rows[0][4] == "relevant"
    assert res.verdict_rows[0][:2] == ["page: all 1 unit(s)", "yes"]
    assert "Judge grounding" in res.status and "block recall 100%" in res.status
    assert viewer.ask("   ", "bm25", "x").status == "Type a question first."
    bad = viewer.ask("What?", "no-such-retriever", "first-block")
    assert bad.answer is None and "unknown retriever" in bad.status
    assert "unknown judge" in viewer.ask("What was revenue?", "bm25", "first-block", judge="nope").status


def test_uploaded_pdf_is_searchable_on_the_next_question(corpus, tmp_path: Path) -> None:
    from docrag.apps.viewer import Viewer
    from docrag.pipeline import RAG

    viewer = Viewer(corpus, upload_dir=tmp_path / "uploads", k=3, rag_factory=lambda c, r, g: RAG(
        c, retriever=r, generator=FirstBlockGenerator(), index_dir=tmp_path / "index", show_progress=False))
    assert "alpha.pdf" in viewer.ask("What was revenue?", "bm25", "first-block").citation_rows[0][1]
    assert viewer.upload([str(make_pdf(tmp_path / "income.pdf"))]) == "added income.pdf"
    assert len(viewer.pipelines) == 0 and "3 document(s)" in viewer.corpus_info()
    res = viewer.ask("What was the net income?", "bm25", "first-block")
    assert res.hit_rows[0][2] == "income.pdf"
    assert viewer.upload(None).startswith("Choose")
    assert viewer.ask("What?", "", "first-block").status.startswith("Choose a retriever")


def test_build_app_has_the_documented_element_ids(corpus, run_dir: Path) -> None:
    import gradio as gr

    from docrag.apps.viewer import build_app

    app = build_app(corpus, run_dir, retriever="bm25", generator="extractive")
    assert isinstance(app, gr.Blocks)
    ids = {getattr(b, "elem_id", None) for b in app.blocks.values()}
    for elem_id in ("question", "ask", "answer", "citations", "cited-pages", "crops", "hits", "verdicts",
                    "upload", "upload-button", "run-table", "run-question", "run-pages", "run-raw",
                    "filter-category", "filter-lang", "filter-correct", "filter-miss",
                    "filter-citation-recall", "filter-citation-precision"):
        assert elem_id in ids, elem_id
    assert app.docrag_viewer.uploader is not None


# -- CLI ------------------------------------------------------------------------------------------

def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docrag.apps.cli", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def test_cli_view_rejects_a_folder_that_is_not_a_run(corpus, tmp_path: Path) -> None:
    res = _cli("view", str(corpus.root), "--run", str(tmp_path))
    assert res.returncode == 2 and "generations.jsonl" in res.stderr
    res = _cli("view", str(tmp_path / "nope"))
    assert res.returncode == 1 and "not a docrag corpus" in res.stderr


NET_HOOK = """
import os, sys
log = open(os.environ["NET_LOG"], "a", buffering=1)
def hook(event, args):
    if event == "socket.getaddrinfo":
        log.write(f"lookup {args[0]}\\n")
    elif event == "socket.connect" and isinstance(args[1], tuple):
        log.write(f"connect {args[1][0]}\\n")
sys.addaudithook(hook)
sys.argv = ["docrag", *sys.argv[1:]]
from docrag.apps.cli import main
main()
"""
LOCAL = {"127.0.0.1", "localhost", "::1", "b'127.0.0.1'", "b'localhost'"}


def test_cli_view_serves_the_app_and_connects_nowhere_else(corpus, run_dir: Path, tmp_path: Path) -> None:
    """`docrag view --port 0` serves the page; an audit hook sees only local lookups/connections."""
    net_log = tmp_path / "net.log"
    env = {**os.environ, "NET_LOG": str(net_log)}
    env.pop("GRADIO_ANALYTICS_ENABLED", None)   # the CLI itself must switch analytics off
    proc = subprocess.Popen([sys.executable, "-c", NET_HOOK, "view", str(corpus.root), "--run", str(run_dir),
                             "--port", "0", "--retriever", "bm25"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        deadline = time.monotonic() + 90
        url = None
        lines = []
        while time.monotonic() < deadline and url is None:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            lines.append(line)
            m = re.search(r"running at (http://127\.0\.0\.1:\d+/?)", line)
            url = m.group(1) if m else None
        assert url, "".join(lines)
        with urllib.request.urlopen(url, timeout=30) as resp:
            html = resp.read().decode()
        assert resp.status == 200 and "docrag viewer" in html
        with urllib.request.urlopen(url.rstrip("/") + "/config", timeout=30) as resp:
            config = json.loads(resp.read())
        assert config.get("analytics_enabled") is False
        time.sleep(1.0)   # let any background thread (analytics, update check) try its luck
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    hosts = {line.split(" ", 1)[1].strip() for line in net_log.read_text().splitlines() if " " in line}
    assert hosts and hosts <= LOCAL, hosts


# -- limits ---------------------------------------------------------------------------------------

def test_viewer_refuses_long_questions_and_large_k_and_stops_at_the_time_budget(corpus) -> None:
    from docrag.apps.viewer import Viewer, build_app
    from docrag.config import ServeLimits
    from docrag.pipeline import RAG
    from tests.support.slow_server import SlowGenerator

    limits = ServeLimits(max_question_chars=40, max_k=3, timeout=0.5, max_in_flight=2, max_queue=3)
    viewer = Viewer(corpus, allow_upload=False, k=2, limits=limits, rag_factory=lambda c, r, g: RAG(
        c, retriever=r, generator=SlowGenerator(30.0), show_progress=False))
    long_q = viewer.ask("revenue " * 10, "bm25", "slow")   # stripped: 79 characters
    assert long_q.answer is None
    assert long_q.status == ("**Error:** the question is 79 characters; the limit is 40 "
                             "(serve.max_question_chars in the config or DOCRAG_SERVE_MAX_QUESTION_CHARS)")
    assert "k is 4; the limit is 3 (serve.max_k" in viewer.ask("revenue?", "bm25", "slow", k=4).status
    viewer.pipelines.get("bm25", "slow")[0].retrieve("revenue", k=2)   # build the index before timing
    t0 = time.perf_counter()
    slow = viewer.ask("What was revenue in 2011?", "bm25", "slow")
    assert time.perf_counter() - t0 < 2.0   # stopped at the budget, not after the generator's 30 s
    assert slow.answer is None and "no answer within the time budget of 0.5 s (serve.timeout" in slow.status
    app = build_app(corpus, retriever="bm25", generator="extractive", allow_upload=False, limits=limits)
    assert app._queue.max_size == 3
    ask_fns = [fn for fn in app.fns.values() if fn.concurrency_id == "ask"]
    assert len(ask_fns) == 2 and all(fn.concurrency_limit == 2 for fn in ask_fns)


def test_gallery_images_are_files_written_once(tmp_path):
    """Galleries get files named by content, written once: Gradio rewrote a PIL image's cache file in place each
    time it was shown, and a browser still fetching it got a truncated file (gradio-app/gradio#10591)."""
    from PIL import Image

    from docrag.apps.viewer_render import gallery_files

    red, blue = Image.new("RGB", (20, 10), (220, 38, 38)), Image.new("RGB", (20, 10), (0, 0, 200))
    first = gallery_files([(red, "a"), (blue, "b")], tmp_path)
    assert [c for _, c in first] == ["a", "b"] and first[0][0] != first[1][0]
    path = Path(first[0][0])
    stamp = path.stat().st_mtime_ns
    again = gallery_files([(red.copy(), "a again")], tmp_path)
    assert again == [(str(path), "a again")] and path.stat().st_mtime_ns == stamp   # the same file, not rewritten
    assert Image.open(path).size == (20, 10) and not list(tmp_path.glob(".*"))       # no temporary left
