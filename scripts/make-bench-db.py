#!/usr/bin/python3
"""Builds results databases for the report's e2e test and benchmark from REAL compiler timing reports.

  make-bench-db.py e2e OUT.db    real mlir-opt / mlir-translate / llc compiles of tiny matmuls (2 families x
                                 3 sizes x 2 windows x 2 precisions, 2 cold repeats + 1 warm), one DB row per run
  make-bench-db.py bench OUT.db  150 configs x 10 repeats: real reports of a few compiles, replayed per config with
                                 time scaled by the config's size (the pass names, counts and shapes are real)

Schema as documented in lib/store.h (until lib/store.c lands, this script writes it itself). Reports are parsed
here with a small regex parser; the product's parsers live in lib/parse_*.c.
"""
import os, random, re, resource, sqlite3, subprocess, sys, tempfile, time

BIN = os.environ.get("PASSMAP_LLVM_BINDIR", "/usr/lib/llvm-22/bin")
SCHEMA = """
CREATE TABLE sweep(id INTEGER PRIMARY KEY, name TEXT UNIQUE, backend TEXT, spec_text TEXT, meta_json TEXT, created_at TEXT);
CREATE TABLE config(id INTEGER PRIMARY KEY, sweep_id INT, key TEXT, kind TEXT, family TEXT, size TEXT, window INT,
  precision TEXT, resolution INT, layers INT, variant TEXT, params_json TEXT, UNIQUE(sweep_id, key));
CREATE TABLE run(id INTEGER PRIMARY KEY, config_id INT, repeat INT, mode TEXT, status TEXT, wall_s REAL, user_s REAL,
  sys_s REAL, maxrss_kb INT, started_at TEXT, note TEXT);
CREATE TABLE step(id INTEGER PRIMARY KEY, run_id INT, seq INT, tool TEXT, argv TEXT, status TEXT, wall_s REAL,
  user_s REAL, sys_s REAL, maxrss_kb INT, instructions INT, exit_code INT, term_signal INT, report_format TEXT,
  report_wall_s REAL, stderr_tail TEXT);
CREATE TABLE pass_time(step_id INT, idx INT, name TEXT, section TEXT, parent_idx INT, depth INT, wall_s REAL,
  user_s REAL, flags INT, report_index INT);
CREATE INDEX pass_time_step ON pass_time(step_id);
CREATE TABLE metric(run_id INT, step_id INT, name TEXT, value REAL);
"""
GROUP, ANALYSIS, SUMMARY, DETAIL = 1, 2, 4, 8
MLIR_ROW = re.compile(r"^\s+(?:([\d.]+) \(\s*[\d.]+%\)\s+)?([\d.]+) \(\s*[\d.]+%\)\s{2}(\s*)(\S.*)$")
LLVM_ROW = re.compile(r"^\s+([\d.]+) \(\s*[\d.]+%\)\s+([\d.]+) \(\s*[\d.]+%\)\s+([\d.]+) \(\s*[\d.]+%\)\s+([\d.]+) \(\s*[\d.]+%\)\s+(\S.*)$")

def parse_mlir(text):
    rows = []
    for line in text.splitlines():
        m = MLIR_ROW.match(line)
        if not m:
            continue
        user, wall, _, name = m.groups()
        flags = 0
        if name.startswith("(A) "):
            name, flags = name[4:], ANALYSIS
        if name in ("root", "Total", "Rest", "Parser", "Output"):
            flags = SUMMARY
        elif name.endswith("Pipeline") or name.startswith("Pipeline Collection"):
            flags = GROUP
        rows.append((name, float(wall), float(user) if user else -1.0, flags))
    return rows

def parse_llvm(text):
    rows, section = [], None
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("-") and not s.startswith("=") and "Total Execution Time" not in s and not LLVM_ROW.match(line):
            section = s
        m = LLVM_ROW.match(line)
        if not m:
            continue
        user, _, _, wall, name = m.groups()
        flags = 0 if section == "Pass execution timing report" else DETAIL
        if name == "Total":
            flags = SUMMARY
        rows.append((name, float(wall), float(user), flags))
    return rows

