"""Question cues of the ``extractive`` generator: whole-label columns, counts, two-fact questions, language."""

from __future__ import annotations

import pytest

import docrag.generation.extractive as extractive
import docrag.generation.extractive_answer as extractive_answer
import docrag.generation.extractive_score as extractive_score
from docrag.generation import get_generator
from docrag.generation.extractive_counts import count_cue, count_fit
from docrag.generation.extractive_cues import (
    language_fit,
    missing_nouns,
    month_fit,
    month_years,
    most_specific,
    named_reference,
    reference_fit,
)
from docrag.generation.extractive_score import document_reference
from docrag.generation.extractive_share_class import class_fit
from docrag.generation.extractive_units import quantities_in, units_of
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)


def _ones(units, question):
    return [1.0] * len(units)


@pytest.fixture()
def regions_page(tmp_path):
    """A Chinese statistics page: column headers that share characters, one inside another."""
    rows = [["指标", "中东部地区", "东部地区", "西部地区"],
            ["平均人口（万人）", "80.25", "120.50", "60.75"],
            ["平均面积（平方公里）", "20.80", "10.40", "30.20"]]
    table = Region((72, 220, 540, 320), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE)
    page = make_page(tmp_path, [
        Region((72, 60, 540, 90), GREY, "地区统计摘要", BlockKind.TITLE),
        Region((72, 100, 540, 200), GREY, "本次调查共访问了1,200户家庭，东部地区和西部地区各600户。"),
        table,
    ], doc_id="zh", page_no=1)
    page.blocks[2].meta["rows"] = rows
    return page


def test_most_specific_label_drops_a_label_inside_a_longer_named_one():
    assert most_specific(["东部地区", "中东部地区", "西部地区"], "中东部地区的平均人口是多少？") == {"中东部地区"}
    assert most_specific(["Total", "Total arrests", "Male"], "How many total arrests?") == {"total arrests"}
    assert most_specific(["Cultivar 1", "Cultivar 12"], "What about cultivar 12?") == {"cultivar 12"}


def test_column_named_whole_beats_a_sibling_that_shares_its_characters(regions_page, monkeypatch):
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("东部地区的平均人口是多少？", [regions_page])
    assert ans.answer == "120.50 — 平均人口（万人）, 东部地区"
    assert gen.generate("中东部地区的平均人口是多少？", [regions_page]).answer.startswith("80.25")
    assert gen.generate("西部地区的平均面积是多少？", [regions_page]).answer.startswith("30.20")
    # without whole-label matching, 中东部地区 holds every character of 东部地区 and is read first
    monkeypatch.setattr(extractive_score, "label_fit", _ones)
    assert gen.generate("东部地区的平均人口是多少？", [regions_page]).answer.startswith("80.25")


def test_a_count_stated_in_prose_beats_table_means(regions_page):
    ans = get_generator("extractive", embed=False).generate("东部地区访问了多少户家庭？", [regions_page])
    assert "各600户" in ans.answer
    assert ans.citations[0].boxes[0].coords == pytest.approx((72, 100, 540, 200))
    units = units_of(regions_page, 1)
    fit = dict(zip((u.text for u in units), count_fit(units, "东部地区访问了多少户家庭？"), strict=True))
    assert fit["本次调查共访问了1,200户家庭，东部地区和西部地区各600户。"] == 1.5   # "600户": the measure word asked
    assert fit["120.50"] == fit["20.80"] == 0.7                                 # means are not counts
    assert fit["地区统计摘要"] == 0.85                                           # no number at all
    assert count_fit(units, "东部地区的平均人口是多少？") == [1.0] * len(units)   # not a count question


