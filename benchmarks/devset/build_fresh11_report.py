"""The generated report pair of the ``fresh11`` split (imported by ``build_fresh11.py``).

From the list of Ubuntu releases shipped by Debian's ``distro-info-data`` 0.58+deb12u6 (ISC):

* ``ubuntu_releases_{en,zh}.pdf``: two pages each, same layout in both languages, from
  ``/usr/share/distro-info/ubuntu.csv``: counts and the first and newest release in prose, Table 1 of the
  long-term support (LTS) releases (version, codename, release date, end of standard support, days of standard
  support) with a note, on page 2 a vector bar chart of the development period of each LTS release (days from the
  opening of its series to its release) with data labels and a caption, Table 2 the end of Expanded Security
  Maintenance (ESM) and of legacy support of the LTS releases from 12.04 on by version only (the codename is on
  page 1), a source note.

Gold answers are computed from the data as printed; gold boxes are where the evidence is drawn.
"""

from __future__ import annotations

from pathlib import Path

from build import numbered
from build_fresh import FreshDoc
from build_fresh10_report import days_between, distro_releases

SPLIT = "fresh11"
STAMP = "distro-info-data 0.58"
CSV = Path("/usr/share/distro-info/ubuntu.csv")


def releases_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    allr = distro_releases(CSV)
    lts = [r for r in allr if r["version"].endswith(" LTS")]
    esm = [r for r in lts if r.get("eol-esm")]
    first, last = allr[0], allr[-1]
    days = {r["version"]: days_between(r["release"], r["eol"]) for r in lts}
    dev = {r["version"]: days_between(r["created"], r["release"]) for r in lts}
    v = {r["version"].removesuffix(" LTS"): r for r in allr}
    lv = lambda n: n if n in days else f"{n} LTS"  # noqa: E731

    name = f"ubuntu_releases_{lang}"
    d = FreshDoc(name, t("Ubuntu releases and their support", "Ubuntu 各版本及其支持期"),
                 t("Ubuntu releases - support summary", "Ubuntu 版本 - 支持期概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("Ubuntu releases and their support periods", "Ubuntu 各版本的发布与支持期"))
    b_n = d.para(t(f"The Ubuntu release list of distro-info-data has {len(allr)} entries, from {first['version']} "
                   f"{first['codename']}, released on {first['release']}, to {last['version']} {last['codename']}, "
                   f"released on {last['release']}. {len(lts)} of them are long-term support (LTS) releases, marked "
                   f"LTS after the version number; the other {len(allr) - len(lts)} are interim releases.",
                   f"distro-info-data 的 Ubuntu 版本列表共有{len(allr)}个条目，从 {first['release']} 发布的 "
                   f"{first['version']} {first['codename']} 到 {last['release']} 发布的 {last['version']} "
                   f"{last['codename']}。其中{len(lts)}个是长期支持（LTS）版本，在版本号后标有 LTS；"
                   f"其余{len(allr) - len(lts)}个是过渡版本。"))
    tab = d.table(t("Table 1. Ubuntu LTS releases and their standard support", "表1 Ubuntu LTS 版本及其标准支持期"),
                  [t("Version", "版本"), t("Codename", "代号"), t("Released", "发布日期"),
                   t("End of support", "标准支持结束"), t("Days", "天数")],
                  [[r["version"], r["codename"], r["release"], r["eol"], str(days[r["version"]])] for r in lts], 9)
    d.para(t("Days counts the days from the release date to the end of standard support (desktop) given in the list. "
             "For the newest releases the end date is the one planned in the list.",
             "“天数”为从发布日期到列表所给的标准支持（桌面版）结束日期之间的天数。最新版本的结束日期为列表中计划的日期。"),
           9)
    d.new_page()
    d.y = 70.0
    d.heading(t("Development and extended support of the LTS releases", "LTS 版本的开发期与扩展支持"))
    b_chart = d.bars(t("Figure 1. Development period of each LTS release (days from the opening of its series to "
                       "its release)", "图1 各 LTS 版本的开发期（从该系列开启到发布的天数）"),
                     [r["codename"].split()[0] for r in lts], [float(dev[r["version"]]) for r in lts],
                     t("days", "天"))
    tab2 = d.table(t("Table 2. End of Expanded Security Maintenance (ESM) and of legacy support",
                     "表2 扩展安全维护（ESM）与旧版支持的结束日期"),
                   [t("Version", "版本"), t("End of ESM", "ESM 结束"), t("End of legacy support", "旧版支持结束")],
                   [[r["version"], r["eol-esm"], r.get("eol-legacy") or "-"] for r in esm], 9)
    d.para(t(f"Source: /usr/share/distro-info/ubuntu.csv of the distro-info-data package ({STAMP}+deb12u6 as shipped "
             "by Debian; ISC licence). LTS releases before 12.04 have no ESM dates in the list.",
             f"资料来源：distro-info-data 软件包的 /usr/share/distro-info/ubuntu.csv（Debian 发布的 {STAMP}+deb12u6；"
             "ISC 许可证）。12.04 之前的 LTS 版本在列表中没有 ESM 日期。"), 9)
    doc = d.save()
    r1 = {r["version"]: row for r, row in zip(lts, tab["rows"][1:], strict=True)}
    r2 = {r["version"]: row for r, row in zip(esm, tab2["rows"][1:], strict=True)}
    least = min(lts, key=lambda r: days[r["version"]])
    longest = max(lts, key=lambda r: dev[r["version"]])
    assert sum(days[r["version"]] == days[least["version"]] for r in lts) == 1
    assert sum(dev[r["version"]] == dev[longest["version"]] for r in lts) == 1
    in2014 = [r for r in lts if r["release"].startswith("2014")]
    assert len(in2014) == 1
    a, b = lv("22.04"), lv("10.04")
    diff = days[a] - days[b]
    qs = {"en": ["How many of the Ubuntu releases in distro-info-data are long-term support releases?",
                 "What was the codename of the very first Ubuntu release?",
                 "On what date did Ubuntu 12.04 LTS come out?",
                 "When did standard support for Ubuntu 8.04 LTS end?",
                 "Which Ubuntu LTS release was published in 2014?",
                 "Which LTS release in Table 1 had the fewest days of standard support?",
                 "How many more days of standard support does Jammy Jellyfish get than Lucid Lynx?",
                 "For how many days was Ubuntu 6.06 LTS Dapper Drake supported?",
                 "Until what date does Expanded Security Maintenance for Ubuntu 16.04 LTS run?",
                 "When does legacy support for Ubuntu 14.04 LTS end?",
                 "According to Figure 1, how many days of development did Noble have?",
                 "Which LTS release in Figure 1 took the longest to develop?",
                 "When was Focal Fossa released, and when does its legacy support end?"],
          "zh": ["distro-info-data 中的 Ubuntu 版本有多少个是长期支持版本？",
                 "Ubuntu 最早的那个版本代号是什么？",
                 "Ubuntu 12.04 LTS 是哪一天发布的？",
                 "Ubuntu 8.04 LTS 的标准支持是哪天结束的？",
                 "哪个 Ubuntu LTS 版本是在 2014 年发布的？",
                 "表1中哪个 LTS 版本的标准支持天数最少？",
                 "Jammy Jellyfish 的标准支持比 Lucid Lynx 多多少天？",
                 "Ubuntu 6.06 LTS Dapper Drake 获得了多少天的支持？",
                 "Ubuntu 16.04 LTS 的扩展安全维护持续到哪一天？",
                 "Ubuntu 14.04 LTS 的旧版支持什么时候结束？",
                 "根据图1，Noble 的开发期有多少天？",
                 "图1中哪个 LTS 版本的开发时间最长？",
                 "Focal Fossa 是何时发布的？它的旧版支持何时结束？"]}[lang]
    ver = lambda r: f"{r['version']} {r['codename']}"  # noqa: E731
    noble = v["24.04"]
    golds = [(str(len(lts)), [str(len(lts))], "text", [(1, b_n)]),
             (first["codename"], [first["codename"]], "text", [(1, b_n)]),
             (v["12.04"]["release"], [v["12.04"]["release"]], "table", [(1, r1[lv("12.04")])]),
             (v["8.04"]["eol"], [v["8.04"]["eol"]], "table", [(1, r1[lv("8.04")])]),
             (ver(in2014[0]), [in2014[0]["codename"]], "table", [(1, r1[in2014[0]["version"]])]),
             (t(f"{ver(least)} ({days[least['version']]} days)", f"{ver(least)}（{days[least['version']]} 天）"),
              [least["codename"]], "table", [(1, r1[least["version"]])]),
             (f"{diff} ({days[a]} - {days[b]})", [str(diff)], "table", [(1, r1[a]), (1, r1[b])]),
             (str(days[lv("6.06")]), [str(days[lv("6.06")])], "table", [(1, r1[lv("6.06")])]),
             (v["16.04"]["eol-esm"], [v["16.04"]["eol-esm"]], "table", [(2, r2[lv("16.04")])]),
             (v["14.04"]["eol-legacy"], [v["14.04"]["eol-legacy"]], "table", [(2, r2[lv("14.04")])]),
             (t(f"{dev[noble['version']]} days", f"{dev[noble['version']]} 天"), [str(dev[noble["version"]])],
              "chart", [(2, b_chart)]),
             (t(f"{ver(longest)} ({dev[longest['version']]} days)", f"{ver(longest)}（{dev[longest['version']]} 天）"),
              [longest["codename"].split()[0]], "chart", [(2, b_chart)]),
             (f"{v['20.04']['release']}; {v['20.04']['eol-legacy']}", [v["20.04"]["release"], v["20.04"]["eol-legacy"]],
              "multi_page", [(1, r1[lv("20.04")]), (2, r2[lv("20.04")])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)
