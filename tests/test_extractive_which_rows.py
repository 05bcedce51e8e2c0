"""``extractive`` on "which row" questions of real reports: a value of the asked sign (rule 97), rows the
question leaves out and a table's "Others" bucket (rule 98), and arithmetic on a chart's data labels (rule 99)."""

from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_chart_math import chart_arithmetic
from docrag.generation.extractive_extremes import excluded
from docrag.generation.extractive_units import Unit, tokenize
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages
from tests.test_extractive_tables_zh import _table_page, _two_tables

YEARS = [["主要会计数据", "2019 年", "2018 年", "本年比上年增减"], ["经营活动产生的现金流量净额", "99,562,012.10",
                                                                  "57,675,180.97", "72.64%"]]
QUARTERS = [["项目", "第一季度", "第二季度", "第三季度", "第四季度"],
            ["营业收入", "143,052,164.72", "187,113,650.31", "170,334,520.51", "222,017,432.26"],
            ["经营活动产生的现金流量净额", "-26,274,045.96", "18,338,604.39", "21,662,318.55", "85,835,135.12"]]


def test_which_quarter_was_negative_takes_the_one_value_of_that_sign(tmp_path):
    """四方科技 2019 年报: "哪个季度的经营活动产生的现金流量净额为负" is the quarterly row's one negative cell, even
    with the yearly table's "2019 年" column on the page (another table's column does not outweigh the row)."""
    page = _two_tables(tmp_path, YEARS, QUARTERS, doc_id="sifang")
    gen = get_generator("extractive", embed=False)
    neg = gen.generate("2019年分季度主要财务数据中，哪个季度的经营活动产生的现金流量净额为负？", [page]).answer
    assert neg.startswith("-26,274,045.96") and "第一季度" in neg.split("…")[0], neg
    rows = [QUARTERS[0], ["经营活动产生的现金流量净额", "-275,531,110.00", "-61,071,123.41", "-103,255,666.74",
                          "705,206,826.83"]]
    pos = gen.generate("哪个季度的经营活动产生的现金流量净额为正？", [_table_page(tmp_path, rows, "分季度主要财务指标",
                                                                       doc_id="hangtian")]).answer
    assert pos.startswith("705,206,826.83") and "第四季度" in pos.split("…")[0], pos


def test_rows_the_question_leaves_out_and_an_others_bucket_are_not_compared(tmp_path):
    """ACCIONA's country-by-country table: "Apart from Spain and 'Others', which ... the highest total sales" is
    Australia's; "in which country was the cash tax paid the highest" is Mexico's, not the "Others" bucket's."""
    rows = [["Tax jurisdiction", "Total sales (M€)", "Corporate income tax paid (M€)"],
            ["Spain", "2,673", "3.2"], ["Australia", "881", "1.4"], ["Mexico", "312", "7.1"],
            ["Poland", "335", "0.4"], ["Others", "1,409", "24.8"]]
    page = _table_page(tmp_path, rows, "Country-by-country information for 2020.", doc_id="acciona")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("Apart from Spain and 'Others', which tax jurisdiction had the highest total sales?", [page])
    assert ans.answer.startswith("881 — Australia"), ans.answer
    ans = gen.generate("In which country was the corporate income tax paid the highest?", [page])
    assert ans.answer.startswith("7.1 — Mexico"), ans.answer
    assert excluded("除银行外，哪个行业的IC最高？") == "银行"
    assert excluded("不含税的价格是多少？") == "" and excluded("Which region grew the most?") == ""


def _chart(values: dict[str, str]) -> Unit:
    return Unit("Non-GAAP Gross Profit", None, 1, None, None, kind="figure",   # type: ignore[arg-type]
                extra={"caption": "Non-GAAP Gross Profit", "labels": "", "values": values})


def _idf(question: str) -> dict[str, float]:
    return {t: 1.0 for t in tokenize(question)}


def test_a_difference_between_two_named_bars_is_computed_from_their_data_labels():
    """Twilio's deck: "by how much did non-GAAP gross profit increase from Q4'22 to Q4'23" over bars labelled
    "$518" (with its growth line's "2%") and "$564": 46, later minus earlier, inputs shown; the percentages
    are compared when a rate is asked; one named bar, or a label missing, computes nothing."""
    chart = _chart({"Q4'22": "$518, 2%", "Q1'23": "$530, 14%", "Q4'23": "$564, 9%"})
    q = "By how much did Twilio's non-GAAP gross profit increase from Q4'22 to Q4'23, in dollars?"
    assert chart_arithmetic(chart, "difference", q, _idf(q)).startswith("46 = $564 − $518 ($564 — Q4'23; $518 — Q4'22)")
    q = "Q4'23与Q4'22相比，毛利增长率相差多少个百分点？"
    assert chart_arithmetic(chart, "difference", q, _idf(q)).startswith("7个百分点 = 9% − 2%")   # rates: points
    q = "How much did gross profit increase in Q4'23?"
    assert chart_arithmetic(chart, "difference", q, _idf(q)) is None
    q = "By how much did gross profit change between Q4'22 and Q4'23?"
    assert chart_arithmetic(_chart({"Q4'22": "$518", "Q4'23": "9%"}), "difference", q, _idf(q)) is None
    q = "2021年比2020年增加了多少万亿元？"
    years = _chart({"2020": "31.7", "2021": "37.2"})
    assert chart_arithmetic(years, "difference", q, _idf(q)).startswith("5.5 = 37.2 − 31.7")


