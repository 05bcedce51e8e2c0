"""System packages: one line naming the package and its install command, for features and tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docrag import sysdeps
from docrag.errors import MissingDependencyError
from docrag.sysdeps import MissingSystemPackage

ROOT = Path(__file__).resolve().parents[1]
FAKE_FONT_PLUGIN = '''
from dataclasses import replace
from pathlib import Path

from docrag import sysdeps

sysdeps.PACKAGES["fonts-wqy-microhei"] = replace(sysdeps.PACKAGES["fonts-wqy-microhei"],
                                                 path=Path("/nonexistent/wqy-microhei.ttc"))
'''


def _hide(monkeypatch: pytest.MonkeyPatch, *commands: str) -> None:
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda cmd, *a, **kw: None if cmd in commands else real(cmd, *a, **kw))


def test_missing_line_names_the_package_and_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "pdftoppm", "tesseract", "chromium")
    assert sysdeps.missing("poppler-utils") == ("poppler-utils is not installed (pdftoppm not found): "
                                                "sudo apt-get install poppler-utils "
                                                "(or run scripts/install-system-deps.sh)")
    assert "sudo apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim" in sysdeps.missing(
        "tesseract-ocr")
    with pytest.raises(MissingSystemPackage) as err:
        sysdeps.require("chromium", "the viewer's browser tests")
    assert err.value.package == "chromium" and "\n" not in str(err.value)
    assert str(err.value).startswith("the viewer's browser tests: chromium is not installed")


def test_pdf2image_renderer_without_poppler_fails_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    from docrag.ingestion.render import render_pdf2image

    _hide(monkeypatch, "pdftoppm")
    with pytest.raises(MissingDependencyError, match=r"^--renderer pdf2image \(or use --renderer pymupdf\): "
                                                     r"poppler-utils is not installed .*sudo apt-get install "
                                                     r"poppler-utils"):
        render_pdf2image(tmp_path / "x.pdf", [1], 72, {1: tmp_path / "p1.png"}, "png")


def test_a_missing_cjk_font_skips_with_the_install_line(tmp_path: Path) -> None:
    (tmp_path / "fake_no_cjk_font.py").write_text(FAKE_FONT_PLUGIN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "fake_no_cjk_font", "-p", "no:cacheprovider",
                           "tests/test_ask.py", "-q", "-rs"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "FzErrorSystem" not in out and " failed" not in out and " error" not in out
    assert ("fonts-wqy-microhei is not installed (/nonexistent/wqy-microhei.ttc not found): "
            "sudo apt-get install fonts-wqy-microhei (or run scripts/install-system-deps.sh)") in out
