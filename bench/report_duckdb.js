#!/usr/bin/env node
// Peer for bench/report.sh: the aggregation bench/report_ref.py makes in pandas, in DuckDB over Parquet.
//
//   report_duckdb.js export DB DIR       the rows report_ref.py reads, from DB to DIR/*.parquet (once per store,
//                                        not timed: sqlite3 -csv, then DuckDB's COPY ... TO (FORMAT parquet))
//   report_duckdb.js DIR STAGEMAP.tsv... the aggregation over DIR's Parquet (timed): per run the stage sums and
//                                        process overhead, per config the mean share and its 95% t interval,
//                                        dominant stage and pass, per-pass means, the log-log fit of the heavy
//                                        passes against IR size; prints report_ref.py's one-line summary
//
// Passes map to stages as report_ref.py maps them: fnmatch globs, first match wins, over the distinct
// (tool, pass) pairs (a few hundred), in JavaScript; everything over rows is SQL.
// DuckDB comes from npm (@duckdb/node-api, whose platform package carries the binary), installed by
// scripts/install-deps.sh bench into build/duckdb: DUCKDB_NODE_DIR names another folder.
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');
const { createRequire } = require('module');

const nodeDir = process.env.DUCKDB_NODE_DIR || path.join(__dirname, '..', 'build', 'duckdb');
const { DuckDBInstance } = createRequire(path.join(nodeDir, 'package.json'))('@duckdb/node-api');

const TABLES = {
  sweep: 'SELECT id FROM sweep',
  config: 'SELECT id, sweep_id FROM config',
  run: 'SELECT id, config_id, mode, status, wall_s FROM run',
  step: 'SELECT id, run_id, tool FROM step',
  pass_time: 'SELECT step_id, name_id, wall_s, user_s, counted FROM pass_time',
  pass_name: 'SELECT id, name FROM pass_name',
  metric: 'SELECT run_id, name, value FROM metric',
};

function sq(s) { return "'" + String(s).replace(/'/g, "''") + "'"; }

async function exportParquet(db, dir, con) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [t, sql] of Object.entries(TABLES)) {
    const csv = path.join(dir, t + '.csv');
    const out = fs.openSync(csv, 'w');
    execFileSync('sqlite3', ['-csv', '-header', db, sql], { stdio: ['ignore', out, 'inherit'] });
    fs.closeSync(out);
    await con.run(`COPY (SELECT * FROM read_csv(${sq(csv)}, header = true)) TO ${sq(path.join(dir, t + '.parquet'))} (FORMAT parquet)`);
    fs.unlinkSync(csv);
  }
}

// fnmatch (no flags) as a RegExp: * ? [...] like Python's fnmatch.fnmatchcase.
function globRe(g) {
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = g.indexOf(']', i + 2);
      if (j < 0) { re += '\\['; continue; }
      let body = g.slice(i + 1, j);
      if (body[0] === '!') body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = j;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp('^' + re + '$', 's');
}

function loadMap(files) {
  const rules = [];
  for (const f of files)
    for (let line of fs.readFileSync(f, 'utf8').split('\n')) {
      line = line.split('#', 1)[0].trim();
      if (!line) continue;
      const [tool, pat, stage] = line.split('\t').map((s) => s.trim());
      rules.push([globRe(tool), globRe(pat), stage]);
    }
  return rules;
}

