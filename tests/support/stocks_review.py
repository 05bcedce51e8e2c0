"""A generated two-page Chinese equity review, for the extractive generator's tests.

Ported from the retired generated dev set (``benchmarks/devset/build.py``, ``stocks_review_zh.pdf``): year-end
closing prices of US stocks and indices from matplotlib's bundled sample data (``sample_data/Stocks.csv``,
Yahoo Finance), drawn with WenQuanYi Micro Hei. Page 1: a heading, a paragraph, Table 1 (year-end closing
prices) and a note on IBM; page 2: a heading, a vector bar chart with data labels (Figure 1), Table 2 (index
levels) and a paragraph. Every page has a running header and a footer "第 N 页" (page furniture).

    make_stocks_review_zh(tmp_path / "stocks_review_zh.pdf")
"""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib
import pymupdf

CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
W, H = 612.0, 792.0


class _Doc:
    """A Chinese report being drawn top to bottom."""

    def __init__(self, title: str, header: str) -> None:
        self.title, self.header = title, header
        self.pdf = pymupdf.open()
        self.page: pymupdf.Page | None = None
        self.y = 0.0

    @staticmethod
    def font() -> dict:
        return {"fontname": "wqy", "fontfile": CJK_FONT}

    def new_page(self) -> None:
        self.page = self.pdf.new_page(width=W, height=H)
        n = self.pdf.page_count
        self.page.insert_text((72, 40), self.header, fontsize=8, **self.font())
        self.page.insert_text((440, 40), "2022年", fontsize=8, **self.font())
        self.page.insert_text((290, 765), f"第 {n} 页", fontsize=8, **self.font())
        self.y = 70.0

    def heading(self, text: str, size: float = 15) -> None:
        assert self.page is not None
        self.page.insert_text((72, self.y + size), text, fontsize=size, **self.font())
        self.y += size * 2

    def para(self, text: str, size: float = 10.5) -> None:
        assert self.page is not None
        rect = pymupdf.Rect(72, self.y, 540, self.y + 400)
        left = self.page.insert_textbox(rect, text, fontsize=size, **self.font())
        self.y += 400 - left + 12

    def table(self, caption: str, head: list[str], rows: list[list[str]], size: float = 10) -> None:
        """A ruled table under its caption."""
        assert self.page is not None
        p = self.page
        p.insert_text((72, self.y + size), caption, fontsize=size, **self.font())
        self.y += size * 2.2
        top = self.y
        xs = [72.0] + [220.0 + i * (320.0 / (len(head) - 1)) for i in range(len(head) - 1)]
        pitch = size * 1.8
        for r, cells in enumerate([head, *rows]):
            yb = self.y + size * 1.25
            for x, c in zip(xs, cells, strict=True):
                p.insert_text((x + 2, yb), c, fontsize=size, **self.font())
            if r == 0:
                p.draw_line((72, self.y + pitch), (540, self.y + pitch), width=0.6)
            self.y += pitch
        p.draw_line((72, top), (540, top), width=0.9)
        p.draw_line((72, self.y), (540, self.y), width=0.9)
        self.y += 16

    def bars(self, caption: str, labels: list[str], values: list[float], unit: str) -> None:
        """A vector bar chart with axis, data labels and a caption below."""
        assert self.page is not None
        p = self.page
        x0, y0, x1, y1 = 100.0, self.y + 10, 520.0, self.y + 210
        vmax = max(values) * 1.15
        p.draw_line((x0, y1), (x1, y1), width=0.8)
        p.draw_line((x0, y0), (x0, y1), width=0.8)
        for t in range(5):
            v = vmax * t / 4
            yy = y1 - (y1 - y0) * t / 4
            p.insert_text((x0 - 30, yy + 3), f"{v:,.0f}", fontsize=7, **self.font())
        p.insert_text((x0 - 30, y0 - 6), unit, fontsize=7, **self.font())
        bw = (x1 - x0) / len(values)
        for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
            bx = x0 + i * bw + bw * 0.2
            top = y1 - (y1 - y0) * v / vmax
            p.draw_rect(pymupdf.Rect(bx, top, bx + bw * 0.6, y1), color=None, fill=(0.3, 0.45, 0.7))
            p.insert_text((bx, top - 3), f"{v:,.2f}", fontsize=7, **self.font())
            p.insert_text((bx, y1 + 11), lab, fontsize=8, **self.font())
        p.insert_text((72, y1 + 30), caption, fontsize=9.5, **self.font())
        self.y = y1 + 48

    def save(self, path: Path) -> Path:
        self.pdf.set_metadata({"title": self.title})
        self.pdf.subset_fonts()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.pdf.save(path, garbage=4, deflate=True)
        self.pdf.close()
        return path


def year_end_prices() -> dict[str, dict[str, float]]:
    """Year-end (last month of the year) closing price per ticker, from matplotlib's Stocks.csv."""
    path = Path(matplotlib.get_data_path()) / "sample_data" / "Stocks.csv"
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r and not r[0].startswith("#")]
    head, data = rows[0], rows[1:]
    out: dict[str, dict[str, float]] = {}
    for r in data:
        year = r[0][:4]
        for t, v in zip(head[1:], r[1:], strict=True):
            if v:  # later months overwrite: the year's last one; rounded as printed
                out.setdefault(t, {})[year] = round(float(v), 2)
    return out


def make_stocks_review_zh(path: Path) -> Path:
    """Write the two-page Chinese equity review to ``path`` and return it."""
    s = year_end_prices()
    names = {"IBM": "国际商业机器", "AAPL": "苹果", "MSFT": "微软", "AMZN": "亚马逊", "ADBE": "奥多比",
             "GOOGL": "谷歌"}
    years = ["2019", "2020", "2021"]
    f2 = lambda v: f"{v:,.2f}"  # noqa: E731
    d = _Doc("股票市场回顾", "股票市场回顾 - 样本数据")
    d.new_page()
    d.heading("2019-2021年股票市场回顾")
    aapl_g = 100 * (s["AAPL"]["2021"] - s["AAPL"]["2019"]) / s["AAPL"]["2019"]
    d.para(f"2019年末至2021年末，苹果公司的年末股价上涨了{aapl_g:.1f}%，在本回顾所列大型科技公司中涨幅最大。"
           "价格为按拆股和分红调整后的月度收盘价。")
    tick = ["IBM", "AAPL", "MSFT", "AMZN", "ADBE", "GOOGL"]
    d.table("表1 年末收盘价（美元）", ["公司", *years], [[names[t], *(f2(s[t][y]) for y in years)] for t in tick])
    d.para(f"国际商业机器公司2020年末收盘价为每股{f2(s['IBM']['2020'])}美元，低于2019年末的"
           f"{f2(s['IBM']['2019'])}美元。")
    d.new_page()
    d.heading("2021年末股价")
    chart_t = ["IBM", "AAPL", "MSFT", "ADBE"]
    d.bars("图1 2021年末收盘价（美元）", chart_t, [s[t]["2021"] for t in chart_t], "美元")
    idx = {"^GSPC": "标普500指数", "^IXIC": "纳斯达克综合指数"}
    d.table("表2 年末指数点位", ["指数", "2018", "2019", "2020", "2021"],
            [[name, *(f"{s[t][y]:,.2f}" for y in ["2018", "2019", "2020", "2021"])] for t, name in idx.items()])
    d.para(f"标普500指数2021年末收于{s['^GSPC']['2021']:,.2f}点，纳斯达克综合指数收于"
           f"{s['^IXIC']['2021']:,.2f}点。")
    return d.save(path)
