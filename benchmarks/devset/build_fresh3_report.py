"""The generated report pair of the ``fresh3`` split (imported by ``build_fresh3.py``).

``msft_{en,zh}.pdf``: two pages each, same layout in both languages, from the daily Microsoft share prices
bundled with matplotlib (``mpl-data/sample_data/msft.csv``: 65 trading days, 19 June to 19 September 2003;
Open, High, Low, Close, Volume): counts in prose, a monthly price table with Open / High / Low / Close
columns (Chinese 开盘价 / 最高价 / 最低价 / 收盘价 share characters), a vector bar chart with data labels
and a caption, a second table on page 2 with Highest close / Lowest close columns (最高收盘价 / 最低收盘价,
sharing characters with the first table's headers) and a source note. Gold answers are computed from the
data as printed (rounded as on the page before any arithmetic); gold boxes are where the evidence is drawn.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import matplotlib
from build import q
from build_fresh import FreshDoc

SPLIT = "fresh3"


def _msft() -> list[dict]:
    """The rows of ``msft.csv`` in date order, with the date parsed and prices as printed in the file."""
    path = Path(matplotlib.get_data_path()) / "sample_data" / "msft.csv"
    rows = list(csv.DictReader(path.read_text().splitlines()))
    for r in rows:
        r["date"] = dt.datetime.strptime(r["Date"], "%d-%b-%y").date()
    return sorted(rows, key=lambda r: r["date"])


def msft_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    rows = _msft()
    n = len(rows)
    up = sum(float(r["Close"]) > float(r["Open"]) for r in rows)
    down = sum(float(r["Close"]) < float(r["Open"]) for r in rows)
    flat = n - up - down
    months = sorted({r["date"].month for r in rows})
    by = {m: [r for r in rows if r["date"].month == m] for m in months}
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    # per month: first open, highest high, lowest low, last close (as printed: two decimals)
    t1 = {m: [float(g[0]["Open"]), max(float(r["High"]) for r in g), min(float(r["Low"]) for r in g),
              float(g[-1]["Close"])] for m, g in by.items()}
    closes = {m: [float(r["Close"]) for r in g] for m, g in by.items()}
    avg_close = {m: round(sum(c) / len(c), 2) for m, c in closes.items()}
    vol = {m: round(sum(int(r["Volume"]) for r in g) / len(g) / 1e6, 2) for m, g in by.items()}
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    en_month = {6: "June", 7: "July", 8: "August", 9: "September"}
    label = {m: t(f"{en_month[m]} 2003", f"2003年{m}月") for m in months}
    first, last = rows[0]["date"], rows[-1]["date"]

    name = f"msft_{lang}"
    d = FreshDoc(name, t("Microsoft share prices, summer 2003", "2003年夏季微软股价"),
                 t("Microsoft Share Prices - daily data", "微软股价 - 每日数据"), zh, "matplotlib")
    d.new_page()
    d.y = 70.0
    d.heading(t("Microsoft shares, June to September 2003", "2003年6月至9月微软股票行情"))
    b_n = d.para(t(f"The report covers the {n} trading days from {first.day} June to {last.day} September 2003. "
                   f"On {up} of them Microsoft's stock closed above its opening price, on {down} below it, and on "
                   f"{flat} day it closed unchanged.",
                   f"本报告涵盖2003年6月{first.day}日至9月{last.day}日的{n}个交易日。其中有{up}个交易日微软股票收盘价高于"
                   f"开盘价，{down}个交易日低于开盘价，{flat}个交易日收盘价与开盘价持平。"))
    tab = d.table(t("Table 1. Monthly price summary (USD per share)", "表1 月度股价概况（美元/股）"),
                  [t("Month", "月份"), t("Open", "开盘价"), t("High", "最高价"), t("Low", "最低价"),
                   t("Close", "收盘价")],
                  [[label[m], *map(f2, t1[m])] for m in months])
    d.para(t("Open is the opening price of the month's first trading day, High and Low are the highest and lowest "
             "prices traded during the month, and Close is the closing price of its last trading day.",
             "开盘价为当月第一个交易日的开盘价，最高价和最低价为当月成交的最高和最低价格，收盘价为当月最后一个交易日的"
             "收盘价。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Daily closes and trading volume", "每日收盘价与成交量"))
    b_chart = d.bars(t("Figure 1. Average closing price by month, 2003 (USD)", "图1 2003年各月平均收盘价（美元）"),
                     [t(en_month[m], f"{m}月") for m in months], [avg_close[m] for m in months], t("USD", "美元"))
    tab2 = d.table(t("Table 2. Closes and volume by month (volume: average shares per day, millions)",
                     "表2 各月每日收盘价与成交量（成交量：日均成交股数，百万股）"),
                   [t("Month", "月份"), t("Trading days", "交易日数"), t("Highest close", "最高收盘价"),
                    t("Lowest close", "最低收盘价"), t("Avg. volume", "日均成交量")],
                   [[label[m], str(len(by[m])), f2(max(closes[m])), f2(min(closes[m])), f2(vol[m])] for m in months])
    d.para(t("Source: daily Microsoft (MSFT) share prices, 19 June to 19 September 2003, from the sample data "
             "bundled with matplotlib (msft.csv, Yahoo Finance).",
             "资料来源：2003年6月19日至9月19日微软（MSFT）每日股价，取自 matplotlib 自带的样本数据"
             "（msft.csv，雅虎财经）。"), 9)
    doc = d.save()
    r1 = {m: row for m, row in zip(months, tab["rows"][1:], strict=True)}
    r2 = {m: row for m, row in zip(months, tab2["rows"][1:], strict=True)}
    rise = round(t1[9][3] - t1[6][3], 2)
    qs = {"en": ["On how many trading days did Microsoft's stock close higher than it opened?",
                 "What was the highest price Microsoft shares traded at in August 2003?",
                 "What was the lowest price of the stock in June 2003?",
                 "At what price did the stock close at the end of July 2003?",
                 "By how much did the month-end closing price rise from June to September 2003?",
                 "What average closing price does Figure 1 show for August?",
                 "What was the highest close of July 2003?",
                 "How many trading days does the report cover, and how many million shares were traded on an "
                 "average day in July 2003?"],
          "zh": ["有多少个交易日微软股票的收盘价高于开盘价？",
                 "2003年8月微软股票的最高价是多少？",
                 "2003年6月该股票的最低价是多少？",
                 "2003年7月末该股票的收盘价是多少？",
                 "从2003年6月到9月，月末收盘价上涨了多少？",
                 "图1中8月的平均收盘价是多少？",
                 "2003年7月的最高收盘价是多少？",
                 "本报告涵盖多少个交易日？2003年7月日均成交多少百万股？"]}[lang]
    golds = [(str(up), [str(up)], "text", [(1, b_n)]),
             (f2(t1[8][1]), [f2(t1[8][1])], "table", [(1, r1[8])]),
             (f2(t1[6][2]), [f2(t1[6][2])], "table", [(1, r1[6])]),
             (f2(t1[7][3]), [f2(t1[7][3])], "table", [(1, r1[7])]),
             (f"{f2(rise)} ({f2(t1[9][3])} - {f2(t1[6][3])})", [f2(rise)], "table", [(1, r1[6]), (1, r1[9])]),
             (f2(avg_close[8]), [f2(avg_close[8])], "chart", [(2, b_chart)]),
             (f2(max(closes[7])), [f2(max(closes[7]))], "table", [(2, r2[7])]),
             (t(f"{n}; {f2(vol[7])} million", f"{n}；{f2(vol[7])}百万股"), [f2(vol[7])], "multi_page",
              [(1, b_n), (2, r2[7])])]
    return [q(doc, f"{name}-{i:02d}", question, ans, figs, cat, lang, boxes, SPLIT)
            for i, (question, (ans, figs, cat, boxes)) in enumerate(zip(qs, golds, strict=True), start=1)]
