"""``extractive`` on option references and dated questions: "which option" wants an option's own line,
English words meet their inflections (Porter stems), a term after an indented description starts a new
entry, "which country has the most X" does not compare the column that counts countries, and text on a
page that never mentions the asked year loses."""

from __future__ import annotations

import docrag.generation.extractive_score as extractive_score
from docrag.generation import get_generator
from docrag.generation.extractive_asked import _without_asked
from docrag.generation.extractive_lists import definitions
from docrag.generation.extractive_units import tokenize, units_of
from tests.support.synthetic_pages import Region, make_page
from tests.test_extractive_lists_names import _lines_page
from tests.test_extractive_tables_zh import _two_tables

GREY = (200, 200, 200)


def _blocks_page(tmp_path, texts: list[str], doc_id: str = "help"):
    return make_page(tmp_path, [Region((72, 100 + 40 * i, 540, 130 + 40 * i), GREY, t) for i, t in enumerate(texts)],
                     doc_id=doc_id)


def test_english_words_meet_their_inflections():
    assert tokenize("reverses") == tokenize("reverse") == tokenize("reversed")
    assert tokenize("directories") == tokenize("directory") and tokenize("listing") == tokenize("lists")
    assert tokenize("2,005 3.50") == ["2005", "3.50"]   # numbers are not stemmed


def test_an_inflected_question_word_finds_its_option(tmp_path):
    page = _blocks_page(tmp_path, ["-U do not sort; list entries in directory order",
                                   "-r, --reverse reverse order while sorting"])
    ans = get_generator("extractive", embed=False).generate("Which option reverses the sort order?", [page])
    assert ans.answer.startswith("-r, --reverse")


def test_a_term_after_an_indented_description_starts_a_new_entry(tmp_path):
    page = _lines_page(tmp_path, [  # ls --help: the next option carries its description on its own line
        ["-g"], ["  like -l, but do not list owner", "--group-directories-first group directories before files"],
    ])
    defs, used = definitions(page.blocks, page)
    assert [(t, d) for t, d, _, _ in defs] == [("-g", "like -l, but do not list owner")]
    assert used[id(page.blocks[2])] == {0}   # the --group-directories-first line is left to the sentences
    texts = [u.text for u in units_of(page, 1)]
    assert "--group-directories-first group directories before files" in texts


def test_which_country_does_not_compare_the_column_counting_countries(tmp_path):
    bands = [["Subdivisions", "Countries"], ["Fewer than 10", "50"], ["10 to 19", "76"]]
    countries = [["Country", "Subdivisions"], ["United Kingdom", "220"], ["France", "119"]]
    page = _two_tables(tmp_path, bands, countries, "subdiv")
    assert _without_asked("Which country has the most subdivisions?").split() == ["Which", "has", "the", "most",
                                                                                 "subdivisions?"]
    zh = _without_asked("哪个年代撤销的国家名称最多？")
    assert "年代" not in zh and "撤销" in zh   # jieba's first word is the thing asked for
    ans = get_generator("extractive", embed=False).generate("Which country has the most subdivisions?", [page])
    assert ans.answer.startswith("220 — United Kingdom")


def test_text_on_a_page_without_the_asked_year_loses(tmp_path):
    other = _blocks_page(tmp_path, ["On the last trading day the stock closed at a price of 26.95 dollars."],
                         doc_id="msft")
    dated = _blocks_page(tmp_path, ["Prices of 2005.", "On the last trading day the stock closed at 414.86 dollars."],
                         doc_id="goog")
    # the dated page is ranked second: at the default rank prior (0.5) the retriever's order outweighs the
    # year cue (x0.75), so the cue is checked at the former prior (0.06), where the page order is nearly neutral
    gen = get_generator("extractive", embed=False, rank_prior=0.06)
    question = "At what price did the stock close on the last trading day of 2005?"
    seen: dict[str, frozenset[str]] = {}
    fits = [extractive_score.year_fit(u, {"2005"}, seen) for u in units_of(other, 1) + units_of(dated, 2)]
    assert fits == [0.75, 1.0, 1.0] and seen == {other.page_id: frozenset(), dated.page_id: frozenset({"2005"})}
    assert extractive_score.year_fit(units_of(other, 1)[0], set(), {}) == 1.0
    ans = gen.generate(question, [other, dated])
    assert "414.86" in ans.answer.split("…")[0]
    assert ans.citations[0].page_id == dated.page_id


