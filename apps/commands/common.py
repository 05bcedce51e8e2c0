"""Helpers shared by the sub-commands: name checks that exit 2, encoding options, progress defaults."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer

from docrag.config import load_settings
from docrag.errors import UnknownNameError

TOP_K_HELP = "Pages retrieved per question (default: config file k / DOCRAG_K / 10)."


def _settings_k(value: int | None) -> int:
    """``-k/--top-k`` when given, else the user's ``k`` (config file, then ``DOCRAG_K``)."""
    if value is not None:
        return value

    return load_settings().k


GROUND_HELP = ("Ground citations on the pages' regions: refine (keep model boxes on the evidence, fix or add "
               "the rest; the default), replace (ignore model boxes), off (model boxes as drawn).")


def ground_option() -> Any:
    """``--ground refine|replace|off`` (None: the settings' ``ground``, default refine)."""
    return typer.Option(None, "--ground", help=GROUND_HELP, callback=_check_ground)


def _check_ground(value: str | None) -> str | None:
    if value is not None and value not in ("refine", "replace", "off"):
        raise typer.BadParameter(f"--ground {value!r}: use refine, replace or off")
    return value


CITE_BY_HELP = ("How vision generators (openai:, qwen-vl:) cite: regions (numbered region marks on the images "
                "sent, the reply names region numbers; the default) or boxes (the model draws boxes).")


def cite_by_option() -> Any:
    """``--cite-by regions|boxes`` (None: the settings' ``cite_by``, default regions)."""
    return typer.Option(None, "--cite-by", help=CITE_BY_HELP, callback=_check_cite_by)


def _check_cite_by(value: str | None) -> str | None:
    if value is not None and value not in ("regions", "boxes"):
        raise typer.BadParameter(f"--cite-by {value!r}: use regions or boxes")
    return value


def cite_by_generator_options(cite_by: str | None, generator: str) -> dict[str, Any]:
    """``{"cite_by": ...}`` for a vision generator; a usage error when ``--cite-by`` is given for a
    generator that draws no marks (``extractive``); ``{}`` when not given."""
    from docrag.generation.registry import takes_option

    if cite_by is None:
        return {}
    if not takes_option(generator, "cite_by"):
        raise typer.BadParameter(f"--cite-by applies to vision generators (openai:, qwen-vl:), not {generator!r}",
                                 param_hint="--cite-by")
    return {"cite_by": cite_by}


def top_k_option(help: str = TOP_K_HELP, max: int | None = None) -> Any:  # noqa: A002 -- typer's names
    """The ``-k/--top-k`` option of every command that retrieves pages (ask, search, eval, compare,
    view); the default is the user's ``k`` setting."""
    return typer.Option(None, "-k", "--top-k", min=1, max=max, help=help, callback=_settings_k,
                        show_default=False)


def old_k_option() -> Any:
    """``--k``, the old spelling of ``--top-k`` on ``ask`` and ``view``: still read, not shown."""
    return typer.Option(None, "--k", min=1, hidden=True)


def show_progress(flag: bool | None) -> bool:
    """``--progress/--no-progress`` when given, else bars only when stderr is a terminal (so logs and
    pipes get no carriage-return floods)."""
    if flag is not None:
        return flag
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stderr
        return False


def check_retrievers(names: Sequence[str], option: str = "--retriever") -> None:
    """Every retriever name valid (family known, argument given when needed), checked before any
    model loads or any index is encoded; a bad one is a usage error (exit 2)."""
    from docrag.index.registry import check_retriever_name

    for name in names:
        try:
            check_retriever_name(name)
        except UnknownNameError as exc:
            raise typer.BadParameter(str(exc), param_hint=option) from None


def encoding_options(batch_size: int | None, device: str | None) -> dict[str, Any]:
    """Retriever options for the models that encode pages and queries."""
    opts: dict[str, Any] = {}
    if batch_size:
        opts["batch_size"] = int(batch_size)
    if device:
        opts["device"] = device
    return opts