def test_what_was_a_named_measure_asks_for_a_figure(tmp_path):
    """NVIDIA's 10-Q: "What was NVIDIA's effective income tax rate ..." asks for a figure (rule 100): the sentence
    stating 16.6% answers, not the one that names "effective tax rates" without a number."""
    from docrag.generation.extractive_units import _QUANTITY_Q
    from docrag.types import BlockKind
    from tests.support.synthetic_pages import Region, make_page

    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), (200, 200, 200), "Our effective tax rates for the first quarter of fiscal "
               "years 2027 and 2026 were lower than the U.S. federal statutory rate.", BlockKind.TEXT),
        Region((72, 160, 540, 200), (200, 200, 200), "Income tax as a percentage of income before income tax "
               "was 16.6% and 14.3% for the first quarter of fiscal years 2027 and 2026, respectively.",
               BlockKind.TEXT),
    ], doc_id="tax")
    q = "What was NVIDIA's effective income tax rate in the first quarter of fiscal 2027?"
    assert _QUANTITY_Q.search(q) and not _QUANTITY_Q.search("What were the reasons for the decline?")
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "16.6%" in ans.answer, ans.answer


def test_a_net_loss_compared_with_the_adjustments_to_it_is_its_signed_value(tmp_path):
    """Lyft's reconciliation of net loss to Adjusted EBITDA: "the largest adjustment added back" is stock-based
    compensation (724.6), not the net loss (1,009.4) the adjustments start from; a loss is compared by its size
    only among losses ("which year's net loss was the largest")."""
    rows = [["(in millions)", "2021", "2020"], ["Net loss", "(1,009.4)", "(1,752.9)"],
            ["Interest expense", "52.8", "34.3"], ["Depreciation and amortization", "139.3", "157.4"],
            ["Stock-based compensation", "724.6", "565.8"]]
    page = _table_page(tmp_path, rows, "The following table provides a reconciliation of net loss to Adjusted EBITDA.",
                       doc_id="lyft")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("In the reconciliation of net loss to Adjusted EBITDA for 2021, what was the largest adjustment "
                       "added back?", [page]).answer
    assert ans.startswith("724.6") and "Stock-based compensation" in ans.split("…")[0], ans
    losses = [["Segment", "Operating loss"], ["Rides", "(120.5)"], ["Bikes", "(45.2)"], ["Autonomous", "(300.1)"]]
    ans = gen.generate("Which segment had the largest operating loss?",
                       [_table_page(tmp_path, losses, "Segment results, 2021.", doc_id="lyft2")]).answer
    assert ans.startswith("(300.1)"), ans


def test_a_fall_between_two_named_bars_is_stated_as_a_positive_gap_in_points():
    """Rule 153: "by how many percentage points did the rate decline between Q4'21 and Q4'23" over bars labelled
    126% and 102%: "24 percentage points = 126% − 102%", not "-24"; a rise stays later minus earlier."""
    chart = _chart({"Q4'21": "126%", "Q4'22": "110%", "Q4'23": "102%"})
    q = "By how many percentage points did the dollar-based net expansion rate decline between Q4'21 and Q4'23?"
    assert chart_arithmetic(chart, "difference", q, _idf(q)).startswith(
        "24 percentage points = 126% − 102% (126% — Q4'21; 102% — Q4'23)")
    q = "By how many percentage points did the rate change between Q4'21 and Q4'23?"
    assert chart_arithmetic(chart, "difference", q, _idf(q)).startswith("-24 percentage points = 102% − 126%")


REAL_TWILIO = DEV_PDFS / "en_twilio_q4_2023_earnings_presentation.pdf"


@pytest.mark.skipif(not REAL_TWILIO.is_file(), reason=NOT_FETCHED)
def test_a_chart_labelling_both_operands_answers_arithmetic_over_a_close_cell(tmp_path):
    """Rule 153 ``charted_operands`` (Twilio's deck, real pages 7 and 1 as retrieved; issue 23, en-a-013): the chart
    whose data labels name Q4'21 and Q4'23 answers the decline; a table cell of page 1 scoring close had replaced
    it and subtracted the FY 2023 rate from the Q4 2023 one ("1 = 103% − 102%")."""
    pages = real_pages(REAL_TWILIO, [7, 1], tmp_path)
    q = "By how many percentage points did Twilio's dollar-based net expansion rate decline between Q4'21 and Q4'23?"
    ans = get_generator("extractive", embed=False).generate(q, pages)
    assert ans.answer.startswith("24 percentage points = 126% − 102%"), ans.answer
    assert ans.citations[0].page_no == 1   # the chart's page (page 7 of the deck)


