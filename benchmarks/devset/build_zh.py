"""A second Chinese held-out report for the dev set (imported by ``build.py``; not used for tuning).

``breast_cancer_zh.pdf``: two pages in Chinese about the Breast Cancer Wisconsin (Diagnostic) data as
bundled in scikit-learn (``load_breast_cancer``; UCI, CC BY 4.0): class counts stated in prose, a
table of class means whose column headers share characters (恶性肿瘤 / 良性肿瘤 / 全部样本), a ratio
stated in a sentence, a vector bar chart, a second table on page 2 and a source note. The PDF is
generated (drawn by this script), the numbers are real. Gold answers are computed from the data as
printed (rounded as on the page before any arithmetic); gold boxes are where the evidence is drawn.
The questions and their golds were written before any generator was run on this PDF.
"""

from __future__ import annotations

from build import Doc, q


def breast_cancer_report() -> list[dict]:
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    groups = [data.target == 0, data.target == 1, np.ones(len(data.target), bool)]  # malignant, benign, all
    cols = ["恶性肿瘤", "良性肿瘤", "全部样本"]

    def means(feature: str, nd: int) -> list[float]:
        i = list(data.feature_names).index(feature)
        return [round(float(np.mean(data.data[g][:, i])), nd) for g in groups]

    n_mal, n_ben, n_all = int(groups[0].sum()), int(groups[1].sum()), len(data.target)
    t1 = [("半径", means("mean radius", 2), 2), ("纹理", means("mean texture", 2), 2),
          ("周长", means("mean perimeter", 2), 2), ("面积", means("mean area", 2), 2),
          ("紧凑度", means("mean compactness", 3), 3)]
    t2 = [("最差纹理", means("worst texture", 2), 2), ("最差周长", means("worst perimeter", 2), 2),
          ("最差面积", means("worst area", 2), 2)]
    worst_r = means("worst radius", 2)
    area_m, area_b = t1[3][1][0], t1[3][1][1]
    ratio = area_m / area_b

    name = "breast_cancer_zh"
    d = Doc(name, "乳腺肿瘤诊断数据", "乳腺肿瘤诊断数据 - 细胞核特征", True)
    d.new_page()
    d.heading("乳腺肿瘤细针穿刺样本的细胞核特征")
    b_n = d.para(f"威斯康星乳腺癌诊断数据集共有{n_all}个样本，其中恶性肿瘤{n_mal}例，良性肿瘤{n_ben}例，"
                 "每个样本由细针穿刺图像中的细胞核计算出30项特征。")
    tab = d.table("表1 细胞核特征平均值（按诊断分组）", ["特征", *cols],
                  [[lab, *(f"{v:,.{nd}f}" for v in vals)] for lab, vals, nd in t1])
    b_p = d.para(f"恶性肿瘤的平均面积为{area_m:,.2f}，约为良性肿瘤（{area_b:,.2f}）的{ratio:.2f}倍。")
    d.new_page()
    d.heading("最差值")
    b_chart = d.bars("图1 各组最差半径均值", cols, worst_r, "半径")
    tab2 = d.table("表2 最差值均值（按诊断分组）", ["特征", *cols],
                   [[lab, *(f"{v:,.{nd}f}" for v in vals)] for lab, vals, nd in t2])
    b_src = d.para("该数据集由威斯康星大学的沃尔伯格医生等人整理，于1995年11月公开发布。")
    doc = d.save()
    r, r2 = tab["rows"], tab2["rows"]
    lang = "zh"
    dif = area_m - area_b
    return [
        q(doc, f"{name}-01", "数据集中有多少例恶性肿瘤样本？", str(n_mal), [str(n_mal)], "text", lang, [(1, b_n)]),
        q(doc, f"{name}-02", "良性肿瘤的平均半径是多少？", f"{t1[0][1][1]:.2f}", [f"{t1[0][1][1]:.2f}"], "table",
          lang, [(1, r[1])]),
        q(doc, f"{name}-03", "全部样本的平均纹理是多少？", f"{t1[1][1][2]:.2f}", [f"{t1[1][1][2]:.2f}"], "table",
          lang, [(1, r[2])]),
        q(doc, f"{name}-04", "恶性肿瘤的平均周长是多少？", f"{t1[2][1][0]:.2f}", [f"{t1[2][1][0]:.2f}"], "table",
          lang, [(1, r[3])]),
        q(doc, f"{name}-05", "恶性肿瘤与良性肿瘤的平均面积相差多少？", f"{dif:,.2f}", [f"{dif:.2f}"], "table", lang,
          [(1, r[4]), (1, b_p)]),
        q(doc, f"{name}-06", "恶性肿瘤的平均面积约为良性肿瘤的几倍？", f"{ratio:.2f}", [f"{ratio:.2f}"], "text",
          lang, [(1, b_p)]),
        q(doc, f"{name}-07", "图1中良性肿瘤的最差半径均值是多少？", f"{worst_r[1]:.2f}", [f"{worst_r[1]:.2f}"],
          "chart", lang, [(2, b_chart)]),
        q(doc, f"{name}-08", "表2中恶性肿瘤的最差面积均值是多少？", f"{t2[2][1][0]:,.2f}", [f"{t2[2][1][0]:.2f}"],
          "table", lang, [(2, r2[3])]),
        q(doc, f"{name}-09", "数据集共有多少个样本？数据是哪一年公开发布的？", f"{n_all}；1995年", [str(n_all)],
          "multi_page", lang, [(1, b_n), (2, b_src)]),
        q(doc, f"{name}-10", "良性肿瘤的平均紧凑度和最差周长均值分别是多少？",
          f"{t1[4][1][1]:.3f}；{t2[1][1][1]:.2f}", [f"{t1[4][1][1]:.3f}"], "multi_page", lang,
          [(1, r[5]), (2, r2[2])]),
    ]
