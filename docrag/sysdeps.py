"""System (Debian) packages some features need, checked where they are used.

One place knows what each package provides and how to install it, so a feature that needs one fails
(:func:`require`) and a test skips (``tests.support.sysdeps``) with the same single line::

    poppler-utils is not installed (pdftoppm not found): sudo apt-get install poppler-utils
    (or run scripts/install-system-deps.sh)
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from docrag.errors import MissingDependencyError

INSTALL_SCRIPT = "scripts/install-system-deps.sh"
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")


class MissingSystemPackage(MissingDependencyError):
    """A feature needs a system package that is not installed (the message is one line)."""

    def __init__(self, message: str, package: str) -> None:
        super().__init__(message)
        self.package = package


@dataclass(frozen=True)
class SystemPackage:
    """A Debian package and what shows it is installed: a command on PATH or a file."""

    name: str
    command: str | None = None
    path: Path | None = None
    install: str = ""        # the packages to apt-get install (default: ``name``)

    def present(self) -> bool:
        if self.command is not None:
            return shutil.which(self.command) is not None
        return self.path is not None and self.path.exists()

    def missing_line(self) -> str:
        """One line: what is missing and the install command."""
        probe = f"{self.command} not found" if self.command else f"{self.path} not found"
        return (f"{self.name} is not installed ({probe}): sudo apt-get install {self.install or self.name} "
                f"(or run {INSTALL_SCRIPT})")


PACKAGES: dict[str, SystemPackage] = {p.name: p for p in (
    SystemPackage("fonts-wqy-microhei", path=CJK_FONT),
    SystemPackage("poppler-utils", command="pdftoppm"),
    SystemPackage("tesseract-ocr", command="tesseract",
                  install="tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim"),
    SystemPackage("chromium", command="chromium"),
)}


def missing(name: str) -> str | None:
    """``None`` when the package ``name`` is installed, else the one line saying how to install it."""
    package = PACKAGES[name]
    return None if package.present() else package.missing_line()


def require(name: str, feature: str) -> None:
    """Raise :class:`MissingSystemPackage` (``feature: <missing line>``) when the package ``name`` is missing."""
    line = missing(name)
    if line is not None:
        raise MissingSystemPackage(f"{feature}: {line}", name)
