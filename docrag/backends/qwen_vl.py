"""``qwen-vl:<model id or path>``: a local Qwen2-VL / Qwen2.5-VL / Qwen3-VL checkpoint via transformers.

The model class is picked from the checkpoint's ``config.json`` ``model_type`` (never from its
name). Images go through ``qwen_vl_utils.process_vision_info`` with the processor's own pixel
budget, and each reply reports the image sizes the model actually saw
(``ChatReply.meta["input_sizes"]``, read back from ``image_grid_thw``): Qwen2.5-VL answers boxes in
absolute pixels of *that* resized input, Qwen2-VL and Qwen3-VL on a 0-1000 grid
(:attr:`QwenVLBackend.coords`).

Options: ``device`` (``auto`` -> cuda if available else cpu), ``dtype`` (``auto`` -> bf16 on
cuda, fp32 on cpu), ``attn_implementation`` (``auto`` -> eager on cpu, the model default on cuda),
``min_pixels`` / ``max_pixels`` (override the processor's pixel budget).
Loaded models are cached per (path, device, dtype), so a generator and a judge share one copy.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docrag.backends import BACKENDS
from docrag.backends.base import BackendError, ChatMessage, ChatReply, ImagePart, TextPart
from docrag.cancel import checkpoint, current_token
from docrag.devices import resolve_device, resolve_dtype
from docrag.errors import DocragError, InputError, MissingDependencyError
from docrag.model_source import check_model_source
from docrag.progress import quiet_model_loading

log = logging.getLogger(__name__)

#: model_type -> (transformers class name, reply coordinate convention, vision patch size)
FAMILIES: dict[str, tuple[str, str, int]] = {
    "qwen2_vl": ("Qwen2VLForConditionalGeneration", "norm1000", 14),
    "qwen2_5_vl": ("Qwen2_5_VLForConditionalGeneration", "model_pixels", 14),
    "qwen3_vl": ("Qwen3VLForConditionalGeneration", "norm1000", 16),
    "qwen3_vl_moe": ("Qwen3VLMoeForConditionalGeneration", "norm1000", 16),
}


@dataclass
class _Loaded:
    model: Any
    processor: Any
    model_type: str
    device: str
    lock: threading.Lock


_CACHE: dict[tuple[str, str, str, str], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def model_type_of(path: str) -> str:
    """``model_type`` from the checkpoint's config.json (local folder or cached hub id)."""
    from transformers import AutoConfig

    check_model_source(path, "qwen-vl")
    try:
        cfg = AutoConfig.from_pretrained(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"qwen-vl:{path}: cannot read config.json ({exc}); pass a local checkpoint "
                         "folder or a model id already in the Hugging Face cache") from exc
    return str(cfg.model_type)


def _resolve_device_dtype(device: str, dtype: str) -> tuple[str, Any]:
    """``auto`` -> the shared choice of :mod:`docrag.devices` (cuda, then mps, then cpu; bf16 on GPU)."""
    try:
        dev = resolve_device(None if device == "auto" else device)
        return dev, resolve_dtype(dev, None if dtype == "auto" else dtype)
    except DocragError as exc:
        raise InputError(f"qwen-vl: {exc}") from None


def _load(path: str, device: str, dtype: str, attn: str) -> _Loaded:
    try:
        import transformers
        from transformers import AutoProcessor
    except ImportError as exc:  # pragma: no cover - transformers is a hard dependency
        raise MissingDependencyError("qwen-vl needs transformers: pip install 'transformers>=5.3'") from exc
    dev, torch_dtype = _resolve_device_dtype(device, dtype)
    key = (path, dev, str(torch_dtype), attn)
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        mtype = model_type_of(path)
        if mtype not in FAMILIES:
            raise InputError(f"qwen-vl:{path}: model_type {mtype!r} is not a Qwen-VL family; "
                             f"supported: {', '.join(sorted(FAMILIES))}")
        cls_name = FAMILIES[mtype][0]
        cls = getattr(transformers, cls_name, None)
        if cls is None:
            raise MissingDependencyError(f"qwen-vl:{path}: this transformers ({transformers.__version__}) "
                                         f"has no {cls_name}; upgrade transformers")
        kwargs: dict[str, Any] = {"dtype": torch_dtype}
        impl = ("eager" if dev == "cpu" else None) if attn == "auto" else attn
        if impl:
            kwargs["attn_implementation"] = impl
        t0 = time.perf_counter()

        with quiet_model_loading():
            model = cls.from_pretrained(path, **kwargs).to(dev).eval()
            processor = AutoProcessor.from_pretrained(path)
        log.info("loaded %s (%s) on %s in %.1fs", path, mtype, dev, time.perf_counter() - t0)
        loaded = _Loaded(model, processor, mtype, dev, threading.Lock())
        _CACHE[key] = loaded
        return loaded


