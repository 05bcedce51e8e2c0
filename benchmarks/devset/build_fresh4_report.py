"""The generated report pairs of the ``fresh4`` split (imported by ``build_fresh4.py``).

* ``goog_{en,zh}.pdf``: two pages each, same layout in both languages, from the daily Google share prices
  bundled with matplotlib (``mpl-data/sample_data/goog.npz``: 1,047 trading days, 19 August 2004 to
  14 October 2008; open, high, low, close, volume): counts in prose, Table 1 with the YEARS AS COLUMNS and
  the measures as rows (Open / High / Low / Close / average volume; Chinese 开盘价 / 最高价 / 最低价 /
  收盘价), a vector bar chart of the average close by year with data labels and a caption, Table 2 on
  page 2 with one row a year (trading days, highest and lowest close with their dates; 最高收盘价 /
  最低收盘价 share characters with Table 1's rows) and a source note.
* ``tzones_{en,zh}.pdf``: two pages each, from the time zone tables of the tz database as shipped by
  Debian's ``tzdata`` 2025b (``/usr/share/zoneinfo/zone.tab`` and ``iso3166.tab``; public domain):
  counts in prose, Table 1 of time zones by region (the first part of the zone name: zones, countries,
  northernmost and southernmost latitude of a zone's principal location), Table 2 on page 2 of the
  countries with the most time zones (zones, share of all zones, latitude span) and a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
from build import q
from build_fresh import FreshDoc

SPLIT = "fresh4"
ZONEINFO = Path("/usr/share/zoneinfo")
EN_MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _records(golds: list[tuple], qs: list[str], doc: str, name: str, lang: str) -> list[dict]:
    return [q(doc, f"{name}-{i:02d}", question, ans, figs, cat, lang, boxes, SPLIT)
            for i, (question, (ans, figs, cat, boxes)) in enumerate(zip(qs, golds, strict=True), start=1)]


def goog_report(lang: str) -> list[dict]:
    import numpy as np

    zh = lang == "zh"
    d0 = np.load(Path(matplotlib.get_data_path()) / "sample_data" / "goog.npz")["price_data"]
    year = d0["date"].astype("datetime64[Y]").astype(int) + 1970
    years = sorted({int(v) for v in year})
    by = {yr: d0[year == yr] for yr in years}
    n = len(d0)
    up = int((d0["close"] > d0["open"]).sum())
    down = int((d0["close"] < d0["open"]).sum())
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731

    def day(v: np.datetime64) -> str:
        y, m, dd = (int(x) for x in str(v).split("-"))
        return f"{m}月{dd}日" if zh else f"{dd} {EN_MON[m - 1]}"

    # per year, as printed (two decimals): first open, highest high, lowest low, last close, avg volume (millions)
    t1 = {yr: [round(float(g["open"][0]), 2), round(float(g["high"].max()), 2), round(float(g["low"].min()), 2),
               round(float(g["close"][-1]), 2), round(float(g["volume"].mean()) / 1e6, 2)] for yr, g in by.items()}
    avg_close = {yr: round(float(g["close"].mean()), 2) for yr, g in by.items()}
    hi = {yr: (round(float(g["close"].max()), 2), day(g["date"][g["close"].argmax()])) for yr, g in by.items()}
    lo = {yr: (round(float(g["close"].min()), 2), day(g["date"][g["close"].argmin()])) for yr, g in by.items()}

    name = f"goog_{lang}"
    d = FreshDoc(name, t("Google share prices, 2004-2008", "2004-2008年谷歌股价"),
                 t("Google Share Prices - yearly summary", "谷歌股价 - 年度概况"), zh, "matplotlib")
    d.new_page()
    d.y = 70.0
    d.heading(t("Google shares from the listing to October 2008", "谷歌股票：从上市到2008年10月"))
    b_n = d.para(t(f"The report covers the {n:,} trading days from 19 August 2004, Google's first day of trading, "
                   f"to 14 October 2008. On {up} of them Google's stock closed above its opening price and on "
                   f"{down} below it.",
                   f"本报告涵盖2004年8月19日（谷歌股票上市首日）至2008年10月14日的{n}个交易日。其中有{up}个交易日"
                   f"谷歌股票收盘价高于开盘价，{down}个交易日低于开盘价。"))
    tab = d.table(t("Table 1. Yearly price summary (USD per share)", "表1 年度股价概况（美元/股）"),
                  [t("Measure", "指标"), *[t(str(yr), f"{yr}年") for yr in years]],
                  [[lab, *(f2(t1[yr][i]) for yr in years)] for i, lab in enumerate(
                      [t("Open", "开盘价"), t("High", "最高价"), t("Low", "最低价"), t("Close", "收盘价"),
                       t("Avg. volume (million)", "日均成交量（百万股）")])])
    d.para(t("Open is the opening price of the year's first trading day, High and Low are the highest and lowest "
             "prices traded during the year, and Close is the closing price of its last trading day. Average "
             "volume is the number of shares traded on an average day. 2004 starts on 19 August and 2008 ends on "
             "14 October.",
             "开盘价为当年第一个交易日的开盘价，最高价和最低价为当年成交的最高和最低价格，收盘价为当年最后一个"
             "交易日的收盘价。日均成交量为平均每个交易日的成交股数。2004年自8月19日起，2008年截至10月14日。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Closing prices by year", "各年收盘价"))
    b_chart = d.bars(t("Figure 1. Average closing price by year (USD)", "图1 各年平均收盘价（美元）"),
                     [t(str(yr), f"{yr}年") for yr in years], [avg_close[yr] for yr in years], t("USD", "美元"))
    tab2 = d.table(t("Table 2. Highest and lowest close of each year (USD per share)",
                     "表2 各年最高和最低收盘价（美元/股）"),
                   [t("Year", "年份"), t("Trading days", "交易日数"), t("Highest close", "最高收盘价"),
                    t("Date", "日期"), t("Lowest close", "最低收盘价"), t("Date", "日期")],
                   [[t(str(yr), f"{yr}年"), str(len(by[yr])), f2(hi[yr][0]), hi[yr][1], f2(lo[yr][0]), lo[yr][1]]
                    for yr in years])
    d.para(t("Source: daily Google (GOOG) share prices, 19 August 2004 to 14 October 2008, from the sample data "
             "bundled with matplotlib (goog.npz, Yahoo Finance).",
             "资料来源：2004年8月19日至2008年10月14日谷歌（GOOG）每日股价，取自 matplotlib 自带的样本数据"
             "（goog.npz，雅虎财经）。"), 9)
    doc = d.save()
    r1 = tab["rows"]  # header, Open, High, Low, Close, volume
    r2 = {yr: row for yr, row in zip(years, tab2["rows"][1:], strict=True)}
    rise = round(t1[2007][3] - t1[2005][3], 2)
    qs = {"en": ["On how many trading days did Google's stock close above its opening price?",
                 "What was the highest price Google shares traded at in 2006?",
                 "What was the lowest price of the stock in 2007?",
                 "At what price did the stock close on the last trading day of 2005?",
                 "How many million Google shares were traded on an average day in 2008?",
                 "By how much did the year-end closing price rise from 2005 to 2007?",
                 "What average closing price does Figure 1 show for 2006?",
                 "What was the highest close of 2007?",
                 "How many trading days does the report cover, and what was the lowest close of 2005?"],
          "zh": ["有多少个交易日谷歌股票的收盘价高于开盘价？",
                 "2006年谷歌股票的最高价是多少？",
                 "2007年该股票的最低价是多少？",
                 "2005年最后一个交易日该股票的收盘价是多少？",
                 "2008年谷歌股票日均成交多少百万股？",
                 "从2005年到2007年，年末收盘价上涨了多少？",
                 "图1中2006年的平均收盘价是多少？",
                 "2007年的最高收盘价是多少？",
                 "本报告涵盖多少个交易日？2005年的最低收盘价是多少？"]}[lang]
    golds = [(str(up), [str(up)], "text", [(1, b_n)]),
             (f2(t1[2006][1]), [f2(t1[2006][1])], "table", [(1, r1[2])]),
             (f2(t1[2007][2]), [f2(t1[2007][2])], "table", [(1, r1[3])]),
             (f2(t1[2005][3]), [f2(t1[2005][3])], "table", [(1, r1[4])]),
             (f2(t1[2008][4]), [f2(t1[2008][4])], "table", [(1, r1[5])]),
             (f"{f2(rise)} ({f2(t1[2007][3])} - {f2(t1[2005][3])})", [f2(rise)], "table", [(1, r1[4])]),
             (f2(avg_close[2006]), [f2(avg_close[2006])], "chart", [(2, b_chart)]),
             (f2(hi[2007][0]), [f2(hi[2007][0])], "table", [(2, r2[2007])]),
             (t(f"{n:,}; {f2(lo[2005][0])}", f"{n}；{f2(lo[2005][0])}"), [f2(lo[2005][0])], "multi_page",
              [(1, b_n), (2, r2[2005])])]
    return _records(golds, qs, doc, name, lang)


REGION_ZH = {"Africa": "非洲", "America": "美洲", "Antarctica": "南极洲", "Arctic": "北极", "Asia": "亚洲",
             "Atlantic": "大西洋", "Australia": "澳大利亚", "Europe": "欧洲", "Indian": "印度洋", "Pacific": "太平洋"}
COUNTRY_ZH = {"US": "美国", "RU": "俄罗斯", "CA": "加拿大", "BR": "巴西", "MX": "墨西哥", "AU": "澳大利亚",
              "AR": "阿根廷", "AQ": "南极洲", "KZ": "哈萨克斯坦"}


def _lat(coord: str) -> float:
    """Latitude in degrees of an ISO 6709 ``±DDMM±DDDMM`` or ``±DDMMSS±DDDMMSS`` coordinate."""
    m = re.match(r"([+-])(\d\d)(\d\d)(\d\d)?[+-]", coord)
    assert m, coord
    v = int(m[2]) + int(m[3]) / 60 + int(m[4] or 0) / 3600
    return -v if m[1] == "-" else v


def _tab(name: str) -> list[list[str]]:
    return [ln.split("\t") for ln in (ZONEINFO / name).read_text(encoding="utf-8").splitlines()
            if ln and not ln.startswith("#")]


def tz_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    zones = _tab("zone.tab")  # code, coordinates, TZ[, comments]
    names = {r[0]: r[1] for r in _tab("iso3166.tab")}
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n, n_codes, n_iso = len(zones), len({z[0] for z in zones}), len(names)
    regions = sorted({z[2].split("/")[0] for z in zones})
    reg = {r: [z for z in zones if z[2].split("/")[0] == r] for r in regions}
    t1 = {r: [len(g), len({z[0] for z in g}), round(max(_lat(z[1]) for z in g), 2),
              round(min(_lat(z[1]) for z in g), 2)] for r, g in reg.items()}
    counts = {c: sum(z[0] == c for z in zones) for c in {z[0] for z in zones}}
    top = sorted(counts, key=lambda c: (-counts[c], names[c]))[:9]
    lats = {c: [_lat(z[1]) for z in zones if z[0] == c] for c in top}
    t2 = {c: [counts[c], round(100 * counts[c] / n, 2), round(max(lats[c]) - min(lats[c]), 2)] for c in top}
    single = sum(v == 1 for v in counts.values())

    name = f"tzones_{lang}"
    d = FreshDoc(name, t("Time zones of the world", "世界时区"),
                 t("Time Zones of the World - tz database", "世界时区 - tz 时区数据库"), zh, "tzdata 2025b")
    d.new_page()
    d.y = 70.0
    d.heading(t("Time zones in the tz database, by region", "tz 时区数据库中的时区（按地区）"))
    b_n = d.para(t(f"The zone table of the tz database lists {n} time zones in {n_codes} of the {n_iso} countries "
                   f"and territories that have an ISO 3166 code. {single} of these countries and territories have a "
                   "single time zone; the others have two or more.",
                   f"tz 时区数据库的时区表列出了{n}个时区，分布在拥有 ISO 3166 代码的{n_iso}个国家和地区中的"
                   f"{n_codes}个。其中{single}个国家和地区只有一个时区，其余的有两个或更多时区。"))
    tab = d.table(t("Table 1. Time zones by region", "表1 各地区的时区"),
                  [t("Region", "地区"), t("Time zones", "时区数"), t("Countries", "国家和地区数"),
                   t("Northernmost", "最北纬度"), t("Southernmost", "最南纬度")],
                  [[t(r, REGION_ZH[r]), str(t1[r][0]), str(t1[r][1]), f2(t1[r][2]), f2(t1[r][3])] for r in regions])
    d.para(t("The region is the first part of a time zone's name (Europe in Europe/Paris). Latitudes are those "
             "of each time zone's principal location, in degrees; negative values lie south of the equator.",
             "地区为时区名称的第一部分（如 Europe/Paris 中的 Europe）。纬度为各时区代表地点的纬度，以度为单位；"
             "负值表示位于赤道以南。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Countries with the most time zones", "时区最多的国家和地区"))
    tab2 = d.table(t("Table 2. Countries and territories with the most time zones", "表2 时区最多的国家和地区"),
                   [t("Country", "国家或地区"), t("Code", "代码"), t("Time zones", "时区数"),
                    t("Share (%)", "占比（%）"), t("Latitude span", "纬度跨度")],
                   [[t(names[c], COUNTRY_ZH[c]), c, str(t2[c][0]), f2(t2[c][1]), f2(t2[c][2])] for c in top])
    d.para(t("Share is the country's part of all time zones in the table. Latitude span is the distance in degrees "
             "between the northernmost and the southernmost principal location of its time zones.",
             "占比为该国家或地区的时区数占时区表中全部时区的百分比。纬度跨度为其各时区代表地点中最北与最南者"
             "之间相差的纬度。"))
    d.para(t("Source: zone.tab and iso3166.tab of the tz database (tzdata 2025b as shipped by Debian; public "
             "domain).",
             "资料来源：tz 时区数据库的 zone.tab 和 iso3166.tab（Debian 发布的 tzdata 2025b；公有领域）。"), 9)
    doc = d.save()
    r1 = {r: row for r, row in zip(regions, tab["rows"][1:], strict=True)}
    r2 = {c: row for c, row in zip(top, tab2["rows"][1:], strict=True)}
    most = max(regions, key=lambda r: t1[r][0])
    diff = t2["US"][0] - t2["BR"][0]
    qs = {"en": ["How many of the countries and territories have a single time zone?",
                 "How many time zones does the table list for the Europe region?",
                 "How many countries have a time zone in the Africa region?",
                 "What is the northernmost latitude of a time zone in the Asia region?",
                 "Which region has the most time zones?",
                 "How many time zones does Russia have?",
                 "What share of all time zones belongs to Canada?",
                 "How many more time zones does the United States have than Brazil?",
                 "How many time zones does the zone table list in all, and what is the latitude span of "
                 "Argentina's time zones?"],
          "zh": ["有多少个国家和地区只有一个时区？",
                 "时区表中欧洲地区有多少个时区？",
                 "非洲地区有时区的国家和地区有多少个？",
                 "亚洲地区时区的最北纬度是多少？",
                 "哪个地区的时区最多？",
                 "俄罗斯有多少个时区？",
                 "加拿大的时区占全部时区的百分比是多少？",
                 "美国的时区比巴西多几个？",
                 "时区表共列出多少个时区？阿根廷各时区的纬度跨度是多少？"]}[lang]
    golds = [(str(single), [str(single)], "text", [(1, b_n)]),
             (str(t1["Europe"][0]), [str(t1["Europe"][0])], "table", [(1, r1["Europe"])]),
             (str(t1["Africa"][1]), [str(t1["Africa"][1])], "table", [(1, r1["Africa"])]),
             (f2(t1["Asia"][2]), [f2(t1["Asia"][2])], "table", [(1, r1["Asia"])]),
             (t(f"{most} ({t1[most][0]})", f"{REGION_ZH[most]}（{t1[most][0]}个）"), [t(most, REGION_ZH[most])],
              "table", [(1, r1[most])]),
             (str(t2["RU"][0]), [str(t2["RU"][0])], "table", [(2, r2["RU"])]),
             (f"{f2(t2['CA'][1])}%", [f2(t2["CA"][1])], "table", [(2, r2["CA"])]),
             (f"{diff} ({t2['US'][0]} - {t2['BR'][0]})", [str(diff)], "table", [(2, r2["US"]), (2, r2["BR"])]),
             (t(f"{n}; {f2(t2['AR'][2])} degrees", f"{n}个；{f2(t2['AR'][2])}度"), [f2(t2["AR"][2])], "multi_page",
              [(1, b_n), (2, r2["AR"])])]
    return _records(golds, qs, doc, name, lang)
