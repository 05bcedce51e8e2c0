"""Citation recall/precision per spec §4, hand-computed for every branch, with call counting,
memoisation, the persistent cache, dry-run estimates and usage/cost accounting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docrag.citation import (
    CROP_PROMPT,
    FunctionJudge,
    Verdict,
    VerdictCache,
    build_prompt,
    citation_scores,
    dry_run,
    evaluate,
    parse_verdict,
    score_units,
)
from docrag.citation.verdict import VerdictValue
from docrag.geometry import Box
from docrag.types import Answer, Citation
from tests.support.citation_pages import synthetic_page

W, H = 612.0, 792.0
X0 = {"A": 10.0, "B": 110.0, "D": 210.0, "E": 310.0}


def box(label: str) -> Box:
    return Box.points(X0[label], 100, X0[label] + 80, 150, W, H)


def labels(images) -> frozenset[str]:
    """Unit labels shown to the judge (crop mode: one box per image)."""
    return frozenset("ABDE"[int(b.x0) // 100] for ev in images for b in ev.boxes)


class Scripted(FunctionJudge):
    """Says yes iff ``rule(labels shown)``; records every call."""

    def __init__(self, rule, cache_id: str | None = None, reply=None) -> None:
        self.seen: list[frozenset[str]] = []
        self.prompts: list[str] = []

        def fn(prompt, images, context):
            shown = labels(images)
            self.seen.append(shown)
            self.prompts.append(prompt)
            if reply is not None:
                return reply(shown)
            return rule(shown)

        super().__init__(fn, name="scripted", cache_id=cache_id)


@pytest.fixture()
def page(tmp_path: Path):
    return synthetic_page(tmp_path, dpi=72)


def answer(page, *lbls: str, text: str = "Revenue was 42 million.") -> Answer:
    return Answer(question="What was revenue?", answer=text,
                  citations=[Citation(page.page_id, [box(x) for x in lbls])] if lbls else [],
                  meta={"qid": "q1"})


def test_verdict_parsing_is_strict():
    assert parse_verdict("Yes").value is VerdictValue.YES
    assert parse_verdict("  **no**, it does not").value is VerdictValue.NO
    assert parse_verdict("YES.").value is VerdictValue.YES
    assert parse_verdict('"no"').value is VerdictValue.NO
    for bad in ("", "I think yes", "Yesterday", "nope", "maybe", "The answer is no", "n o"):
        v = parse_verdict(bad)
        assert v.is_error, bad
        assert "unparseable" in v.error
        with pytest.raises(ValueError):
            assert v.supported is None


def test_prompts_are_the_spec_text():
    assert build_prompt("42", "crop") == (
        "Answer: 42 Below are some extracts from the images, please decide if they cover the answers given, "
        "your answer can only be 'yes' if it covers or 'no' if it doesn't cover.")
    assert build_prompt("42", "page") == (
        "Answer: 42 Please judge whether these pages cover the answer, your answer can only be 'yes' or 'no'.")
    assert build_prompt("a {answer} b", "box") == (
        "Answer: a {answer} b The following images will contain marked areas (red boxes), please judge whether "
        "these marked areas (red boxes) cover the content of the answer, your answer can only be 'yes' if it "
        "covers or 'no' if it doesn't cover.")


def test_empty_citation_set_scores_zero_without_calls(page):
    judge = Scripted(lambda s: True)
    r = evaluate(answer(page), [page], judge)
    assert (r.recall, r.precision, r.calls, r.n_units) == (0.0, 0.0, 0, 0)
    assert not r.excluded


def test_single_unit_needs_one_call_and_is_never_irrelevant(page):
    judge = Scripted(lambda s: "A" in s)
    r = evaluate(answer(page, "A"), [page], judge)
    assert (r.recall, r.precision, r.calls) == (1.0, 1.0, 1)
    assert r.units[0].irrelevant is False
    assert judge.prompts == [CROP_PROMPT.replace("{answer}", "Revenue was 42 million.")]


def test_recall_zero_skips_per_unit_calls(page):
    judge = Scripted(lambda s: False)
    r = evaluate(answer(page, "A", "B", "D"), [page], judge)
    assert (r.recall, r.precision, r.calls) == (0.0, 0.0, 1)
    assert judge.seen == [frozenset("ABD")]
    assert all(u.irrelevant is None for u in r.units)


def test_irrelevant_unit_lowers_precision(page):
    # A alone supports the answer, B is junk: C={A,B}; C\{A}={B} -> no; C\{B}={A} -> yes, {B} -> no.
    judge = Scripted(lambda s: "A" in s)
    r = evaluate(answer(page, "A", "B"), [page], judge)
    assert (r.recall, r.precision) == (1.0, 0.5)
    assert r.irrelevant == [1]
    # {A,B}, {B}, {A}: 3 distinct sets; {B} asked once although needed twice (memo)
    assert judge.seen == [frozenset("AB"), frozenset("B"), frozenset("A")]
    assert (r.calls, r.memo_hits) == (3, 1)


def test_unit_needed_only_jointly_is_relevant(page):
    # A and B are needed together, D is junk. C\{A}={B,D}: no -> A relevant without asking {A};
    # same for B; C\{D}={A,B}: yes -> ask {D}: no -> D irrelevant. precision = 2/3.
    judge = Scripted(lambda s: {"A", "B"} <= s)
    r = evaluate(answer(page, "A", "B", "D"), [page], judge)
    assert r.recall == 1.0
    assert r.precision == pytest.approx(2 / 3)
    assert [u.irrelevant for u in r.units] == [False, False, True]
    assert [u.alone for u in r.units][:2] == [None, None]
    assert judge.seen == [frozenset("ABD"), frozenset("BD"), frozenset("AD"), frozenset("AB"), frozenset("D")]
    assert r.calls == 5 < 1 + 2 * 3


def test_redundant_units_are_both_relevant(page):
    # either A or B alone supports: neither is irrelevant (irrel needs not S({c}))
    judge = Scripted(lambda s: bool(s & {"A", "B"}))
    r = evaluate(answer(page, "A", "B"), [page], judge)
    assert (r.recall, r.precision, r.calls) == (1.0, 1.0, 3)


def test_identical_boxes_are_asked_once(page):
    judge = Scripted(lambda s: "A" in s)
    r = evaluate(answer(page, "A", "A"), [page], judge)
    # C = {A, A'} shows the same content as {A}, as do C\{A}, C\{A'}, {A'}: one call, 4 memo hits
    assert (r.recall, r.precision) == (1.0, 1.0)
    assert r.calls == 1 and r.memo_hits == 4


def test_page_level_units_are_distinct_pages(tmp_path):
    p1, p2 = synthetic_page(tmp_path, page_no=1, dpi=72), synthetic_page(tmp_path, page_no=2, dpi=72)
    ans = Answer("q", "42", citations=[Citation(p1.page_id, [box("A")]), Citation(p2.page_id, []),
                                       Citation(p1.page_id, [box("B")])])
    calls = []
    judge = FunctionJudge(lambda pr, ims, ctx: calls.append([e.page.page_no for e in ims]) or
                          (1 in [e.page.page_no for e in ims]))
    r = evaluate(ans, [p1, p2], judge, level="page")
    assert r.n_units == 2 and r.mode == "page"
    assert (r.recall, r.precision) == (1.0, 0.5)
    assert calls == [[1, 2], [2], [1]]
    rb = evaluate(ans, [p1, p2], judge, level="block")
    assert rb.n_units == 2  # the page cited without boxes adds no block unit


def test_judge_error_is_counted_never_a_no(page):
    judge = Scripted(None, reply=lambda s: "maybe")
    r = evaluate(answer(page, "A", "B"), [page], judge)
    assert r.recall is None and r.precision is None and r.excluded
    assert r.calls == 1 and len(r.errors) == 1 and "unparseable" in r.errors[0]


def test_error_in_a_per_unit_call_excludes_the_question(page):
    judge = Scripted(None, reply=lambda s: "yes" if s == frozenset("AB") else "error 500")
    r = evaluate(answer(page, "A", "B"), [page], judge)
    assert r.recall == 1.0 and r.precision is None and r.excluded
    assert r.calls == 2  # stops at the first error


def test_dataset_scores_leave_out_errors_and_say_how_many(page):
    good = Scripted(lambda s: "A" in s)
    bad = Scripted(None, reply=lambda s: "")
    anything = Scripted(lambda s: True)
    results = [
        evaluate(answer(page, "A", "B"), [page], good, level="block"),              # 1, 0.5
        evaluate(answer(page, "B"), [page], good, level="block", qid="q2"),         # 0, 0
        evaluate(answer(page, "A"), [page], bad, level="block", qid="q3"),          # error
        evaluate(answer(page, "A"), [page], anything, level="page", qid="q1"),          # 1, 1
        evaluate(answer(page, "A", text=" "), [page], anything, level="page", qid="q4"),  # unanswered
    ]
    s = citation_scores(results)
    assert s["B_Rec"] == pytest.approx(50.0) and s["B_Prec"] == pytest.approx(25.0)
    assert s["P_Rec"] == 100.0 and s["P_Prec"] == 100.0
    assert s["n_block"] == 2 and s["n_excluded_block"] == 1 and s["n_judge_errors_block"] == 1
    assert s["n_excluded_page"] == 1 and s["n_excluded"] == 2 and s["n"] == 2
    assert s["judge_calls"] == 3 + 1 + 1 + 1


def test_persistent_cache_makes_a_rerun_free(page, tmp_path):
    path = tmp_path / "verdicts.jsonl"
    judge = Scripted(lambda s: {"A", "B"} <= s, cache_id="scripted-v1")
    first = evaluate(answer(page, "A", "B", "D"), [page], judge, cache=str(path))
    assert first.calls == 5 and first.cache_hits == 0
    assert len(path.read_text().splitlines()) == 5
    judge2 = Scripted(lambda s: {"A", "B"} <= s, cache_id="scripted-v1")
    again = evaluate(answer(page, "A", "B", "D"), [page], judge2, cache=VerdictCache(path))
    assert again.calls == 0 and judge2.seen == [] and again.cache_hits == 5
    assert (again.recall, again.precision) == (first.recall, first.precision)
    assert [u.irrelevant for u in again.units] == [u.irrelevant for u in first.units]
    # another answer text = another prompt = no hit
    other = evaluate(answer(page, "A", "B", "D", text="43"), [page], judge2, cache=VerdictCache(path))
    assert other.calls == 5


def test_errors_are_not_cached_and_torn_lines_are_skipped(page, tmp_path):
    path = tmp_path / "v.jsonl"
    flaky = Scripted(None, cache_id="s", reply=lambda s: "garbled")
    assert evaluate(answer(page, "A"), [page], flaky, cache=str(path)).excluded
    assert not path.exists() or path.read_text() == ""
    path.write_text('{"key": "x", "value": "yes"}\n{"key": "y", "val')
    cache = VerdictCache(path)
    assert len(cache) == 1 and cache.skipped_lines == 1
    ok = Scripted(lambda s: True, cache_id="s")
    assert evaluate(answer(page, "A"), [page], ok, cache=cache).calls == 1


def test_dry_run_estimates_distinct_sets_and_cache(page, tmp_path):
    judge = Scripted(lambda s: True, cache_id="s")
    est = dry_run(answer(page, "A", "B"), [page], judge)
    assert (est.worst_case, est.reference, est.best_case) == (3, 5, 1)   # |C|=2: C\{c} = {c'}
    est3 = dry_run(answer(page, "A", "B", "D"), [page], judge, cache=tmp_path / "c.jsonl")
    assert (est3.worst_case, est3.uncached, est3.reference) == (7, 7, 7)
    r = evaluate(answer(page, "A", "B", "D"), [page], judge, cache=tmp_path / "c.jsonl")
    assert r.calls == 7 and judge.seen.count(frozenset("ABD")) == 1
    assert dry_run(answer(page, "A", "B", "D"), [page], judge, cache=tmp_path / "c.jsonl").uncached == 0
    assert dry_run(answer(page), [page], judge).worst_case == 0


def test_usage_and_cost_are_summed(page):
    class Priced(Scripted):
        def cost(self, usage):
            return usage.get("prompt_tokens", 0) * 1e-3

    judge = Priced(None, reply=lambda s: Verdict.yes(usage={"prompt_tokens": 100, "completion_tokens": 1}))
    r = evaluate(answer(page, "A", "B"), [page], judge)
    assert r.calls == 3
    assert r.usage == {"prompt_tokens": 300, "completion_tokens": 3}
    assert r.cost == pytest.approx(0.3)
    assert citation_scores([r])["usage"]["prompt_tokens"] == 300


def test_missing_page_and_degenerate_box(page):
    ans = Answer("q", "42", citations=[Citation("nope:1", [box("A")])])
    r = evaluate(ans, [page], Scripted(lambda s: True))
    assert r.excluded and "not in the corpus" in r.errors[0] and r.calls == 0
    flat = Answer("q", "42", citations=[Citation(page.page_id, [Box.points(5, 5, 5, 50, W, H), box("A")])])
    r2 = evaluate(flat, [page], Scripted(lambda s: True))
    assert r2.n_units == 1 and "degenerate" in r2.warnings[0]


def test_score_units_generic_and_result_json(page):
    s = score_units(["a", "b", "c"], lambda idx: Verdict.yes() if 0 in idx else Verdict.no())
    assert (s.recall, s.precision) == (1.0, pytest.approx(1 / 3))
    r = evaluate(answer(page, "A", "B"), [page], Scripted(lambda s: "A" in s))
    rec = json.loads(json.dumps(r.to_json()))
    assert rec["irrelevant"] == [1] and rec["units"][1]["alone"]["value"] == "no"


def test_plain_two_argument_judge_gets_pil_images(page):
    class Plain:
        def judge(self, prompt, images):
            self.sizes = [im.size for im in images]
            return "Yes."

    j = Plain()
    r = evaluate(answer(page, "A"), [page], j)
    assert r.recall == 1.0 and r.judge == "Plain"
    assert j.sizes == [(80, 50)]   # an 80 x 50 pt box on a 72 dpi page image


def test_boxes_showing_the_same_pixels_are_one_unit_content(page):
    judge = Scripted(lambda s: "A" in s)
    nudged = Box.points(X0["A"] + 0.2, 100.1, X0["A"] + 79.9, 149.8, W, H)   # same pixel rectangle at 72 dpi
    ans = Answer("q", "42", citations=[Citation(page.page_id, [box("A"), nudged])])
    r = evaluate(ans, [page], judge)
    assert r.calls == 1 and r.precision == 1.0


def test_a_missing_page_image_is_a_judge_error_not_a_crash(page):
    class NeedsPixels:
        def judge(self, prompt, images):
            return "yes" if images[0].size else "no"

    page.image_path.unlink()
    r = evaluate(answer(page, "A"), [page], NeedsPixels())
    assert r.excluded and r.calls == 1 and "FileNotFoundError" in r.errors[0]
