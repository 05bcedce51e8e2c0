"""Helpers shared by the sub-commands: name checks that exit 2, encoding options, progress defaults."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer

from docrag.errors import UnknownNameError


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
