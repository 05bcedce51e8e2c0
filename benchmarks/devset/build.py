"""Build the generated part of the answer-quality dev set: report PDFs rendered from real public data.

Data (all shipped inside PyPI packages, nothing downloaded): monthly closing prices of ten US stocks
and indices 1990-2022 (``matplotlib``'s sample ``Stocks.csv``, Yahoo Finance), the UCI Wine and Iris
data sets (``scikit-learn``). Each report has running headers, footers and page numbers (page
furniture), paragraphs stating facts computed from the data, ruled tables and a vector bar chart
with data labels; the Chinese reports use WenQuanYi Micro Hei. Every question's gold answer is
computed from the data, and its gold boxes are where this script drew the evidence (PDF points,
top-left origin). The parallel English/Chinese ``fresh``, ``fresh2``, ``fresh3``, ``fresh4``, ``fresh5``,
``fresh6``, ``fresh7``, ``fresh8``, ``fresh9``, ``fresh10`` and ``fresh11`` splits are built by ``build_fresh.py``,
``build_fresh2.py``, ``build_fresh3.py``, ``build_fresh4.py``, ``build_fresh5.py``, ``build_fresh6.py``,
``build_fresh7.py``, ``build_fresh8.py``, ``build_fresh9.py``, ``build_fresh10.py`` and ``build_fresh11.py``.
Writes ``pdfs/*.pdf`` and ``generated.jsonl`` next to this file.

    python benchmarks/devset/build.py
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import matplotlib
import pymupdf

from docrag import sysdeps

HERE = Path(__file__).resolve().parent
CJK_FONT = str(sysdeps.CJK_FONT)
W, H = 612.0, 792.0


class Doc:
    """A report being drawn, with the boxes of what was drawn."""

    def __init__(self, name: str, title: str, header: str, zh: bool) -> None:
        self.name, self.title, self.header, self.zh = name, title, header, zh
        self.pdf = pymupdf.open()
        self.page: pymupdf.Page | None = None
        self.y = 0.0

    def font(self) -> dict:
        return {"fontname": "wqy", "fontfile": CJK_FONT} if self.zh else {"fontname": "helv"}

    def new_page(self) -> None:
        self.page = self.pdf.new_page(width=W, height=H)
        n = self.pdf.page_count
        self.page.insert_text((72, 40), self.header, fontsize=8, **self.font())
        self.page.insert_text((440, 40), "2022" if not self.zh else "2022年", fontsize=8, **self.font())
        foot = f"Page {n}" if not self.zh else f"第 {n} 页"
        self.page.insert_text((290, 765), foot, fontsize=8, **self.font())
        self.y = 70.0

    def heading(self, text: str, size: float = 15) -> tuple[float, ...]:
        assert self.page is not None
        self.page.insert_text((72, self.y + size), text, fontsize=size, **self.font())
        box = (72.0, self.y, 72 + min(468.0, len(text) * size * (1.0 if self.zh else 0.55)), self.y + size * 1.3)
        self.y += size * 2
        return box

    def para(self, text: str, size: float = 10.5) -> tuple[float, ...]:
        assert self.page is not None
        rect = pymupdf.Rect(72, self.y, 540, self.y + 400)
        left = self.page.insert_textbox(rect, text, fontsize=size, **self.font())
        used = 400 - left
        self.y += used + 12
        return (72.0, rect.y0, 540.0, round(rect.y0 + used, 1))

    def table(self, caption: str, head: list[str], rows: list[list[str]], size: float = 10) -> dict:
        """A ruled table; returns the boxes of the caption, the table and each row."""
        assert self.page is not None
        p = self.page
        cap = (72.0, self.y, 540.0, self.y + size * 1.4)
        p.insert_text((72, self.y + size), caption, fontsize=size, **self.font())
        self.y += size * 2.2
        top = self.y
        xs = [72.0] + [220.0 + i * (320.0 / (len(head) - 1)) for i in range(len(head) - 1)]
        pitch = size * 1.8
        boxes = []
        for r, cells in enumerate([head, *rows]):
            yb = self.y + size * 1.25
            for x, c in zip(xs, cells, strict=True):
                p.insert_text((x + 2, yb), c, fontsize=size, **self.font())
            boxes.append((72.0, round(self.y, 1), 540.0, round(self.y + pitch, 1)))
            if r == 0:
                p.draw_line((72, self.y + pitch), (540, self.y + pitch), width=0.6)
            self.y += pitch
        p.draw_line((72, top), (540, top), width=0.9)
        p.draw_line((72, self.y), (540, self.y), width=0.9)
        self.y += 16
        return {"caption": cap, "table": (72.0, round(top, 1), 540.0, round(self.y - 16, 1)), "rows": boxes}

    def bars(self, caption: str, labels: list[str], values: list[float], unit: str) -> tuple[float, ...]:
        """A vector bar chart with axis, data labels and a caption below; returns figure + caption box."""
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
        box = (70.0, round(y0 - 14, 1), 522.0, round(y1 + 34, 1))
        self.y = y1 + 48
        return box

    def save(self) -> str:
        self.pdf.set_metadata({"title": self.title})
        self.pdf.subset_fonts()
        out = HERE / "pdfs" / f"{self.name}.pdf"
        out.parent.mkdir(exist_ok=True)
        self.pdf.save(out, garbage=4, deflate=True)
        return out.name


def q(doc: str, qid: str, question: str, answer: str, figures: list[str], category: str, lang: str,
      boxes: list[tuple[int, tuple[float, ...]]], split: str = "") -> dict:
    split = split or ("tune" if doc.startswith("stocks_review") else "heldout")
    return {"id": qid, "question": question, "answer": answer, "figures": figures, "category": category,
            "lang": lang, "doc": doc, "pages": sorted({p for p, _ in boxes}),
            "boxes": [{"page": p, "bbox": [round(v, 1) for v in b]} for p, b in boxes], "split": split}


def numbered(golds: list[tuple], qs: list[str], doc: str, name: str, lang: str, split: str) -> list[dict]:
    """Records ``{name}-01``... of a report: question ``i`` with gold ``(answer, figures, category, boxes)``."""
    return [q(doc, f"{name}-{i:02d}", question, ans, figs, cat, lang, boxes, split)
            for i, (question, (ans, figs, cat, boxes)) in enumerate(zip(qs, golds, strict=True), start=1)]


def _stocks() -> dict[str, dict[str, float]]:
    """Year-end (last month of the year) closing price per ticker, from matplotlib's Stocks.csv."""
    path = Path(matplotlib.get_data_path()) / "sample_data" / "Stocks.csv"
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r and not r[0].startswith("#")]
    head, data = rows[0], rows[1:]
    out: dict[str, dict[str, float]] = {}
    for r in data:
        year = r[0][:4]
        for t, v in zip(head[1:], r[1:], strict=True):
            if v:  # later months overwrite: the year's last one; rounded as printed, so golds match the page
                out.setdefault(t, {})[year] = round(float(v), 2)
    return out