async function aggregate(dir, mapFiles, con) {
  const pq = (t) => sq(path.join(dir, t + '.parquet'));
  const rules = loadMap(mapFiles);
  const all = async (sql) => (await con.runAndReadAll(sql)).getRowObjects();
  await con.run(`CREATE TEMP TABLE runs AS SELECT r.id AS run_id, r.config_id, r.wall_s FROM ${pq('run')} r
    JOIN ${pq('config')} c ON c.id = r.config_id
    WHERE c.sweep_id = (SELECT max(id) FROM ${pq('sweep')}) AND r.status = 'ok' AND r.mode = 'cold'`);
  await con.run(`CREATE TEMP TABLE df AS SELECT s.run_id, r.config_id, s.tool, n.name, p.wall_s, p.user_s
    FROM ${pq('pass_time')} p JOIN ${pq('pass_name')} n ON n.id = p.name_id JOIN ${pq('step')} s ON s.id = p.step_id
    JOIN runs r ON r.run_id = s.run_id WHERE p.counted = 1`);
  const names = await all('SELECT DISTINCT tool, name FROM df');
  const vals = names.map(({ tool, name }) => {
    let stage = 'other';
    for (const [t, p, s] of rules)
      if (t.test(tool) && p.test(name)) { stage = s; break; }
    return `(${sq(tool)}, ${sq(name)}, ${sq(stage)})`;
  });
  await con.run('CREATE TEMP TABLE stage_of(tool VARCHAR, name VARCHAR, stage VARCHAR)');
  for (let i = 0; i < vals.length; i += 1000)
    await con.run('INSERT INTO stage_of VALUES ' + vals.slice(i, i + 1000).join(','));
  // per run and stage (every stage of the sweep in every run, 0 when absent), plus the process overhead
  await con.run(`CREATE TEMP TABLE per_stage AS
    WITH sums AS (SELECT d.run_id, m.stage, sum(d.wall_s) AS s FROM df d JOIN stage_of m USING (tool, name) GROUP BY ALL),
    stages AS (SELECT DISTINCT stage FROM sums),
    grid AS (SELECT r.run_id, r.config_id, r.wall_s, st.stage, coalesce(x.s, 0) AS s FROM runs r CROSS JOIN stages st
             LEFT JOIN sums x ON x.run_id = r.run_id AND x.stage = st.stage),
    tot AS (SELECT run_id, config_id, wall_s, sum(s) AS pass_sum FROM grid GROUP BY ALL)
    SELECT run_id, config_id, stage, s FROM grid
    UNION ALL SELECT run_id, config_id, 'process-overhead', greatest(wall_s - pass_sum, 0) FROM tot`);
  await con.run(`CREATE TEMP TABLE ci AS
    WITH d AS (SELECT run_id, sum(s) AS denom FROM per_stage GROUP BY run_id),
    sh AS (SELECT p.config_id, p.stage, p.s / CASE WHEN d.denom > 0 THEN d.denom ELSE 1 END AS share
           FROM per_stage p JOIN d USING (run_id)),
    g AS (SELECT config_id, stage, avg(share) AS mean, stddev_samp(share) AS sd, count(*) AS n FROM sh GROUP BY ALL)
    SELECT config_id, stage, mean, sd * 2.262 / sqrt(n) AS half FROM g`);   // t(0.975, 9): report_ref.py's fallback
  const dominant = await all(`SELECT stage, count(*) AS n FROM (SELECT config_id, arg_max(stage, mean) AS stage
    FROM ci GROUP BY config_id) GROUP BY stage ORDER BY n DESC, stage`);
  const counts = (await all('SELECT count(DISTINCT config_id) AS configs FROM ci'))[0];
  await con.run(`CREATE TEMP TABLE per_pass AS
    WITH n AS (SELECT config_id, count(*) AS n, avg(wall_s) AS wall FROM runs GROUP BY config_id)
    SELECT d.config_id, d.tool, d.name, sum(d.wall_s) / any_value(n.n) AS s, sum(d.wall_s) / any_value(n.n) / any_value(n.wall) AS share
    FROM df d JOIN n USING (config_id) GROUP BY ALL`);
  const dompass = await all('SELECT count(*) AS n FROM (SELECT config_id, arg_max(name, s) FROM per_pass GROUP BY config_id)');
  const heavy = await all(`SELECT tool, name, max(share) AS m FROM per_pass GROUP BY ALL HAVING max(share) >= 0.05
    ORDER BY m DESC LIMIT 8`);
  await con.run(`CREATE TEMP TABLE metrics AS SELECT r.config_id, m.name, avg(m.value) AS v FROM ${pq('metric')} m
    JOIN ${pq('run')} r ON r.id = m.run_id WHERE r.mode = 'cold' GROUP BY ALL`);
  const fits = [];
  for (const { tool, name } of heavy) {
    const rows = await all(`SELECT m.name AS metric, regr_slope(ln(p.s), ln(m.v)) AS b, regr_r2(ln(p.s), ln(m.v)) AS r2,
        count(*) AS n, count(DISTINCT m.v) AS nx
      FROM per_pass p JOIN metrics m ON m.config_id = p.config_id AND m.name IN ('ir.ops', 'ir.llvm_ops')
      WHERE p.tool = ${sq(tool)} AND p.name = ${sq(name)} AND m.v > 0 AND p.s > 0 GROUP BY m.name ORDER BY m.name DESC`);
    let best = null;
    for (const r of rows)
      if (Number(r.n) >= 3 && Number(r.nx) >= 3 && (!best || r.r2 > best.r2)) best = r;
    if (best) fits.push(`${name}:${best.b.toFixed(3)}`);
  }
  const dom = dominant.map((x) => `${sq(x.stage)}: ${Number(x.n)}`).join(', ');
  console.log(`configs=${Number(counts.configs)} dominant={${dom}} fits=${fits.join(', ')} ` +
    `ci_rows=${Number(counts.configs)} dompass=${Number(dompass[0].n)}`);
}

async function main() {
  const args = process.argv.slice(2);
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  if (args[0] === 'export' && args.length === 3) await exportParquet(args[1], args[2], con);
  else if (args.length >= 2 && args[0] !== 'export') await aggregate(args[0], args.slice(1), con);
  else {
    console.error('usage: report_duckdb.js export DB DIR | report_duckdb.js DIR STAGEMAP.tsv...');
    process.exit(2);
  }
}

main().catch((e) => { console.error('report_duckdb.js: ' + (e && e.message ? e.message : e)); process.exit(1); });