@pytest.mark.skipif(not REAL_TWILIO.is_file(), reason=NOT_FETCHED)
def test_a_later_part_asking_which_bar_tops_a_chart_reads_the_chart_again(tmp_path):
    """Rule 157 ``charted_extreme`` (Twilio's deck, real page 8; issue 23, en-a-006): "... in Q4'23, and in which
    quarter shown was that share highest?" -- the second part says no "chart" and the chart had answered the first
    part, so the chart's note answered it; a chart printing data labels answers each part with its own labels, and
    a which-extreme question prefers it."""
    from docrag.generation.extractive_extremes import CHART_EXTREME_GAIN, chart_extreme_fit

    pages = real_pages(REAL_TWILIO, [8], tmp_path)
    q = ("What share of Twilio's total revenue came from its top 10 active customer accounts in Q4'23, and in which "
         "quarter shown was that share highest?")
    ans = get_generator("extractive").generate(q, pages)
    assert ans.answer.startswith("11% — Q4'23") and "13% — Q3'22" in ans.answer, ans.answer
    chart = _chart({"Q2'22": "12%", "Q3'22": "13%", "Q4'22": "12%"})
    assert chart_extreme_fit([chart], "In which quarter was the share highest?") == [CHART_EXTREME_GAIN]
    assert chart_extreme_fit([chart], "What was the share in Q3'22?") == [1.0]


def test_a_chart_read_off_its_drawing_answers_which_extreme_unless_a_table_is_named():
    """Rule 157 extended (方正证券's 图表9, issue 23, zh-a-024): a chart printing no label whose bars ingest read off
    its drawing answers "哪个行业…绝对值最大、哪个最小" over the sentence above its caption, both ends in the
    order asked and by size; "表2中，哪一年…最高" names a table, and a drawing beside it gains nothing."""
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_extremes import CHART_EXTREME_GAIN, chart_extreme_fit

    series = [{"name": "", "kind": "bar", "values": [["银行", -4.8], ["钢铁", -6.6], ["综合", -13.4],
                                                     ["石油石化", -13.7]], "prefix": "", "suffix": "%", "decimals": 1}]
    chart = Unit("图表 9", None, 1, None, None, kind="figure",   # type: ignore[arg-type]
                 extra={"caption": "图表 9", "labels": "", "values": {}, "drawn": series})
    q = "哪个行业的Rank IC均值绝对值最大、哪个最小？大约是多少？"
    assert chart_extreme_fit([chart], q) == [CHART_EXTREME_GAIN]
    assert chart_extreme_fit([chart], "表2中，哪一年异常交易样本占比最高？") == [1.0]
    answer = drawn_answer(series, q, _idf(q)) or ""
    assert answer.startswith("约-13.7% — 石油石化") and answer.index("石油石化") < answer.index("银行"), answer
    assert (drawn_answer(series, "哪个行业的Rank IC均值最高？", _idf("行业")) or "").startswith("约-4.8% — 银行")


def test_the_first_period_whose_data_label_passes_a_threshold_is_read_in_time_order():
    """Twilio's Non-GAAP Gross Profit chart (issue 23, en-a-014): "in which quarter did growth first drop below 20%"
    is the first quarter, in time order (the labels come in no order), whose percentage label is under 20: Q1'23 at
    14 % (Q4'22 is 20 %, not below); a threshold in dollars reads the amounts; categories that are no periods give
    no answer (rule 118, ``labels_past``)."""
    from docrag.generation.extractive_answer import figure_answer
    from docrag.generation.extractive_chart_drawn import labels_past

    values = {"Q2'22": "$481, 33%", "Q2'23": "$542, 13%", "Q4'21": "$432, 41%", "Q1'22": "$460, 41%",
              "Q3'22": "$499, 25%", "Q1'23": "$526, 14%", "Q4'22": "$518, 20%"}
    q = "In Twilio's Non-GAAP Gross Profit chart, in which quarter did year-over-year growth first drop below 20%?"
    answer = figure_answer(_chart(values), q, _idf(q))
    assert answer.startswith("$526, 14% — Q1'23"), answer
    assert labels_past(values, "In which quarter did non-GAAP gross profit first exceed $500?") == "$518, 20% — Q4'22"
    assert labels_past({"Gaming": "$2,880, 16%", "Automotive": "$346, 37%"}, "Which first exceeded 20%?") is None
    assert labels_past(values, "Which quarter had the highest growth?") is None
    assert labels_past(values, "When did growth first go above. Which quarter?") is None   # no threshold: no crash


def test_which_bar_is_highest_reads_the_label_of_the_kind_asked():
    """A bar printing its amount and its growth ("$526, 14%"): "which quarter had the highest growth" compares the
    percentages, "the highest gross profit" the amounts (the last figure of each label had answered both)."""
    from docrag.generation.extractive_answer import figure_answer

    values = {"Q4'21": "$432, 41%", "Q1'23": "$526, 14%", "Q4'23": "$564, 9%"}
    q = "In which quarter was year-over-year non-GAAP gross profit growth the highest?"
    assert figure_answer(_chart(values), q, _idf("quarter")).startswith("$432, 41% — Q4'21")
    q = "In which quarter was non-GAAP gross profit the highest?"
    assert figure_answer(_chart(values), q, _idf("quarter")).startswith("$564, 9% — Q4'23")