def stocks_report(zh: bool) -> list[dict]:
    s = _stocks()
    lang = "zh" if zh else "en"
    names = {"IBM": "IBM", "AAPL": "Apple", "MSFT": "Microsoft", "AMZN": "Amazon", "ADBE": "Adobe",
             "GOOGL": "Alphabet"}
    if zh:
        names = {"IBM": "国际商业机器", "AAPL": "苹果", "MSFT": "微软", "AMZN": "亚马逊", "ADBE": "奥多比",
                 "GOOGL": "谷歌"}
    name = f"stocks_review_{lang}"
    d = Doc(name, "Equity review" if not zh else "股票市场回顾",
            "Equity Market Review - sample data" if not zh else "股票市场回顾 - 样本数据", zh)
    years = ["2019", "2020", "2021"]
    f2 = lambda v: f"{v:,.2f}"  # noqa: E731
    d.new_page()
    d.heading("Equity Market Review 2019-2021" if not zh else "2019-2021年股票市场回顾")
    aapl_g = 100 * (s["AAPL"]["2021"] - s["AAPL"]["2019"]) / s["AAPL"]["2019"]
    t_intro = (f"Apple's year-end share price rose {aapl_g:.1f}% between the end of 2019 and the end of 2021, "
               "the strongest gain among the large technology companies in this review. Prices are monthly "
               "closing prices adjusted for splits and dividends." if not zh else
               f"2019年末至2021年末，苹果公司的年末股价上涨了{aapl_g:.1f}%，在本回顾所列大型科技公司中涨幅最大。"
               "价格为按拆股和分红调整后的月度收盘价。")
    b_intro = d.para(t_intro)
    tick = ["IBM", "AAPL", "MSFT", "AMZN", "ADBE", "GOOGL"]
    tab = d.table("Table 1. Year-end closing price (USD)" if not zh else "表1 年末收盘价（美元）",
                  ["Company" if not zh else "公司", *years],
                  [[names[t], *(f2(s[t][y]) for y in years)] for t in tick])
    ibm_note = (f"IBM closed 2020 at {f2(s['IBM']['2020'])} dollars per share, below its 2019 year-end price of "
                f"{f2(s['IBM']['2019'])} dollars." if not zh else
                f"国际商业机器公司2020年末收盘价为每股{f2(s['IBM']['2020'])}美元，低于2019年末的"
                f"{f2(s['IBM']['2019'])}美元。")
    b_ibm = d.para(ibm_note)
    d.new_page()
    d.heading("Share prices at the end of 2021" if not zh else "2021年末股价")
    chart_t = ["IBM", "AAPL", "MSFT", "ADBE"]
    b_chart = d.bars("Figure 1. Closing price at the end of 2021 (USD)" if not zh else "图1 2021年末收盘价（美元）",
                     [names[t] if not zh else t for t in chart_t], [s[t]["2021"] for t in chart_t],
                     "USD" if not zh else "美元")
    idx = ["^GSPC", "^IXIC"]
    iname = {"^GSPC": "S&P 500", "^IXIC": "Nasdaq Composite"} if not zh else {"^GSPC": "标普500指数",
                                                                              "^IXIC": "纳斯达克综合指数"}
    tab2 = d.table("Table 2. Index level at year end" if not zh else "表2 年末指数点位",
                   ["Index" if not zh else "指数", "2018", "2019", "2020", "2021"],
                   [[iname[t], *(f"{s[t][y]:,.2f}" for y in ["2018", "2019", "2020", "2021"])] for t in idx])
    b_idx = d.para(f"The S&P 500 ended 2021 at {s['^GSPC']['2021']:,.2f} points, while the Nasdaq Composite "
                   f"ended the year at {s['^IXIC']['2021']:,.2f} points." if not zh else
                   f"标普500指数2021年末收于{s['^GSPC']['2021']:,.2f}点，纳斯达克综合指数收于"
                   f"{s['^IXIC']['2021']:,.2f}点。")
    doc = d.save()
    r = tab["rows"]
    out = []
    p = f"{name}-"
    msft_d = s["MSFT"]["2021"] - s["MSFT"]["2020"]
    amzn = s["AMZN"]["2020"]
    ratio = s["GOOGL"]["2021"] / s["AMZN"]["2021"]
    if not zh:
        out += [
            q(doc, p + "01", "What was Microsoft's closing share price at the end of 2021?", f2(s["MSFT"]["2021"]),
              [f2(s["MSFT"]["2021"])], "table", lang, [(1, r[3])]),
            q(doc, p + "02", "At what price did Amazon shares close at the end of 2020?", f2(amzn), [f2(amzn)],
              "table", lang, [(1, r[4])]),
            q(doc, p + "03", "By how much did Microsoft's year-end share price change from 2020 to 2021?",
              f"{msft_d:,.2f} ({f2(s['MSFT']['2021'])} - {f2(s['MSFT']['2020'])})", [f"{msft_d:,.2f}"],
              "table", lang, [(1, r[3])]),
            q(doc, p + "04", "What is the ratio of Alphabet's 2021 year-end price to Amazon's?",
              f"{ratio:.2f}", [f"{ratio:.2f}"], "table", lang, [(1, r[4]), (1, r[6])]),
            q(doc, p + "05", "How much did Apple's year-end share price rise between 2019 and 2021 in percent?",
              f"{aapl_g:.1f}%", [f"{aapl_g:.1f}"], "text", lang, [(1, b_intro)]),
            q(doc, p + "06", "What was IBM's closing price at the end of 2020 and how did it compare with 2019?",
              f"{f2(s['IBM']['2020'])} vs {f2(s['IBM']['2019'])}", [f2(s["IBM"]["2020"])], "text", lang,
              [(1, b_ibm)]),
            q(doc, p + "07", "In the bar chart of 2021 closing prices, what price is shown for Adobe?",
              f2(s["ADBE"]["2021"]), [f2(s["ADBE"]["2021"])], "chart", lang, [(2, b_chart)]),
            q(doc, p + "08", "Which company has the highest bar in Figure 1, the chart of closing prices at the "
              "end of 2021?", f"Adobe ({f2(s['ADBE']['2021'])})", [f2(s["ADBE"]["2021"])], "chart", lang,
              [(2, b_chart)]),
            q(doc, p + "09", "At what level did the S&P 500 index end 2021?", f"{s['^GSPC']['2021']:,.2f}",
              [f"{s['^GSPC']['2021']:,.2f}"], "table", lang, [(2, tab2["rows"][1])]),
            q(doc, p + "10", "What was the Nasdaq Composite's year-end level in 2019 according to Table 2?",
              f"{s['^IXIC']['2019']:,.2f}", [f"{s['^IXIC']['2019']:,.2f}"], "table", lang, [(2, tab2["rows"][2])]),
            q(doc, p + "11", "What were Apple's year-end price growth from 2019 to 2021 and the S&P 500's "
              "closing level in 2021?", f"{aapl_g:.1f}%; {s['^GSPC']['2021']:,.2f}", [f"{aapl_g:.1f}"],
              "multi_page", lang, [(1, b_intro), (2, b_idx)]),
        ]
    else:
        out += [
            q(doc, p + "01", "微软2021年末的收盘价是多少？", f2(s["MSFT"]["2021"]), [f2(s["MSFT"]["2021"])],
              "table", lang, [(1, r[3])]),
            q(doc, p + "02", "亚马逊2020年末股价收于多少美元？", f2(amzn), [f2(amzn)], "table", lang, [(1, r[4])]),
            q(doc, p + "03", "微软年末股价从2020年到2021年增加了多少？",
              f"{msft_d:,.2f}", [f"{msft_d:,.2f}"], "table", lang, [(1, r[3])]),
            q(doc, p + "04", "2019年末至2021年末苹果公司年末股价上涨了百分之多少？", f"{aapl_g:.1f}%",
              [f"{aapl_g:.1f}"], "text", lang, [(1, b_intro)]),
            q(doc, p + "05", "国际商业机器公司2020年末收盘价为每股多少美元？", f2(s["IBM"]["2020"]),
              [f2(s["IBM"]["2020"])], "text", lang, [(1, b_ibm)]),
            q(doc, p + "06", "图1中奥多比（ADBE）2021年末收盘价是多少？", f2(s["ADBE"]["2021"]),
              [f2(s["ADBE"]["2021"])], "chart", lang, [(2, b_chart)]),
            q(doc, p + "07", "标普500指数2021年末收于多少点？", f"{s['^GSPC']['2021']:,.2f}",
              [f"{s['^GSPC']['2021']:,.2f}"], "table", lang, [(2, tab2["rows"][1])]),
            q(doc, p + "08", "表2中纳斯达克综合指数2019年末点位是多少？", f"{s['^IXIC']['2019']:,.2f}",
              [f"{s['^IXIC']['2019']:,.2f}"], "table", lang, [(2, tab2["rows"][2])]),
            q(doc, p + "09", "苹果公司2019至2021年末股价涨幅是多少，标普500指数2021年末收于多少点？",
              f"{aapl_g:.1f}%; {s['^GSPC']['2021']:,.2f}", [f"{aapl_g:.1f}"], "multi_page", lang,
              [(1, b_intro), (2, b_idx)]),
        ]
    return out


