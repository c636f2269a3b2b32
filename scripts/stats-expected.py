#!/usr/bin/python3
# Prints the reference values pasted into tests/unit/test_stats.c; with --fixture, those of
# tests/fixtures/stats/log-scale.txt (numpy 1.24.2, scipy 1.10.1, Debian 12).
import sys
import numpy as np, scipy.stats as st
from scipy.spatial.distance import jensenshannon

def original():
    np.set_printoptions(precision=17)
    x=np.array([2.1,3.4,1.9,5.6,4.2,3.3,2.8])
    m=x.mean(); sd=x.std(ddof=1); n=len(x)
    lo,hi=st.t.interval(0.95,n-1,loc=m,scale=sd/np.sqrt(n))
    print("summary", repr(m), repr(np.median(x)), repr(sd), repr(lo), repr(hi))
    print("q0.9", repr(np.quantile(x,0.9)), "q0.25", repr(np.quantile(x,0.25)))
    a=[27.5,21.0,19.0,23.6,17.0,17.9,16.9,20.1,21.9,22.6,23.1,19.6,19.0,21.7,21.4]
    b=[27.1,22.0,20.8,23.4,23.4,23.5,25.8,22.0,24.8,20.2,21.9,22.1,22.9,20.5,24.4]
    r=st.ttest_ind(a,b,equal_var=False)
    va=np.var(a,ddof=1)/len(a); vb=np.var(b,ddof=1)/len(b)
    df=(va+vb)**2/(va**2/(len(a)-1)+vb**2/(len(b)-1))
    print("welch", repr(r.statistic), repr(df), repr(r.pvalue))
    # ratio, delta method
    A=np.array([10.2,9.8,10.5,10.1,9.9]); B=np.array([5.1,4.9,5.3,5.0])
    ma,mb=A.mean(),B.mean(); R=ma/mb
    ra=A.var(ddof=1)/(len(A)*ma**2); rb=B.var(ddof=1)/(len(B)*mb**2)
    se=abs(R)*np.sqrt(ra+rb); d=(ra+rb)**2/(ra**2/(len(A)-1)+rb**2/(len(B)-1))
    tc=st.t.ppf(0.975,d)
    print("ratio", repr(R), repr(se), repr(d), repr(R-tc*se), repr(R+tc*se))
    print("gmean", repr(st.gmean([1,2,4,8,3.5])))
    X=np.array([1,2,4,8,16,32,64.]); Y=np.array([3.1,4.6,8.2,12.9,22.5,36.0,61.0])
    lr=st.linregress(np.log(X),np.log(Y))
    tc=st.t.ppf(0.975,len(X)-2)
    print("powerlaw b", repr(lr.slope), "a", repr(np.exp(lr.intercept)), "se", repr(lr.stderr), "ci", repr(lr.slope-tc*lr.stderr), repr(lr.slope+tc*lr.stderr), "r2", repr(lr.rvalue**2))
    p=[0.1,0.4,0.5,0]; q=[0.3,0.3,0.2,0.2]
    print("js", repr(jensenshannon(p,q,base=2)), repr(jensenshannon([1,2,3],[2,4,6],base=2)), repr(jensenshannon([1,0],[0,1],base=2)))
    print("tcrit", repr(st.t.ppf(0.975,4)), repr(st.t.ppf(0.975,1000)))

