"""``docrag ingest``: PDFs, page images and folders of them into a page corpus."""

from __future__ import annotations

from pathlib import Path

import typer

from docrag.apps.commands.common import show_progress
from docrag.errors import CorpusError, InputError

IMAGE_FORMATS = ("png", "jpeg")


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}", param_hint=name)
    return value


def register(app: typer.Typer) -> None:
    """Add ``ingest`` to ``app``."""

    @app.command("ingest")
    def ingest_cmd(
        paths: list[Path] = typer.Argument(..., help="PDFs, page images (PNG/JPEG/TIFF) or folders (recursive)."),
        out: Path = typer.Option(..., "--out", "-o", help="Corpus folder (created when new or empty)."),
        dpi: float = typer.Option(144, "--dpi", min=18, max=1200, help="Resolution of the page images."),
        renderer: str = typer.Option("pymupdf", "--renderer", help="pymupdf (fast) or pdf2image (poppler)."),
        ocr: str = typer.Option("auto", "--ocr",
                                help="auto: OCR pages without a usable text layer and charts drawn as pictures; "
                                     "pages: only those pages (faster on chart-heavy reports); always; never."),
        lang: str = typer.Option("en,ch", "--lang", help="OCR languages, comma separated (en, ch)."),
        image_format: str = typer.Option("png", "--image-format", help="png or jpeg."),
        workers: int = typer.Option(0, "--workers", min=0,
                                    help="Worker processes that open files and render/parse pages "
                                         "(0 = one per CPU core, max 4)."),
        meta: list[str] = typer.Option([], "--meta", "-m",
                                       help="KEY=VALUE metadata for every file of this run (repeat it); a "
                                            "sidecar FILE.meta.json beside a file adds its own. Filter with "
                                            "--filter KEY=VALUE."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
        page_timeout: float = typer.Option(60.0, "--page-timeout", min=0,
                                           help="Seconds one page may take to render and parse before its "
                                                "file fails (0 = no limit)."),
        engine: str = typer.Option("local", "--engine",
                                   help="local (worker processes) or ray (Ray tasks; see docs/scale.md)."),
        ray_address: str | None = typer.Option(None, "--ray-address",
                                               help="Ray cluster to use with --engine ray (default $RAY_ADDRESS, "
                                                    "else a local cluster of --workers CPUs)."),
    ) -> None:
        """Ingest PATH... into the corpus at --out. Unchanged files are skipped, changed ones replaced.

        Exit code 1 when any file failed (each failure is printed on one line), 2 for usage errors,
        130 when interrupted (run the same command again to resume).
        """
        from docrag.corpus import Corpus
        from docrag.ingestion import ingest
        from docrag.ingestion.ocr import parse_langs
        from docrag.ingestion.pipeline import OCR_MODES
        from docrag.ingestion.render import RENDERERS

        _choice("--renderer", renderer, RENDERERS)
        _choice("--ocr", ocr, OCR_MODES)
        _choice("--image-format", image_format, IMAGE_FORMATS)
        _choice("--engine", engine, ("local", "ray"))
        try:
            parse_langs(lang)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--lang") from None
        from docrag.ingestion.metadata import apply_metadata, parse_meta_items

        try:
            user_meta = parse_meta_items(meta)
        except InputError as exc:
            raise typer.BadParameter(str(exc), param_hint="--meta") from None
        try:
            Corpus.check_creatable(out)
        except CorpusError as exc:
            raise typer.BadParameter(str(exc), param_hint="--out") from None
        try:
            report = ingest(paths, out=out, dpi=dpi, renderer=renderer, ocr=ocr, lang=lang,
                            image_format=image_format, show_progress=show_progress(progress), workers=workers or None,
                            page_timeout=page_timeout or None, engine=engine, ray_address=ray_address)
        except InputError as exc:
            raise typer.BadParameter(str(exc)) from None
        except KeyboardInterrupt:
            typer.echo(f"\ninterrupted: the pages done so far are kept in {out}; run the same command again "
                       "to resume where it stopped", err=True)
            raise typer.Exit(130) from None
        tagged = apply_metadata(Corpus.open(out), paths, user_meta)
        if tagged:
            typer.echo(f"metadata attached to {tagged} document(s)", err=True)
        for path, reason in report.failures:
            typer.echo(f"failed: {path}: {reason}", err=True)
        typer.echo(f"{out}: {report.summary()}")
        if report.failures:
            raise typer.Exit(1)
