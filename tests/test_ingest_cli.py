"""``docrag ingest`` and ``docrag corpus info``: output, exit codes (0 ok, 1 failed files, 2 usage)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from docrag.apps.cli import app
from tests.support.pdfs import make_bad_files, make_page_image, make_text_pdf

runner = CliRunner()


@pytest.fixture()
def folder(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    make_text_pdf(d / "good.pdf", "Good file.", n_pages=2)
    make_page_image(d / "scan.png", dpi=150)
    return d


@pytest.mark.slow
def test_ingest_then_info(tmp_path, folder):
    out = tmp_path / "c"
    res = runner.invoke(app, ["ingest", str(folder), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "2 added" in res.output and "3 page(s) (1 OCR)" in res.output
    res = runner.invoke(app, ["corpus", "info", str(out), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert (info["documents"], info["pages"], info["pages_ocr"]) == (2, 3, 1)
    assert info["blocks"].get("text", 0) + info["blocks"].get("title", 0) >= 3
    assert info["failures"] == [] and info["interrupted"] == []
    res = runner.invoke(app, ["corpus", "info", str(out), "--files"])
    assert res.exit_code == 0 and "good.pdf" in res.output and "pages       3  (OCR 1" in res.output
    res = runner.invoke(app, ["ingest", str(folder), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0 and "0 added, 0 replaced, 2 unchanged" in res.output


@pytest.mark.slow
def test_failed_files_give_one_line_each_and_exit_1(tmp_path, folder):
    bad = make_bad_files(folder / "bad")
    out = tmp_path / "c"
    res = runner.invoke(app, ["ingest", str(folder), "--out", str(out), "--no-progress"])
    assert res.exit_code == 1
    lines = [ln for ln in res.output.splitlines() if ln.startswith("failed: ")]
    assert len(lines) == len(bad)
    for path in bad.values():
        assert sum(str(path) in ln for ln in lines) == 1
    assert "2 added" in res.output
    info = json.loads(runner.invoke(app, ["corpus", "info", str(out), "--json"]).output)
    assert info["documents"] == 2 and len(info["failures"]) == len(bad)


@pytest.mark.parametrize("args", [
    ["--ocr", "sometimes"], ["--renderer", "cairo"], ["--lang", "xx"], ["--dpi", "5"],
    ["--image-format", "gif"],
])
def test_usage_errors_exit_2(tmp_path, folder, args):
    res = runner.invoke(app, ["ingest", str(folder), "--out", str(tmp_path / "c"), *args])
    assert res.exit_code == 2, res.output
    assert not (tmp_path / "c" / "docs").exists() or not any((tmp_path / "c" / "docs").iterdir())


def test_foreign_out_folder_is_a_usage_error(tmp_path, folder):
    out = tmp_path / "notacorpus"
    out.mkdir()
    (out / "thesis.docx").write_text("precious")
    res = runner.invoke(app, ["ingest", str(folder), "--out", str(out)])
    assert res.exit_code == 2 and "not empty" in res.output
    assert (out / "thesis.docx").read_text() == "precious"


def test_console_script_reports_missing_corpus_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "docrag.apps.cli", "corpus", "info", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "not a docrag corpus" in proc.stderr


@pytest.mark.slow
def test_info_shows_interrupted_documents(tmp_path, folder):
    from docrag.ingestion import ingest

    big = make_text_pdf(folder / "big.pdf", "Long file.", n_pages=4)
    out = tmp_path / "c"

    def stop(doc, page):
        if doc.file_name == big.name and page.page_no == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest([big], out=out, show_progress=False, on_page=stop, ocr="never")
    res = runner.invoke(app, ["corpus", "info", str(out)])
    assert res.exit_code == 0 and "interrupted 1 document(s)" in res.output
    runner.invoke(app, ["ingest", str(big), "--out", str(out), "--no-progress"])
    info = json.loads(runner.invoke(app, ["corpus", "info", str(out), "--json"]).output)
    assert info["interrupted"] == [] and info["pages"] == 4
