"""Device and dtype choice for every model docrag loads (retrievers, rerankers, generators).

torch is imported inside the functions: it is heavy, and only model-backed parts need it.
"""

from __future__ import annotations

from typing import Any

from docrag.errors import DocragError

DTYPES = ("float32", "fp32", "bfloat16", "bf16", "float16", "fp16")


def resolve_device(device: str | None = None) -> str:
    """``device`` if given, else cuda, then mps, then cpu."""
    import torch

    if device:
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise DocragError(f"--device {device}: CUDA is not available on this machine; use --device cpu")
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def resolve_dtype(device: str, dtype: str | None = None):
    """``dtype`` if given (``float32``, ``bfloat16``, ``float16``), else bf16 on GPU and fp32 on CPU."""
    import torch

    names = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
             "float16": torch.float16, "fp16": torch.float16}
    if dtype:
        if dtype not in names:
            raise DocragError(f"unknown dtype {dtype!r}; use one of {', '.join(names)}")
        return names[dtype]
    return torch.bfloat16 if device.startswith("cuda") else torch.float32


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")
