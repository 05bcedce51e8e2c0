"""``openai:<model>`` generator: any OpenAI-compatible chat endpoint sees the page images.

Options: ``coords`` (default ``auto``: the box convention of the model's family, read from its
name -- see :mod:`docrag.generation.conventions`; or ``pixel``, ``model_pixels``, ``norm1000``,
``norm1000_yx``), ``processor_min_pixels`` / ``processor_max_pixels`` (the pixel budget of a
Qwen2.5-VL-style processor, for ``model_pixels``), ``max_width`` / ``max_height`` /
``max_pixels`` (resize policy, default fit 1024x768), ``max_pages``, ``max_tokens``,
``temperature``, ``snap``, ``ground``, ``cite_by`` (``regions``, the default: numbered region marks on
the images and region numbers in the reply; ``boxes``: the model draws boxes), ``concurrency``
(requests in flight for batches, default 4); everything
else (``base_url``, ``api_key``, ``timeout``, ``max_retries``, ...) goes to
:class:`docrag.backends.openai.OpenAIBackend`.
"""

from __future__ import annotations

from typing import Any

from docrag.backends import get_backend
from docrag.generation.base import GENERATORS, VLMGenerator, resize_policy_from

_GENERATOR_KEYS = ("coords", "max_pages", "max_tokens", "temperature", "snap", "ground", "cite_by", "concurrency",
                   "processor_min_pixels", "processor_max_pixels")


@GENERATORS.register("openai", needs_arg=True, help="any OpenAI-compatible chat endpoint (GPT-4o, vLLM, Ollama, ...)")
def make_openai_generator(model: str, **options: Any) -> VLMGenerator:
    resize = resize_policy_from(options)
    gen_opts = {k: options.pop(k) for k in _GENERATOR_KEYS if k in options}
    gen_opts = {k: v for k, v in gen_opts.items() if v is not None}
    gen_opts.setdefault("coords", "auto")
    backend = options.pop("backend", None) or get_backend(f"openai:{model}", **options)
    return VLMGenerator(backend, resize=resize, **gen_opts)
