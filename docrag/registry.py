"""Name -> implementation registries for retrievers, generators and judges.

Names look like ``bm25`` or ``family:argument`` (``colqwen2:/models/colqwen2-v1.0``,
``openai:gpt-4o``). A family registers once with a decorator; an unknown name raises an error that
lists every valid family. What the rest of the program must know about a family before loading it
(its module, how to write it, whether it runs offline, which settings it takes) is declared once,
as a :class:`Family`, where the registry is made: the config and the viewer ask the registry
instead of naming families themselves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from docrag.errors import UnknownNameError

T = TypeVar("T")


@dataclass(frozen=True)
class Family:
    """What a registry knows about a family without importing its module."""

    module: str = ""                 # the module that registers it, imported on first use ("" = none)
    usage: str = ""                  # written form of a family taking an argument ("openai:<model>")
    offline: bool = False            # runs with no network and no model the user must supply
    examples: tuple[str, ...] = ()   # ready-made names a picker offers (default: the bare family name)
    offer: bool = True               # offered in pickers (not e.g. a judge that needs gold evidence)
    options: tuple[str, ...] | None = None   # the ``[generation]`` settings it takes (None: all of them)
    endpoint: bool = False           # takes the ``[openai]`` endpoint and ``[models."<name>"]`` settings


@dataclass(frozen=True)
class Entry(Generic[T]):
    family: str
    factory: Callable[..., T]
    needs_arg: bool
    help: str
    optional_arg: bool = False
    arg_choices: tuple[str, ...] = ()     # the arguments an optional-argument family accepts ("bm25:bigram")


class Registry(Generic[T]):
    """A registry of factories keyed by family name.

    ``families`` declares each family (:class:`Family`): its module is imported only when that
    family is asked for, so heavy imports (torch, transformers) happen only then. ``lazy_modules``
    (family -> module) and ``usage`` (family -> written form) are the short forms of the same.
    """

    def __init__(self, role: str, lazy_modules: dict[str, str] | None = None,
                 usage: dict[str, str] | None = None, families: dict[str, Family] | None = None) -> None:
        self.role = role
        self._entries: dict[str, Entry[T]] = {}
        self._families: dict[str, Family] = dict(families or {})
        for fam, module in (lazy_modules or {}).items():
            self._families[fam] = replace(self._families.get(fam, Family()), module=module)
        for fam, written in (usage or {}).items():
            self._families[fam] = replace(self._families.get(fam, Family()), usage=written)
        self._lazy = {fam: f.module for fam, f in self._families.items() if f.module}
        self._usage = {fam: f.usage for fam, f in self._families.items() if f.usage}

    def register(self, family: str, *, needs_arg: bool = False, optional_arg: bool = False,
                 arg_choices: tuple[str, ...] = (), help: str = "") -> Callable:
        """Decorator: register ``factory(arg, **options)`` (``arg`` is None for bare names;
        ``optional_arg``: both ``family`` and ``family:<arg>`` are valid; ``arg_choices``: the
        arguments it accepts, checked by :meth:`check_name`)."""

        def deco(factory: Callable[..., T]) -> Callable[..., T]:
            summary = help or (factory.__doc__ or "").strip().split("\n")[0]
            self._entries[family] = Entry(family, factory, needs_arg, summary, optional_arg, tuple(arg_choices))
            return factory

        return deco

    def families(self) -> list[str]:
        return sorted(set(self._entries) | set(self._families))

    def family(self, name: str) -> Family:
        """The declaration of the family of ``name`` (``openai:gpt-4o`` -> ``openai``), without
        importing its module; :class:`UnknownNameError` for an unknown family."""
        family = self.split(name)[0]
        if family in self._families:
            return self._families[family]
        if family in self._entries:
            return Family(usage=self.usage(family))
        raise self._unknown(name)

    def offline_names(self) -> list[str]:
        """Names that run here with no network and no user-supplied model, for pickers."""
        out: list[str] = []
        for fam in self.families():
            spec = self.family(fam)
            if spec.offline and spec.offer:
                out.extend(spec.examples or (fam,))
        return out

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

    def check_name(self, name: str) -> None:
        """Raise :class:`UnknownNameError` when ``name`` cannot be created (unknown family, missing or
        unexpected argument), without importing any family module or loading a model."""
        family, arg = self.split(name)
        if family not in self._entries and family not in self._lazy:
            raise self._unknown(name)
        if family in self._entries or (arg and family not in self._usage):
            # an optional argument ("bm25:bigram") is declared where the family registers: import it (no model)
            entry = self._entry(family)
            self._check_arg(name, arg, entry, self.usage(family))
        elif family in self._usage and not arg:
            raise UnknownNameError(f"{self.role} {family!r} needs an argument: use '{self.usage(family)}'")

    def _check_arg(self, name: str, arg: str | None, entry: Entry[T], usage: str) -> None:
        """``arg`` is what ``entry`` takes: present when it needs one, absent when it takes none, one of its
        ``arg_choices`` when it lists them."""
        if entry.needs_arg and not arg:
            raise UnknownNameError(f"{self.role} {entry.family!r} needs an argument: use '{usage}'")
        if not entry.needs_arg and not entry.optional_arg and arg:
            raise UnknownNameError(f"{self.role} {entry.family!r} takes no argument, got {name!r}")
        if arg and entry.arg_choices and arg not in entry.arg_choices:
            choices = ", ".join(f"{entry.family}:{c}" for c in entry.arg_choices)
            raise UnknownNameError(f"{self.role} {name!r}: unknown argument {arg!r}; use one of {choices} "
                                   f"or {entry.family}")

    def create(self, name: str, **options: Any) -> T:
        family, arg = self.split(name)
        if family not in self._entries and family not in self._lazy:
            raise self._unknown(name)
        entry = self._entry(family)
        self._check_arg(name, arg, entry, f"{family}:<model id or path>")
        return entry.factory(arg, **options)
