"""``docrag corpus info``: what a corpus holds (documents, pages, OCR, layout blocks, failures)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer


def corpus_summary(root: Path) -> dict:
    """Counts describing the corpus at ``root`` (documents, pages, OCR pages, blocks by kind, failures)."""
    from docrag.corpus import Corpus
    from docrag.types import TextSource

    corpus = Corpus.open(root)
    docs = corpus.documents()
    pages = corpus.pages()
    blocks = Counter(b.kind.value for p in pages for b in p.blocks)
    langs = Counter(p.lang or "none" for p in pages)
    return {
        "corpus": str(root),
        "documents": len(docs),
        "pages": len(pages),
        "pages_ocr": sum(p.text_source is TextSource.OCR for p in pages),
        "pages_without_text": sum(p.text_source is TextSource.NONE for p in pages),
        "blocks": dict(sorted(blocks.items())),
        "languages": dict(sorted(langs.items())),
        "fingerprint": corpus.fingerprint(),
        "files": [{"doc_id": d.doc_id, "file_name": d.file_name, "pages": d.n_pages, "kind": d.kind}
                  for d in sorted(docs, key=lambda d: d.file_name)],
        "failures": corpus.failures(),
        "interrupted": sorted(p.name for p in (root / ".staging").iterdir()
                              if p.is_dir() and not p.name.startswith(".")) if (root / ".staging").is_dir() else [],
    }


def register(app: typer.Typer) -> None:
    """Add the ``corpus`` command group (``docrag corpus info``) to ``app``."""
    group = typer.Typer(help="Inspect a page corpus.", no_args_is_help=True)
    app.add_typer(group, name="corpus")

    @group.command("info")
    def info_cmd(
        corpus: Path = typer.Argument(..., help="Corpus folder (made by 'docrag ingest')."),
        as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
        files: bool = typer.Option(False, "--files", help="List every document."),
    ) -> None:
        """Print documents, pages, pages with OCR, blocks by kind and failures of CORPUS."""
        s = corpus_summary(corpus)
        if as_json:
            typer.echo(json.dumps(s, ensure_ascii=False, indent=1))
            return
        typer.echo(f"corpus      {s['corpus']}  (fingerprint {s['fingerprint']})")
        typer.echo(f"documents   {s['documents']}")
        typer.echo(f"pages       {s['pages']}  (OCR {s['pages_ocr']}, no text {s['pages_without_text']})")
        typer.echo("languages   " + (", ".join(f"{k} {v}" for k, v in s["languages"].items()) or "-"))
        typer.echo("blocks      " + (", ".join(f"{k} {v}" for k, v in s["blocks"].items()) or "-"))
        if files:
            for f in s["files"]:
                typer.echo(f"  {f['doc_id']}  {f['pages']:>4} p  {f['file_name']}")
        if s["interrupted"]:
            typer.echo(f"interrupted {len(s['interrupted'])} document(s) staged but not committed; "
                       "run 'docrag ingest' on the same files to resume")
        typer.echo(f"failures    {len(s['failures'])}")
        for f in s["failures"]:
            typer.echo(f"  {f['path']}: {f['reason']}")