def wine_report(zh: bool) -> list[dict]:
    """Class means of the UCI Wine data (English) or Iris species means (Chinese)."""
    import numpy as np
    from sklearn.datasets import load_iris, load_wine

    lang = "zh" if zh else "en"
    out = []
    if not zh:
        data = load_wine()
        feats = {"alcohol": "Alcohol (%)", "malic_acid": "Malic acid (g/l)", "color_intensity": "Color intensity",
                 "proline": "Proline (mg/l)", "magnesium": "Magnesium (mg/l)"}
        idx = [data.feature_names.index(f) for f in feats]
        means = [[round(float(np.mean(data.data[data.target == c][:, i])), 2) for c in range(3)] for i in idx]
        counts = [int((data.target == c).sum()) for c in range(3)]
        name = "wine_cultivars_en"
        d = Doc(name, "Wine cultivars", "Wine Recognition Data - cultivar profiles", False)
        d.new_page()
        d.heading("Chemical profile of three wine cultivars")
        b_n = d.para(f"The data set holds 178 wines grown in the same region of Italy by three cultivars: "
                     f"{counts[0]} wines of cultivar 1, {counts[1]} of cultivar 2 and {counts[2]} of cultivar 3. "
                     "Each wine was analysed for thirteen constituents.")
        tab = d.table("Table 1. Mean constituent by cultivar", ["Constituent", "Cultivar 1", "Cultivar 2",
                                                                 "Cultivar 3"],
                      [[lab, *(f"{v:,.2f}" for v in m)] for lab, m in zip(feats.values(), means, strict=True)])
        b_p = d.para(f"Proline separates cultivar 1 from the others: its mean of {means[3][0]:,.2f} mg/l is more "
                     f"than twice the {means[3][1]:,.2f} mg/l of cultivar 2.")
        d.new_page()
        d.heading("Flavanoids")
        flav = [round(float(np.mean(data.data[data.target == c][:, data.feature_names.index("flavanoids")])), 2)
                for c in range(3)]
        b_chart = d.bars("Figure 1. Mean flavanoids by cultivar", ["Cultivar 1", "Cultivar 2", "Cultivar 3"],
                         flav, "value")
        b_ash = d.para(f"The samples were analysed in one laboratory; the median ash content of all 178 wines is "
                       f"{float(np.median(data.data[:, data.feature_names.index('ash')])):.2f}.")
        doc = d.save()
        r = tab["rows"]
        dif = means[0][0] - means[0][1]
        out += [
            q(doc, f"{name}-01", "How many wines of cultivar 2 are in the data set?", str(counts[1]),
              [str(counts[1])], "text", lang, [(1, b_n)]),
            q(doc, f"{name}-02", "What is the mean alcohol content of cultivar 3?", f"{means[0][2]:.2f}",
              [f"{means[0][2]:.2f}"], "table", lang, [(1, r[1])]),
            q(doc, f"{name}-03", "What is the mean magnesium of cultivar 1 wines in mg/l?", f"{means[4][0]:.2f}",
              [f"{means[4][0]:.2f}"], "table", lang, [(1, r[5])]),
            q(doc, f"{name}-04", "What is the difference in mean alcohol between cultivar 1 and cultivar 2?",
              f"{dif:.2f}", [f"{abs(dif):.2f}"], "table", lang, [(1, r[1])]),
            q(doc, f"{name}-05", "What mean proline level does cultivar 1 have, according to the text?",
              f"{means[3][0]:,.2f} mg/l", [f"{means[3][0]:,.2f}"], "text", lang, [(1, b_p)]),
            q(doc, f"{name}-06", "What is the mean color intensity of cultivar 2?", f"{means[2][1]:.2f}",
              [f"{means[2][1]:.2f}"], "table", lang, [(1, r[3])]),
            q(doc, f"{name}-07", "In the flavanoids bar chart, what value is shown for cultivar 3?", f"{flav[2]:.2f}",
              [f"{flav[2]:.2f}"], "chart", lang, [(2, b_chart)]),
            q(doc, f"{name}-08", "Which cultivar has the highest mean flavanoids in Figure 1?",
              f"Cultivar 1 ({flav[0]:.2f})", [f"{flav[0]:.2f}"], "chart", lang, [(2, b_chart)]),
            q(doc, f"{name}-09", "How many wines of cultivar 3 were analysed, and what is the median ash content "
              "of all wines?", f"{counts[2]}; see page 2", [str(counts[2])], "multi_page", lang,
              [(1, b_n), (2, b_ash)]),
        ]
    else:
        data = load_iris()
        sp = ["山鸢尾", "变色鸢尾", "维吉尼亚鸢尾"]
        feats = ["花萼长度（厘米）", "花萼宽度（厘米）", "花瓣长度（厘米）", "花瓣宽度（厘米）"]
        means = [[round(float(np.mean(data.data[data.target == c][:, i])), 2) for c in range(3)] for i in range(4)]
        name = "iris_species_zh"
        d = Doc(name, "鸢尾花数据", "鸢尾花数据集 - 物种特征", True)
        d.new_page()
        d.heading("三种鸢尾花的形态特征")
        b_n = d.para("该数据集共有150个样本，山鸢尾、变色鸢尾和维吉尼亚鸢尾各50个，每个样本测量了四项特征。")
        tab = d.table("表1 各物种特征平均值", ["特征", *sp],
                      [[f, *(f"{v:.2f}" for v in m)] for f, m in zip(feats, means, strict=True)])
        b_p = d.para(f"维吉尼亚鸢尾的花瓣最长，平均花瓣长度为{means[2][2]:.2f}厘米，山鸢尾仅为{means[2][0]:.2f}厘米。")
        d.new_page()
        d.heading("花瓣宽度")
        b_chart = d.bars("图1 各物种平均花瓣宽度（厘米）", sp, means[3], "厘米")
        b_src = d.para("数据由植物学家埃德加·安德森在加斯佩半岛采集，罗纳德·费希尔于1936年发表。")
        doc = d.save()
        r = tab["rows"]
        out += [
            q(doc, f"{name}-01", "数据集中每个物种有多少个样本？", "50", ["50"], "text", lang, [(1, b_n)]),
            q(doc, f"{name}-02", "变色鸢尾的平均花萼长度是多少厘米？", f"{means[0][1]:.2f}", [f"{means[0][1]:.2f}"],
              "table", lang, [(1, r[1])]),
            q(doc, f"{name}-03", "山鸢尾的平均花瓣宽度是多少？", f"{means[3][0]:.2f}", [f"{means[3][0]:.2f}"],
              "table", lang, [(1, r[4])]),
            q(doc, f"{name}-04", "维吉尼亚鸢尾的平均花瓣长度是多少厘米？", f"{means[2][2]:.2f}",
              [f"{means[2][2]:.2f}"], "text", lang, [(1, b_p)]),
            q(doc, f"{name}-05", "维吉尼亚鸢尾与变色鸢尾的平均花萼宽度相差多少？",
              f"{means[1][2] - means[1][1]:.2f}", [f"{abs(means[1][2] - means[1][1]):.2f}"], "table", lang,
              [(1, r[2])]),
            q(doc, f"{name}-06", "图1中变色鸢尾的平均花瓣宽度是多少？", f"{means[3][1]:.2f}", [f"{means[3][1]:.2f}"],
              "chart", lang, [(2, b_chart)]),
            q(doc, f"{name}-07", "每个物种有多少个样本？数据是哪一年发表的？", "50；1936年", ["50"], "multi_page",
              lang, [(1, b_n), (2, b_src)]),
        ]
    return out


