"""The generated report pairs of the ``fresh6`` split (imported by ``build_fresh6.py``).

* ``scripts15924_{en,zh}.pdf``: two pages each, same layout in both languages, from the ISO 15924 script codes
  shipped by Debian's ``iso-codes`` 4.15.0 (``/usr/share/iso-codes/json/iso_15924.json``; LGPL-2.1+): counts in
  prose (codes, variants, aliases), Table 1 of the codes by NUMBER RANGE (a hundred block of the three-digit
  code, with the kind of script the block is for, as ISO 15924 arranges it), a note, on page 2 a vector bar chart
  of each range's share of all codes with data labels and a caption, Table 2 the East Asian scripts (code,
  number, name; Chinese names translated by the script: the package's ``zh_CN`` catalog lacks or mistranslates
  several), a source note.
* ``leapsec_{en,zh}.pdf``: two pages each, from the tz database's ``leapseconds`` and ``leap-seconds.list`` as
  shipped by Debian's ``tzdata`` 2025b (public domain): counts in prose that Table 1 also shows, Table 1 of the
  leap seconds by decade (end of June / end of December, TAI - UTC after the decade), a note, on page 2 a vector
  bar chart of each decade's share of all leap seconds with data labels and a caption, Table 2 the leap seconds
  since 2000 with a UNIT column (TAI - UTC after each, in seconds), a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

from build import numbered
from build_fresh import FreshDoc

SPLIT = "fresh6"
ISO = Path("/usr/share/iso-codes/json/iso_15924.json")
ZONEINFO = Path("/usr/share/zoneinfo")
KINDS = {0: ("Hieroglyphic and cuneiform", "象形文字和楔形文字"),
         1: ("Right-to-left alphabetic", "从右向左书写的字母文字"),
         2: ("Left-to-right alphabetic", "从左向右书写的字母文字"), 3: ("Alphasyllabic", "元音附标文字"),
         4: ("Syllabic", "音节文字"), 5: ("Ideographic", "表意文字"), 6: ("Undeciphered", "未破译的文字"),
         7: ("Shorthand", "速记符号"), 9: ("Private use and special", "私用和特殊代码")}
EAST_ASIA = {"Bopo": "注音符号", "Hang": "谚文（韩文字母）", "Jamo": "韩文字母（别名）", "Kore": "朝鲜文（别名）",
             "Hira": "平假名", "Kana": "片假名", "Hrkt": "日文假名（别名）", "Jpan": "日文（别名）", "Hani": "汉字",
             "Hans": "汉字（简体变体）", "Hant": "汉字（繁体变体）", "Hanb": "汉字和注音符号（别名）"}


def scripts_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    codes = json.loads(ISO.read_text(encoding="utf-8"))["15924"]
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(codes)
    variants = sum("variant" in c["name"] for c in codes)
    aliases = sum("alias for" in c["name"] for c in codes)
    blocks = collections.Counter(int(c["numeric"]) // 100 for c in codes)
    used = sorted(blocks)
    share = {b: round(100 * blocks[b] / n, 2) for b in used}
    rng = {b: f"{b}00-{b}99" if b else "000-099" for b in used}
    east = sorted((c for c in codes if c["alpha_4"] in EAST_ASIA), key=lambda c: c["numeric"])

    name = f"scripts15924_{lang}"
    d = FreshDoc(name, t("Script codes of ISO 15924", "ISO 15924 文字代码"),
                 t("Writing Systems - ISO 15924 summary", "书写系统 - ISO 15924 概况"), zh, "iso-codes 4.15.0")
    d.new_page()
    d.y = 70.0
    d.heading(t("The script codes of ISO 15924", "ISO 15924 的文字代码"))
    b_n = d.para(t(f"ISO 15924 gives {n} writing systems a four-letter code and a three-digit number. {variants} of "
                   f"these codes stand for a variant of another script, such as the Fraktur variant of Latin, and "
                   f"{aliases} are aliases for a combination of scripts, such as Japanese for Han, Hiragana and "
                   "Katakana.",
                   f"ISO 15924 为{n}种书写系统分配了四字母代码和三位数字编号。其中{variants}个代码表示另一种文字的"
                   f"变体，例如拉丁字母的尖角体变体；{aliases}个代码是若干文字组合的别名，例如日文是汉字、平假名和"
                   "片假名的组合。"))
    tab = d.table(t("Table 1. Codes by number range", "表1 各编号范围的代码数"),
                  [t("Kind of script", "文字类型"), t("Number range", "编号范围"), t("Codes", "代码数"),
                   t("Share (%)", "占比（%）")],
                  [[t(*KINDS[b]), rng[b], str(blocks[b]), f2(share[b])] for b in used])
    d.para(t("The hundreds digit of a script's number tells what kind of script it is. Alphasyllabic scripts, "
             "most of them descended from Brahmi, write a consonant with a vowel mark; syllabic scripts have one "
             "sign per syllable. The range 900-999 holds the codes reserved for private use, aliases such as "
             "Japanese and Korean, and special codes such as Zyyy for an undetermined script.",
             "文字编号的百位数表示文字的类型。元音附标文字大多源自婆罗米文，用一个辅音字母加元音符号书写；音节文字"
             "每个音节用一个符号。900-999 范围包括保留给私人使用的代码、日文和朝鲜文等别名，以及特殊代码，例如表示"
             "未确定文字的 Zyyy。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Number ranges and East Asian scripts", "编号范围与东亚文字"))
    b_chart = d.bars(t("Figure 1. Share of all ISO 15924 codes by number range (%)",
                       "图1 各编号范围占全部 ISO 15924 代码的比例（%）"),
                     [rng[b] for b in used], [share[b] for b in used], "%")
    tab2 = d.table(t("Table 2. East Asian scripts", "表2 东亚文字"),
                   [t("Code", "代码"), t("Number", "编号"), t("Script", "文字")],
                   [[c["alpha_4"], c["numeric"], t(re.sub(r" \(alias for .*\)$", " (alias)", c["name"]),
                                                   EAST_ASIA[c["alpha_4"]])] for c in east])
    d.para(t("Source: iso_15924.json of the iso-codes package (iso-codes 4.15.0 as shipped by Debian; LGPL-2.1+).",
             "资料来源：iso-codes 软件包的 iso_15924.json（Debian 发布的 iso-codes 4.15.0；LGPL-2.1+）。"), 9)
    doc = d.save()
    r1 = {b: row for b, row in zip(used, tab["rows"][1:], strict=True)}
    r2 = {c["alpha_4"]: row for c, row in zip(east, tab2["rows"][1:], strict=True)}
    num = {c["alpha_4"]: c["numeric"] for c in codes}
    most = max(used, key=lambda b: blocks[b])
    diff = blocks[2] - blocks[1]
    qs = {"en": ["How many of the ISO 15924 codes are aliases for a combination of scripts?",
                 "How many codes are in the number range 300-399?",
                 "Which number range has the most codes?",
                 "How many more codes does the 200-299 range have than the 100-199 range?",
                 "What is the number of the Hangul script?",
                 "Which four-letter code stands for the traditional variant of Han?",
                 "What share of all codes falls in the range 400-499, according to Figure 1?",
                 "How many writing systems have an ISO 15924 code, and what number does Katakana have?"],
          "zh": ["ISO 15924 的代码中有多少个是若干文字组合的别名？",
                 "编号范围 300-399 中有多少个代码？",
                 "哪个编号范围的代码最多？",
                 "200-299 范围的代码比 100-199 范围多多少个？",
                 "谚文的编号是多少？",
                 "汉字的繁体变体用哪个四字母代码表示？",
                 "根据图1，400-499 范围占全部代码的比例是多少？",
                 "共有多少种书写系统拥有 ISO 15924 代码？片假名的编号是多少？"]}[lang]
    golds = [(str(aliases), [str(aliases)], "text", [(1, b_n)]),
             (str(blocks[3]), [str(blocks[3])], "table", [(1, r1[3])]),
             (f"{rng[most]} ({t(*KINDS[most])}, {blocks[most]})" if not zh
              else f"{rng[most]}（{t(*KINDS[most])}，{blocks[most]}个）", [rng[most]], "table", [(1, r1[most])]),
             (f"{diff} ({blocks[2]} - {blocks[1]})", [str(diff)], "table", [(1, r1[2]), (1, r1[1])]),
             (num["Hang"], [num["Hang"]], "table", [(2, r2["Hang"])]),
             ("Hant", ["Hant"], "table", [(2, r2["Hant"])]),
             (f"{f2(share[4])}%", [f2(share[4])], "chart", [(2, b_chart)]),
             (t(f"{n}; {num['Kana']}", f"{n}种；{num['Kana']}"), [num["Kana"]], "multi_page",
              [(1, b_n), (2, r2["Kana"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)


def _leaps() -> list[tuple[int, int, int]]:
    """(year, month, day) of every leap second in ``leapseconds`` (all positive so far)."""
    month = {"Jun": 6, "Dec": 12}
    out = []
    for ln in (ZONEINFO / "leapseconds").read_text(encoding="utf-8").splitlines():
        f = ln.split()
        if f and f[0] == "Leap":
            assert f[5] == "+", ln
            out.append((int(f[1]), month[f[2]], int(f[3])))
    return out


def _tai_utc() -> dict[tuple[int, int], int]:
    """(year, month) in which a TAI - UTC value took effect -> that value, from ``leap-seconds.list``."""
    mon = {"Jan": 1, "Jul": 7}
    out = {}
    for ln in (ZONEINFO / "leap-seconds.list").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\d+\s+(\d+)\s+#\s+1 (\w+) (\d{4})", ln)
        if m:
            out[(int(m[3]), mon[m[2]])] = int(m[1])
    return out


def _after(tai: dict[tuple[int, int], int], y: int, mo: int) -> int:
    """TAI - UTC right after the leap second at the end of month ``mo`` of year ``y``."""
    return tai[(y + 1, 1)] if mo == 12 else tai[(y, 7)]


def leap_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    leaps, tai = _leaps(), _tai_utc()
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(leaps)
    june = sum(m == 6 for _, m, _ in leaps)
    dec = n - june
    decades = list(range(1970, 2030, 10))
    per = {dd: [x for x in leaps if dd <= x[0] < dd + 10] for dd in decades}
    last = leaps[-1]
    now = _after(tai, last[0], last[1])
    after = {dd: _after(tai, *per[dd][-1][:2]) if per[dd] else now for dd in decades}
    dlab = {dd: t(f"{dd}s", f"{dd}年代") for dd in decades}
    with_leaps = [dd for dd in decades if per[dd]]
    share = {dd: round(100 * len(per[dd]) / n, 2) for dd in with_leaps}
    since = [x for x in leaps if x[0] >= 2000]
    iso = lambda x: f"{x[0]}-{x[1]:02d}-{x[2]:02d}"  # noqa: E731

    name = f"leapsec_{lang}"
    d = FreshDoc(name, t("Leap seconds since 1972", "1972年以来的闰秒"),
                 t("Leap Seconds - tz database summary", "闰秒 - 时区数据库概况"), zh, "tzdata 2025b")
    d.new_page()
    d.y = 70.0
    d.heading(t("Leap seconds inserted into UTC", "插入协调世界时的闰秒"))
    b_n = d.para(t(f"Since 1972, {n} leap seconds have been inserted into Coordinated Universal Time (UTC), {june} "
                   f"of them at the end of June and {dec} at the end of December. Every one of them was a positive "
                   f"leap second, shown on clocks as 23:59:60. The last was inserted on {last[2]} December "
                   f"{last[0]}; since then TAI - UTC has been {now} seconds.",
                   f"自1972年以来，协调世界时（UTC）共插入了{n}个闰秒，其中{june}个在6月底插入，{dec}个在12月底插入。"
                   f"所有闰秒都是正闰秒，时钟显示为 23:59:60。最后一个闰秒于{last[0]}年12月{last[2]}日插入；"
                   f"此后 TAI - UTC 一直为{now}秒。"))
    tab = d.table(t("Table 1. Leap seconds by decade", "表1 各年代的闰秒数"),
                  [t("Decade", "年代"), t("Leap seconds", "闰秒数"), t("End of June", "6月底"),
                   t("End of December", "12月底"), t("TAI - UTC after (s)", "其后 TAI - UTC（秒）")],
                  [[dlab[dd], str(len(per[dd])), str(sum(m == 6 for _, m, _ in per[dd])),
                    str(sum(m == 12 for _, m, _ in per[dd])), str(after[dd])] for dd in decades])
    d.para(t("A leap second is added as the last second of 30 June or 31 December to keep UTC within 0.9 seconds "
             "of the Earth's rotation. TAI - UTC after is the difference between International Atomic Time and "
             "UTC once the decade's last leap second had been inserted.",
             "闰秒作为6月30日或12月31日的最后一秒加入，使协调世界时与地球自转的差距保持在0.9秒以内。"
             "“其后 TAI - UTC”是该年代最后一个闰秒插入之后国际原子时与协调世界时之差。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Leap seconds per decade and since 2000", "各年代与2000年以来的闰秒"))
    b_chart = d.bars(t("Figure 1. Share of all leap seconds inserted in each decade (%)",
                       "图1 各年代插入的闰秒占全部闰秒的比例（%）"),
                     [dlab[dd] for dd in with_leaps], [share[dd] for dd in with_leaps], "%")
    tab2 = d.table(t("Table 2. Leap seconds since 2000", "表2 2000年以来的闰秒"),
                   [t("Date (UTC)", "日期（UTC）"), t("Inserted at", "插入时刻"),
                    t("TAI - UTC after", "其后 TAI - UTC"), t("Unit", "单位")],
                   [[iso(x), "23:59:60", str(_after(tai, x[0], x[1])), t("seconds", "秒")] for x in since])
    d.para(t("Source: leapseconds and leap-seconds.list of the tz database (tzdata 2025b as shipped by Debian; "
             "public domain), updated through IERS Bulletin C.",
             "资料来源：时区数据库的 leapseconds 和 leap-seconds.list（Debian 发布的 tzdata 2025b；公有领域），"
             "已按国际地球自转服务（IERS）C 公报更新。"), 9)
    doc = d.save()
    r1 = {dd: row for dd, row in zip(decades, tab["rows"][1:], strict=True)}
    r2 = {iso(x): row for x, row in zip(since, tab2["rows"][1:], strict=True)}
    most = max(decades, key=lambda dd: len(per[dd]))
    diff = len(per[1980]) - len(per[2010])
    d70 = sum(m == 12 for _, m, _ in per[1970])
    x15 = next(x for x in since if x[0] == 2015)
    x08 = next(x for x in since if x[0] == 2008)
    qs = {"en": ["How many leap seconds have been inserted at the end of June?",
                 "How many leap seconds were inserted in the 1990s?",
                 "In which decade were the most leap seconds inserted?",
                 "How many more leap seconds were inserted in the 1980s than in the 2010s?",
                 "How many leap seconds of the 1970s were inserted at the end of December?",
                 "What was TAI - UTC once the last leap second of the 1980s had been inserted?",
                 "What did TAI - UTC become after the leap second of 30 June 2015?",
                 "What share of all leap seconds were inserted in the 1990s, according to Figure 1?",
                 "How many leap seconds have been inserted since 1972, and what was TAI - UTC after the leap second "
                 "of 31 December 2008?"],
          "zh": ["有多少个闰秒是在6月底插入的？",
                 "20世纪90年代（1990年代）插入了多少个闰秒？",
                 "哪个年代插入的闰秒最多？",
                 "1980年代插入的闰秒比2010年代多多少个？",
                 "1970年代的闰秒中有多少个是在12月底插入的？",
                 "1980年代最后一个闰秒插入之后，TAI - UTC 是多少？",
                 "2015年6月30日的闰秒之后，TAI - UTC 变为多少？",
                 "根据图1，1990年代插入的闰秒占全部闰秒的比例是多少？",
                 "1972年以来共插入了多少个闰秒？2008年12月31日的闰秒之后 TAI - UTC 是多少？"]}[lang]
    golds = [(str(june), [str(june)], "text", [(1, b_n)]),
             (str(len(per[1990])), [str(len(per[1990]))], "table", [(1, r1[1990])]),
             (f"{dlab[most]} ({len(per[most])})" if not zh else f"{dlab[most]}（{len(per[most])}个）", [dlab[most]],
              "table", [(1, r1[most])]),
             (f"{diff} ({len(per[1980])} - {len(per[2010])})", [str(diff)], "table", [(1, r1[1980]), (1, r1[2010])]),
             (str(d70), [str(d70)], "table", [(1, r1[1970])]),
             (t(f"{after[1980]} seconds", f"{after[1980]}秒"), [str(after[1980])], "table", [(1, r1[1980])]),
             (t(f"{_after(tai, 2015, 6)} seconds", f"{_after(tai, 2015, 6)}秒"), [str(_after(tai, 2015, 6))], "table",
              [(2, r2[iso(x15)])]),
             (f"{f2(share[1990])}%", [f2(share[1990])], "chart", [(2, b_chart)]),
             (t(f"{n}; {_after(tai, 2008, 12)}", f"{n}个；{_after(tai, 2008, 12)}"), [str(_after(tai, 2008, 12))],
              "multi_page", [(1, b_n), (2, r2[iso(x08)])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)
