"""Name -> implementation registries for retrievers, generators and judges.

Names look like ``bm25`` or ``family:argument`` (``colqwen2:/models/colqwen2-v1.0``,
``openai:gpt-4o``). A family registers once with a decorator; an unknown name raises an error that
lists every valid family.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from docrag.errors import UnknownNameError

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    family: str
    factory: Callable[..., T]
    needs_arg: bool
    help: str
    optional_arg: bool = False


class Registry(Generic[T]):
    """A registry of factories keyed by family name.

    ``lazy_modules`` maps a family to the module that registers it, so heavy imports (torch,
    transformers) happen only when that family is asked for; ``usage`` gives the written form of
    families that take an argument (``"openai": "openai:<model>"``), for messages that must not
    import them.
    """

    def __init__(self, role: str, lazy_modules: dict[str, str] | None = None,
                 usage: dict[str, str] | None = None) -> None:
        self.role = role
        self._entries: dict[str, Entry[T]] = {}
        self._lazy = dict(lazy_modules or {})
        self._usage = dict(usage or {})

    def register(self, family: str, *, needs_arg: bool = False, optional_arg: bool = False,
                 help: str = "") -> Callable:
        """Decorator: register ``factory(arg, **options)`` (``arg`` is None for bare names;
        ``optional_arg``: both ``family`` and ``family:<arg>`` are valid)."""

        def deco(factory: Callable[..., T]) -> Callable[..., T]:
            summary = help or (factory.__doc__ or "").strip().split("\n")[0]
            self._entries[family] = Entry(family, factory, needs_arg, summary, optional_arg)
            return factory

        return deco

    def families(self) -> list[str]:
        return sorted(set(self._entries) | set(self._lazy))

    def describe(self) -> list[tuple[str, str]]:
        """``(usage, help)`` for every family; imports lazy modules to read their help."""
        out = []
        for fam in self.families():
            entry = self._entry(fam)
            usage = f"{fam}:<model id or path>" if entry.needs_arg else fam
            out.append((usage, entry.help))
        return out

    def _entry(self, family: str) -> Entry[T]:
        if family not in self._entries and family in self._lazy:
            importlib.import_module(self._lazy[family])
        if family not in self._entries:
            raise self._unknown(family)
        return self._entries[family]

    def usage(self, family: str) -> str:
        """How to write ``family`` in a name, without importing its module."""
        if family in self._usage:
            return self._usage[family]
        return f"{family}:<arg>" if family in self._entries and self._entries[family].needs_arg else family

    def _unknown(self, name: str) -> UnknownNameError:
        valid = ", ".join(self.usage(f) for f in self.families())
        return UnknownNameError(f"unknown {self.role} {name!r}; valid {self.role}s: {valid}")

    @staticmethod
    def split(name: str) -> tuple[str, str | None]:
        family, sep, arg = name.partition(":")
        return family.strip(), (arg.strip() if sep else None)

    def create(self, name: str, **options: Any) -> T:
        family, arg = self.split(name)
        if family not in self._entries and family not in self._lazy:
            raise self._unknown(name)
        entry = self._entry(family)
        if entry.needs_arg and not arg:
            raise UnknownNameError(f"{self.role} {family!r} needs an argument: use '{family}:<model id or path>'")
        if not entry.needs_arg and not entry.optional_arg and arg:
            raise UnknownNameError(f"{self.role} {family!r} takes no argument, got {name!r}")
        return entry.factory(arg, **options)