MIME_SPEC = Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")  # Debian shared-mime-info (GPL-2+)
MIME_QA = [  # (question, answer, figures, page, phrases whose lines are the gold evidence)
    ("Which version of the Shared MIME-info Database specification is this, and when was it last updated?",
     "version 0.21, last updated 2 October 2018", ["0.21"], 1, ["This is version 0.21 of the Shared MIME-info"]),
    ("What is the default glob weight value, and what is the maximum?", "50; the maximum is 100", ["50"], 4,
     ["The default weight value is", "50, and the maximum is 100."]),
    ("Which command must an application run after installing, uninstalling or modifying its XML file?",
     "update-mime-database", [], 3, ["MUST run the update-mime-database command"]),
    ("Which alias does audio/midi have?", "audio/x-midi", [], 5, ["For example, audio/midi has an alias of"]),
    ("Which file takes precedence over all other files in the same packages directory?", "Override.xml", [], 3,
     ["precedence. Any file named Override.xml takes precedence over all other files in the same packages"]),
]


def mime_spec() -> list[dict]:
    """Questions on a real document shipped by Debian (not copied: read where the package puts it)."""
    if not MIME_SPEC.exists():
        print(f"{MIME_SPEC} not found (apt-get install shared-mime-info): its questions are left out")
        return []
    pdf = pymupdf.open(MIME_SPEC)
    out = []
    for i, (question, answer, figures, page, phrases) in enumerate(MIME_QA, start=1):
        rects = [pdf[page - 1].search_for(ph)[:1] for ph in phrases]
        rects = [r for hits in rects for r in hits]
        if not rects:
            raise SystemExit(f"gold phrase not found on page {page} of {MIME_SPEC}: {phrases}")
        box = (min(r.x0 for r in rects), min(r.y0 for r in rects), max(r.x1 for r in rects), max(r.y1 for r in rects))
        rec = q(MIME_SPEC.name, f"mime-spec-{i:02d}", question, answer, figures, "text", "en", [(page, box)])
        rec["path"] = str(MIME_SPEC)
        out.append(rec)
    return out