# ---- log scale, Welch + Holm, MAD outliers, adaptive stopping (issue 9) ----
# `stats-expected.py --fixture` prints only these, one "name value..." line each; the output is committed as
# tests/fixtures/stats/log-scale.txt and read by tests/unit/test_stats_log.c. Computed here with scipy's own
# t distribution and ttest_ind on the logs, and with plain-Python Holm and MAD, independently of passmap's C.
def fixture():
    out = []
    def put(name, *vals):
        out.append(name + " " + " ".join(repr(float(v)) for v in vals))
    x = np.array([2.1, 3.4, 1.9, 5.6, 4.2, 3.3, 2.8]); l = np.log(x); n = len(x)
    half = st.t.ppf(0.975, n - 1) * l.std(ddof=1) / np.sqrt(n)
    put("logci", st.gmean(x), l.std(ddof=1), half, np.exp(l.mean() - half), np.exp(l.mean() + half))
    x3 = np.array([1.0, 1.1, 1.3]); l3 = np.log(x3)
    h3 = st.t.ppf(0.975, 2) * l3.std(ddof=1) / np.sqrt(3)
    put("logci3", st.gmean(x3), np.exp(l3.mean() - h3), np.exp(l3.mean() + h3), np.expm1(h3))
    put("logci2", st.gmean([2.0, 8.0]))
    a = np.array([10.2, 9.8, 10.5, 10.1, 9.9]); b = np.array([10.9, 11.2, 10.7, 11.4])
    r = st.ttest_ind(np.log(b), np.log(a), equal_var=False)
    va = np.log(a).var(ddof=1) / len(a); vb = np.log(b).var(ddof=1) / len(b)
    se = np.sqrt(va + vb); df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d = np.log(b).mean() - np.log(a).mean()
    put("welchlog", np.exp(d), d, se, df, r.statistic, r.pvalue)
    for alpha in (0.05, 0.05 / 3):
        tc = st.t.ppf(1 - alpha / 2, df)
        put("welchlog_ci_%g" % alpha, np.exp(d - tc * se), np.exp(d + tc * se))
    # a p just above 0.05: its interval must include 1
    a2 = np.array([1.00, 1.05, 0.97, 1.02]); b2 = np.array([1.03, 1.09, 1.01, 1.06])
    r2 = st.ttest_ind(np.log(b2), np.log(a2), equal_var=False)
    put("welchlog2_p", r2.pvalue)
    p = [0.01, 0.04, 0.03, 0.005, float("nan"), 0.2]
    valid = sorted((v, i) for i, v in enumerate(p) if v == v)
    m = len(valid); adj = [float("nan")] * len(p); run = 0.0
    for j, (v, i) in enumerate(valid):
        run = max(run, min(1.0, (m - j) * v)); adj[i] = run
    put("holm_p", *p); put("holm_adj", *adj)
    y = np.array([10.1, 10.3, 9.9, 10.0, 10.2, 14.5, 10.1, 6.0, 10.4])
    mad = st.median_abs_deviation(y, scale=1.0)
    z = 0.6745 * (y - np.median(y)) / mad
    put("mad_x", *y); put("mad_flags", *(abs(z) > 3.5).astype(float))
    # adaptive stopping: the first n (min 3, max 10, precision 3%) at which each series has settled
    stable = [5.00, 5.02, 4.98, 5.01, 4.99, 5.03, 5.00, 4.97, 5.02, 5.01]
    noisy = [5.0, 6.1, 4.4, 5.6, 4.9, 6.4, 4.6, 5.3, 5.9, 4.8]
    for name, s in (("stable", stable), ("noisy", noisy)):
        stop = 10
        for k in range(3, 11):
            ls = np.log(s[:k]); hw = st.t.ppf(0.975, k - 1) * ls.std(ddof=1) / np.sqrt(k)
            if np.expm1(hw) <= 0.03:
                stop = k; break
        put("settle_" + name, stop, *s)
    # compare's rule on tests/unit/test_compare.c's fixture: llm wall A {1.0,1.1,0.9} vs B = A/2, one of two
    # configs in the wall family (the other is identical on both sides, p = 1): Holm multiplies by 2
    wa = np.array([1.0, 1.1, 0.9]); wb = wa / 2
    r = st.ttest_ind(np.log(wb), np.log(wa), equal_var=False)
    va = np.log(wa).var(ddof=1) / 3; vb = np.log(wb).var(ddof=1) / 3; se = np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2); d = np.log(wb).mean() - np.log(wa).mean()
    padj = min(1.0, 2 * r.pvalue); level = 0.05 * r.pvalue / padj; tc = st.t.ppf(1 - level / 2, df)
    put("compare_wall", np.exp(d), r.statistic, df, r.pvalue, padj, np.exp(d - tc * se), np.exp(d + tc * se))
    print("\n".join(out))

if __name__ == "__main__":
    fixture() if sys.argv[1:] == ["--fixture"] else original()
