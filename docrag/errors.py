"""Exceptions that carry a message meant for the user (file or field named, what to do)."""


class DocragError(Exception):
    """Base class for errors docrag reports to the user in one clear line."""


class InputError(DocragError):
    """A user-supplied file or value cannot be used."""


class CorpusError(DocragError):
    """A corpus directory is missing, corrupt or of an unsupported schema."""


class UnknownNameError(DocragError, KeyError):
    """A registry was asked for a name it does not know."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class MissingDependencyError(DocragError):
    """A feature needs a package or system program that is not installed."""


class FileFailed(DocragError):
    """A source file cannot be ingested; the message is the reason shown to the user (the run goes on
    with the next file)."""


class PageFailed(DocragError):
    """An ingestion task failed in (or killed) its worker; the message names the page and the reason."""