UNANSWERABLE = [
    ("What is the population of Mars in 2023?", "en"),
    ("Who won the 1998 football world cup final?", "en"),
    ("What is the boiling point of liquid nitrogen in kelvin?", "en"),
    ("What was Tesla's market capitalisation at the end of 2021?", "en"),
    ("火星在2023年的人口是多少？", "zh"),
    ("2018年世界杯冠军是哪个国家？", "zh"),
    ("乳腺肿瘤数据集中患者的平均年龄是多少？", "zh"),  # near the breast cancer report, which has no ages
]


def main() -> None:
    sysdeps.require("fonts-wqy-microhei", "the Chinese dev-set PDFs")
    from build_fresh import fresh_records  # the fresh split: parallel EN/ZH documents (its own module)
    from build_fresh2 import fresh2_records  # a second parallel EN/ZH held-out split, built after fresh was tuned on
    from build_fresh3 import fresh3_records  # a third one, built after fresh and fresh2 were tuned on
    from build_fresh4 import fresh4_records  # a fourth one, built after fresh, fresh2 and fresh3 were tuned on
    from build_fresh5 import fresh5_records  # a fifth one, built after fresh to fresh4 were tuned on
    from build_fresh6 import fresh6_records  # a sixth one, built after fresh to fresh5 were tuned on
    from build_fresh7 import fresh7_records  # a seventh one, built after fresh to fresh6 were tuned on
    from build_fresh8 import fresh8_records  # an eighth one, built after fresh to fresh7 were tuned on
    from build_fresh9 import fresh9_records  # a ninth one, built after fresh to fresh8 were tuned on
    from build_fresh10 import fresh10_records  # a tenth one, built after fresh to fresh9 were tuned on
    from build_fresh11 import fresh11_records  # an eleventh one, built after fresh to fresh10 were tuned on
    from build_zh import breast_cancer_report  # a second Chinese held-out report (its own module)

    records = (stocks_report(False) + stocks_report(True) + wine_report(False) + wine_report(True) + mime_spec()
               + breast_cancer_report())
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        records.append({"id": f"none-{i:02d}", "question": question, "answer": "", "figures": [],
                        "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [],
                        "split": "heldout" if i % 2 else "tune"})
    records += fresh_records()
    records += fresh2_records()
    records += fresh3_records()
    records += fresh4_records()
    records += fresh5_records()
    records += fresh6_records()
    records += fresh7_records()
    records += fresh8_records()
    records += fresh9_records()
    records += fresh10_records()
    records += fresh11_records()
    path = HERE / "generated.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{len(records)} questions -> {path}")


if __name__ == "__main__":
    main()
