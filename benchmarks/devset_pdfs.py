"""Extract the real dev set's PDFs from their source repositories, as SOURCES.md lists them.

Each SOURCES.md row names the repository, the file's path, the commit and the original pages kept. This script
reads the file at that commit from a git directory per repository, copies the pages listed (PyMuPDF
``insert_pdf``; ``annots=False`` where the row says so), subsets fonts where it says "fonts subset", saves with
``garbage=4, deflate=True, no_new_id=True`` (the same bytes every time with the pinned PyMuPDF) and checks
the result against ``pdfs.sha256``.

    python benchmarks/devset_pdfs.py --mirrors /work/.mirror       # the fetch tool's snapshots
    python benchmarks/devset_pdfs.py --git-dir owner/name=/tmp/src/.git ...   # partial clones

``--mirrors DIR`` expects ``DIR/<owner>+<name>/repo`` (the layout of the project's ``fetch`` tool); ``--git-dir``
names one repository's git directory (repeat it). A PDF already present with the recorded hash is left alone.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "devset"
log = logging.getLogger("devset_pdfs")
_ROW = re.compile(r"^\| ((?:en|zh)_\S+\.pdf) \|")
_SOURCE = re.compile(r"^(\S+?), `?(.+?)`?, (?:commit )?([0-9a-f]{40})")


def rows(sources: Path) -> list[dict]:
    """One dict per document row of SOURCES.md: file, repo, path, commit, pages, options."""
    out = []
    for line in sources.read_text(encoding="utf-8").splitlines():
        if not _ROW.match(line):
            continue
        cols = [c.strip() for c in line.split("|")]
        name, source, kept = cols[1], cols[3], cols[4]
        m = _SOURCE.match(source)
        if m is None:
            raise SystemExit(f"{sources}: the row of {name} names no 'owner/name, path, commit' source: {source!r}")
        repo, path, commit = m.groups()
        if path[:1] in "`'":
            path = path[1:path.index(path[0], 1)] if path[0] in path[1:] else path[1:]
        path = path.split("`")[0]
        pages = re.sub(r"[a-z ]*pages", "", re.sub(r" of that.*", "", kept.split("(")[0]))
        numbers: list[int] = []
        for part in (p.strip() for p in pages.split(",")):
            if "-" in part:
                a, b = part.split("-")
                numbers += range(int(a), int(b) + 1)
            elif part:
                numbers.append(int(part))
        out.append({"file": name, "repo": repo, "path": path, "commit": commit, "pages": numbers,
                    "subset": "fonts subset" in kept, "annots": "annots=False" not in kept})
    return out


def extract(row: dict, git_dir: Path, target: Path) -> None:
    """Write ``target`` from ``row``'s file at its commit in ``git_dir``."""
    import pymupdf

    spec = f"{row['commit']}:{row['path']}"
    data = subprocess.run(["git", "--git-dir", str(git_dir), "show", spec], capture_output=True, check=False).stdout
    if not data:
        raise SystemExit(f"{git_dir}: no file {spec!r} (fetch the repository {row['repo']} with its history)")
    src, out = pymupdf.open(stream=data, filetype="pdf"), pymupdf.open()
    for n in row["pages"]:
        out.insert_pdf(src, from_page=n - 1, to_page=n - 1, annots=row["annots"])
    if row["subset"]:
        out.subset_fonts()
    tmp = target.with_suffix(".part")
    out.save(str(tmp), garbage=4, deflate=True, no_new_id=True)
    tmp.replace(target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", type=Path, help="folder of <owner>+<name>/repo git directories")
    ap.add_argument("--git-dir", action="append", default=[], help="owner/name=PATH of one repository's git dir")
    ap.add_argument("--out", type=Path, default=HERE / "pdfs")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    named = dict(x.split("=", 1) for x in args.git_dir)
    want = {name: digest for digest, name in (ln.split() for ln in (HERE / "pdfs.sha256").read_text().splitlines()
                                              if ln.strip())}
    args.out.mkdir(parents=True, exist_ok=True)
    bad = 0
    for row in rows(HERE / "SOURCES.md"):
        target = args.out / row["file"]
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == want.get(row["file"]):
            continue
        git_dir = Path(named[row["repo"]]) if row["repo"] in named else \
            (args.mirrors / row["repo"].replace("/", "+") / "repo" if args.mirrors else None)
        if git_dir is None or not git_dir.exists():
            log.error("%s: no git directory for %s (give --mirrors or --git-dir %s=PATH)",
                      row["file"], row["repo"], row["repo"])
            bad += 1
            continue
        extract(row, git_dir, target)
        same = hashlib.sha256(target.read_bytes()).hexdigest() == want.get(row["file"])
        bad += not same
        log.info("%s: pages %s %s", row["file"], row["pages"], "ok" if same else "HASH DIFFERS from pdfs.sha256")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
