#!/usr/bin/python3
"""Builds the report benchmark's database: 150 configs x 10 cold repeats (~250 counted passes per run, 3 steps
each), replayed from a real sweep: tests/fixtures/report/e2e-sweep.sql.gz (`passmap sweep` output, so passmap's
own schema, parsers and pass names). Config i copies the cold runs of real config i mod n, with its times scaled
by a per-config factor (a bigger "model") and jittered per repeat; one warm run each, for the cache ratio.

  make-bench-db.py OUT.db
"""
import gzip, os, random, sqlite3, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "report", "e2e-sweep.sql.gz")
CONFIGS = int(os.environ.get("BENCH_CONFIGS", "150"))
REPEATS = 10


def main(out):
    if os.path.exists(out):
        os.unlink(out)
    db = sqlite3.connect(out)
    with gzip.open(FIXTURE, "rt") as f:
        db.executescript(f.read())
    rnd = random.Random(1)
    src = db.execute("SELECT id, kind, family, size, window, precision, resolution, layers, variant FROM config "
                     "ORDER BY id").fetchall()
    db.execute("INSERT INTO sweep(name, backend, spec_text, meta_json) SELECT 'bench', backend, spec_text, meta_json "
               "FROM sweep LIMIT 1")
    sweep = db.execute("SELECT id FROM sweep WHERE name='bench'").fetchone()[0]
    for i in range(CONFIGS):
        cid, kind, family, size, window, prec, res, layers, variant = src[i % len(src)]
        generation = i // len(src)
        scale = 1.0 + 0.35 * generation
        if kind == "llm":
            size = "%gb" % (float(size.rstrip("b")) * scale)
        else:
            res = (res or 224) + 32 * generation
        key = "%s/%s/%s/%s/%s/g%d" % (kind, family, size, window or res, prec, generation)
        new_cfg = db.execute("INSERT INTO config(sweep_id, key, kind, family, size, window, precision, resolution, "
                             "layers, variant) VALUES(?,?,?,?,?,?,?,?,?,?)",
                             (sweep, key, kind, family, size, window, prec, res, layers, variant)).lastrowid
        cold = [r[0] for r in db.execute("SELECT id FROM run WHERE config_id=? AND mode='cold' AND status='ok'", (cid,))]
        warm = [r[0] for r in db.execute("SELECT id FROM run WHERE config_id=? AND mode='warm'", (cid,))]
        plan = [(cold[r % len(cold)], r, "cold") for r in range(REPEATS)] + [(w, 0, "warm") for w in warm[:1]]
        for run, repeat, mode in plan:
            f = scale * rnd.uniform(0.95, 1.05)
            new_run = db.execute("INSERT INTO run(config_id, repeat, mode, status, wall_s, user_s, sys_s, maxrss_kb, "
                                 "started_at, note) SELECT ?, ?, mode, status, wall_s*?, user_s*?, sys_s*?, maxrss_kb, "
                                 "started_at, note FROM run WHERE id=?", (new_cfg, repeat, f, f, f, run)).lastrowid
            for (step,) in db.execute("SELECT id FROM step WHERE run_id=? ORDER BY seq", (run,)).fetchall():
                new_step = db.execute(
                    "INSERT INTO step(run_id, seq, tool, argv, status, wall_s, user_s, sys_s, maxrss_kb, instructions, "
                    "exit_code, term_signal, report_format, report_wall_s, stderr_tail) SELECT ?, seq, tool, argv, "
                    "status, wall_s*?, user_s*?, sys_s*?, maxrss_kb, instructions, exit_code, term_signal, "
                    "report_format, report_wall_s*?, stderr_tail FROM step WHERE id=?", (new_run, f, f, f, f, step)
                ).lastrowid
                db.execute("INSERT INTO pass_time(step_id, idx, name, section, parent_idx, depth, wall_s, user_s, "
                           "flags, report_index, counted) SELECT ?, idx, name, section, parent_idx, depth, wall_s*?, "
                           "user_s*?, flags, report_index, counted FROM pass_time WHERE step_id=?", (new_step, f, f, step))
            db.execute("INSERT INTO metric(run_id, step_id, name, value) SELECT ?, NULL, name, "
                       "CASE WHEN name LIKE 'ir.%' THEN value*? ELSE value END FROM metric WHERE run_id=? "
                       "AND step_id IS NULL", (new_run, scale, run))
    # Only the replayed sweep stays: the report and the pandas reference both read the latest sweep.
    db.execute("DELETE FROM sweep WHERE name != 'bench'")
    for t in ("pass_time WHERE step_id NOT IN (SELECT id FROM step WHERE run_id IN (SELECT r.id FROM run r JOIN "
              "config c ON c.id=r.config_id WHERE c.sweep_id=%d))" % sweep,
              "metric WHERE run_id NOT IN (SELECT r.id FROM run r JOIN config c ON c.id=r.config_id WHERE c.sweep_id=%d)" % sweep,
              "step WHERE run_id NOT IN (SELECT r.id FROM run r JOIN config c ON c.id=r.config_id WHERE c.sweep_id=%d)" % sweep,
              "run WHERE config_id NOT IN (SELECT id FROM config WHERE sweep_id=%d)" % sweep,
              "config WHERE sweep_id != %d" % sweep):
        db.execute("DELETE FROM " + t)
    db.commit()
    n_runs, n_pass = db.execute("SELECT (SELECT count(*) FROM run WHERE mode='cold'), (SELECT count(*) FROM pass_time "
                                "WHERE counted)").fetchone()
    # a .dump carries neither stamp: without them compare (and so the report's A/B) refuses the file
    db.execute("PRAGMA application_id = %d" % 0x706d6170)
    db.execute("PRAGMA user_version = 1")   # the fixture's schema; passmap migrates it when it opens it
    db.execute("VACUUM")
    db.close()
    print("%s: %d configs, %d cold runs, %.0f counted passes per run" % (out, CONFIGS, n_runs, n_pass / n_runs))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-bench-db.py OUT.db")
    main(sys.argv[1])
