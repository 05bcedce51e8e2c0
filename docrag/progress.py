"""Progress-bar helpers: readable bar labels, and model-loading bars kept out of the Python API."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

log = logging.getLogger(__name__)


def short_name(name: str, width: int = 32) -> str:
    """``name`` shortened in the middle (``"annual_rep…2023.pdf"``) so a bar label keeps both the start
    of a file name and its end (the part that tells files apart); cutting from the left lost the start."""
    if len(name) <= width:
        return name
    head = (width - 1) * 3 // 5
    tail = width - 1 - head
    return f"{name[:head]}…{name[-tail:]}"


@contextlib.contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Silence transformers' and huggingface_hub's own bars (``Loading weights``, downloads) while a
    model loads, in the CLI and the Python API alike; docrag's own bars are unaffected."""
    undo = []
    try:
        from transformers.utils import logging as hf_logging

        if hf_logging.is_progress_bar_enabled():
            hf_logging.disable_progress_bar()
            undo.append(hf_logging.enable_progress_bar)
    except ImportError:  # transformers not installed: nothing of its to silence
        log.debug("transformers not importable; its progress bars need no silencing")
    try:
        from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

        if not are_progress_bars_disabled():
            disable_progress_bars()
            undo.append(enable_progress_bars)
    except ImportError:
        log.debug("huggingface_hub not importable; its progress bars need no silencing")
    try:
        yield
    finally:
        for fn in undo:
            fn()
