#!/usr/bin/env bash
# A store on a network filesystem gets SQLite's rollback journal, not WAL (whose shared-memory index only one
# host shares). NFS, CIFS, Lustre and the other kernel filesystems cannot be mounted on the test machine (no such
# kernel module): their statfs magic numbers are tested in tests/unit/test_journal.c. FUSE can be: here a real
# FUSE mount made by rclone (type fuse.rclone; rclone's local back end, so no server is needed), which passmap
# tells from a local FUSE filesystem by the mount's type in /proc/self/mountinfo. Needs root, rclone and fusermount3
# (scripts/install-deps.sh test); prints a SKIP line without them, and fails in CI (CI=true).
source "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
skip_or_fail() {
  if [ "${CI:-}" = true ]; then fail "FUSE mount not possible in CI: $1"; else echo "ok $((_n + 1)) - # SKIP no FUSE mount here: $1"; _n=$((_n + 1)); fi
  finish; exit
}
cat > s.ini <<'INI'
[sweep]
name = jr
backend = command
repeats = 1
[matrix m]
t = 1
[step s]
argv = sh -c "cat '{spec_dir}/report.txt' >&2"
INI
cp "$ROOT/tests/fixtures/mlir/list-single.txt" report.txt
# a local folder first: WAL
"$PASSMAP" sweep --quiet --db local.db s.ini > local.out 2>&1
[ "$(sqlite3 local.db 'pragma journal_mode')" = wal ] && ok "a store on a local filesystem: WAL" \
  || { fail "local store: $(sqlite3 local.db 'pragma journal_mode')"; sed 's/^/#   /' local.out; }

[ "$(id -u)" -eq 0 ] || skip_or_fail "not root"
command -v rclone > /dev/null && command -v fusermount3 > /dev/null || skip_or_fail "rclone or fusermount3 missing"
[ -c /dev/fuse ] || skip_or_fail "no /dev/fuse"
mkdir -p src mnt cache
: > rclone.conf
rclone mount "$TMP/src" "$TMP/mnt" --config "$TMP/rclone.conf" --cache-dir "$TMP/cache" --vfs-cache-mode writes \
  > rclone.log 2>&1 &
rclone_pid=$!
trap 'fusermount3 -u "$TMP/mnt" 2> /dev/null; wait "$rclone_pid" 2> /dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 80); do grep -q " $TMP/mnt .* - fuse.rclone " /proc/self/mountinfo && break; sleep 0.25; done
grep -q " $TMP/mnt .* - fuse.rclone " /proc/self/mountinfo || { sed 's/^/#   /' rclone.log; skip_or_fail "rclone mount did not come up"; }
ok "FUSE mount of type fuse.rclone at $TMP/mnt"
cp s.ini report.txt mnt/
"$PASSMAP" sweep --quiet --db mnt/j.db mnt/s.ini > fuse.out 2>&1; rc=$?
mode=$(sqlite3 mnt/j.db 'pragma journal_mode' 2>&1)
[ "$rc" = 0 ] && [ "$mode" = delete ] && ok "a store on a network FUSE filesystem: the rollback journal (delete)" \
  || { fail "store on fuse.rclone: rc=$rc journal_mode=$mode"; sed 's/^/#   /' fuse.out; }
[ "$(sqlite3 mnt/j.db 'select count(*) from run where status = "ok"')" = 1 ] && ok "the sweep's run is stored there" \
  || fail "runs on the FUSE store: $(sqlite3 mnt/j.db 'select status from run' 2>&1)"
PASSMAP_JOURNAL=wal "$PASSMAP" sweep --quiet --db mnt/w.db mnt/s.ini > w.out 2>&1
[ "$(sqlite3 mnt/w.db 'pragma journal_mode' 2>&1)" = wal ] && ok "PASSMAP_JOURNAL=wal overrides the detection" \
  || { fail "PASSMAP_JOURNAL=wal on FUSE"; sed 's/^/#   /' w.out; }
finish
