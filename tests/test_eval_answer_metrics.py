"""Answer metrics: ROUGE-L with CJK tokens, numeric match with scale words, answer judges."""

from __future__ import annotations

import pytest
from rouge_score import rouge_scorer

from docrag.eval.answer_metrics import (
    BackendAnswerJudge,
    ProxyAnswerJudge,
    _Tokenizer,
    extract_numbers,
    numeric_match,
    numeric_recall,
    parse_true_false,
    rouge_l_f1,
    tokenize,
)
from tests.support.openai_server import ScriptedOpenAIServer


def test_tokenize_cjk_per_character_and_lowercase_words():
    assert tokenize("Total 收入是 20.5% of GDP") == ["total", "收", "入", "是", "20.5", "of", "gdp"]
    assert tokenize("营业收入13,153万元") == ["营", "业", "收", "入", "13,153", "万", "元"]


@pytest.mark.parametrize("pred,gold", [
    ("The revenue grew by 20.5 million dollars", "revenue grew 20.5 million"),
    ("营业收入为13亿元，同比增长5%", "营业收入13亿元"),
    ("完全不同的答案", "营业收入13亿元"),
    ("Running runs ran", "run running"),          # no stemming
    ("", "anything"),
])
def test_rouge_l_equals_rouge_score_with_the_same_tokenizer(pred, gold):
    ref = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tokenizer()).score(gold, pred)["rougeL"].fmeasure
    assert rouge_l_f1(pred, gold) == pytest.approx(ref, abs=1e-12)


def test_rouge_l_chinese_is_not_zero_and_not_stemmed():
    assert rouge_l_f1("总收入是多少", "收入多少") == pytest.approx(0.8)
    assert rouge_l_f1("runs", "run") == 0.0


@pytest.mark.parametrize("pred,gold,expected", [
    ("about 20,500,000", "20.5 million", True),              # scale word vs plain
    ("20.5 million", "20,500,000", True),
    ("53.2", "53.2%", True),                                  # unit dropped
    ("0.532", "53.2%", True),                                 # percent as a fraction
    ("2.05亿元", "205,000,000", True),                         # 亿
    ("3万", "30000", True),                                   # 万
    ("$3.1bn", "3,100 million", True),
    ("20.6", "20.5", True),                                   # within 1e-2 relative
    ("20.8", "20.5", False),
    ("-37.5%", "-37.5%", True),
    ("37.5%", "-37.5%", False),                               # sign matters
    ("74.7%", "About 74.7% (8,263.3 of 11,062.6 thousand)", True),  # inputs in parentheses not required
    ("8,263.3 of 11,062.6", "About 74.7% (8,263.3 of 11,062.6 thousand)", False),
    ("1,070 respondents", "1,070 respondents, 53.2%", False),  # every headline number required
    ("no numbers at all", "1,070", False),
    ("Iowa 1 .35 1 .42", "$1.35 - 1.42/gal", True),            # decimals split by a PDF text layer
])
def test_numeric_match(pred, gold, expected):
    assert numeric_match(pred, gold) is expected


def test_numeric_match_not_applicable_without_gold_numbers_and_partial_recall():
    assert numeric_match("United States", "The United States") is None
    assert numeric_recall("1,070 respondents", "1,070 respondents, 53.2%") == 0.5


def test_extract_numbers_ranges_and_identifiers():
    nums = [n.value for n in extract_numbers("$1.35 - 1.42/gal in Q3 2021, 2016-2017")]
    assert nums == [1.35, 1.42, 2021.0, 2016.0, 2017.0]


def test_proxy_judge_uses_numbers_then_rouge():
    j = ProxyAnswerJudge()
    assert j.judge("q", "20.5%", "It was 20.5 percent").correct is True
    assert j.judge("q", "The United States", "the united states").correct is True
    assert j.judge("q", "The United States", "France").correct is False
    assert j.judge("q", "20.5%", "   ").correct is False


def test_parse_true_false_is_strict():
    assert parse_true_false("True.") is True
    assert parse_true_false(" false") is False
    assert parse_true_false("It is true") is None
    assert parse_true_false("") is None


def test_backend_judge_over_http_prompt_and_errors():
    replies = ["true", "False", "maybe", (500, "boom")]
    with ScriptedOpenAIServer(replies) as srv:
        judge = BackendAnswerJudge("openai:judge", base_url=srv.base_url, api_key="x", max_retries=0)
        a = judge.judge("What was revenue?", "6,303 million", "6.3 billion")
        b = judge.judge("What was revenue?", "6,303 million", "5 billion")
        c = judge.judge("What was revenue?", "6,303 million", "6.3bn")
        empty = judge.judge("What was revenue?", "6,303 million", "")
        d = judge.judge("What was revenue?", "6,303 million", "6.3bn")
        prompt = srv.texts(0)[0]
        n_requests = len(srv.requests)
    assert (a.correct, b.correct) == (True, False)
    assert c.correct is None and c.error and c.raw == "maybe"
    assert empty.correct is False and empty.raw == "empty answer"
    assert d.correct is None and d.error.startswith("backend error")
    assert n_requests == 4  # the empty answer asked nobody
    assert "Ground_truth: 6,303 million" in prompt and "Model_answer: 6.3 billion" in prompt
    assert "'true' for correct or 'false' for incorrect" in prompt
