"""The generated report pair of the ``fresh10`` split (imported by ``build_fresh10.py``).

From the list of Debian releases shipped by Debian's ``distro-info-data`` 0.58+deb12u6 (ISC):

* ``debian_releases_{en,zh}.pdf``: two pages each, same layout in both languages, from
  ``/usr/share/distro-info/debian.csv``: counts in prose, Table 1 of the releases that have come out (version,
  codename, release date, end of regular support, days of regular support) with a note, on page 2 a vector bar
  chart of the years of regular support of the releases from 6.0 on with data labels and a caption, Table 2 the
  long-term support (LTS) and extended LTS end dates of those releases by version only (the codename is on
  page 1), a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

from build import numbered
from build_fresh import FreshDoc

SPLIT = "fresh10"
STAMP = "distro-info-data 0.58"
CSV = Path("/usr/share/distro-info/debian.csv")


def distro_releases(path: Path = CSV) -> list[dict[str, str]]:
    """The rows of one of distro-info-data's release lists (``debian.csv``, ``ubuntu.csv``)."""
    if not path.exists():
        raise SystemExit(f"{path} is missing: install the Debian package distro-info-data (0.58+deb12u6)")
    return list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))


def days_between(a: str, b: str) -> int:
    """Days from ISO date ``a`` to ISO date ``b``."""
    return (dt.date.fromisoformat(b) - dt.date.fromisoformat(a)).days


