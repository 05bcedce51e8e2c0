"""Retrieval metrics equal pytrec_eval's on the same (tie-heavy) runs, to 1e-9."""

from __future__ import annotations

import math
import random

import pytest

from docrag.errors import InputError
from docrag.eval.retrieval_metrics import (
    DEFAULT_METRICS,
    canonical_order,
    mrr_at_k,
    ndcg_at_k,
    pytrec_eval_scores,
    read_trec_qrels,
    read_trec_run,
    recall_at_k,
    recall_curve,
    score_run,
    write_trec_qrels,
    write_trec_run,
)
from docrag.types import Hit

METRICS = (*DEFAULT_METRICS, "ndcg@1", "ndcg@3", "recall@1", "recall@20", "mrr@3", "mrr@20",
           "map@10", "map@3", "p@1", "p@5", "p@20")


def test_hand_computed_values():
    ranked = ["a", "b", "c", "d"]
    assert recall_at_k(ranked, {"b", "x"}, 2) == 0.5
    assert mrr_at_k(ranked, {"c"}, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(ranked, {"c"}, 2) == 0.0
    # one relevant page at rank 2: DCG = 1/log2(3), IDCG = 1
    assert ndcg_at_k(ranked, {"b"}, 5) == pytest.approx(1 / math.log2(3))
    # two relevant at ranks 1 and 3; IDCG over min(|P|, k) = 2 ones
    assert ndcg_at_k(ranked, {"a", "c"}, 5) == pytest.approx((1 + 0.5) / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(ranked, set(), 5) == 0.0


def test_map_and_precision_hand_computed():
    from docrag.eval.retrieval_metrics import map_at_k, precision_at_k

    ranked = ["a", "b", "c", "d"]
    # gold a (rank 1) and c (rank 3) and z (never found): AP = (1/1 + 2/3) / 3
    assert map_at_k(ranked, {"a", "c", "z"}, 10) == pytest.approx((1 + 2 / 3) / 3)
    assert map_at_k(ranked, {"a", "c", "z"}, 2) == pytest.approx(1 / 3)
    assert precision_at_k(ranked, {"a", "c"}, 2) == 0.5
    assert precision_at_k(ranked, {"a", "c"}, 10) == pytest.approx(0.2)  # a short ranking still divides by k


def test_canonical_order_matches_trec_eval_tie_breaking():
    hits = [Hit("d:1", 1.0, 1), Hit("d:10", 1.0, 2), Hit("d:9", 1.0, 3), Hit("e:1", 2.0, 4), Hit("d:1", 0.5, 5)]
    ordered = canonical_order(hits)
    assert [h.page_id for h in ordered] == ["e:1", "d:9", "d:10", "d:1"]
    assert [h.rank for h in ordered] == [1, 2, 3, 4]


def _random_case(rng: random.Random, n_q: int = 40):
    docs = [f"doc{rng.randint(0, 5)}:{rng.randint(1, 15)}" for _ in range(60)] + ["ζ:1", "Z:1", "a b"[:1] + ":2"]
    docs = sorted(set(docs))
    run_hits, qrels = {}, {}
    for i in range(n_q):
        qid = f"q{i}"
        n_hits = rng.randint(0, 25)
        pool = rng.sample(docs, n_hits)
        # coarse scores -> many ties, like BM25 zeros
        run_hits[qid] = [Hit(p, float(rng.choice([0, 0, 0.5, 1, 1, 2, 3.25])), r + 1) for r, p in enumerate(pool)]
        qrels[qid] = set(rng.sample(docs, rng.randint(1, 4)))
    return run_hits, qrels


@pytest.mark.parametrize("seed", range(6))
def test_equal_to_pytrec_eval_on_random_runs_with_ties(seed, tmp_path):
    run_hits, qrels = _random_case(random.Random(seed))
    canon = {q: canonical_order(h) for q, h in run_hits.items()}
    ours = score_run({q: [h.page_id for h in hs] for q, hs in canon.items()}, qrels, METRICS)
    # pytrec_eval sees the scores as written in the run file: it breaks ties on its own.
    write_trec_run(tmp_path / "run.trec", canon)
    write_trec_qrels(tmp_path / "qrels.trec", qrels)
    theirs = pytrec_eval_scores(read_trec_run(tmp_path / "run.trec"), read_trec_qrels(tmp_path / "qrels.trec"),
                                METRICS)
    assert set(ours) == set(theirs)
    for q in ours:
        for m in METRICS:
            assert abs(ours[q][m] - theirs[q][m]) <= 1e-9, (q, m, ours[q][m], theirs[q][m])


def test_retriever_order_inside_ties_would_differ_without_canonical_order():
    # Guard that the test above is meaningful: a naive rank order disagrees with trec_eval on ties.
    hits = [Hit("a:1", 1.0, 1), Hit("b:1", 1.0, 2)]
    naive = score_run({"q": ["a:1", "b:1"]}, {"q": {"a:1"}}, ["mrr@10"])
    trec = pytrec_eval_scores({"q": {h.page_id: h.score for h in hits}}, {"q": {"a:1": 1}}, ["mrr@10"])
    assert naive["q"]["mrr@10"] == 1.0 and trec["q"]["mrr@10"] == 0.5
    canon = [h.page_id for h in canonical_order(hits)]
    assert score_run({"q": canon}, {"q": {"a:1"}}, ["mrr@10"])["q"]["mrr@10"] == 0.5


def test_recall_curve_is_monotone_and_ends_at_recall_k():
    run_hits, qrels = _random_case(random.Random(7))
    run = {q: [h.page_id for h in canonical_order(hs)] for q, hs in run_hits.items()}
    curve = recall_curve(run, qrels, 10)
    values = [curve[k] for k in range(1, 11)]
    assert values == sorted(values)
    per_q = score_run(run, qrels, ["recall@10"])
    assert curve[10] == pytest.approx(100 * sum(v["recall@10"] for v in per_q.values()) / len(per_q))


def test_bad_metric_and_bad_ids_are_clear_errors(tmp_path):
    with pytest.raises(InputError, match="unknown retrieval metric"):
        score_run({}, {"q": {"a"}}, ["bpref@5"])
    with pytest.raises(InputError, match="empty id"):
        write_trec_run(tmp_path / "r.trec", {"": [Hit("a:1", 1.0, 1)]})


def test_ids_with_spaces_round_trip_through_trec_files(tmp_path):
    qid = "Financial Times Europe - 27 August 2024_1.png-6 100%"
    write_trec_run(tmp_path / "r.trec", {qid: [Hit("d:1", 2.0, 1), Hit("d:2", 1.0, 2)]})
    write_trec_qrels(tmp_path / "q.trec", {qid: {"d:2"}})
    assert all(len(line.split()) == 6 for line in (tmp_path / "r.trec").read_text().splitlines())
    assert read_trec_run(tmp_path / "r.trec") == {qid: {"d:1": 2.0, "d:2": 1.0}}
    assert read_trec_qrels(tmp_path / "q.trec") == {qid: {"d:2": 1}}