class QwenVLBackend:
    """Chat with a local Qwen-VL checkpoint; one generation at a time per loaded model."""

    def __init__(self, path: str, *, device: str = "auto", dtype: str = "auto",
                 attn_implementation: str = "auto", min_pixels: int | None = None,
                 max_pixels: int | None = None) -> None:
        if not path:
            raise InputError("qwen-vl backend needs a checkpoint: use 'qwen-vl:<model id or path>'")
        self.path = path
        self.name = f"qwen-vl:{path}"
        self._loaded = _load(path, device, dtype, attn_implementation)
        self.model_type = self._loaded.model_type
        self.coords = FAMILIES[self.model_type][1]
        self.patch_size = FAMILIES[self.model_type][2]
        ip = self._loaded.processor.image_processor
        size = getattr(ip, "size", None) or {}
        self.min_pixels = int(min_pixels or getattr(ip, "min_pixels", None) or size.get("shortest_edge") or 56 * 56)
        self.max_pixels = int(max_pixels or getattr(ip, "max_pixels", None) or size.get("longest_edge")
                              or 1280 * 28 * 28)
        self.merge_patch = int(getattr(ip, "patch_size", self.patch_size) or self.patch_size)

    def __repr__(self) -> str:
        return f"QwenVLBackend({self.path!r}, {self.model_type}, {self._loaded.device})"

    def _qwen_messages(self, messages: Sequence[ChatMessage]) -> list[dict]:
        out = []
        for msg in messages:
            content: list[dict] = []
            for part in msg.content:
                if isinstance(part, TextPart):
                    content.append({"type": "text", "text": part.text})
                elif isinstance(part, ImagePart):
                    content.append({"type": "image", "image": part.image.convert("RGB"),
                                    "min_pixels": self.min_pixels, "max_pixels": self.max_pixels})
                else:
                    raise TypeError(f"unsupported message part {type(part).__name__}")
            out.append({"role": msg.role, "content": content})
        return out

    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = 1024,
             temperature: float = 0.0) -> ChatReply:
        import torch
        from qwen_vl_utils import process_vision_info

        proc, model = self._loaded.processor, self._loaded.model
        qmsgs = self._qwen_messages(messages)
        t0 = time.perf_counter()
        text = proc.apply_chat_template(qmsgs, tokenize=False, add_generation_prompt=True)
        images, videos = process_vision_info(qmsgs, image_patch_size=self.patch_size)[:2]
        inputs = proc(text=[text], images=images, videos=videos, padding=True, return_tensors="pt")
        inputs = inputs.to(self._loaded.device)
        grid = inputs.get("image_grid_thw")
        input_sizes = ([(int(w) * self.merge_patch, int(h) * self.merge_patch) for _, h, w in grid.tolist()]
                       if grid is not None else [])
        gen_kwargs: dict[str, Any] = {"max_new_tokens": int(max_tokens)}
        if temperature > 0:
            gen_kwargs.update(do_sample=True, temperature=float(temperature))
        else:
            gen_kwargs.update(do_sample=False)
        stop = _stop_when_cancelled()
        if stop is not None:
            gen_kwargs["stopping_criteria"] = stop
        checkpoint("the model's generation")
        try:
            with self._loaded.lock, torch.inference_mode():
                out = model.generate(**inputs, **gen_kwargs)
        except (RuntimeError, ValueError) as exc:
            raise BackendError(f"{self.name}: generation failed: {exc}") from exc
        checkpoint("the model's generation")   # stopped early by the criteria: raise, do not parse
        n_in = inputs["input_ids"].shape[1]
        new = out[0, n_in:]
        reply = proc.batch_decode([new], skip_special_tokens=True, clean_up_tokenization_spaces=False)[0]
        return ChatReply(text=reply, latency_s=time.perf_counter() - t0, model=self.name,
                         usage={"prompt_tokens": int(n_in), "completion_tokens": int(new.shape[0]),
                                "total_tokens": int(n_in + new.shape[0])},
                         meta={"input_sizes": input_sizes, "model_type": self.model_type,
                               "coords": self.coords})


@BACKENDS.register("qwen-vl", needs_arg=True, help="local Qwen2-VL / Qwen2.5-VL / Qwen3-VL checkpoint (transformers)")
def _make(path: str, **options: Any) -> QwenVLBackend:
    return QwenVLBackend(path, **options)


def _stop_when_cancelled() -> Any:
    """A ``StoppingCriteriaList`` that ends ``generate`` at the next token once the current cancel
    token (:mod:`docrag.cancel`) is cancelled; ``None`` without a token."""
    token = current_token()
    if token is None:
        return None
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _Cancelled(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return torch.full((input_ids.shape[0],), token.cancelled, dtype=torch.bool, device=input_ids.device)

    return StoppingCriteriaList([_Cancelled()])
