"""The offline ``grounding`` judge is not circular: a quote of the wrong block, cited at that block,
is rejected (the block holds the quote but not what the question asks about), while the correct
region is accepted; numbers must match with their scale. Checked on the synthetic corpus; the rates
measured on the real PDFs are in ``test_real_corpus_citation.py``.
"""

from __future__ import annotations

from docrag.citation import evaluate, get_judge, gold_from_qa
from docrag.citation.grounding import GroundingJudge, named_entities, number_supported, text_in_boxes
from docrag.citation.grounding import _scaled_numbers as scaled
from docrag.types import Answer, Citation


def _wrong_blocks(page, gold_boxes):
    for b in page.blocks:
        if not b.text or len(b.text.split()) < 4:
            continue
        if any(b.box.coverage_of(g) > 0.1 or g.coverage_of(b.box) > 0.1 for g in gold_boxes):
            continue
        yield b


def _verdict(judge, corpus, question, answer, page_id, box):
    res = evaluate(Answer(question, answer, citations=[Citation(page_id, [box])]), corpus, judge, level="block")
    return None if res.excluded else res.recall == 1.0


def test_rejects_a_quote_of_the_wrong_block_and_accepts_the_right_region(synthetic_corpus, synthetic_qa):
    judge, corpus = get_judge("grounding"), synthetic_corpus
    rec = next(r for r in synthetic_qa if r["id"] == "syn-01")   # Meridian households' flood losses
    (g,) = gold_from_qa([rec], corpus)[rec["id"]]
    page = corpus.page(g.page_id)
    wrong = next(b for b in _wrong_blocks(page, [g.box]) if any(c.isdigit() for c in b.text))
    # the generator quoted the wrong block and cited it: its numbers and words are all there ...
    assert GroundingJudge(min_question_support=0.0).decide(wrong.text, wrong.text).supported
    # ... but it is not where the question points
    assert _verdict(judge, corpus, rec["question"], wrong.text, g.page_id, wrong.box) is False
    # the right region, with the gold answer or with a quote of that region, is accepted
    assert _verdict(judge, corpus, rec["question"], rec["answer"], g.page_id, g.box) is True
    quote = text_in_boxes(page, [g.box])
    assert _verdict(judge, corpus, rec["question"], quote, g.page_id, g.box) is True
    # the gold answer cited at the wrong block is rejected too (its numbers are not there)
    assert _verdict(judge, corpus, rec["question"], rec["answer"], g.page_id, wrong.box) is False


def test_numbers_match_with_their_scale():
    million = scaled("5.2 million")[0]
    assert number_supported(million, scaled("revenue of 5,200,000 dollars"))
    assert number_supported(million, scaled("(in millions) 5.2"))
    assert not number_supported(million, scaled("5.2 billion"))
    assert number_supported(scaled("20.5%")[0], scaled("share 20.5"))
    assert not number_supported(scaled("13,153 euros")[0], scaled("13,135 euros"))
    j = GroundingJudge()
    assert j.decide("455,000 t", "China 455,000 2010").supported
    assert not j.decide("455 billion", "China 455 million 2010").supported


def test_named_entities_are_key_facts():
    assert {"germany", "bundesbank"} <= named_entities("Households in Germany; data of the Deutsche Bundesbank")
    long = "Households in Germany lost money during the crisis, and the survey shows how much they lost."
    assert "household" not in named_entities(long)   # sentence-initial capital of a long quote
    j = GroundingJudge()
    assert j.decide("France had 12.0", "Germany 12.0 France 11.0").supported
    assert not j.decide("Spain had 12.0", "Germany 12.0 France 11.0").supported


def test_nothing_checkable_is_an_error_not_a_no():
    assert GroundingJudge().decide("", "text").is_error
    assert GroundingJudge().decide("5", "", has_text=False).is_error
    assert GroundingJudge().decide("5.0", "five", question="").is_error is False
