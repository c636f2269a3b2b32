#!/usr/bin/env python3
"""Reads every mark passmap prints and recomputes it from the numbers printed in the same row, by the documented
rule (docs/statistics.md, pm_compare_decide): faster when the interval's upper end < 1 - t, slower when its lower
end > 1 + t, same when it lies within [1 - t, 1 + t], otherwise undecided; no interval: no test (n/a). A printed
number stands for every value that rounds to it, so a mark passes when some value behind the printed ends gives
it. The row's ratio must also be the ratio of the row's printed means, to their printed precision.

Usage: check_marks.py KIND FILE [THRESHOLD]
  KIND: compare-text, compare-json, report-text, report-json, summary (a file of summary lines, B vs A first),
  fix-json (passmap fix --json: each fix's verdict from its per-config counts, its run mark from its interval).
Prints one line per problem and "checked N marks"; exits 1 on a problem or when nothing was checked."""
import json
import re
import sys

T = float(sys.argv[3]) if len(sys.argv) > 3 else 0.02
problems, checked = [], 0

NUM = r"[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def num(text):
    """A printed number and half its last digit (what rounding may hide)."""
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?(?:e([+-]?[0-9]+))?", text)
    if not m:
        raise ValueError(text)
    dec = len(m.group(2) or "")
    exp = int(m.group(3) or 0)
    return float(text), 0.5 * 10 ** (exp - dec)


def quantity(cell):
    """A side's printed value: "884.14 ms [-12%, +14%]", "1.234 G instructions (n=2, no interval)"."""
    m = re.match(r"(" + NUM + r") (s|ms|us|ns)\b", cell)
    if m:
        v, h = num(m.group(1))
        return v * UNITS[m.group(2)], h * UNITS[m.group(2)]
    m = re.match(r"(" + NUM + r")(?: ([kMGT]))? instructions\b", cell)
    if m:
        v, h = num(m.group(1))
        f = PREFIX[m.group(2) or ""]
        return v * f, h * f
    m = re.match(r"([0-9]+)(?: |$)", cell)   # a count as a whole number (instructions decided)
    if m:
        return num(m.group(1))
    return None


def rule(lo, hi):
    if hi < 1 - T:
        return "faster"
    if lo > 1 + T:
        return "slower"
    if lo >= 1 - T and hi <= 1 + T:
        return "same"
    return "undecided"


def possible(lo, hlo, hi, hhi):
    return {rule(l, h) for l in (lo - hlo, lo, lo + hlo) for h in (hi - hhi, hi, hi + hhi) if l <= h}


def check_mark(where, mark, ci):
    """mark as printed, ci as printed ("[0.649, 0.943]", "n=2, no interval", "-")."""
    global checked
    mark = re.sub(r" \(~[0-9]+ runs/side(, [^)]*)?\)$", "", mark.strip())
    if mark in ("added", "removed", "below resolution", "not tested (outside the family)"):
        return
    m = re.fullmatch(r"\[(" + NUM + r"), (" + NUM + r")\]", ci.strip())
    checked += 1
    if not m:
        if mark != "n/a":
            problems.append(f"{where}: mark {mark!r} without an interval ({ci!r})")
        return
    (lo, hlo), (hi, hhi) = num(m.group(1)), num(m.group(2))
    want = possible(lo, hlo, hi, hhi)
    if mark == "no conclusion (contended)":
        return   # withheld by the contention rule: the interval is shown, no mark claimed
    if mark not in want:
        problems.append(f"{where}: mark {mark!r}, but the rule on {ci} gives {sorted(want)}")


def check_ratio(where, ratio_cell, a_cell, b_cell):
    global checked
    m = re.fullmatch(r"(" + NUM + r")\u00d7", ratio_cell.strip())
    a, b = quantity(a_cell.strip()), quantity(b_cell.strip())
    if not m or not a or not b:
        return
    r, hr = num(m.group(1))
    (av, ha), (bv, hb) = a, b
    lo, hi = (bv - hb) / (av + ha), (bv + hb) / (av - ha)
    checked += 1
    if r + hr < lo or r - hr > hi:
        problems.append(f"{where}: B/A {ratio_cell} is not {b_cell.strip()} / {a_cell.strip()} (= {bv / av:.4g})")


def cells(line):
    return re.split(r"\s{2,}", line.strip())


def compare_text(path):
    row = re.compile(r"^(?P<label>(?:compile|step|pass) .+?) +(?P<na>\d+|-) +(?P<nb>\d+|-) +(?P<a>" + NUM +
                     r" (?:s|ms|us|ns|[kMGT]? ?instructions)[^×]*?|-) +(?P<b>" + NUM +
                     r" (?:s|ms|us|ns|[kMGT]? ?instructions).*?|-) +(?P<ratio>" + NUM + r"×|-) +"
                     r"(?P<ci>\[[^\]]+\]|n=\d+, no interval|-) +(?P<delta>[+-]?" + NUM + r" (?:s|ms|us|ns)|-) +"
                     r"(?P<t>\S+) +(?P<df>\S+) +(?P<p>\S+) +(?P<mark>.+)$")
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        m = row.match(line.rstrip("\n"))
        if not m:
            continue
        where = f"{path}:{i} {m.group('label')}"
        check_mark(where, m.group("mark"), m.group("ci"))
        check_ratio(where, m.group("ratio"), m.group("a"), m.group("b"))


