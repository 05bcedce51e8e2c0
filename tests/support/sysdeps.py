"""System packages in tests: skip, in one line naming the package and its install command.

Test data builders call :func:`docrag.sysdeps.require` (the same line a feature fails with); the
``conftest`` turns the :class:`~docrag.sysdeps.MissingSystemPackage` it raises, in a fixture or a
test, into a skip. Tests that need a program themselves call :func:`need`.
"""

from __future__ import annotations

import pytest

from docrag import sysdeps

CJK_FONT = sysdeps.CJK_FONT


def need(name: str) -> None:
    """``pytest.skip`` with :func:`docrag.sysdeps.missing`'s line when the package ``name`` is missing."""
    line = sysdeps.missing(name)
    if line is not None:
        pytest.skip(line)


def require_cjk_font(what: str) -> None:
    """The Chinese test PDFs are written with WenQuanYi Micro Hei (``fonts-wqy-microhei``)."""
    sysdeps.require("fonts-wqy-microhei", what)
