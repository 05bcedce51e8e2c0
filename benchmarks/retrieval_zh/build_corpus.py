"""Build the Chinese retrieval set's PDFs from real Chinese text: the Debian ``manpages-zh`` package.

The man pages (GFDL-1.2+, translations by the CMPP project and manpages-zh contributors) are
rendered with groff to UTF-8 text and laid out as A4 PDFs with PyMuPDF and an embedded
WenQuanYi Micro Hei font (``fonts-wqy-microhei``). Usage::

    apt-get download manpages-zh && dpkg -x manpages-zh_*.deb /tmp/manpages-zh
    python benchmarks/retrieval_zh/build_corpus.py /tmp/manpages-zh benchmarks/retrieval_zh/pdfs

The PDFs are committed; this script documents (and reproduces) how they were made.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import re
import subprocess
from pathlib import Path

import pymupdf as fitz

from docrag import sysdeps

log = logging.getLogger("build_corpus")

PAGES = ("chmod.1", "date.1", "df.1", "du.1", "gzip.1", "kill.1", "cron.8", "ln.1", "wc.1", "uniq.1", "cut.1",
         "sort.1")
FONT = str(sysdeps.CJK_FONT)
LINES_PER_PAGE, FONT_SIZE, LEADING, MARGIN, WRAP_COLUMNS = 56, 9.0, 13.0, 50.0, 100


def render_man(src: Path) -> list[str]:
    """The man page as plain UTF-8 lines (groff, no bold/underline escapes)."""
    roff = gzip.decompress(src.read_bytes())
    pre = subprocess.run(["preconv"], input=roff, capture_output=True, check=True).stdout
    out = subprocess.run(["groff", "-man", "-Tutf8", "-P-cbou"], input=pre, capture_output=True, check=True).stdout
    lines = [w for ln in out.decode("utf-8").splitlines() for w in wrap(ln.rstrip())]
    while lines and not lines[0]:
        lines.pop(0)
    text: list[str] = []
    for ln in lines:  # squeeze runs of blank lines
        if ln or (text and text[-1]):
            text.append(ln)
    return text


def _width(text: str) -> int:
    """Display columns (East Asian wide characters count 2)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap(line: str, columns: int = WRAP_COLUMNS) -> list[str]:
    """Split a line wider than ``columns`` display columns, keeping its indentation."""
    line = re.sub(r"(?<=\S) {2,}(?=\S)", " ", line)  # groff's justification spaces
    indent = line[: len(line) - len(line.lstrip())]
    out, cur = [], line
    while _width(cur) > columns:
        w, cut = 0, 0
        for i, c in enumerate(cur):
            w += _width(c)
            if w > columns:
                cut = i
                break
        out.append(cur[:cut])
        cur = indent + cur[cut:].lstrip()
    out.append(cur)
    return out


def write_pdf(lines: list[str], title: str, dest: Path) -> int:
    doc = fitz.open()
    for start in range(0, len(lines), LINES_PER_PAGE):
        page = doc.new_page(width=595, height=842)
        page.insert_font(fontname="wqy", fontfile=FONT)
        y = MARGIN
        for ln in lines[start:start + LINES_PER_PAGE]:
            y += LEADING
            if ln.strip():
                page.insert_text((MARGIN, y), ln, fontname="wqy", fontsize=FONT_SIZE)
        page.insert_text((MARGIN, 842 - 30), f"{title} - {start // LINES_PER_PAGE + 1}", fontname="wqy",
                         fontsize=7)
    doc.set_metadata({"title": title, "subject": "manpages-zh (GFDL-1.2+), rendered with groff"})
    doc.subset_fonts()
    doc.save(dest, garbage=4, deflate=True)
    return doc.page_count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manpages_root", type=Path, help="folder where manpages-zh_*.deb was extracted (dpkg -x)")
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    sysdeps.require("fonts-wqy-microhei", "the Chinese retrieval corpus")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        section = name.rsplit(".", 1)[1]
        src = args.manpages_root / "usr/share/man/zh_CN" / f"man{section}" / f"{name}.gz"
        n = write_pdf(render_man(src), f"{name.split('.')[0]}({section})", args.out / f"man_{name.split('.')[0]}.pdf")
        log.info("%s: %d pages", name, n)


if __name__ == "__main__":
    main()
