#!/usr/bin/python3
"""Reference for bench/report.sh: the aggregation `passmap report` does, in Python/pandas.

Reads the same results DB, maps passes to stages with the same data files (fnmatch, first match wins),
computes per run the stage sums + process overhead, per config the mean share and 95% t CI over cold
repeats, dominant stage and pass, per-pass means, and the log-log fit of heavy passes against IR size.
Prints a one-line summary so the two outputs can be compared.
Usage: report_ref.py DB STAGEMAP.tsv...
"""
import fnmatch, sqlite3, sys
import numpy as np
import pandas as pd
try:
    from scipy import stats as st  # t quantile
except ImportError:  # pandas does not need scipy; fall back to a fixed t(0.975, 9)
    st = None

def load_map(paths):
    rules = []
    for p in paths:
        for line in open(p):
            line = line.split("#", 1)[0].strip()
            if line:
                tool, pat, stage = [f.strip() for f in line.split("\t")]
                rules.append((tool, pat, stage))
    return rules

def main():
    db = sqlite3.connect(sys.argv[1])
    rules = load_map(sys.argv[2:])
    sweep = pd.read_sql("SELECT id FROM sweep ORDER BY id DESC LIMIT 1", db).id[0]
    runs = pd.read_sql("SELECT r.id AS run_id, r.config_id, r.mode, r.wall_s FROM run r JOIN config c ON "
                       "c.id=r.config_id WHERE c.sweep_id=? AND r.status='ok' AND r.mode='cold'", db, params=(int(sweep),))
    steps = pd.read_sql("SELECT id AS step_id, run_id, tool FROM step", db)
    if pd.read_sql("SELECT count(*) AS n FROM sqlite_schema WHERE name='pass_name'", db).n[0]:
        # schema 6 interns pass names: the rows carry an id; the names are a small table, joined here
        # (faster for pandas than the text in every row, which it would turn into one Python string per row)
        passes = pd.read_sql("SELECT step_id, name_id, wall_s, user_s, counted FROM pass_time", db)
        names = pd.read_sql("SELECT id AS name_id, name FROM pass_name", db)
        passes = passes.merge(names, on="name_id").drop(columns="name_id")
    else:
        passes = pd.read_sql("SELECT step_id, name, wall_s, user_s, counted FROM pass_time", db)
    passes = passes[passes["counted"] == 1]
    df = passes.merge(steps, on="step_id").merge(runs[["run_id", "config_id"]], on="run_id")
    names = df[["tool", "name"]].drop_duplicates()
    def stage_of(tool, name):
        for t, p, s in rules:
            if fnmatch.fnmatchcase(tool, t) and fnmatch.fnmatchcase(name, p):
                return s
        return "other"
    names["stage"] = [stage_of(t, n) for t, n in zip(names.tool, names.name)]
    df = df.merge(names, on=["tool", "name"])
    per_stage = df.groupby(["run_id", "stage"]).wall_s.sum().unstack(fill_value=0.0)
    per_stage = per_stage.reindex(runs.run_id, fill_value=0.0)
    wall = runs.set_index("run_id").wall_s
    pass_sum = per_stage.sum(axis=1)
    per_stage["process-overhead"] = (wall - pass_sum).clip(lower=0)
    denom = per_stage.sum(axis=1)
    shares = per_stage.div(denom.where(denom > 0, 1), axis=0)
    shares["config_id"] = runs.set_index("run_id").config_id
    g = shares.groupby("config_id")
    mean, sd, n = g.mean(), g.std(), g.size()
    tq = st.t.ppf(0.975, n - 1) if st else 2.262
    half = sd.mul(tq / np.sqrt(n), axis=0)
    dominant = mean.idxmax(axis=1)
    walls = runs.groupby("config_id").wall_s.agg(["mean", "std", "count"])
    per_pass = df.groupby(["config_id", "tool", "name"]).wall_s.sum().div(n, level="config_id")
    dom_pass = per_pass.groupby(level="config_id").idxmax()
    share_pass = per_pass.div(walls["mean"], level="config_id")
    heavy = share_pass.groupby(level=["tool", "name"]).max()
    heavy = heavy[heavy >= 0.05].sort_values(ascending=False).head(8)
    metrics = pd.read_sql("SELECT r.config_id, m.name, AVG(m.value) AS v FROM metric m JOIN run r ON r.id=m.run_id "
                          "WHERE r.mode='cold' GROUP BY r.config_id, m.name", db).pivot(index="config_id", columns="name", values="v")
    fits = []
    for (tool, name) in heavy.index:
        y = per_pass.xs((tool, name), level=["tool", "name"])
        best = None
        for m in ("ir.ops", "ir.llvm_ops"):
            if m not in metrics:
                continue
            x = metrics[m].reindex(y.index)
            ok = (x > 0) & (y > 0)
            if ok.sum() < 3 or x[ok].nunique() < 3:
                continue
            lx, ly = np.log(x[ok]), np.log(y[ok])
            b, a = np.polyfit(lx, ly, 1)
            r2 = np.corrcoef(lx, ly)[0, 1] ** 2
            if best is None or r2 > best[2]:
                best = (m, b, r2)
        fits.append((name, best))
    print(f"configs={len(mean)} dominant={dominant.value_counts().to_dict()} fits="
          + ", ".join(f"{n}:{f[1]:.3f}" for n, f in fits if f) + f" ci_rows={len(half)} dompass={len(dom_pass)}")

if __name__ == "__main__":
    main()
