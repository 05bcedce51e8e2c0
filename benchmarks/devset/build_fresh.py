"""The ``fresh`` split of the dev set: parallel English/Chinese documents nobody tuned on (imported by ``build.py``).

Three pairs of PDFs, each drawn twice with the same layout, once in English and once in Chinese, so
that the two languages are compared on like-for-like questions:

* ``vimtutor_{en,zh}``: lessons 1.1-2.1 of the Vim tutor as shipped by Debian's ``vim-runtime``
  (``tutor`` and its Simplified Chinese translation ``tutor.zh_cn.utf-8``; Vim licence), real prose
  laid out by this script as paragraphs under lesson headings;
* ``systemd_catalog_{en,zh}``: ten entries of systemd's message catalog (``systemd.catalog`` and
  ``systemd.zh_CN.catalog``; LGPL-2.1-or-later), each its Subject as a heading and its body paragraphs;
* ``linnerud_{en,zh}``: a two-page report generated from the Linnerud data bundled in scikit-learn
  (``load_linnerud``): prose with counts, two ruled tables, a vector bar chart with data labels.

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
from build import Doc, q

VIM_TUTOR = {"en": Path("/usr/share/vim/vim90/tutor/tutor"),
             "zh": Path("/usr/share/vim/vim90/tutor/tutor.zh_cn.utf-8")}
CATALOG = {"en": Path("/usr/lib/systemd/catalog/systemd.catalog"),
           "zh": Path("/usr/lib/systemd/catalog/systemd.zh_CN.catalog")}
CATALOG_IDS = ["f77379a8490b408bbe5f6940505a777b", "d93fb3c9c24d451a97cea615ce59c00b",
               "a596d6fe7bfa4994828e72309e95d61e", "e9bf28e6e834481bb6f48f548ad13606",
               "fc2e22bc6ee647b6b90729ab34a250b1", "c7a787079b354eaaa9e77b371893cd27",
               "98268866d1d54a499c4e98921d93bc40", "0027229ca0644181a76c4e92458afa2e",
               "1dee0369c7fc4736b7099b38ecb46ee7", "24d8d4452573402496068381a6312df2"]
SPLIT = "fresh"
_CJK2 = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


class FreshDoc(Doc):
    """``Doc`` with its own stamp in the header and a paragraph that moves to a new page when it would not fit."""

    def __init__(self, name: str, title: str, header: str, zh: bool, stamp: str) -> None:
        super().__init__(name, title, header, zh)
        self.stamp = stamp
        self.drawn: list[tuple[str, int, tuple[float, ...], str]] = []  # (section, page, box, text)
        self.section = ""

    def new_page(self) -> None:
        self.page = self.pdf.new_page(width=612.0, height=792.0)
        n = self.pdf.page_count
        self.page.insert_text((72, 40), self.header, fontsize=8, **self.font())
        self.page.insert_text((440, 40), self.stamp, fontsize=8, **self.font())
        self.page.draw_line((72, 46), (540, 46), width=0.4)
        self.page.insert_text((290, 765), f"Page {n}" if not self.zh else f"第 {n} 页", fontsize=8, **self.font())

    def need(self, height: float) -> None:
        if self.page is None or self.y + height > 735:
            self.new_page()
            self.y = 70.0

    def text_height(self, text: str, size: float) -> float:
        scratch = pymupdf.open()
        page = scratch.new_page(width=612.0, height=792.0)
        left = page.insert_textbox(pymupdf.Rect(72, 0, 540, 700), text, fontsize=size, **self.font())
        return 700 - left

    def block(self, text: str, size: float = 10.5) -> tuple[float, ...]:
        self.need(self.text_height(text, size) + 4)
        box = self.para(text, size)
        self.drawn.append((self.section, self.pdf.page_count, box, text))
        return box

    def sect(self, text: str, size: float = 13) -> None:
        self.need(size * 2 + 40)
        self.section = text
        self.heading(text, size)

    def find(self, section: str, token: str) -> list[tuple[int, tuple[float, ...]]]:
        """Every paragraph of a section whose text has ``token`` as a separate word: the gold evidence."""
        pat = re.compile(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])")
        hits = [(p, b) for s, p, b, t in self.drawn if s.startswith(section) and pat.search(t)]
        if not hits:
            raise SystemExit(f"{self.name}: no paragraph of section {section!r} has {token!r}")
        return hits


def _paragraphs(chunk: str, zh: bool) -> list[str]:
    """Prose paragraphs of a tutor lesson: exercise lines (``--->``) and the cursor-key drawing left out."""
    out = []
    for par in re.split(r"\n\s*\n", chunk):
        lines = [ln.strip() for ln in par.splitlines() if ln.strip()]
        if any(ln in ("^", "v") for ln in lines):
            lines = [ln for ln in lines if ln.startswith("**")]
        lines = [ln for ln in lines if not ln.startswith(("--->", "~~~", "="))]
        if lines:
            text = re.sub(r"\s+", " ", " ".join(lines))
            out.append(_CJK2.sub("", text) if zh else text)
    return out


def vim_tutor(lang: str) -> list[dict]:
    zh = lang == "zh"
    src = VIM_TUTOR[lang].read_text(encoding="utf-8")
    chunks = re.split(r"\n~{20,}\n", src)
    intro, lessons = chunks[0], chunks[1:9]  # lessons 1.1-1.6, the lesson 1 summary, 2.1
    name = f"vimtutor_{lang}"
    d = FreshDoc(name, "Vim tutor" if not zh else "Vim 教程",
                 "Vim Tutor - Lessons 1 and 2" if not zh else "Vim 教程 - 第一讲和第二讲", zh, "Vim 9.0")
    d.sect("Welcome to the Vim Tutor" if not zh else "欢迎阅读《Vim 教程》", 15)
    for par in _paragraphs(intro, zh):
        d.block(par)
    for chunk in lessons:
        head, _, body = chunk.strip("\n").partition("\n")
        d.sect(re.sub(r"\s+", " ", head.strip()))
        for par in _paragraphs(body, zh):
            d.block(par)
    doc = d.save()
    sec = {"1.2": "Lesson 1.2", "1.3": "Lesson 1.3", "1.5": "Lesson 1.5", "1.6": "Lesson 1.6", "2.1": "Lesson 2.1",
           "intro": "Welcome"}
    if zh:
        sec = {"1.2": "第一讲第二节", "1.3": "第一讲第三节", "1.5": "第一讲第五节", "1.6": "第一讲第六节",
               "2.1": "第二讲第一节", "intro": "欢迎"}
    qs = {"en": ["Roughly how long does it take to work through the whole Vim tutor?",
                 "Which command leaves Vim while throwing away every unsaved edit?",
                 "In Normal mode, which key removes the single character the cursor sits on?",
                 "Which key adds text at the end of the current line?",
                 "What do you type to write your changes to the file and quit Vim?",
                 "Which two-key command removes a whole word?"],
          "zh": ["学完整个 Vim 教程大约要花多长时间？",
                 "哪个命令可以退出 Vim 并放弃所有未保存的修改？",
                 "在正常模式下，按哪个键可以删掉光标下的那个字符？",
                 "要在一行的末尾追加文本，应按哪个键？",
                 "要把修改写入文件并退出 Vim，应输入什么？",
                 "哪个命令可以删除一个单词？"]}[lang]
    enter = "<ENTER>" if not zh else "<回车>"
    golds = [("intro", "30", "30 minutes" if not zh else "25-30分钟"), ("1.2", ":q!", f":q! {enter}"),
             ("1.3", "x", "x"), ("1.5", "A", "A"), ("1.6", ":wq", f":wq {enter}"), ("2.1", "dw", "dw")]
    summary = "Lesson 1 SUMMARY" if not zh else "第一讲小结"  # restates 1.2-1.6: its paragraphs are gold too

    def boxes(s: str, tok: str) -> list[tuple[int, tuple[float, ...]]]:
        return d.find(sec[s], tok) + (d.find(summary, tok) if s in ("1.2", "1.3", "1.5", "1.6") else [])

    return [q(doc, f"{name}-{i:02d}", question, answer, [tok], "text", lang, boxes(s, tok), SPLIT)
            for i, (question, (s, tok, answer)) in enumerate(zip(qs, golds, strict=True), start=1)]


def _catalog(path: Path) -> dict[str, tuple[str, list[str]]]:
    """Message id -> (Subject, body paragraphs) of a systemd catalog file."""
    out = {}
    for entry in re.split(r"^-- ", path.read_text(encoding="utf-8"), flags=re.M)[1:]:
        mid, _, rest = entry.partition("\n")
        head, _, body = rest.partition("\n\n")
        subject = next(ln[9:] for ln in head.splitlines() if ln.startswith("Subject: "))
        pars = [re.sub(r"\s+", " ", p.strip()) for p in re.split(r"\n\s*\n", body) if p.strip()]
        out[mid.strip()] = (subject, pars)
    return out


def systemd_catalog(lang: str) -> list[dict]:
    zh = lang == "zh"
    cat = _catalog(CATALOG[lang])
    name = f"systemd_catalog_{lang}"
    d = FreshDoc(name, "systemd message catalog" if not zh else "systemd 消息目录",
                 "systemd Journal Message Catalog" if not zh else "systemd 日志消息目录", zh, "systemd 252")
    d.sect("Selected journal messages and their explanations" if not zh else "部分日志消息及其说明", 15)
    for mid in CATALOG_IDS:
        subject, pars = cat[mid]
        d.sect(subject, 12)
        d.block(f"Message ID {mid}" if not zh else f"消息 ID {mid}", 8.5)
        for par in pars:
            d.block(_CJK2.sub("", par) if zh else par)
    doc = d.save()
    subj = {m: cat[m][0] for m in CATALOG_IDS}
    rows = {"en": [("Which journald.conf setting controls the length of the rate-limiting interval for messages?",
                    "a596d6fe7bfa4994828e72309e95d61e", "RateLimitIntervalSec", "RateLimitIntervalSec="),
                   ("Counting from which date is the new system clock value given in microseconds?",
                    "c7a787079b354eaaa9e77b371893cd27", "1970", "January 1st, 1970"),
                   ("Which field of a systemd unit file names the mount point?",
                    "1dee0369c7fc4736b7099b38ecb46ee7", "Where=", "Where="),
                   ("Which daemon does the syslog service run alongside?",
                    "0027229ca0644181a76c4e92458afa2e", "journald", "journald"),
                   ("To whom should a crash that dumped core be reported as a bug?",
                    "fc2e22bc6ee647b6b90729ab34a250b1", "vendor", "its vendor"),
                   ("What happens to all file systems once the system shutdown has begun?",
                    "98268866d1d54a499c4e98921d93bc40", "unmounted", "they will be unmounted")],
            "zh": [("在 journald.conf 中，哪个设置控制消息限速的时间间隔？",
                    "a596d6fe7bfa4994828e72309e95d61e", "RateLimitIntervalSec", "RateLimitIntervalSec="),
                   ("系统时钟的新值是从哪一天起按微秒计算的？",
                    "c7a787079b354eaaa9e77b371893cd27", "1970", "1970年1月1日"),
                   ("在 systemd 单元文件中，哪个字段指定挂载点？",
                    "1dee0369c7fc4736b7099b38ecb46ee7", "Where=", "Where="),
                   ("syslog 服务与哪个守护进程同时运行？",
                    "0027229ca0644181a76c4e92458afa2e", "journald", "journald"),
                   ("程序崩溃并产生核心转储时，应当向谁报告这个错误？",
                    "fc2e22bc6ee647b6b90729ab34a250b1", "开发者", "其开发者"),
                   ("系统关机开始后，所有文件系统会怎样？",
                    "98268866d1d54a499c4e98921d93bc40", "卸载", "所有文件系统已卸载")]}[lang]
    return [q(doc, f"{name}-{i:02d}", question, answer, [tok], "text", lang, d.find(subj[mid], tok), SPLIT)
            for i, (question, mid, tok, answer) in enumerate(rows, start=1)]


def linnerud_report(lang: str) -> list[dict]:
    import numpy as np
    from sklearn.datasets import load_linnerud

    zh = lang == "zh"
    data = load_linnerud()
    phys, ex = data.target, data.data  # Weight, Waist, Pulse; Chins, Situps, Jumps
    n = len(phys)
    heavy = int((phys[:, 0] > 180).sum())
    stats = [[round(float(np.mean(c)), 2), round(float(np.median(c)), 2), int(c.min()), int(c.max())] for c in phys.T]
    ex_stats = [[round(float(np.median(c)), 2), int(c.min()), int(c.max())] for c in ex.T]
    ex_mean = [round(float(np.mean(c)), 2) for c in ex.T]
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    name = f"linnerud_{lang}"
    d = FreshDoc(name, t("Fitness club study", "健身俱乐部调查"), t("Fitness Club Study - Linnerud data",
                                                               "健身俱乐部调查 - Linnerud 数据"), zh, "2024")
    d.new_page()
    d.y = 70.0
    d.heading(t("Body measurements and exercise results of 20 men", "20名男子的身体指标与运动成绩"))
    b_n = d.para(t(f"The study records three body measurements and three exercise results for {n} middle-aged "
                   "men in a fitness club. Weight is given in pounds, waist in inches and resting pulse in beats "
                   "per minute.",
                   f"本调查记录了某健身俱乐部{n}名中年男子的三项身体指标和三项运动成绩。体重以磅为单位，"
                   "腰围以英寸为单位，静息脉搏以每分钟次数为单位。"))
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    tab = d.table(t("Table 1. Body measurements", "表1 身体指标"),
                  [t("Measurement", "指标"), t("Mean", "平均值"), t("Median", "中位数"), t("Minimum", "最小值"),
                   t("Maximum", "最大值")],
                  [[lab, f2(s[0]), f2(s[1]), str(s[2]), str(s[3])] for lab, s in
                   zip([t("Weight (lb)", "体重（磅）"), t("Waist (in)", "腰围（英寸）"),
                        t("Pulse (beats/min)", "脉搏（次/分）")], stats, strict=True)])
    b_heavy = d.para(t(f"{heavy} of the men weighed more than 180 pounds; the others weighed 180 pounds or less.",
                       f"其中有{heavy}名男子体重超过180磅，其余男子体重不超过180磅。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Exercise results", "运动成绩"))
    labels = [t("Chin-ups", "引体向上"), t("Sit-ups", "仰卧起坐"), t("Jumps", "跳跃")]
    b_chart = d.bars(t("Figure 1. Mean number of repetitions per exercise", "图1 各项运动的平均次数"),
                     labels, ex_mean, t("count", "次数"))
    tab2 = d.table(t("Table 2. Repetitions per exercise", "表2 各项运动的次数"),
                   [t("Exercise", "运动"), t("Median", "中位数"), t("Minimum", "最小值"), t("Maximum", "最大值")],
                   [[lab, f2(s[0]), str(s[1]), str(s[2])] for lab, s in zip(labels, ex_stats, strict=True)])
    d.para(t("Source: Linnerud data set (Tenenhaus, 1998) as bundled in scikit-learn (load_linnerud).",
             "资料来源：Linnerud 数据集（Tenenhaus，1998年），取自 scikit-learn 自带的 load_linnerud。"), 9)
    doc = d.save()
    r, r2 = tab["rows"], tab2["rows"]
    span = stats[0][3] - stats[0][2]
    qs = {"en": ["What was the median waist measurement of the men?",
                 "What did the heaviest man weigh, in pounds?",
                 "What was the lowest resting pulse recorded in the study?",
                 "How many pounds separate the heaviest man from the lightest?",
                 "What mean number of sit-ups does Figure 1 show?",
                 "How many of the men weighed more than 180 pounds?",
                 "What was the median number of chin-ups?",
                 "How many men took part in the study, and what was the largest number of sit-ups any of them did?"],
          "zh": ["这些男子腰围的中位数是多少？",
                 "最重的男子体重是多少磅？",
                 "调查中记录到的最低静息脉搏是多少？",
                 "最重和最轻的男子体重相差多少磅？",
                 "图1显示的仰卧起坐平均次数是多少？",
                 "有多少名男子体重超过180磅？",
                 "引体向上次数的中位数是多少？",
                 "共有多少名男子参加调查？仰卧起坐的最高次数是多少？"]}[lang]
    golds = [(f2(stats[1][1]), "table", [(1, r[2])]),
             (str(stats[0][3]), "table", [(1, r[1])]),
             (str(stats[2][2]), "table", [(1, r[3])]),
             (f"{span} ({stats[0][3]} - {stats[0][2]})", "table", [(1, r[1])]),
             (f2(ex_mean[1]), "chart", [(2, b_chart)]),
             (str(heavy), "text", [(1, b_heavy)]),
             (f2(ex_stats[0][0]), "table", [(2, r2[1])]),
             (f"{n}; {ex_stats[1][2]}", "multi_page", [(1, b_n), (2, r2[2])])]
    figs = [[g[0].split(" ")[0]] for g in golds[:7]] + [[str(ex_stats[1][2])]]
    return [q(doc, f"{name}-{i:02d}", question, ans, fig, cat, lang, boxes, SPLIT)
            for i, (question, (ans, cat, boxes), fig) in enumerate(zip(qs, golds, figs, strict=True), start=1)]


UNANSWERABLE = [("How many of the men in the fitness club study were older than 50?", "en"),
                ("What is the default value of RateLimitBurst= in journald.conf?", "en"),
                ("健身俱乐部调查中有多少名男子年龄超过50岁？", "zh"),
                ("journald.conf 中 RateLimitBurst= 的默认值是多少？", "zh")]


def fresh_records() -> list[dict]:
    """All questions of the fresh split (writes the six PDFs)."""
    out = []
    for lang in ("en", "zh"):
        out += vim_tutor(lang) + systemd_catalog(lang) + linnerud_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out