def test_a_count_asked_before_its_measure_word_is_found_a_space_apart(tmp_path):
    """Beijing's 2024 government work report (zh-b-026): "2023年老楼加装电梯完成多少部" is answered by "老楼加装电梯
    822 部" (the text layer sets a space before the measure word; the counted noun comes before the figure),
    not by "完成老旧小区改造 183 个" (a count of something else)."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), GREY, "完成老旧小区改造 183 个,启动危旧楼房改建。"),
        Region((72, 160, 540, 220), GREY, "新建各类养老护理床位 6232 张,新增养老助餐点 243 个,老楼加装电梯 822 部。"),
    ], doc_id="bj")
    units = units_of(page, 1)
    question = "2023年老楼加装电梯完成多少部"
    fit = dict(zip((u.text for u in units), count_fit(units, question), strict=True))
    assert fit["完成老旧小区改造 183 个,启动危旧楼房改建。"] == 0.7           # every figure counts another thing
    assert fit["新建各类养老护理床位 6232 张,新增养老助餐点 243 个,老楼加装电梯 822 部。"] == 1.5
    assert "822" in get_generator("extractive", embed=False).generate(question, [page]).answer


def test_a_named_share_class_prefers_its_own_graph(tmp_path):
    """A 10-K prints one performance graph per share class (Alphabet, en-a-049): "Class A" asked, the Class C
    graph loses and a unit naming no class is left alone."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), GREY, "ALPHABET INC. CLASS A COMMON STOCK cumulative total return"),
        Region((72, 160, 540, 200), GREY, "ALPHABET INC. CLASS C CAPITAL STOCK cumulative total return"),
        Region((72, 220, 540, 260), GREY, "The graph assumes $100 invested on December 31, 2017."),
    ], doc_id="goog")
    units = units_of(page, 1)
    fit = dict(zip((u.text for u in units), class_fit(units, "What was Alphabet Class A stock worth?"), strict=True))
    assert fit["CLASS A COMMON STOCK cumulative total return"] == 1.2
    assert fit["CLASS C CAPITAL STOCK cumulative total return"] == 0.6
    assert fit["The graph assumes $100 invested on December 31, 2017."] == 1.0
    assert class_fit(units, "What was Alphabet stock worth at its peak?") == [1.0] * len(units)


def test_count_cue():
    assert count_cue("每个物种有多少个样本？") == ("zh", "个")
    assert count_cue("How many wines of cultivar 2 are there?") == ("en", "wines")
    assert count_cue("恶性肿瘤的面积约为良性肿瘤的几倍？") is None   # a ratio, not a count
    assert count_cue("What is the mean alcohol content?") is None


def test_evidence_in_another_language_than_the_question_loses(tmp_path):
    en = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "ADBE closed at 567.06.")], doc_id="en")
    zh = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "ADBE 年末收盘价为567.06美元。")], doc_id="zh")
    units = units_of(en, 1) + units_of(zh, 2)
    assert language_fit(units, "What did ADBE close at?") == [1.0, 0.75]
    assert language_fit(units, "ADBE收盘价是多少？") == [0.75, 1.0]


def test_a_numbered_figure_or_table_in_the_question_favours_its_units(tmp_path):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 160), GREY, "表1 城市人口\n城市 | 人口\n甲市 | 10", BlockKind.TABLE),
        Region((72, 200, 540, 260), GREY, "表2 城市人口\n城市 | 人口\n甲市 | 20", BlockKind.TABLE),
    ], doc_id="r")
    for block, title in zip(page.blocks, ("表1 城市人口", "表2 城市人口"), strict=True):
        block.meta.update(caption=title, rows=[["城市", "人口"], ["甲市", "10" if title.startswith("表1") else "20"]])
    units = units_of(page, 1)
    assert reference_fit(units, "表2中甲市的人口是多少？") == [0.7, 1.4]
    assert reference_fit(units, "甲市的人口是多少？") == [1.0, 1.0]
    gen = get_generator("extractive", embed=False)
    assert gen.generate("表2中甲市的人口是多少？", [page]).answer.startswith("20")
    assert gen.generate("表1中甲市的人口是多少？", [page]).answer.startswith("10")


def test_chinese_nouns_missing_from_every_page_lower_the_confidence(regions_page):
    assert missing_nouns("火星的人口是多少？", [regions_page]) == (["火星"], 0.5)
    assert missing_nouns("火星的年龄是多少？", [regions_page]) == (["火星", "年龄"], 1.0)
    assert missing_nouns("东部地区访问了多少户家庭？", [regions_page]) == ([], 0.0)
    assert missing_nouns("What is the population of Mars?", [regions_page]) == ([], 0.0)   # English: names rule
    ans = get_generator("extractive", embed=False).generate("火星东部地区的人口是多少？", [regions_page])
    assert ans.answer == extractive.NO_ANSWER and ans.meta["missing_nouns"] == ["火星"]


