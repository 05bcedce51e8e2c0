"""The generated report pair of the ``fresh8`` split (imported by ``build_fresh8.py``).

From the ISO 639-2 language codes shipped by Debian's ``iso-codes`` 4.15.0 (LGPL-2.1+):

* ``iso639_2_{en,zh}.pdf``: two pages each, same layout in both languages, from ``iso_639-2.json`` (487 entries):
  counts in prose, Table 1 of the entries by kind (special or reserved, with a separate bibliographic code, with a
  two-letter code, language groups, other three-letter-only codes: entries, share, example code; every entry in
  exactly one row), a note, on page 2 a vector bar chart of each kind's share with data labels and a caption,
  Table 2 the languages whose bibliographic (B) code differs from the terminology (T) code (language, ISO 639-1
  code, T code, B code; Chinese names from the package's ``zh_CN`` catalog ``iso_639-2.mo``), a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import gettext
from pathlib import Path

from build import numbered
from build_fresh import FreshDoc
from build_fresh5_report import _json

SPLIT = "fresh8"
MO = Path("/usr/share/locale/zh_CN/LC_MESSAGES/iso_639-2.mo")
STAMP = "iso-codes 4.15.0"
SPECIAL = ("mis", "mul", "qaa-qtz", "und", "zxx")
KINDS = [("special", "Special or reserved", "特殊或保留代码"),
         ("bib", "Separate B code", "另有文献代码"),
         ("two", "Two-letter code", "有两字母代码"),
         ("group", "Language group", "语言组"),
         ("other", "Three-letter only", "仅有三字母代码")]


def _kind(c: dict) -> str:
    if c["alpha_3"] in SPECIAL:
        return "special"
    if "bibliographic" in c:
        return "bib"
    if "alpha_2" in c:
        return "two"
    return "group" if "languages" in c["name"] else "other"


def iso639_2_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    codes = _json("iso_639-2.json", "639-2")
    cat = gettext.GNUTranslations(MO.open("rb"))
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(codes)
    by_kind = {k: [c for c in codes if _kind(c) == k] for k, _, _ in KINDS}
    assert sum(len(v) for v in by_kind.values()) == n
    share = {k: round(100 * len(by_kind[k]) / n, 2) for k, _, _ in KINDS}
    label = {k: t(en, cn) for k, en, cn in KINDS}
    n2 = sum("alpha_2" in c for c in codes)
    bib = [c for c in codes if "bibliographic" in c]

    name = f"iso639_2_{lang}"
    d = FreshDoc(name, t("Language codes of ISO 639-2", "ISO 639-2 语言代码"),
                 t("Languages - ISO 639-2 summary", "语言 - ISO 639-2 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("The three-letter language codes of ISO 639-2", "ISO 639-2 的三字母语言代码"))
    b_n = d.para(t(f"ISO 639-2 gives {n} languages and groups of languages a three-letter code. {n2} of them also "
                   f"have a two-letter code of ISO 639-1; for {len(bib)} of these the bibliographic code (B), used by "
                   "libraries, differs from the terminology code (T). Five entries are special or reserved: qaa-qtz "
                   "for local use, and mis, mul, und and zxx.",
                   f"ISO 639-2 为{n}种语言和语言组分配了三字母代码。其中{n2}个还有 ISO 639-1 的两字母代码；"
                   f"其中{len(bib)}个的文献代码（B，供图书馆使用）与术语代码（T）不同。有五个条目是特殊或保留代码："
                   "供本地使用的 qaa-qtz，以及 mis、mul、und 和 zxx。"))
    tab = d.table(t("Table 1. ISO 639-2 entries by kind", "表1 按类别划分的 ISO 639-2 条目"),
                  [t("Kind of entry", "条目类别"), t("Entries", "条目数"), t("Share (%)", "占比（%）"),
                   t("Example code", "代码示例")],
                  [[label[k], str(len(by_kind[k])), f2(share[k]), by_kind[k][0]["alpha_3"]] for k, _, _ in KINDS])
    d.para(t("Every entry is counted in one row only, in the first row that fits it. The entries of the rows "
             "Separate B code and Two-letter code have an ISO 639-1 code; a language group is an entry without one "
             "whose English name contains the word languages, such as Celtic languages. Three-letter only counts "
             "the other entries without a two-letter code.",
             "每个条目只计入一行，即第一个符合的行。“另有文献代码”和“有两字母代码”两行的条目都有 ISO 639-1 代码；"
             "语言组指没有两字母代码、英文名称含有 languages 一词的条目，例如 Celtic languages（凯尔特诸语言）。"
             "“仅有三字母代码”计入其余没有两字母代码的条目。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Kinds of entries and bibliographic codes", "条目类别与文献代码"))
    b_chart = d.bars(t("Figure 1. Share of all ISO 639-2 entries by kind (%)",
                       "图1 各类别条目占全部 ISO 639-2 条目的比例（%）"),
                     [label[k] for k, _, _ in KINDS], [share[k] for k, _, _ in KINDS], "%")
    tab2 = d.table(t("Table 2. Languages whose bibliographic code differs from the terminology code",
                     "表2 文献代码与术语代码不同的语言"),
                   [t("Language", "语言"), t("ISO 639-1", "ISO 639-1"), t("T code", "术语代码（T）"),
                    t("B code", "文献代码（B）")],
                   [[t(c["name"], cat.gettext(c["name"])), c["alpha_2"], c["alpha_3"], c["bibliographic"]]
                    for c in bib], 9)
    d.para(t(f"Source: iso_639-2.json of the iso-codes package ({STAMP} as shipped by Debian; LGPL-2.1+); Chinese "
             "names from its zh_CN message catalog.",
             f"资料来源：iso-codes 软件包的 iso_639-2.json（Debian 发布的 {STAMP}；LGPL-2.1+），中文名称取自其 "
             "zh_CN 消息目录。"), 9)
    doc = d.save()
    r1 = {k: row for (k, _, _), row in zip(KINDS, tab["rows"][1:], strict=True)}
    r2 = {c["alpha_3"]: row for c, row in zip(bib, tab2["rows"][1:], strict=True)}
    b = {c["alpha_3"]: c for c in bib}
    most = max((k for k, _, _ in KINDS), key=lambda k: len(by_kind[k]))
    diff = len(by_kind["two"]) - len(by_kind["group"])
    ng = len(by_kind["group"])
    qs = {"en": ["How many ISO 639-2 entries also have a two-letter code of ISO 639-1?",
                 "How many ISO 639-2 entries are language groups without a two-letter code?",
                 "Which kind of entry is the most common in ISO 639-2?",
                 "How many more entries are counted as Two-letter code than as Language group in Table 1?",
                 "What is the bibliographic code of Tibetan?",
                 "Which language has the bibliographic code baq?",
                 "What is the terminology code of Icelandic?",
                 "What is the ISO 639-1 code of Persian?",
                 "What share of all ISO 639-2 entries are special or reserved, according to Figure 1?",
                 "How many languages and groups of languages have an ISO 639-2 code, and what is the bibliographic "
                 "code of Chinese?"],
          "zh": ["有多少个 ISO 639-2 条目还有 ISO 639-1 的两字母代码？",
                 "有多少个 ISO 639-2 条目是无两字母代码的语言组？",
                 "ISO 639-2 中哪一类条目最多？",
                 "在表1中，计为“有两字母代码”的条目比计为“语言组”的条目多多少个？",
                 "藏语的文献代码是什么？",
                 "哪种语言的文献代码是 baq？",
                 "冰岛语的术语代码是什么？",
                 "波斯语的 ISO 639-1 代码是什么？",
                 "根据图1，特殊或保留代码占全部 ISO 639-2 条目的比例是多少？",
                 "共有多少种语言和语言组拥有 ISO 639-2 代码？汉语的文献代码是什么？"]}[lang]
    golds = [(str(n2), [str(n2)], "text", [(1, b_n)]),
             (str(ng), [str(ng)], "table", [(1, r1["group"])]),
             (f"{label[most]} ({len(by_kind[most])})" if not zh else f"{label[most]}（{len(by_kind[most])}个）",
              [label[most]], "table", [(1, r1[most])]),
             (f"{diff} ({len(by_kind['two'])} - {ng})", [str(diff)], "table", [(1, r1["two"]), (1, r1["group"])]),
             ("tib", ["tib"], "table", [(2, r2["bod"])]),
             (t("Basque", cat.gettext("Basque")), [t("Basque", cat.gettext("Basque"))], "table", [(2, r2["eus"])]),
             ("isl", ["isl"], "table", [(2, r2["isl"])]),
             (b["fas"]["alpha_2"], [b["fas"]["alpha_2"]], "table", [(2, r2["fas"])]),
             (f"{f2(share['special'])}%", [f2(share["special"])], "chart", [(2, b_chart)]),
             (t(f"{n}; chi", f"{n}种；chi"), ["chi"], "multi_page", [(1, b_n), (2, r2["zho"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)
