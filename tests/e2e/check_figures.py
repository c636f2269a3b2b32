#!/usr/bin/env python3
"""check_figures.py DIR: the figures of `passmap report --figures DIR` read at their drawn size (issue 37).
Per figure: its SVG has a row of at least two x tick labels and a column of at least two y tick labels (numbers or
categories; a figure
drew none, or one "1e+09"); no tick label in exponent notation; every log axis of every panel labelled with at
least three explicit ticks; an axis of time (its label says wall or time) labels its ticks with a unit (s, ms,
us), an axis of shares with %; the SVG at most 940 px wide (the report's column at 1280 px) and its text at
least 10 px. Prints one line per problem and exits 1 when there is any."""
import glob, os, re, sys

TICK = re.compile(r'^-?[0-9][0-9.]*(?:[kMG]|b| ?(?:s|ms|us|px|%|\u00d7))?$')
bad = []


def svg_ticks(path):
    s = open(path, encoding="utf-8").read()
    m = re.search(r'<svg[^>]*\bwidth="([0-9.]+)"', s)
    if m and float(m.group(1)) > 940:
        bad.append(f"{path}: {m.group(1)} px wide (more than 940)")
    for size in re.findall(r'font-size="([0-9.]+)"', s):
        if float(size) < 10:
            bad.append(f"{path}: text at {size} px")
            break
    ticks = []   # (anchor, x, y, rotated, label)
    for g in re.finditer(r'<g transform="translate\(([-0-9.]+),([-0-9.]+)\)( rotate\([^)]*\))?"[^>]*?'
                         r'text-anchor="(\w+)"[^>]*>\s*<text>(.*?)</text>', s, re.S):
        label = re.sub(r'<[^>]+>', '', g.group(5)).strip()
        ticks.append((g.group(4), float(g.group(1)), float(g.group(2)), bool(g.group(3)), label))
    return ticks


def groups(ticks, anchor, coord):
    out = {}
    for a, x, y, rot, label in ticks:
        if a == anchor and not rot and (anchor == "end" or TICK.match(label)):
            out.setdefault(round(x if coord == "x" else y), []).append(label)
    return [g for g in out.values() if len(g) >= 2]


for svg in sorted(glob.glob(os.path.join(sys.argv[1], "*.svg"))):
    name = os.path.basename(svg)[:-4]
    ticks = svg_ticks(svg)
    for t in ticks:
        if re.search(r'[0-9]e[+-][0-9]', t[4]):
            bad.append(f"{name}: tick label in exponent notation: {t[4]}")
    ys = groups(ticks, "end", "x")
    xs = groups(ticks, "middle", "y")
    rotated = [t for t in ticks if t[3] and t[0] == "start"]
    if not ys:
        bad.append(f"{name}: no column of y tick labels")
    if not xs and not rotated:
        bad.append(f"{name}: no row of x tick labels")
    gp = open(svg[:-4] + ".gp", encoding="utf-8").read()
    body = gp.split("set output '%s.svg'" % name, 1)[-1].split("unset output", 1)[0]
    # gnuplot's state line by line (log axes, ticks, labels, formats carry over between a multiplot's panels),
    # checked at every plot command
    st = {"log": set(), "tics": {}, "label": {}, "fmt": {}}
    for line in body.split("\n"):
        m = re.match(r"(un)?set logscale (\w+)", line)
        if m:
            st["log"] = st["log"] - set(m.group(2)) if m.group(1) else st["log"] | set(m.group(2))
        m = re.match(r"set (x|y)tics (\(.*\)|autofreq)", line)
        if m:
            st["tics"][m.group(1)] = m.group(2) if m.group(2) != "autofreq" else None
        m = re.match(r"set (x|y)label '([^']*)'", line)
        if m:
            st["label"][m.group(1)] = m.group(2)
        m = re.match(r"set format (x|y) '([^']*)'", line)
        if m:
            st["fmt"][m.group(1)] = m.group(2)
        if not line.startswith("plot "):
            continue
        for ax in "xy":
            tics = st["tics"].get(ax)
            if ax in st["log"] and (not tics or len(tics.split(",")) < 3):
                bad.append(f"{name}: a log {ax} axis with fewer than three labelled ticks")
            label, fmt = st["label"].get(ax, ""), st["fmt"].get(ax, "")
            tl = re.findall(r'"([^"]*)" [-0-9.e+]+', tics) if tics else []
            if "share" in label:
                if "%%" not in fmt:
                    bad.append(f"{name}: {ax} axis '{label}' without % on its ticks")
            elif re.search(r"\b(wall|time)\b", label):
                if not (tl and all(re.search(r" (s|ms|us)$", x) for x in tl)) and " s" not in fmt:
                    bad.append(f"{name}: {ax} axis '{label}' without a time unit on its ticks")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
