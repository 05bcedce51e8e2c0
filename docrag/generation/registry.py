"""The generator registry: ``extractive``, ``openai:<model>``, ``qwen-vl:<model id or path>``.

Declared in a module of its own so that what a family takes (``[generation]`` options, endpoint)
can be asked without importing any generator: :func:`takes_option` answers ``--coords``/``--snap``
checks and :meth:`docrag.config.Settings.generator_options`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from docrag.registry import Family, Registry
from docrag.types import Answer, Page


@runtime_checkable
class Generator(Protocol):
    """Answers a question from pages (in rank order) with citations in the pages' PDF points.

    Declared here, with the registry of its implementations, so that nothing here imports
    ``docrag.generation.base`` (which imports the conventions, which ask this registry)."""

    name: str

    def generate(self, question: str, pages: Sequence[Page]) -> Answer: ...


GENERATORS: Registry[Generator] = Registry("generator", families={
    # reads page text only: of the [generation] settings, just how many pages
    "extractive": Family("docrag.generation.extractive", offline=True, options=("max_pages", "ground")),
    "openai": Family("docrag.generation.openai_gen", "openai:<model>", endpoint=True),
    "qwen-vl": Family("docrag.generation.qwen_vl_gen", "qwen-vl:<model id or path>",
                      options=("max_width", "max_height", "max_pixels", "max_pages", "coords", "snap", "ground",
                               "cite_by", "max_tokens")),
})


def takes_option(name: str, option: str) -> bool:
    """True when the family of the generator ``name`` declares the ``[generation]`` option
    ``option`` (``coords``, ``snap``, ...); False for an unknown family."""
    family = GENERATORS.split(name)[0]
    if family not in GENERATORS.families():
        return False
    options = GENERATORS.family(family).options
    return options is None or option in options