def timed(argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        raise SystemExit("failed: %s\n%s" % (" ".join(argv), p.stderr[-2000:]))
    return wall, (r1.ru_utime - r0.ru_utime), (r1.ru_stime - r0.ru_stime), p.stderr

def workload(family, n, prec):
    t = "f32" if prec == "f32" else "f16"
    if family == "matmul":
        return (f"func.func @f(%a: tensor<{n}x{n}x{t}>, %b: tensor<{n}x{n}x{t}>, %c: tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}> {{\n"
                f"  %0 = linalg.matmul ins(%a, %b : tensor<{n}x{n}x{t}>, tensor<{n}x{n}x{t}>) outs(%c : tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}>\n"
                f"  return %0 : tensor<{n}x{n}x{t}>\n}}\n")
    return (f"#m = affine_map<(i, j) -> (i, j)>\n"
            f"func.func @f(%a: tensor<{n}x{n}x{t}>, %c: tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}> {{\n"
            f"  %0 = linalg.generic {{indexing_maps = [#m, #m], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins(%a : tensor<{n}x{n}x{t}>) outs(%c : tensor<{n}x{n}x{t}>) {{\n"
            f"  ^bb0(%x: {t}, %y: {t}):\n    %s = arith.mulf %x, %x : {t}\n    %r = arith.addf %s, %y : {t}\n"
            f"    linalg.yield %r : {t}\n  }} -> tensor<{n}x{n}x{t}>\n  return %0 : tensor<{n}x{n}x{t}>\n}}\n")

def pipeline(tile):
    return ("builtin.module(func.func(linalg-generalize-named-ops,canonicalize,cse),"
            "one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map},"
            f"func.func(convert-linalg-to-affine-loops,affine-loop-tile{{tile-size={tile}}},canonicalize,"
            "affine-loop-unroll{unroll-factor=-1 unroll-full-threshold=16},canonicalize,cse,lower-affine),"
            "convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-arith-to-llvm,"
            "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)")

def count_ops(path):
    # ops of the emitted MLIR: lines that define or are an operation (rough but from the real IR)
    n = 0
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s and not s.startswith(("}", "^", "//", "#", "module")) and ("=" in s or s.startswith(("llvm.", "func.", "return"))):
                n += 1
    return n

def compile_once(tmp, family, n, tile, prec):
    src = os.path.join(tmp, "in.mlir")
    with open(src, "w") as f:
        f.write(workload(family, n, prec))
    out, ll, obj = (os.path.join(tmp, x) for x in ("out.mlir", "out.ll", "out.o"))
    steps = []
    a1 = [f"{BIN}/mlir-opt", src, f"--pass-pipeline={pipeline(tile)}", "--mlir-timing", "--mlir-timing-display=list", "-o", out]
    w, u, s, err = timed(a1)
    steps.append(("mlir-opt", a1, w, u, s, "mlir-text", parse_mlir(err)))
    a2 = [f"{BIN}/mlir-translate", "--mlir-to-llvmir", out, "-o", ll]
    w, u, s, err = timed(a2)
    steps.append(("mlir-translate", a2, w, u, s, None, []))
    a3 = [f"{BIN}/llc", "-O2", "-filetype=obj", "-time-passes", ll, "-o", obj]
    w, u, s, err = timed(a3)
    steps.append(("llc", a3, w, u, s, "llvm-text", parse_llvm(err)))
    return steps, count_ops(src), count_ops(out)

def insert_run(db, cfg, rep, mode, steps, metrics):
    wall = sum(s[2] for s in steps); user = sum(s[3] for s in steps); sysv = sum(s[4] for s in steps)
    cur = db.execute("INSERT INTO run(config_id,repeat,mode,status,wall_s,user_s,sys_s,maxrss_kb) VALUES(?,?,?,?,?,?,?,0)",
                     (cfg, rep, mode, "ok", wall, user, sysv))
    rid = cur.lastrowid
    for seq, (tool, argv, w, u, s, fmt, rows) in enumerate(steps):
        sid = db.execute("INSERT INTO step(run_id,seq,tool,argv,status,wall_s,user_s,sys_s,exit_code,term_signal,report_format)"
                         " VALUES(?,?,?,?,?,?,?,?,0,0,?)", (rid, seq, tool, " ".join(argv), "ok", w, u, s, fmt)).lastrowid
        db.executemany("INSERT INTO pass_time VALUES(?,?,?,NULL,-1,0,?,?,?,0)",
                       [(sid, i, r[0], r[1], r[2], r[3]) for i, r in enumerate(rows)])
    db.executemany("INSERT INTO metric VALUES(?,NULL,?,?)", [(rid, k, v) for k, v in metrics.items()])

def new_db(path, name):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    meta = '{"compiler":"%s","machine":"%s","cold":"fresh process per compile, no cache"}' % (
        next(l.strip() for l in subprocess.run([f"{BIN}/llc", "--version"], capture_output=True, text=True).stdout.splitlines()
             if "LLVM version" in l),
        os.uname().machine)
    db.execute("INSERT INTO sweep(id,name,backend,meta_json) VALUES(1,?,?,?)", (name, "embedded", meta))
    return db

def add_config(db, family, size, window, prec, variant="stock"):
    key = f"llm/{family}/{size}/w{window}/{prec}/{variant}"
    return db.execute("INSERT INTO config(sweep_id,key,kind,family,size,window,precision,resolution,layers,variant)"
                      " VALUES(1,?,?,?,?,?,?,0,1,?)", (key, "llm", family, size, window, prec, variant)).lastrowid

def e2e(path):
    db = new_db(path, "e2e")
    with tempfile.TemporaryDirectory() as tmp:
        for family in ("matmul", "square-add"):
            for n in (4, 8, 12):
                for tile in (2, 4):
                    for prec in ("f32", "f16"):
                        cfg = add_config(db, family, str(n), tile, prec)
                        for rep in range(2):
                            steps, ops_in, ops_out = compile_once(tmp, family, n, tile, prec)
                            insert_run(db, cfg, rep, "cold", steps, {"ir.ops": ops_in, "ir.llvm_ops": ops_out})
                        # "warm": the recompile a cache hit costs is only the process start of one tool
                        w, u, s, _ = timed([f"{BIN}/llc", "--version"])
                        insert_run(db, cfg, 0, "warm", [("llc", ["llc", "--version"], w, u, s, None, [])], {})
    db.commit()

def bench(path):
    """Real reports of 3 sizes, replayed for 150 configs x 10 repeats with a size-proportional scale."""
    db = new_db(path, "bench")
    real = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (4, 8, 12):
            real[n] = compile_once(tmp, "matmul", n, 4, "f32")
    rnd = random.Random(1)
    fams = ("qwen2", "llama3.2", "phi3", "gemma2", "tinyllama")
    sizes = ("0.5b", "1b", "1.5b", "3b", "7b")
    windows = (128, 256, 512, 1024, 2048, 4096)
    cfg_n = 0
    for fam in fams:
        for si, size in enumerate(sizes):
            for wi, window in enumerate(windows):
                cfg = add_config(db, fam, size, window, "int8")
                cfg_n += 1
                base = (4, 8, 12)[min(2, (si + wi) // 3)]
                steps0, ops_in, ops_out = real[base]
                scale = (1 + si) * (1 + wi) / 4
                for rep in range(10):
                    steps = []
                    for tool, argv, w, u, s, fmt, rows in steps0:
                        j = lambda v: v * scale * rnd.uniform(0.95, 1.05)
                        steps.append((tool, argv, j(w), j(u), s, fmt, [(r[0], j(r[1]), j(r[2]) if r[2] >= 0 else -1, r[3]) for r in rows]))
                    insert_run(db, cfg, rep, "cold", steps, {"ir.ops": ops_in * scale, "ir.llvm_ops": ops_out * scale})
    db.commit()
    print(f"{path}: {cfg_n} configs x 10 repeats, {sum(len(s[6]) for s in real[12][0])} passes per run", file=sys.stderr)

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("e2e", "bench"):
        raise SystemExit(__doc__)
    (e2e if sys.argv[1] == "e2e" else bench)(sys.argv[2])
