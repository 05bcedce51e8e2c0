"""User settings: built-in defaults < config file < ``DOCRAG_*`` environment variables < CLI flags.

The config file is TOML, at ``~/.config/docrag/config.toml`` (``$XDG_CONFIG_HOME/docrag/config.toml``
when that is set), or wherever ``DOCRAG_CONFIG`` points. Keys (all optional)::

    retriever = "bm25"                  # DOCRAG_RETRIEVER  -- default retriever of `ask`/`RAG`
    generator = "extractive"            # DOCRAG_GENERATOR  -- e.g. "openai:gpt-4o", "qwen-vl:/models/Qwen2.5-VL-7B"
    judge = "grounding"                 # DOCRAG_JUDGE      -- citation judge, e.g. "openai:gpt-4o"
    k = 10                              # DOCRAG_K          -- pages retrieved per question
    index_dir = "/data/indexes"         # DOCRAG_INDEX_DIR  -- where indexes live (default: inside the corpus)
    store = "qdrant:/data/qdrant"       # DOCRAG_STORE      -- embedded (default), qdrant:PATH[#coll], qdrant:URL[/coll]
    rerank = "cross-encoder:/models/bge-reranker-v2-m3"  # DOCRAG_RERANK -- rerank stage (default: none)
    rerank_depth = 20                   # DOCRAG_RERANK_DEPTH -- first-stage pages the reranker rescores
    scope = "named"                     # DOCRAG_SCOPE -- a question naming its report ("In Twilio's Q4 2023
                                        #   earnings presentation, ...") searches that document only | off

    [generation]                        # options passed to the generator
    max_width = 1024                    # DOCRAG_MAX_WIDTH   resize policy: fit max_width x max_height
    max_height = 768                    # DOCRAG_MAX_HEIGHT
    max_pixels = 786432                 # DOCRAG_MAX_PIXELS  optional area budget
    max_pages = 10                      # DOCRAG_MAX_PAGES   pages sent to a vision model
    coords = "auto"                     # DOCRAG_COORDS      openai box convention: auto (from the model
                                        #   name) | pixel | model_pixels | norm1000 | norm1000_yx
    snap = false                        # DOCRAG_SNAP        snap boxes to layout blocks
    ground = "refine"                   # DOCRAG_GROUND      ground citations on the pages' regions:
                                        #   refine (model boxes as a prior) | replace | off
    cite_by = "regions"                 # DOCRAG_CITE_BY     how vision generators cite: regions (numbered
                                        #   region marks on the images, region numbers in the reply) | boxes
    max_tokens = 1024                   # DOCRAG_MAX_TOKENS
    concurrency = 4                     # DOCRAG_CONCURRENCY requests in flight for batches

    [openai]                            # the OpenAI-compatible endpoint (generator and judge)
    base_url = "http://localhost:8000/v1"   # else $OPENAI_BASE_URL, else api.openai.com
    api_key_env = "OPENAI_API_KEY"          # name of the variable holding the key (never the key itself)
    timeout = 120
    max_retries = 4                         # retries of a failed call (backoff doubles from `backoff` s)
    backoff = 1.0

    [serve]                             # limits of `docrag serve` and `docrag view` (docs/serving.md)
    max_body_bytes = 65536              # DOCRAG_SERVE_MAX_BODY_BYTES     larger request bodies: 413
    max_question_chars = 2000           # DOCRAG_SERVE_MAX_QUESTION_CHARS longer questions/queries: 422
    max_k = 50                          # DOCRAG_SERVE_MAX_K              pages per question or search
    max_filter_fields = 16              # DOCRAG_SERVE_MAX_FILTER_FIELDS  fields of a /search filter
    max_filter_values = 100             # DOCRAG_SERVE_MAX_FILTER_VALUES  values of one filter field
    max_image_side = 4000               # DOCRAG_SERVE_MAX_IMAGE_SIDE     longest side of a page image
    max_boxes = 64                      # DOCRAG_SERVE_MAX_BOXES          boxes drawn on a page image
    max_in_flight = 4                   # DOCRAG_SERVE_MAX_IN_FLIGHT      questions being answered
    max_queue = 8                       # DOCRAG_SERVE_MAX_QUEUE          waiting beyond those; then 503
    timeout = 60                        # DOCRAG_SERVE_TIMEOUT            seconds per question; then
                                        #   the work is cancelled and the answer is 504
    retry_after = 2                     # DOCRAG_SERVE_RETRY_AFTER        seconds, in a 503's Retry-After

    [models."Qwen/Qwen2.5-VL-7B-Instruct"]  # per model (exact name, or a glob such as "*qwen2.5-vl*";
    coords = "model_pixels"             #   exact names win, then the first matching glob)
    processor_min_pixels = 3136         # the model processor's pixel budget (model_pixels)
    processor_max_pixels = 12845056

The default retriever and generator are the best offline choices measured by the project; they
live in :data:`DEFAULT_RETRIEVER` / :data:`DEFAULT_GENERATOR` and nowhere else.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from docrag.errors import InputError

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DEFAULT_RETRIEVER = "bm25"
DEFAULT_GENERATOR = "extractive"
DEFAULT_JUDGE = "grounding"
DEFAULT_K = 10
# evaluation runs (`docrag eval`, docrag.eval.EvalConfig) and citation scoring (`docrag cite`)
DEFAULT_ANSWER_JUDGE = "auto"        # the citation judge when it is a model, else the offline proxy
DEFAULT_CONTEXT = "retrieved"        # pages the generator sees: retrieved | oracle | none
DEFAULT_LEVELS = ("page", "block")   # citation levels judged
DEFAULT_MODE = "crop"                # block-level judging: crop (image-cropping) | box (box-bounding)
DEFAULT_RERANK_DEPTH = 20            # first-stage pages a rerank stage rescores
DEFAULT_REL_TOL = 1e-2               # relative tolerance of numeric answer matching
DEFAULT_RETRIEVAL_BATCH = 16         # questions per retrieval batch of an eval run

_TOP_LEVEL: dict[str, Callable[[str], Any]] = {"retriever": str, "generator": str, "judge": str, "k": int,
                                                "index_dir": str, "store": str, "rerank": str, "rerank_depth": int,
                                                "scope": lambda v: _choice(v, ("named", "off"))}
_GENERATION: dict[str, Callable[[str], Any]] = {
    "max_width": int, "max_height": int, "max_pixels": int, "max_pages": int, "coords": str,
    "snap": lambda v: str(v).strip().lower() in ("1", "true", "yes", "on"), "max_tokens": int,
    "concurrency": int, "ground": lambda v: _choice(v, ("refine", "replace", "off")),
    "cite_by": lambda v: _choice(v, ("regions", "boxes"))}
_OPENAI: dict[str, Callable[[str], Any]] = {"base_url": str, "api_key_env": str, "timeout": float,
                                              "max_retries": int, "backoff": float}
_MODEL: dict[str, Callable[[str], Any]] = {"coords": str, "processor_min_pixels": int, "processor_max_pixels": int}


def _whole(value: Any) -> int:
    """An integer from an int or its text; floats with a fraction and booleans are refused."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError("expected a whole number")
    return int(value)