def json_rows(d):
    for c in d["configs"]:
        yield c["key"] + " wall", c["wall"]
        if "metric" in c:
            yield c["key"] + " metric", c["metric"]
        for r in c["steps"] + c["passes"]:
            yield f"{c['key']} {r['tool']} {r.get('pass', '')}", r


def check_json_stat(where, s):
    global checked
    if s.get("rule_verdict") == "below resolution":   # no test (under 10 ticks, or within the rounding)
        return
    if s["ci_lo"] is None or s["ci_hi"] is None:
        if s["p"] is not None:
            problems.append(f"{where}: tested without an interval")
        return
    checked += 1
    want = rule(s["ci_lo"], s["ci_hi"])
    if s["rule_verdict"] != want:
        problems.append(f"{where}: rule_verdict {s['rule_verdict']}, the rule gives {want}")
    if s["verdict"] not in (want, "no conclusion (contended)", "below resolution", "n/a"):
        problems.append(f"{where}: verdict {s['verdict']}, the rule gives {want}")
    if s["gmean_a"] and abs(s["ratio"] - s["gmean_b"] / s["gmean_a"]) > 1e-4 * s["ratio"]:
        problems.append(f"{where}: ratio {s['ratio']} is not gmean_b / gmean_a")


def compare_json(path):
    d = json.load(open(path))
    for where, s in json_rows(d):
        check_json_stat(where, s)


def report_text(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        cap = lines[i]
        if " per config by passmap compare " in cap and i + 1 < len(lines) and lines[i + 1].startswith("config"):
            head = cells(lines[i + 1])
            col = {h: k for k, h in enumerate(head)}
            for j in range(i + 2, len(lines)):
                if not lines[j].strip():
                    break
                c = cells(lines[j])
                if len(c) != len(head):
                    problems.append(f"{path}:{j + 1}: {len(c)} cells under {len(head)} headers (COLUMNS too narrow?)")
                    continue
                where = f"{path}:{j + 1} {c[0]}"
                check_mark(where, c[col["mark"]], c[col["95% CI"]])
                check_ratio(where, c[col["B/A"]], c[col["A"]], c[col["B"]])
                if "wall B/A" in col:   # another metric decided: the walls beside it are a ratio too
                    check_ratio(where + " (wall)", c[col["wall B/A"]], c[col["A wall"]], c[col["B wall"]])
            if "decided on: " not in cap:
                problems.append(f"{path}:{i + 1}: the A/B caption does not say what decided")
        i += 1


def report_json(path):
    d = json.load(open(path))
    for comp in d["ab"]["comparisons"]:
        for c in comp["configs"]:
            if c["decided_on"] != comp["summary"]["decided_on"]:
                problems.append(f"{c['key']}: decided_on {c['decided_on']} != the summary's")
            check_json_stat(c["key"] + " decided", c["decided"])


def summary(path):
    """ "fp16 vs int8: 1.19× slower [1.08, 1.31] on cpu time, 7 of 7 configs decided": a faster B is printed as
    A/B with its interval turned, so the rule reads the interval back as B/A. """
    global checked
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.search(r": (?:(?P<word>same|undecided), )?(?P<r>" + NUM + r")× (?P<dir>faster |slower )?\[(?P<lo>" +
                      NUM + r"), (?P<hi>" + NUM + r")\] on ", line)
        if not m:
            continue
        checked += 1
        (lo, hlo), (hi, hhi) = num(m.group("lo")), num(m.group("hi"))
        word = (m.group("dir") or "").strip() or m.group("word")
        if word == "faster":   # printed as A/B: back to B/A, the rounding carried through the inverse
            lo, hi, hlo, hhi = 1 / hi, 1 / lo, hhi / hi ** 2, hlo / lo ** 2
        want = possible(lo, hlo, hi, hhi)
        if word not in want:
            problems.append(f"{path}:{i}: summary says {word!r}, the rule on its interval gives {sorted(want)}")


def fix_json(path):
    """passmap fix --json: a fix's verdict from its own row's per-config counts (docs/json.md): slower when any
    config is slower; faster when every config is decided, one at least faster; no effect when every config is the
    same; undecided while any is undecided. The run-time mark (run) from its interval, as compare's. """
    global checked
    d = json.load(open(path))
    for r in d["results"] + ([d["recommended"]] if d.get("recommended") else []):
        v, cv = r["verdict"], r.get("config_verdicts")
        if not cv or v in ("not run", "changes output", "no conclusion (contended)") or r.get("earlier"):
            continue
        checked += 1
        n = sum(cv.values())
        want = ("slower" if cv["slower"] else "undecided" if cv["undecided"] else
                "no effect" if cv["same"] == n else "faster" if cv["faster"] and not cv["untested"] else None)
        if want and v != want:
            problems.append(f"{r.get('name', r.get('variant'))}: verdict {v}, its configs {cv} give {want}")
        run = r.get("run")
        if run and run.get("ci_lo") is not None:
            check_json_stat(f"{r.get('name')} run", dict(run, rule_verdict=rule(run["ci_lo"], run["ci_hi"]),
                                                           p=1, gmean_a=None))


{"compare-text": compare_text, "compare-json": compare_json, "report-text": report_text,
 "report-json": report_json, "summary": summary, "fix-json": fix_json}[sys.argv[1]](sys.argv[2])
for p in problems:
    print(p)
print(f"checked {checked} marks")
sys.exit(1 if problems or not checked else 0)