RELEASES = [["Codename", "Release", "Released", "End of support", "Days"],   # meta rows: text row labels
            ["Woody", "Debian 3.0", "2002-07-19", "2006-06-30", "1442"],
            ["Sarge", "Debian 3.1", "2005-06-06", "2008-03-31", "1029"],
            ["Squeeze", "Debian 6.0", "2011-02-06", "2014-05-31", "1210"]]
LTS = [["Release", "End of LTS", "End of extended LTS"], ["Debian 10", "2024-06-30", "2029-06-30"],
       ["Debian 11", "2026-08-31", "2031-06-30"]]


def test_dates_are_table_values_but_not_numbers():
    from docrag.generation.extractive_tables import is_date, parse_number

    for text in ("2011-02-06", "2011/2/6", "2011年2月6日", "6 February 2011", "Feb. 6, 2011"):
        assert is_date(text) and parse_number(text) is None
    assert not is_date("1442") and not is_date("6 Squeeze 2011") and parse_number("2005") == 2005


def test_date_cells_are_row_values_with_their_headers(tmp_path):
    from tests.test_extractive_tables_zh import _table_page

    page = _table_page(tmp_path, RELEASES, "18 numbered releases have come out so far.", doc_id="deb")
    cells = [u for u in units_of(page, 1) if u.cell is not None]
    assert {u.cell.value: u.cell.headers[-1] for u in cells if u.cell.row.label == "Squeeze"} == {
        "2011-02-06": "Released", "2014-05-31": "End of support", "1210": "Days"}
    assert [u.cell.row.notes for u in cells if u.cell.row.label == "Squeeze"][0] == ["Debian 6.0"]
    years = {u.cell.value: extractive_score.year_fit(u, {"2005"}, {})
             for u in cells if u.cell.headers[-1] == "Released"}
    assert years == {"2002-07-19": 0.75, "2005-06-06": 1.15, "2011-02-06": 0.75}
    gen = get_generator("extractive", embed=False)
    # a "which" question asks for the row: its name cells join the label; the date names the year
    assert gen.generate("Which Debian release came out in 2005?", [page]).answer.startswith(
        "2005-06-06 — Sarge Debian 3.1, Released")
    assert gen.generate("Which release was supported for the most days?", [page]).answer.startswith(
        "1442 — Woody Debian 3.0, Days")


def test_a_table_of_dates_only_is_read(tmp_path):
    from tests.test_extractive_tables_zh import _table_page

    page = _table_page(tmp_path, LTS, "Long-term support since Debian 6.0.", doc_id="lts")
    ans = get_generator("extractive", embed=False, decline_below=0.0).generate(
        "Until what date does LTS for Debian 10 last?", [page])
    assert ans.answer.startswith("2024-06-30 — Debian 10, End of LTS")


def test_text_that_states_other_years_only_loses(tmp_path):
    page = _blocks_page(tmp_path, ["Releases came out from 1996 to 2025.", "Sarge came out in 2005.",
                                   "Releases came out regularly."])
    seen: dict[str, frozenset[str]] = {}
    assert [extractive_score.year_fit(u, {"2005"}, seen) for u in units_of(page, 1)] == [0.75, 1.0, 1.0]


def test_a_column_of_the_asked_year_gains_only_where_the_columns_run_over_years(tmp_path):
    """``period_axis``: "2019 | 2020" columns are periods, and the asked year's gains; ACCIONA's one "Employees at
    the close of 2020" beside "Total sales" is no period of "total 2020 sales" (it had outranked the sales)."""
    from tests.test_extractive_tables_zh import _table_page

    one = _table_page(tmp_path, [["Jurisdiction", "Total sales", "Employees at the close of 2020"],
                                 ["Spain", "2,673", "20,860"]], "", doc_id="cbc")
    years = _table_page(tmp_path, [["Item", "Year 2019", "Year 2020"], ["Revenue", "5,100", "5,900"]], "", doc_id="ye")
    cells = [u for page in (one, years) for u in units_of(page, 1) if u.cell is not None]
    axes = extractive_score.period_axes(cells)
    fit = {u.cell.value: extractive_score.year_fit(u, {"2020"}, {}, axes) for u in cells}
    assert fit == {"2,673": 1.0, "20,860": 1.0, "5,100": 0.75, "5,900": 1.15}