def _at_least(conv: Callable[[Any], Any], low: float) -> Callable[[Any], Any]:
    """``conv`` that also refuses values below ``low``."""
    def check(value: Any) -> Any:
        v = conv(value)
        if v < low:
            raise ValueError(f"must be at least {low:g}")
        return v
    return check


@dataclass(frozen=True)
class ServeLimits:
    """Request limits of ``docrag serve`` and ``docrag view`` (the ``[serve]`` table, ``DOCRAG_SERVE_*``)."""

    max_body_bytes: int = 65536
    max_question_chars: int = 2000
    max_k: int = 50
    max_filter_fields: int = 16
    max_filter_values: int = 100
    max_image_side: int = 4000
    max_boxes: int = 64
    max_in_flight: int = 4
    max_queue: int = 8
    timeout: float = 60.0
    retry_after: int = 2

    @staticmethod
    def where(key: str) -> str:
        """How a user sets ``key``: ``serve.max_k in the config or DOCRAG_SERVE_MAX_K``."""
        return f"serve.{key} in the config or DOCRAG_SERVE_{key.upper()}"

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in _SERVE}


_SERVE: dict[str, Callable[[Any], Any]] = {
    "max_body_bytes": _at_least(_whole, 256), "max_question_chars": _at_least(_whole, 1),
    "max_k": _at_least(_whole, 1), "max_filter_fields": _at_least(_whole, 1),
    "max_filter_values": _at_least(_whole, 1), "max_image_side": _at_least(_whole, 64),
    "max_boxes": _at_least(_whole, 0), "max_in_flight": _at_least(_whole, 1), "max_queue": _at_least(_whole, 0),
    "timeout": _at_least(float, 0.1), "retry_after": _at_least(_whole, 1)}


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    v = str(value).strip().lower()
    if v not in choices:
        raise ValueError(f"expected one of {', '.join(choices)}")
    return v


