"""Which of the things a question names (rule 111 ``named_choice`` of ``docs/extractive-rules.md``): the options
are rows of one table, compared on the column the question names or on a change computed per row."""
from __future__ import annotations

from docrag.generation import get_generator
from docrag.generation.extractive_choice import options_of
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
# NVIDIA 10-Q, Q1 fiscal 2027, revenue by market platform as recast (in millions)
PLATFORMS = [["Revenue by Market Platform", "Apr 26, 2026", "Apr 27, 2025"], ["Data Center", "75,246", "39,112"],
             ["Hyperscale", "37,869", "17,599"], ["AI Clouds, Industrial, & Enterprise", "37,377", "21,513"]]
GROWTH_ZH = [["项目", "2019年", "2018年", "本年比上年增减"], ["营业收入", "1,000.00", "800.00", "25.00%"],
             ["净利润", "300.00", "200.00", "50.00%"], ["总资产", "5,000.00", "4,900.00", "2.04%"]]


def _page(tmp_path, rows, prose, doc_id):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 130), GREY, prose),
        Region((72, 150, 540, 150 + 18 * len(rows)), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE),
    ], doc_id=doc_id)
    page.blocks[1].meta["rows"] = rows
    return page


def test_the_options_a_which_question_names():
    assert options_of("Which Data Center sub-platform grew faster in Q1 fiscal 2027: Hyperscale or AI Clouds, "
                      "Industrial, & Enterprise?") == ["Hyperscale", "AI Clouds, Industrial, & Enterprise"]
    assert options_of("Among the energy components in Table 1 (fuel oil, gasoline, electricity, utility (piped) gas "
                      "service), which had the largest 12-month increase?") == \
        ["fuel oil", "gasoline", "electricity", "utility (piped) gas service"]
    assert options_of("Which charges a higher fee on Class C shares, the Europe Select Equity Fund or the Global "
                      "Dividend Fund, and what are the two fees?") == ["the Europe Select Equity Fund",
                                                                        "the Global Dividend Fund"]
    assert options_of("2019年营业收入和净利润哪个增长更快？") == ["2019年营业收入", "净利润"]
    assert options_of("What was revenue in 2024?") == [] and options_of("Which members voted No?") == []


def test_a_growth_no_column_prints_is_computed_per_row_between_the_two_latest_periods(tmp_path):
    page = _page(tmp_path, PLATFORMS, "We changed our presentation of revenue by market platform.", "nv")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("Which Data Center sub-platform grew faster year over year: Hyperscale or AI Clouds, "
                       "Industrial, & Enterprise?", [page])
    assert ans.answer.startswith("Hyperscale — Hyperscale +115.2% (37,869")
    assert "AI Clouds, Industrial, & Enterprise +73.7% (37,377" in ans.answer
    assert ans.meta["arithmetic"]["op"] == "choice" and ans.citations


def test_a_printed_change_column_answers_a_chinese_growth_choice_either_way(tmp_path):
    page = _page(tmp_path, GROWTH_ZH, "报告期内公司经营稳健。", "zh")
    gen = get_generator("extractive", embed=False)
    faster = gen.generate("2019年营业收入和净利润哪个增长更快？", [page])
    assert faster.answer.startswith("净利润 — 净利润: 50.00%") and "营业收入: 25.00%" in faster.answer
    slower = gen.generate("2019年营业收入和净利润哪个增长更慢？", [page])
    assert slower.answer.startswith("营业收入 — 营业收入: 25.00%")


def test_options_that_are_not_rows_of_one_table_leave_the_question_to_the_other_rules(tmp_path):
    page = _page(tmp_path, GROWTH_ZH, "报告期内公司经营稳健。", "zh")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("2019年营业收入和研发投入哪个增长更快？", [page])   # 研发投入 is no row
    assert ans.meta.get("arithmetic", {}).get("op") != "choice"