def releases_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    allr = distro_releases()
    rel = [r for r in allr if r["release"]]
    planned = [r for r in allr if r["version"] and not r["release"]]
    branches = [r for r in allr if not r["version"]]
    days = {r["version"]: days_between(r["release"], r["eol"]) for r in rel}
    lts = [r for r in rel if r.get("eol-lts")]
    years = {r["version"]: round(days[r["version"]] / 365.25, 2) for r in lts}
    first, last = rel[0], rel[-1]
    assert [r["codename"] for r in planned] == ["Forky", "Duke"] and len(branches) == 2

    name = f"debian_releases_{lang}"
    d = FreshDoc(name, t("Debian releases and their support", "Debian 各版本及其支持期"),
                 t("Debian releases - support summary", "Debian 版本 - 支持期概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("Debian releases and their support periods", "Debian 各版本的发布与支持期"))
    b_n = d.para(t(f"The release list of distro-info-data has {len(allr)} entries. {len(rel)} numbered releases have "
                   f"come out, from {first['version']} {first['codename']} on {first['release']} to "
                   f"{last['version']} {last['codename']} on {last['release']}. Two more have a number and a codename "
                   f"but no release date yet: {planned[0]['version']} {planned[0]['codename']} and "
                   f"{planned[1]['version']} {planned[1]['codename']}. The remaining two, {branches[0]['codename']} "
                   f"(unstable) and {branches[1]['codename']}, are development branches without a version number.",
                   f"distro-info-data 的版本列表共有{len(allr)}个条目。已经发布的带编号版本有{len(rel)}个，"
                   f"从 {first['release']} 发布的 {first['version']} {first['codename']} 到 {last['release']} 发布的 "
                   f"{last['version']} {last['codename']}。另有两个版本已有编号和代号，但尚无发布日期："
                   f"{planned[0]['version']} {planned[0]['codename']} 和 {planned[1]['version']} "
                   f"{planned[1]['codename']}。其余两个条目 {branches[0]['codename']}（不稳定版）和 "
                   f"{branches[1]['codename']} 是没有版本号的开发分支。"))
    tab = d.table(t("Table 1. Debian releases and their regular support", "表1 Debian 各版本及其常规支持期"),
                  [t("Version", "版本"), t("Codename", "代号"), t("Released", "发布日期"),
                   t("End of support", "常规支持结束"), t("Days", "天数")],
                  [[r["version"], r["codename"], r["release"], r["eol"], str(days[r["version"]])] for r in rel], 9)
    d.para(t("Days counts the days from the release date to the end of regular (security) support. For the newest "
             "release the end date is the one planned in the list.",
             "“天数”为从发布日期到常规（安全）支持结束之间的天数。最新版本的结束日期为列表中计划的日期。"), 9)
    d.new_page()
    d.y = 70.0
    d.heading(t("Long-term support since Debian 6.0", "Debian 6.0 以来的长期支持"))
    b_chart = d.bars(t("Figure 1. Years of regular support of each release since 6.0 (days / 365.25)",
                       "图1 6.0 以来各版本的常规支持年数（天数 / 365.25）"),
                     [r["codename"] for r in lts], [years[r["version"]] for r in lts], t("years", "年"))
    tab2 = d.table(t("Table 2. End of long-term support (LTS) and extended LTS",
                     "表2 长期支持（LTS）与扩展 LTS 的结束日期"),
                   [t("Version", "版本"), t("End of LTS", "LTS 结束"), t("End of extended LTS", "扩展 LTS 结束")],
                   [[r["version"], r["eol-lts"], r.get("eol-elts") or "-"] for r in lts], 9)
    d.para(t(f"Source: /usr/share/distro-info/debian.csv of the distro-info-data package ({STAMP}+deb12u6 as shipped "
             "by Debian; ISC licence). Releases before 6.0 have no LTS dates in the list.",
             f"资料来源：distro-info-data 软件包的 /usr/share/distro-info/debian.csv（Debian 发布的 {STAMP}+deb12u6；"
             "ISC 许可证）。6.0 之前的版本在列表中没有 LTS 日期。"), 9)
    doc = d.save()
    r1 = {r["version"]: row for r, row in zip(rel, tab["rows"][1:], strict=True)}
    r2 = {r["version"]: row for r, row in zip(lts, tab2["rows"][1:], strict=True)}
    by = {r["version"]: r for r in rel}
    most = max(rel, key=lambda r: days[r["version"]])
    short = min(lts, key=lambda r: years[r["version"]])
    assert sum(days[r["version"]] == days[most["version"]] for r in rel) == 1
    assert sum(years[r["version"]] == years[short["version"]] for r in lts) == 1
    in2005 = [r for r in rel if r["release"].startswith("2005")]
    assert len(in2005) == 1
    diff = days["8"] - days["9"]
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    qs = {"en": ["According to distro-info-data, how many numbered Debian releases have been published so far?",
                 "What codename has been given to the future Debian release 15?",
                 "On what date did Debian 6.0 Squeeze come out?",
                 "When did regular support for Debian 5.0 Lenny end?",
                 "Which Debian release came out in 2005?",
                 "Which release in Table 1 was supported for the most days?",
                 "How many more days of regular support did Jessie get than Stretch?",
                 "For how many days was Debian 1.3 Bo supported?",
                 "Until what date does long-term support for Debian 10 last?",
                 "When does extended LTS for Debian 11 end?",
                 "According to Figure 1, how many years of regular support does Bookworm have?",
                 "Which release in Figure 1 has the shortest regular support?",
                 "When was Debian Jessie released, and when does its extended LTS end?"],
          "zh": ["根据 distro-info-data，目前已经发布了多少个带编号的 Debian 版本？",
                 "未来的 Debian 15 版本被定了什么代号？",
                 "Debian 6.0 Squeeze 是哪一天发布的？",
                 "Debian 5.0 Lenny 的常规支持是哪天结束的？",
                 "哪个 Debian 版本是在 2005 年发布的？",
                 "表1中哪个版本的支持天数最多？",
                 "Jessie 的常规支持比 Stretch 多了多少天？",
                 "Debian 1.3 Bo 获得了多少天的支持？",
                 "Debian 10 的长期支持持续到哪一天？",
                 "Debian 11 的扩展 LTS 什么时候结束？",
                 "根据图1，Bookworm 的常规支持有多少年？",
                 "图1中哪个版本的常规支持最短？",
                 "Debian Jessie 是何时发布的？它的扩展 LTS 何时结束？"]}[lang]
    ver = lambda r: f"{r['version']} {r['codename']}"  # noqa: E731
    golds = [(str(len(rel)), [str(len(rel))], "text", [(1, b_n)]),
             (planned[1]["codename"], [planned[1]["codename"]], "text", [(1, b_n)]),
             (by["6.0"]["release"], [by["6.0"]["release"]], "table", [(1, r1["6.0"])]),
             (by["5.0"]["eol"], [by["5.0"]["eol"]], "table", [(1, r1["5.0"])]),
             (ver(in2005[0]), [in2005[0]["codename"]], "table", [(1, r1[in2005[0]["version"]])]),
             (t(f"{ver(most)} ({days[most['version']]} days)", f"{ver(most)}（{days[most['version']]} 天）"),
              [most["codename"]], "table", [(1, r1[most["version"]])]),
             (f"{diff} ({days['8']} - {days['9']})", [str(diff)], "table", [(1, r1["8"]), (1, r1["9"])]),
             (str(days["1.3"]), [str(days["1.3"])], "table", [(1, r1["1.3"])]),
             (by["10"]["eol-lts"], [by["10"]["eol-lts"]], "table", [(2, r2["10"])]),
             (by["11"]["eol-elts"], [by["11"]["eol-elts"]], "table", [(2, r2["11"])]),
             (t(f"{f2(years['12'])} years", f"{f2(years['12'])} 年"), [f2(years["12"])], "chart", [(2, b_chart)]),
             (t(f"{ver(short)} ({f2(years[short['version']])} years)",
                f"{ver(short)}（{f2(years[short['version']])} 年）"),
              [short["codename"]], "chart", [(2, b_chart)]),
             (f"{by['8']['release']}; {by['8']['eol-elts']}", [by["8"]["release"], by["8"]["eol-elts"]], "multi_page",
              [(1, r1["8"]), (2, r2["8"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)