def config_path() -> Path:
    """Where the config file is read from (it need not exist)."""
    if os.environ.get("DOCRAG_CONFIG"):
        return Path(os.environ["DOCRAG_CONFIG"]).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "docrag" / "config.toml"


@dataclass
class Settings:
    """Resolved settings (see the module docstring for keys and precedence)."""

    retriever: str = DEFAULT_RETRIEVER
    generator: str = DEFAULT_GENERATOR
    judge: str = DEFAULT_JUDGE
    k: int = DEFAULT_K
    index_dir: str | None = None
    store: str | None = None
    rerank: str = ""                 # "" = no rerank stage
    rerank_depth: int = 20
    scope: str = "named"             # named | off: see docrag.doc_names
    generation: dict[str, Any] = field(default_factory=dict)
    openai: dict[str, Any] = field(default_factory=dict)
    models: dict[str, dict[str, Any]] = field(default_factory=dict)   # model name or glob -> options
    presets: dict[str, dict[str, Any]] = field(default_factory=dict)   # [presets.<name>]: local data paths
    serve: ServeLimits = field(default_factory=ServeLimits)          # [serve]: request limits
    source: dict[str, str] = field(default_factory=dict)   # key -> "default" | file path | env var
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ, repr=False)

    def generator_options(self, name: str | None = None) -> dict[str, Any]:
        """Options for ``get_generator(name)``: the [generation] keys its registry entry declares
        and, for an entry that declares an endpoint (``openai:``), the endpoint and the model's table."""
        from docrag.generation.registry import GENERATORS  # (the docrag.generation package loads Pillow)

        name = name or self.generator
        spec = GENERATORS.family(name)
        opts = {k: v for k, v in self.generation.items() if spec.options is None or k in spec.options}
        if spec.endpoint:
            opts.update(self.endpoint_options())
            opts.update(self.model_options(name.partition(":")[2]))
        return opts

    def model_options(self, model: str) -> dict[str, Any]:
        """The ``[models."<name>"]`` table for ``model``: an exact name first, else the first glob
        that matches (case-insensitive); ``{}`` when none does."""
        if model in self.models:
            return dict(self.models[model])
        for pattern, opts in self.models.items():
            if fnmatch(model.lower(), pattern.lower()):
                return dict(opts)
        return {}

    def backend_options(self, name: str) -> dict[str, Any]:
        """Options for ``get_backend(name)``: the endpoint, for backends whose registry entry
        declares one (``openai:``); ``{}`` for other names."""
        from docrag.backends import BACKENDS  # the backend registry (loads Pillow)

        family = BACKENDS.split(name)[0]
        if family not in BACKENDS.families() or not BACKENDS.family(family).endpoint:
            return {}
        return self.endpoint_options()

    def endpoint_options(self) -> dict[str, Any]:
        """The ``[openai]`` table as client options (the API key read from its variable)."""
        opts: dict[str, Any] = {}
        if self.openai.get("base_url"):
            opts["base_url"] = self.openai["base_url"]
        if self.openai.get("api_key_env"):
            var = self.openai["api_key_env"]
            if self.environ.get(var):
                opts["api_key"] = self.environ[var]
        if self.openai.get("timeout"):
            opts["timeout"] = float(self.openai["timeout"])
        for key in ("max_retries", "backoff"):
            if self.openai.get(key) is not None:
                opts[key] = self.openai[key]
        return opts


