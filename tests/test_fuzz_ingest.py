"""Ingest of hostile inputs: ~200 mutated PDFs (fixed seed), odd file names, odd folder entries,
a page over the time limit, usage errors. Nothing raises, every bad file is named, good files land."""

from __future__ import annotations

import base64
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docrag.corpus import Corpus
from docrag.ingestion import ingest
from tests.support.fuzz_pdfs import heavy_pdf, write_mutants
from tests.support.pdfs import make_text_pdf

ROOT = Path(__file__).resolve().parents[1]
N_MUTANTS = 200


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    kinds = write_mutants(root / "in", N_MUTANTS, seed=11, heavy=1)
    t0 = time.perf_counter()
    report = ingest([root / "in"], out=root / "corpus", ocr="never", show_progress=False, workers=2,
                    page_timeout=3)
    return kinds, report, time.perf_counter() - t0, root


@pytest.mark.slow
def test_every_mutant_is_ingested_or_named_with_one_line(fuzzed):
    kinds, report, seconds, root = fuzzed
    failed = {Path(p).name: r for p, r in report.failures}
    landed = {Path(p).name for p in report.added + report.skipped}
    assert set(failed) | landed == set(kinds) and not set(failed) & landed
    for name, reason in failed.items():
        assert reason.strip() and "\n" not in reason and "Traceback" not in reason, (name, reason)
    assert {n for n, k in kinds.items() if k == "good"} <= landed
    assert len(failed) >= 20   # the batch really is hostile
    corpus = Corpus.open(root / "corpus")
    for page in corpus.pages():
        assert Path(page.image_path).exists()
    assert {f["path"] for f in corpus.failures()} == {str((root / "in" / n).resolve()) for n in failed}


@pytest.mark.slow
def test_time_limit_and_bombs_fail_their_file_naming_the_page(fuzzed):
    kinds, report, seconds, _ = fuzzed
    failed = {Path(p).name: r for p, r in report.failures}
    assert "page 1: rendering and parsing took longer than 3 s" in failed["heavy-0000.pdf"]
    for name in (n for n, k in kinds.items() if k == "bomb"):
        assert "decompression bomb" in failed[name] or "too large" in failed[name], failed[name]
    assert seconds < 300   # no hang past the limit (the batch takes about a minute)


def test_non_utf8_file_names_are_stored_losslessly_and_reruns_never_crash(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    good_name = os.fsdecode(b"caf\xe9 report.pdf")
    bad_name = os.fsdecode(b"bro\xffken.pdf")
    with open(folder / good_name, "wb") as fh:   # MuPDF cannot save under such a name itself
        fh.write(make_text_pdf(tmp_path / "odd.pdf", "Odd name.").read_bytes())
    (folder / bad_name).write_bytes(b"%PDF-1.4 nothing else")
    for _ in range(2):
        report = ingest([folder], out=tmp_path / "c", show_progress=False, ocr="never", workers=1)
        assert len(report.failures) == 1 and "bro\\xffken.pdf" in report.failures[0][0]
    corpus = Corpus.open(tmp_path / "c")
    (doc,) = corpus.documents()
    assert doc.file_name == "caf\\xe9 report.pdf"
    assert base64.b64decode(doc.meta["source_path_b64"]) == os.fsencode(folder.resolve() / good_name)
    (fail,) = corpus.failures()
    assert base64.b64decode(fail["path_b64"]).endswith(b"bro\xffken.pdf")
    (tmp_path / "c" / "manifest.json").read_bytes().decode("utf-8")


def test_odd_folder_entries_and_symlink_loop_arguments_are_named(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    make_text_pdf(folder / "ok.pdf", "Fine.")
    (folder / "dangling.pdf").symlink_to(tmp_path / "nowhere.pdf")
    (folder / "loop.pdf").symlink_to(folder / "loop.pdf")
    os.mkfifo(folder / "pipe.pdf")
    (folder / "device.pdf").symlink_to("/dev/null")
    loop_arg = tmp_path / "arg-loop.pdf"
    loop_arg.symlink_to(loop_arg)
    report = ingest([folder, loop_arg], out=tmp_path / "c", show_progress=False, ocr="never", workers=1)
    failed = {Path(p).name: r for p, r in report.failures}
    assert "dangling symbolic link" in failed["dangling.pdf"]
    assert "symbolic link loop" in failed["loop.pdf"] and "symbolic link loop" in failed["arg-loop.pdf"]
    assert "FIFO" in failed["pipe.pdf"] and "device" in failed["device.pdf"]
    assert [Path(p).name for p in report.added] == ["ok.pdf"]


def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-c", "from docrag.apps.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, **kw)


def test_usage_errors_exit_2_and_create_nothing(tmp_path):
    res = _cli("ingest", str(tmp_path / "missing.pdf"), "--out", str(tmp_path / "c2"), "--no-progress")
    assert res.returncode == 2 and "no such file" in res.stderr and not (tmp_path / "c2").exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    pdf = make_text_pdf(tmp_path / "a.pdf")
    res = _cli("ingest", str(pdf), "--out", str(afile), "--no-progress")
    assert res.returncode == 2 and "is a file" in res.stderr and "Traceback" not in res.stderr


def test_corpus_files_get_normal_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        ingest([make_text_pdf(tmp_path / "a.pdf")], out=tmp_path / "c", show_progress=False, ocr="never",
               workers=1)
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "c").rglob("*") if p.is_file() and p.name != ".lock"]
    assert files and {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o644}
    assert not (tmp_path / "c" / ".staging").exists()


def test_ctrl_c_says_how_to_resume(tmp_path):
    (tmp_path / "in").mkdir()
    for i in range(8):   # distinct heavy files: seconds each, so the interrupt lands mid-run on a fast box too
        (tmp_path / "in" / f"heavy{i}.pdf").write_bytes(heavy_pdf(150_000 + i))
    proc = subprocess.Popen([sys.executable, "-c", "from docrag.apps.cli import main; main()", "ingest",
                             str(tmp_path / "in"), "--out", str(tmp_path / "c"), "--no-progress",
                             "--page-timeout", "0", "--ocr", "never"],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            # as in a terminal: a test run started in the background inherits SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while not (tmp_path / "c" / "corpus.json").exists() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)
    assert proc.poll() is None, "the ingest ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err


def test_lying_page_count_fails_its_file_with_a_reason(tmp_path):
    import re

    data = make_text_pdf(tmp_path / "a.pdf", "Two pages.", n_pages=2).read_bytes()
    folder = tmp_path / "in"
    folder.mkdir()
    for lie in ("99999", "-1"):
        (folder / f"lie{lie}.pdf").write_bytes(re.sub(rb"/Count \d+", f"/Count {lie}".encode(), data))
    make_text_pdf(folder / "good.pdf", "Good.")
    report = ingest([folder], out=tmp_path / "c", ocr="never", show_progress=False, workers=1)
    failed = {Path(p).name: r for p, r in report.failures}
    assert set(failed) == {"lie99999.pdf", "lie-1.pdf"} and [Path(p).name for p in report.added] == ["good.pdf"]
    assert all("broken page tree" in r and "Invalid number of pages" in r for r in failed.values())
