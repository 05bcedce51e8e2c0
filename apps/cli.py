"""The ``docrag`` command line: one sub-command per job, each defined in ``apps/commands``."""

from __future__ import annotations

import logging
import os
import sys

import typer
import typer.core

from docrag._version import __version__
from docrag.apps.commands import ask, cite, corpus, dataset, evaluate, index, ingest, serve, view
from docrag.errors import DocragError

_display_type = typer.core.TyperOption.display_type_rich


def _flag_display_type(self, ctx):  # noqa: ANN001, ANN202 - click's signature
    """On/off flags take no value: show no ``<bool>`` type beside them in ``--help``."""
    if getattr(self, "is_flag", False) and not getattr(self, "count", False):
        return ""
    return _display_type(self, ctx)


typer.core.TyperOption.display_type_rich = _flag_display_type  # type: ignore[method-assign]

app = typer.Typer(
    name="docrag",
    help="Retrieval-augmented generation over page images, with visual citations you can check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (ingest, corpus, dataset, index, ask, cite, evaluate, view, serve):
    module.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"docrag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, help="More logging (-v info, -vv debug)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)  # libraries such as bm25s set their own loggers to DEBUG


def main() -> None:
    """Entry point of the console script: DocragError becomes one line on stderr and exit 1."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # model-loading bars; ours stay
    try:
        app()
    except DocragError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
