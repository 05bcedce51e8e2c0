"""docrag.eval: question sets, retrieval/answer/citation metrics, the resumable runner, reports.

Quick use::

    from docrag.eval import EvalConfig, Evaluator
    report = Evaluator.from_files("corpus", "qa.jsonl", "runs/bm25", EvalConfig(retriever="bm25")).run()
    report["retrieval"]["groups"]["overall"]["ndcg@10"]

See ``docs/evaluation.md`` for the metrics, the RUN_DIR files and the FinRAGBench-V layout; the
RUN_DIR records are typed in :mod:`docrag.eval.records` (``read_records(path, GenerationRecord)``).
"""

from docrag.eval.answer_metrics import (
    AnswerVerdict,
    BackendAnswerJudge,
    ProxyAnswerJudge,
    answer_scores,
    extract_numbers,
    get_answer_judge,
    numeric_match,
    rouge_l_f1,
    tokenize,
)
from docrag.eval.attribution import STAGES, attribute, gold_box_iou
from docrag.eval.compare import compare_retrievers, compare_runs
from docrag.eval.data import GoldBox, QAItem, load_finragbench, load_qa, load_qa_jsonl, read_qrels_tsv
from docrag.eval.record_log import RecordLog, read_records
from docrag.eval.records import (
    RUN_SCHEMA_VERSION,
    AnswerRecord,
    CitationRecord,
    ErrorRecord,
    GenerationRecord,
    JudgementRecord,
    RecordError,
    RetrievalRecord,
    RunMeta,
)
from docrag.eval.retrieval_metrics import (
    DEFAULT_METRICS,
    canonical_order,
    mrr_at_k,
    ndcg_at_k,
    pytrec_eval_scores,
    recall_at_k,
    score_run,
    write_trec_qrels,
    write_trec_run,
)
from docrag.eval.runner import EvalConfig, Evaluator, RunDirError
from docrag.evidence import GoldEvidence

__all__ = [
    "DEFAULT_METRICS", "RUN_SCHEMA_VERSION", "STAGES", "AnswerRecord", "AnswerVerdict", "BackendAnswerJudge",
    "CitationRecord", "ErrorRecord", "EvalConfig", "Evaluator", "GenerationRecord", "GoldBox", "GoldEvidence",
    "JudgementRecord", "ProxyAnswerJudge", "QAItem", "RecordError", "RetrievalRecord", "RunDirError", "RunMeta",
    "RecordLog", "read_records", "answer_scores", "attribute", "canonical_order",
    "compare_retrievers", "compare_runs", "extract_numbers", "get_answer_judge", "gold_box_iou",
    "load_finragbench", "load_qa", "load_qa_jsonl", "mrr_at_k", "ndcg_at_k", "numeric_match",
    "pytrec_eval_scores", "read_qrels_tsv", "recall_at_k", "rouge_l_f1", "score_run", "tokenize",
    "write_trec_qrels", "write_trec_run",
]
