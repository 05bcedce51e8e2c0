"""What an evaluation run computes (:class:`EvalConfig`) and which parts of it make the run's identity.

Defaults come from :mod:`docrag.config` (``DEFAULT_*``); :meth:`EvalConfig.from_settings` takes the
retriever, generator and citation judge from resolved :class:`~docrag.config.Settings` (the CLI
resolves them once and passes them on).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from docrag.config import (
    DEFAULT_ANSWER_JUDGE,
    DEFAULT_CONTEXT,
    DEFAULT_GENERATOR,
    DEFAULT_JUDGE,
    DEFAULT_K,
    DEFAULT_LEVELS,
    DEFAULT_MODE,
    DEFAULT_REL_TOL,
    DEFAULT_RERANK_DEPTH,
    DEFAULT_RETRIEVER,
    Settings,
)
from docrag.errors import InputError
from docrag.eval.retrieval_metrics import DEFAULT_METRICS, parse_metric
from docrag.evidence import BLOCK_MODES, Context, Level, parse_enum

#: families whose judges are models (so ``answer_judge="auto"`` uses the citation judge for answers too)
MODEL_JUDGE_FAMILIES = ("openai", "qwen-vl")


def retrieval_metrics_for(k: int) -> tuple[str, ...]:
    """The default metrics whose cutoff fits in a top-``k`` run, plus nDCG@k and Recall@k (and
    MRR@k when MRR@10 does not fit)."""
    out = [m for m in DEFAULT_METRICS if parse_metric(m)[1] <= k]
    out += [m for m in (f"ndcg@{k}", f"recall@{k}") if m not in out]
    if not any(m.startswith("mrr@") for m in out):
        out.append(f"mrr@{k}")
    return tuple(out)


def _is_none(name: str | None) -> bool:
    return name is None or name in ("", "none")


@dataclass
class EvalConfig:
    """What a run computes. Every field except the runtime knobs (``index_dir``, ``pixel_*``) is
    part of the run's identity: a RUN_DIR made with another config refuses to resume."""

    retriever: str = DEFAULT_RETRIEVER  # "none": no retrieval (only with --context oracle|none)
    generator: str = DEFAULT_GENERATOR  # "none": retrieval-only run
    judge: str = DEFAULT_JUDGE          # citation judge; "none": citations not judged
    answer_judge: str = DEFAULT_ANSWER_JUDGE  # "auto": the citation judge when it is a model, else "proxy"
    context: str = DEFAULT_CONTEXT      # a Context: retrieved | oracle (gold pages) | none (question only)
    k: int = DEFAULT_K
    levels: tuple[str, ...] = DEFAULT_LEVELS  # Level values
    mode: str = DEFAULT_MODE            # block level: crop (image-cropping) | box (box-bounding)
    metrics: tuple[str, ...] | None = None   # default: see retrieval_metrics_for(k)
    rel_tol: float = DEFAULT_REL_TOL
    index_dir: str | None = None
    coords: str | None = None        # box convention of a vision generator (--coords); None: its default
    ground: str | None = None        # citation grounding (--ground refine|replace|off); None: the settings'
    cite_by: str | None = None       # how a vision generator cites (--cite-by regions|boxes); None: the settings'
    rerank: str = ""                 # rerank stage over the retriever's top rerank_depth pages ("" = none)
    rerank_depth: int = DEFAULT_RERANK_DEPTH
    pixel_empty: str = "skip"        # report-time choices of pixel grounding (not part of the identity)
    pixel_average: str = "query"
    pixel_best: str = "page"

    def __post_init__(self) -> None:
        self.context = parse_enum(Context, self.context, "context").value
        self.levels = tuple(parse_enum(Level, lv, "citation level").value for lv in self.levels)
        if not self.levels:
            raise InputError(f"citation levels must be among {', '.join(lv.value for lv in Level)}, got none")
        self.metrics = tuple(self.metrics) if self.metrics else retrieval_metrics_for(self.k)
        if self.k < 1:
            raise InputError(f"k must be at least 1, got {self.k}")
        if self.mode not in BLOCK_MODES:
            raise InputError(f"mode must be 'crop' or 'box', got {self.mode!r}")
        if self.context == Context.RETRIEVED and _is_none(self.retriever):
            raise InputError("--context retrieved needs a retriever; pass --retriever or use --context oracle|none")

    @classmethod
    def from_settings(cls, settings: Settings, **fields: Any) -> EvalConfig:
        """A config whose retriever, generator and citation judge come from ``settings`` unless
        given (not None) in ``fields``; the other ``fields`` are passed as they are."""
        for key in ("retriever", "generator", "judge"):
            if fields.get(key) is None:
                fields[key] = getattr(settings, key)
        return cls(**fields)

    @property
    def uses_retrieval(self) -> bool:
        return not _is_none(self.retriever)

    @property
    def uses_generation(self) -> bool:
        return not _is_none(self.generator)

    @property
    def uses_citations(self) -> bool:
        return self.uses_generation and not _is_none(self.judge)

    @property
    def resolved_answer_judge(self) -> str:
        if self.answer_judge != "auto":
            return self.answer_judge
        if self.uses_citations and self.judge.partition(":")[0] in MODEL_JUDGE_FAMILIES and ":" in self.judge:
            return self.judge
        return "proxy"

    def identity(self) -> dict:
        d = asdict(self)
        d["levels"], d["metrics"] = list(self.levels), list(self.metrics)
        d["answer_judge"] = self.resolved_answer_judge
        d.pop("index_dir")  # where an index lives does not change results
        if d.get("coords") is None:
            d.pop("coords")  # runs made before --coords existed keep their identity
        if d.get("ground") is None:
            d.pop("ground")  # likewise --ground
        if d.get("cite_by") is None:
            d.pop("cite_by")  # likewise --cite-by
        d.pop("pixel_empty")  # pixel grounding choices are applied to stored records at report time
        d.pop("pixel_average")
        d.pop("pixel_best")
        if not self.rerank:  # runs made before the rerank stage existed keep their identity
            d.pop("rerank")
            d.pop("rerank_depth")
        return d