def test_parts_prefer_one_document_that_answers_them_all(tmp_path):
    """Part one alone fits another report best; the report that answers both parts is cited for both."""
    a1 = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "The survey has 150 samples in total.")],
                   doc_id="a", page_no=1)
    b1 = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "The survey has 569 samples in total, "
                                                                 "collected in Wisconsin.")], doc_id="b", page_no=1)
    b2 = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "The survey was published in 1995.")],
                   doc_id="b", page_no=2)
    question = "How many samples does the survey have in total, and when was the survey published?"
    # report a is ranked first: at the default rank prior (0.5) the retriever's order wins part one; the
    # one-document cue is checked at the former prior (0.06), where the page order is nearly neutral
    ans = get_generator("extractive", embed=False, rank_prior=0.06).generate(question, [a1, b1, b2])
    assert {c.page_id for c in ans.citations} == {"b:1", "b:2"}
    assert "569" in ans.answer and "1995" in ans.answer


def test_one_paraphrased_noun_lowers_the_confidence_without_declining(tmp_path):
    page = make_page(tmp_path, [Region((72, 100, 540, 130), (200, 200, 200),
                                       "当输入 : 命令时，按 CTRL-D 可以查看可能的补全结果。")], doc_id="vim")
    ans = get_generator("extractive", embed=False).generate("输入冒号命令时，按哪个键可以列出可能的补全结果？", [page])
    assert ans.meta["missing_nouns"] == ["冒号"] and ans.meta["missing_share"] < 1
    assert ans.answer.startswith("当输入 : 命令时") and ans.confidence >= 0.3
    assert extractive_answer._NOUN_FLOOR == pytest.approx(0.6)


def test_the_table_named_by_number_is_read_wherever_its_page_ranked(tmp_path):
    """``named_reference``: a research note's summary page, ranked first, restates its tables in words; "报告的表1中"
    names the table on the page ranked fourth, which answers as if ranked first."""
    summary = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "投资要点：最极端收益因子的年化收益率为18.10%，"
                                                                     "最大回撤为5.71%。")], doc_id="note", page_no=1)
    filler = [make_page(tmp_path, [Region((72, 100, 540, 160), GREY, f"第{i}节讨论因子构建的方法。")], doc_id="note",
                        page_no=i) for i in (2, 3)]
    table = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "表1 参数敏感性\n指标 | t=1 | t=2\n年化收益率 | "
                                                                   "19.58% | 19.64%", BlockKind.TABLE)],
                      doc_id="note", page_no=7)
    table.blocks[0].meta.update(caption="表1 参数敏感性", rows=[["指标", "t=1", "t=2"],
                                                             ["年化收益率", "19.58%", "19.64%"]])
    pages = [summary, *filler, table]
    units = [u for rank, page in enumerate(pages, 1) for u in units_of(page, rank)]
    assert [u.page.page_no for u, named in zip(units, named_reference(units, "表1中t=2的年化收益率是多少？"),
                                                strict=True) if named] == [7, 7]
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("报告的表1中，t=2时最极端收益因子的年化收益率是多少？", pages)
    assert ans.answer.startswith("19.64%") and ans.citations[0].page_id == "note:7", ans.answer


def test_a_lettered_table_is_named_like_a_numbered_one(tmp_path):
    """Statistics releases letter their tables ("Table A – Consumer price index: Main indices", BLS's "Table A"):
    "In Table A of ..." names it; a capital standing alone is a letter, a word is not ("the table shows")."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 160), GREY, "Table A Main indices\nGroup | Index\nFood | 10", BlockKind.TABLE),
        Region((72, 200, 540, 260), GREY, "Table B Provinces\nProvince | Rate\nGauteng | 20", BlockKind.TABLE),
    ], doc_id="s")
    for block, title in zip(page.blocks, ("Table A Main indices", "Table B Provinces"), strict=True):
        value = "10" if title.endswith("indices") else "20"
        block.meta.update(caption=title, rows=[["Group", "Index"], ["Food", value]])
    units = units_of(page, 1)
    assert reference_fit(units, "In Table B of the CPI release, what was the rate for Food?") == [0.7, 1.4]
    assert reference_fit(units, "What does the table show for Food?") == [1.0, 1.0]


def test_a_month_asked_passes_over_text_dated_another_month_of_that_year(tmp_path):
    """Alphabet's 10-K: "how many Class C shares did it repurchase in November 2022" was answered with "As of
    December 31, 2022, there were ... stockholders of record of our Class A stock and Class C stock": text dated
    another month of the asked year loses (``month_fit``); the month named in the document's reference does not
    count, nor does text of another year or of no month."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 130), GREY, "As of December 31, 2022, there were approximately 6,670 and 1,657 "
                                         "stockholders of record of our Class A stock and Class C stock."),
        Region((72, 140, 540, 170), GREY, "In November 2022 the company repurchased Class C shares."),
        Region((72, 180, 540, 210), GREY, "At 31 December 2021 the program had no repurchases."),
        Region((72, 220, 540, 250), GREY, "Class C shares carry no voting rights."),
    ], doc_id="goog")
    units = units_of(page, 1)
    fit = dict(zip((u.text[:12] for u in units), month_fit(units, "How many Class C shares were repurchased in "
                                                                   "November 2022?"), strict=True))
    assert fit == {"As of Decemb": 0.8, "In November ": 1.0, "At 31 Decemb": 1.0, "Class C shar": 1.0}
    assert month_years("2019年12月股份有限公司第一次增资; Nov. 1 - 30, 2022") == {(12, "2019"), (11, "2022")}
    # a table header cut into lines (BLS Table 1: "Apr., 2025-, May, 2025")
    assert month_years("Seasonally adjusted percent change Apr., 2025- May, 2025") == {(4, "2025"), (5, "2025")}
    asked, _ = document_reference("According to the BLS release for December 2022, how many shares were repurchased?")
    assert set(month_fit(units, asked)) == {1.0}


