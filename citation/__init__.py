"""docrag.citation: visual evidence, citation judges, citation metrics, IoU and agreement.

Quick use::

    from docrag.citation import evaluate, citation_scores
    res = evaluate(answer, corpus, judge="grounding", level="block", mode="crop", cache="verdicts.jsonl")
    res.recall, res.precision, res.calls

See ``docs/citation.md`` for the metric definitions, the call-saving order and the judges.
"""

from docrag.citation.agreement import Correlations, agreement, box_iou, correlations, load_human_ratings, question_iou
from docrag.citation.api import (
                                       CallEstimate,
                                       CitationResult,
                                       citation_scores,
                                       dry_run,
                                       dry_run_many,
                                       evaluate,
                                       evaluate_many,
)
from docrag.citation.cache import VerdictCache
from docrag.citation.evidence import (
                                       EvidenceImage,
                                       Level,
                                       Mode,
                                       Unit,
                                       citation_units,
                                       crop_image,
                                       evidence_images,
                                       overlay_image,
                                       pixel_rect,
                                       save_evidence,
)
from docrag.citation.judge import (
                                       BOX_PROMPT,
                                       CROP_PROMPT,
                                       JUDGES,
                                       PAGE_PROMPT,
                                       PROMPT_VERSION,
                                       FunctionJudge,
                                       Judge,
                                       JudgeContext,
                                       build_prompt,
                                       get_judge,
                                       judge_options,
)
from docrag.citation.metrics import SetScore, UnitVerdict, score_units
from docrag.citation.oracle import GoldEvidence, OracleJudge, gold_from_qa
from docrag.citation.verdict import Verdict, VerdictValue, parse_verdict

__all__ = [
    "BOX_PROMPT", "CROP_PROMPT", "JUDGES", "PAGE_PROMPT", "PROMPT_VERSION", "CallEstimate",
    "CitationResult", "Correlations", "EvidenceImage", "FunctionJudge", "GoldEvidence", "Judge",
    "JudgeContext", "Level", "Mode", "OracleJudge", "SetScore", "Unit", "UnitVerdict", "Verdict",
    "VerdictCache", "VerdictValue", "agreement", "box_iou", "build_prompt", "citation_scores",
    "citation_units", "correlations", "crop_image", "dry_run", "dry_run_many", "evaluate",
    "evaluate_many", "evidence_images", "get_judge", "gold_from_qa", "judge_options", "load_human_ratings",
    "overlay_image", "parse_verdict", "pixel_rect", "question_iou", "save_evidence", "score_units",
]
