"""IoU against gold boxes, correlation measures, human ratings import, and the oracle judge on the
synthetic development corpus (the ``grounding`` judge's measured agreement with IoU on the real PDFs
is in ``test_real_corpus_citation.py``)."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from docrag.citation import (
    GoldEvidence,
    citation_scores,
    correlations,
    evaluate,
    get_judge,
    gold_from_qa,
    load_human_ratings,
    question_iou,
)
from docrag.citation.agreement import agreement
from docrag.citation.oracle import covered_fraction
from docrag.errors import InputError
from docrag.geometry import Box
from docrag.types import Answer, Citation


def pt(x0, y0, x1, y1):
    return Box.points(x0, y0, x1, y1, 600, 800)


def test_question_iou_is_the_best_match_mean_over_gold_boxes():
    gold = [GoldEvidence("d:1", pt(0, 0, 100, 100)), GoldEvidence("d:2", pt(0, 0, 100, 100))]
    pred = {"d:1": [pt(0, 0, 100, 50), pt(0, 0, 100, 100)], "d:3": [pt(0, 0, 100, 100)]}
    # page 1: best IoU 1.0; page 2 not cited with a box: 0.0 (the same box on page 3 does not count)
    assert question_iou(pred, gold) == pytest.approx(0.5)
    ans = Answer("q", "a", citations=[Citation("d:2", [pt(50, 0, 150, 100)])])
    assert question_iou(ans, gold) == pytest.approx((0 + 1 / 3) / 2)


def test_covered_fraction_uses_the_union_of_boxes():
    target = pt(0, 0, 100, 100)
    assert covered_fraction(target, [pt(0, 0, 60, 100), pt(40, 0, 100, 50)]) == pytest.approx(0.8)
    assert covered_fraction(target, [pt(0, 0, 50, 100), pt(0, 0, 50, 100)]) == pytest.approx(0.5)
    assert covered_fraction(target, [pt(200, 200, 300, 300)]) == 0.0


def test_correlations_match_scipy_and_undefined_cases_are_nan():
    x, y = [0.1, 0.4, 0.35, 0.8, 0.9], [1, 2, 3, 5, 4]
    c = correlations(x, y)
    assert c.pearson == pytest.approx(stats.pearsonr(x, y).statistic)
    assert c.spearman == pytest.approx(0.8) and c.kendall == pytest.approx(0.6)   # d^2 = 4; 8 vs 2 pairs
    assert c.percent()["spearman"] == pytest.approx(80.0)
    assert math.isnan(correlations([1, 1, 1], [1, 2, 3]).pearson)
    assert "at least 3" in correlations([1, 2], [2, 1]).note
    a = agreement({"q1": 1.0, "q2": 0.0, "q3": 0.5, "q4": 1.0}, {"q1": 5, "q2": 1, "q3": 3, "q9": 0})
    assert a.n == 3 and a.missing == {"only_auto": 1, "only_reference": 1} and a.pearson == pytest.approx(1.0)


def test_human_ratings_csv_and_its_errors(tmp_path):
    good = tmp_path / "r.csv"
    good.write_text("qid,rating,comment\ndev-1,4,ok\ndev-2,0.5,\n\n")
    assert load_human_ratings(good) == {"dev-1": 4.0, "dev-2": 0.5}
    cases = {"id,foo\na,1\n": "header must name", "id,rating\na,six\n": ":2: rating 'six' is not a number",
             "id,rating\na,1\nb,7\n": ":3: rating 7 is outside 0-5", "id,rating\na,1\na,2\n": "duplicate id 'a'",
             "id,rating\n": "no ratings"}
    for i, (text, msg) in enumerate(cases.items()):
        f = tmp_path / f"bad{i}.csv"
        f.write_text(text)
        with pytest.raises(InputError, match=msg):
            load_human_ratings(f)
    with pytest.raises(InputError, match="not found"):
        load_human_ratings(tmp_path / "missing.csv")


# -- the synthetic development corpus (the measured agreement on real PDFs: test_real_corpus_citation.py)

def test_oracle_judge_scores_equal_hand_computed_values(synthetic_corpus, synthetic_qa):
    """Multi-page question syn-02 (gold boxes on pages 1 and 2); hand-computed from spec §4."""
    corpus, qa = synthetic_corpus, synthetic_qa
    judge = get_judge("oracle", qa=qa, corpus=corpus)
    rec = next(r for r in qa if r["id"] == "syn-02")
    gold = gold_from_qa([rec], corpus)["syn-02"]
    g1, g2 = gold
    page1 = corpus.page(g1.page_id)
    junk = page1.box_pt(75, 700, 300, 740)
    p3 = g1.page_id.rsplit(":", 1)[0] + ":3"

    def ask(*cits):
        return Answer(rec["question"], rec["answer"], meta={"qid": "syn-02"}, citations=list(cits))

    # block: {g1, g2, junk}: S(C)=1; C\{g1} lacks g1 -> g1 relevant; same g2; C\{junk} -> yes, {junk} -> no
    r = evaluate(ask(Citation(g1.page_id, [g1.box, junk]), Citation(g2.page_id, [g2.box])), corpus, judge)
    assert (r.recall, r.precision, r.irrelevant, r.calls) == (1.0, pytest.approx(2 / 3), [1], 5)
    # box-bounding mode gives the same verdicts (the oracle reads boxes, not pixels)
    rb = evaluate(ask(Citation(g1.page_id, [g1.box, junk]), Citation(g2.page_id, [g2.box])), corpus, judge,
                  mode="box")
    assert (rb.recall, rb.precision) == (1.0, pytest.approx(2 / 3))
    # only page 1 cited: recall 0 after one call, precision 0
    r0 = evaluate(ask(Citation(g1.page_id, [g1.box])), corpus, judge)
    assert (r0.recall, r0.precision, r0.calls) == (0.0, 0.0, 1)
    # page level: pages {1, 2, 3}: page 3 irrelevant -> 2/3; |C| = 2 exact pages -> 1, 3 calls
    rp = evaluate(ask(Citation(g1.page_id), Citation(g2.page_id), Citation(p3)), corpus, judge, level="page")
    assert (rp.recall, rp.precision, rp.irrelevant) == (1.0, pytest.approx(2 / 3), [2])
    rp2 = evaluate(ask(Citation(g1.page_id, [junk]), Citation(g2.page_id)), corpus, judge, level="page")
    assert (rp2.recall, rp2.precision, rp2.calls) == (1.0, 1.0, 3)
    s = citation_scores([r, r0, rp, rp2])
    assert s["B_Rec"] == pytest.approx(50.0) and s["B_Prec"] == pytest.approx(100 / 3)
    assert s["P_Rec"] == pytest.approx(100.0) and s["P_Prec"] == pytest.approx(250 / 3)
    # a half-covered gold box is not covered at the default 0.5 threshold... unless more than half
    half = Box(g2.box.x0, g2.box.y0, g2.box.x1, (g2.box.y0 + g2.box.y1) / 2 - 1, g2.box.space, g2.box.extent)
    assert evaluate(ask(Citation(g1.page_id, [g1.box]), Citation(g2.page_id, [half])), corpus, judge).recall == 0


def test_oracle_acceptance_over_the_whole_dev_set(synthetic_corpus, synthetic_qa):
    """Gold citations plus one junk box each: B_Rec 100, B_Prec = mean(|gold| / (|gold| + 1)),
    P_Rec = P_Prec = 100, and far fewer calls than the reference 1 + 2|C|."""
    corpus, qa = synthetic_corpus, synthetic_qa
    judge = get_judge("oracle", qa=qa, corpus=corpus)
    gold = gold_from_qa(qa, corpus)
    results, expected_prec, reference = [], [], 0
    for rec in qa:
        ev = gold[rec["id"]]
        page = corpus.page(ev[0].page_id)
        junk = page.box_pt(0, page.height_pt - 20, 20, page.height_pt)   # a corner with no gold box
        cits = [Citation(g.page_id, [g.box]) for g in ev] + [Citation(ev[0].page_id, [junk])]
        ans = Answer(rec["question"], rec["answer"], citations=cits, meta={"qid": rec["id"]})
        results += [evaluate(ans, corpus, judge, level="block"), evaluate(ans, corpus, judge, level="page")]
        expected_prec.append(len(ev) / (len(ev) + 1))
        reference += 1 + 2 * (len(ev) + 1)
    s = citation_scores(results)
    assert s["n_excluded"] == 0 and s["n_block"] == len(qa)
    assert s["B_Rec"] == pytest.approx(100.0) and s["P_Rec"] == pytest.approx(100.0)
    assert s["B_Prec"] == pytest.approx(100 * sum(expected_prec) / len(expected_prec))
    assert s["P_Prec"] == pytest.approx(100.0)
    block_calls = sum(r.calls for r in results if r.level == "block")
    assert block_calls < reference * 0.75
