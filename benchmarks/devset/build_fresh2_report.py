"""The generated report pair of the ``fresh2`` split (imported by ``build_fresh2.py``).

``diabetes_{en,zh}.pdf``: two pages each, same layout in both languages, from the diabetes data bundled
in scikit-learn (``load_diabetes(scaled=False)``: 442 patients; age, sex, body mass index, average blood
pressure, six blood serum measurements and a quantitative measure of disease progression one year after
baseline; Efron et al. 2004): counts in prose, a table of baseline measurements with Mean / Median /
Minimum / Maximum columns (Chinese headers 最小值 / 最大值 share characters), a vector bar chart with data
labels and a caption, a second table by age group on page 2 (50岁以下 / 50岁及以上 / 全部患者) and a source
note. Gold answers are computed from the data as printed (rounded as on the page before any arithmetic);
gold boxes are where the evidence is drawn.
"""

from __future__ import annotations

from build import q
from build_fresh import FreshDoc

SPLIT = "fresh2"


def diabetes_report(lang: str) -> list[dict]:
    import numpy as np
    from sklearn.datasets import load_diabetes

    zh = lang == "zh"
    data = load_diabetes(scaled=False)
    x, y = data.data, data.target
    col = {f: x[:, i] for i, f in enumerate(data.feature_names)}
    n = len(y)
    obese = int((col["bmi"] >= 30).sum())
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    # (label, values, decimals of Minimum/Maximum as printed)
    rows1 = [(t("Age (years)", "年龄（岁）"), col["age"], 0), (t("Body mass index", "体重指数"), col["bmi"], 1),
             (t("Average blood pressure", "平均血压"), col["bp"], 2),
             (t("Disease progression", "病情进展指标"), y, 0)]
    stats = [[round(float(np.mean(v)), 2), round(float(np.median(v)), 2), round(float(v.min()), nd),
              round(float(v.max()), nd), nd] for _, v, nd in rows1]
    bands = [col["bmi"] < 25, (col["bmi"] >= 25) & (col["bmi"] < 30), col["bmi"] >= 30]
    band_mean = [round(float(np.mean(y[b])), 2) for b in bands]
    groups = [col["age"] < 50, col["age"] >= 50, np.ones(n, bool)]
    g_n = [int(g.sum()) for g in groups]
    g_bmi = [round(float(np.mean(col["bmi"][g])), 2) for g in groups]
    g_bp = [round(float(np.mean(col["bp"][g])), 2) for g in groups]
    g_y = [round(float(np.mean(y[g])), 2) for g in groups]

    name = f"diabetes_{lang}"
    d = FreshDoc(name, t("Diabetes baseline study", "糖尿病基线研究"),
                 t("Diabetes Baseline Study - patient data", "糖尿病基线研究 - 患者数据"), zh, "scikit-learn")
    d.new_page()
    d.y = 70.0
    d.heading(t("Baseline measurements of 442 diabetes patients", "442名糖尿病患者的基线指标"))
    b_n = d.para(t(f"The study followed {n} diabetes patients. For each patient, age, sex, body mass index, "
                   "average blood pressure and six blood serum measurements were taken at baseline, and a "
                   "quantitative measure of disease progression was recorded one year later.",
                   f"本研究跟踪了{n}名糖尿病患者。基线时记录了每名患者的年龄、性别、体重指数、平均血压和六项血清"
                   "指标，一年后记录了衡量病情进展的定量指标。"))
    fmt = lambda v, nd: f"{v:.{nd}f}"  # noqa: E731
    tab = d.table(t("Table 1. Baseline measurements of all patients", "表1 全部患者的基线指标"),
                  [t("Measurement", "指标"), t("Mean", "平均值"), t("Median", "中位数"), t("Minimum", "最小值"),
                   t("Maximum", "最大值")],
                  [[lab, f2(s[0]), f2(s[1]), fmt(s[2], s[4]), fmt(s[3], s[4])]
                   for (lab, _, _), s in zip(rows1, stats, strict=True)])
    b_obese = d.para(t(f"{obese} of the patients had a body mass index of 30 or more at baseline; the other "
                       f"{n - obese} had a lower index.",
                       f"其中{obese}名患者基线时的体重指数在30及以上，其余{n - obese}名患者的体重指数低于30。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Disease progression by body mass index and age", "按体重指数和年龄分组的病情进展"))
    b_chart = d.bars(t("Figure 1. Mean disease progression by body mass index", "图1 按体重指数分组的平均病情进展"),
                     [t("Under 25", "低于25"), t("25 to 29.9", "25至29.9"), t("30 or more", "30及以上")], band_mean,
                     t("score", "指标"))
    tab2 = d.table(t("Table 2. Patients by age group", "表2 按年龄分组的患者"),
                   [t("Measurement", "指标"), t("Under 50", "50岁以下"), t("50 and over", "50岁及以上"),
                    t("All patients", "全部患者")],
                   [[t("Patients", "患者人数"), *map(str, g_n)], [t("Mean body mass index", "平均体重指数"),
                                                                   *map(f2, g_bmi)],
                    [t("Mean blood pressure", "平均血压"), *map(f2, g_bp)],
                    [t("Mean disease progression", "平均病情进展"), *map(f2, g_y)]])
    d.para(t("Source: diabetes data of Efron, Hastie, Johnstone and Tibshirani (2004), \"Least Angle Regression\", "
             "as bundled in scikit-learn (load_diabetes).",
             "资料来源：Efron、Hastie、Johnstone 和 Tibshirani（2004年）《Least Angle Regression》中的糖尿病数据，"
             "取自 scikit-learn 自带的 load_diabetes。"), 9)
    doc = d.save()
    r, r2 = tab["rows"], tab2["rows"]
    age, bmi, bp, prog = stats
    span = int(prog[3] - prog[2])
    qs = {"en": ["How many of the patients had a body mass index of 30 or more?",
                 "How old was the oldest patient in the study?",
                 "What was the highest body mass index recorded among the patients?",
                 "What was the median average blood pressure of the patients?",
                 "How far apart are the highest and the lowest disease progression scores?",
                 "What mean disease progression does Figure 1 show for patients with a body mass index under 25?",
                 "What was the mean body mass index of the patients aged 50 and over?",
                 "How many patients did the study follow, and what was the mean disease progression of those "
                 "under 50?"],
          "zh": ["体重指数在30及以上的患者有多少名？",
                 "研究中最年长的患者多少岁？",
                 "患者中记录到的最高体重指数是多少？",
                 "患者平均血压的中位数是多少？",
                 "病情进展指标的最高值与最低值相差多少？",
                 "图1中体重指数低于25的患者平均病情进展是多少？",
                 "50岁及以上患者的平均体重指数是多少？",
                 "本研究共跟踪了多少名患者？50岁以下患者的平均病情进展是多少？"]}[lang]
    golds = [(str(obese), [str(obese)], "text", [(1, b_obese)]),
             (fmt(age[3], 0), [fmt(age[3], 0)], "table", [(1, r[1])]),
             (fmt(bmi[3], 1), [fmt(bmi[3], 1)], "table", [(1, r[2])]),
             (f2(bp[1]), [f2(bp[1])], "table", [(1, r[3])]),
             (f"{span} ({fmt(prog[3], 0)} - {fmt(prog[2], 0)})", [str(span)], "table", [(1, r[4])]),
             (f2(band_mean[0]), [f2(band_mean[0])], "chart", [(2, b_chart)]),
             (f2(g_bmi[1]), [f2(g_bmi[1])], "table", [(2, r2[2])]),
             (t(f"{n}; {f2(g_y[0])}", f"{n}；{f2(g_y[0])}"), [f2(g_y[0])], "multi_page", [(1, b_n), (2, r2[4])])]
    return [q(doc, f"{name}-{i:02d}", question, ans, figs, cat, lang, boxes, SPLIT)
            for i, (question, (ans, figs, cat, boxes)) in enumerate(zip(qs, golds, strict=True), start=1)]