def _convert(key: str, value: Any, conv: Callable[[str], Any], where: str) -> Any:
    try:
        return conv(value) if not isinstance(value, bool) or conv is not int else int(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {key} = {value!r} is not valid ({exc})") from exc


def load_settings(path: Path | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Defaults, then the config file, then ``DOCRAG_*`` variables (CLI flags are applied by callers)."""
    env = os.environ if environ is None else environ
    path = path or config_path()
    s = Settings(environ=env)
    s.source = {k: "default" for k in _TOP_LEVEL}
    data: dict[str, Any] = {}
    if path.exists():
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{path}: not valid TOML ({exc}); fix or remove it (or set DOCRAG_CONFIG)") from exc
        known = set(_TOP_LEVEL) | {"generation", "openai", "models", "presets", "serve"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"{path}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    for key, conv in _TOP_LEVEL.items():
        if key in data:
            setattr(s, key, _convert(key, data[key], conv, str(path)))
            s.source[key] = str(path)
    presets = data.get("presets", {})
    if not isinstance(presets, dict) or not all(isinstance(v, dict) for v in presets.values()):
        raise InputError(f"{path}: [presets.<name>] must be tables (e.g. [presets.vidore-v3] with corpus, qa, qrels)")
    s.presets = {k: dict(v) for k, v in presets.items()}
    for section, spec in (("generation", _GENERATION), ("openai", _OPENAI)):
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise InputError(f"{path}: [{section}] must be a table")
        bad = sorted(set(table) - set(spec))
        if bad:
            raise InputError(f"{path}: unknown key(s) in [{section}]: {', '.join(bad)}; "
                             f"valid: {', '.join(sorted(spec))}")
        getattr(s, section).update({k: _convert(k, v, spec[k], f"{path} [{section}]") for k, v in table.items()})
    _load_models(s, data.get("models", {}), path)
    s.serve = _load_serve(data.get("serve", {}), path, env)
    for key, conv in _TOP_LEVEL.items():
        var = f"DOCRAG_{key.upper()}"
        if env.get(var):
            setattr(s, key, _convert(key, env[var], conv, var))
            s.source[key] = var
    for key, conv in _GENERATION.items():
        var = f"DOCRAG_{key.upper()}"
        if env.get(var):
            s.generation[key] = _convert(key, env[var], conv, var)
    return s


def _load_serve(table: Any, path: Path, env: Mapping[str, str]) -> ServeLimits:
    """The ``[serve]`` table, then ``DOCRAG_SERVE_<KEY>`` variables, each value checked."""
    if not isinstance(table, dict):
        raise InputError(f"{path}: [serve] must be a table")
    bad = sorted(set(table) - set(_SERVE))
    if bad:
        raise InputError(f"{path}: unknown key(s) in [serve]: {', '.join(bad)}; valid: {', '.join(sorted(_SERVE))}")
    values = {k: _convert(k, v, _SERVE[k], f"{path} [serve]") for k, v in table.items()}
    for key, conv in _SERVE.items():
        var = f"DOCRAG_SERVE_{key.upper()}"
        if env.get(var):
            values[key] = _convert(key, env[var], conv, var)
    return ServeLimits(**values)


def _load_models(s: Settings, table: Any, path: Path) -> None:
    """``[models."<name or glob>"]`` tables: per-model box convention and processor pixel budget."""
    from docrag.generation.conventions import check_convention  # (the generation package loads Pillow)

    if not isinstance(table, dict):
        raise InputError(f"{path}: [models] must hold one table per model, e.g. [models.\"gpt-4o\"]")
    for model, opts in table.items():
        where = f'{path} [models."{model}"]'
        if not isinstance(opts, dict):
            raise InputError(f"{where} must be a table (coords, processor_min_pixels, processor_max_pixels)")
        bad = sorted(set(opts) - set(_MODEL))
        if bad:
            raise InputError(f"{where}: unknown key(s) {', '.join(bad)}; valid: {', '.join(sorted(_MODEL))}")
        conv = {k: _convert(k, v, _MODEL[k], where) for k, v in opts.items()}
        if "coords" in conv:
            conv["coords"] = check_convention(conv["coords"], f"{where} coords")
        s.models[str(model)] = conv