def test_a_notes_mark_is_no_quantity_but_a_figure_in_parentheses_is():
    """Alphabet's note "(2) Average price paid per share includes costs ..." outranked the price cells for "at what
    average price": its mark "(2)" counted as a figure the sentence states."""
    assert quantities_in("(2) Average price paid per share includes costs associated with the repurchases.") == 0
    assert quantities_in("(1)报告期,连接器销售量增长") == 0
    assert quantities_in("(12)") == 1 and quantities_in("(1,009.4) net loss") == 1


def test_dates_times_periods_and_names_are_no_quantity_but_an_amount_in_words_is():
    """Lyft's "Revenue per Active Rider increased in each of the three months periods ended March 31, June 30, ..."
    counted four figures (the days of the months) and "COVID-19" a fifth, so it weighed as a sentence stating an
    amount for "How many Active Riders"; "In Q4, we expect to get several billion dollars" counted "Q4" and not
    the amount it states."""
    assert quantities_in("Revenue per Active Rider increased in each of the three months periods ended March 31, "
                         "June 30, September 30, and December 31, 2021, during the COVID-19 pandemic") == 0
    assert quantities_in("截至2024年12月31日") == 0 and quantities_in("12月31日召开") == 0
    assert quantities_in("Earnings Call Aug 28, 2024, 5:00 p.m.") == 0
    assert quantities_in("Q4 FY2025 2024-25 Q3'23 2Q23 H1 H200") == 0
    assert quantities_in("In Q4, we expect to get several billion dollars in Blackwell revenue.") == 1
    assert quantities_in("截至2024年12月31日,发行人拥有9家子公司") == 1
    assert quantities_in("March 31.5 million") == 1 and quantities_in("5G users rose 7.2 per cent") == 2
    assert quantities_in("RMB100 million, US$5 and $4.5 billion") == 3


def test_an_amount_asked_passes_over_text_stating_only_rates(tmp_path):
    """航天电器's annual report (issue 23, zh-c-006) and the BLS CPI release (en-b-062): "连接器的销售量是多少？" and
    "what was the CPI-U index level" ask for an amount; a sentence stating only rates ("销售量……较上年增长177.78%",
    "increased 0.2 percent") loses to one stating the amount (rule 141 ``amount_not_rate``); a rate asked keeps both."""
    from docrag.generation.extractive_cues import AMOUNT_NOT_RATE_LOSS, amount_fit, asks_rate, percent_only
    from docrag.generation.extractive_units import units_of

    assert percent_only("( 1 )报告期,连接器销售量、生产量分别较上年增长 177.78% 、 183.06% ,一是 2019 年 3 月新设公司")
    assert not percent_only("销售量 64,227.98 万只,较上年增长 177.78%")
    assert not percent_only("《次新股开板投资攻略》 2017.02.10")   # a date is no figure at all
    assert asks_rate("同比增长多少？") and asks_rate("what 12-month change does it report")
    assert not asks_rate("连接器的销售量是多少")
    page = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "The CPI-U increased 0.2 percent in July. The CPI-U "
                                                                  "rose to an index level of 323.048 in July.")])
    rates, level = units_of(page, 1)[:2]
    fit = amount_fit([rates, level], "What was the CPI-U index level in July?")
    assert fit == [AMOUNT_NOT_RATE_LOSS, 1.0] and fit[0] < 1.0
    assert amount_fit([rates, level], "By what percent did the CPI-U rise in July?") == [1.0, 1.0]
