"""``docrag dataset import DIR --out CORPUS``: a local ViDoRe (qa layout) or BEIR-layout dataset's page
images into a corpus, so ``docrag eval/compare CORPUS --qa DIR`` evaluate on it."""

from __future__ import annotations

from pathlib import Path

import typer

from docrag.apps.commands.common import show_progress


def register(app: typer.Typer) -> None:
    """Add the ``dataset`` command group to ``app``."""
    group = typer.Typer(help="Retrieval datasets in ViDoRe / BEIR layouts.", no_args_is_help=True)
    app.add_typer(group, name="dataset")

    @group.command("import")
    def import_cmd(
        folder: Path = typer.Argument(..., help="Dataset folder: corpus/queries/qrels tables (beir layout, ViDoRe "
                                                "v2) or one table of query + image rows (qa layout, ViDoRe v1)."),
        out: Path = typer.Option(..., "--out", "-o", help="Corpus folder to create or extend."),
        ocr: str = typer.Option("auto", "--ocr", help="auto (OCR the images, for text retrievers), always, never "
                                                      "(image retrievers only: much faster)."),
        progress: bool | None = typer.Option(None, "--progress/--no-progress",
                                             help="Show progress bars (default: when stderr is a terminal)."),
    ) -> None:
        """Ingest the dataset's page images (one one-page document per corpus id); then run
        'docrag eval CORPUS --qa FOLDER' or 'docrag compare CORPUS --qa FOLDER'."""
        from docrag.eval.beir import import_dataset, read_dataset

        if ocr not in ("auto", "always", "never"):
            raise typer.BadParameter(f"{ocr!r} is not one of auto, always, never", param_hint="--ocr")
        ds = read_dataset(folder)
        report = import_dataset(folder, out, show_progress=show_progress(progress), ocr=ocr)
        for path, reason in report.failures:
            typer.echo(f"failed: {path}: {reason}", err=True)
        typer.echo(f"{folder} ({ds.layout} layout): {len(ds.images)} page image(s), {len(ds.queries)} "
                   f"queries; {out}: {report.summary()}")
        if report.failures:
            raise typer.Exit(1)
