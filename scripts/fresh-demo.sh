#!/usr/bin/env bash
# `make demo` on a fresh Debian, run as the README's quick start says (issue 23): a minimal Debian of this
# machine's release (debootstrap --variant=minbase, with the apt sources of Debian's container image) in DIR, a
# clean `git archive` of HEAD in root's home of the chroot (~/passmap), the README's commands in a chroot from a login shell as root
# (a container's user: no sudo). Then: the packages the demo installed (dpkg before/after) with their size, the
# time of each command, and whether the report came out. Downloads a few hundred MB, so make test never runs it;
# docs/fresh-debian.md has the last result.
# Usage: scripts/fresh-demo.sh [--keep] DIR      (as root; DIR must not exist yet)
#   --keep       leave DIR afterwards (unmounted), e.g. to open DIR/root/passmap/demo-out/report.html
#   MIRROR=URL   the Debian mirror (default http://deb.debian.org/debian); RELEASE=NAME (default: this machine's)
#   TIMEOUT=SEC  limit of each command in the chroot (default 10800)
# Exit 0 when the report came out and none of the test or bench extras was installed.
set -euo pipefail
export LC_ALL=C   # sort and join agree on the order of package names
keep=0
dir=""
for a in "$@"; do
  case "$a" in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fresh-demo.sh: unknown option '$a' (--keep, --help)" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "fresh-demo.sh: one DIR only" >&2; exit 2; }; dir=$a ;;
  esac
done
die() { echo "fresh-demo.sh: $*" >&2; exit 1; }
[ -n "$dir" ] || { echo "usage: scripts/fresh-demo.sh [--keep] DIR   (see --help)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "debootstrap and chroot need root: run it as root"
[ -e "$dir" ] && die "$dir exists: give a folder that does not exist yet (it is removed afterwards)"
case "$dir" in *[[:space:]]*) die "'$dir': a folder without spaces, please (mount points are compared by name)" ;; esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
release=${RELEASE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[ -n "$release" ] || die "no VERSION_CODENAME in /etc/os-release: set RELEASE (e.g. RELEASE=bookworm)"
limit=${TIMEOUT:-10800}
work=$(mktemp -d)

mounts_under() { awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
cleanup() {
  # what the run left inside (nothing, when the demo's packages start no service): ended by its id
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$dir" ] && kill "${p#/proc/}" 2>/dev/null && echo "ended process ${p#/proc/} left in $dir"
  done
  local m
  for m in $(mounts_under); do umount "$m" || umount -l "$m" || true; done
  if [ -n "$(mounts_under)" ]; then   # never delete through a bind mount of /dev
    echo "fresh-demo.sh: still mounted under $dir, not removed: $(mounts_under | tr '\n' ' ')" >&2
  elif [ "$keep" = 1 ]; then
    echo "kept: $dir (unmounted)"
  else
    rm -rf "$dir"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v debootstrap >/dev/null || { echo "installing debootstrap"; apt-get install -y -qq debootstrap >/dev/null; }
echo "== debootstrap --variant=minbase $release into $dir ($mirror)"
t0=$(date +%s)
debootstrap --variant=minbase "$release" "$dir" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (its log's end above)"; }
echo "   $(( $(date +%s) - t0 )) s"
# A container image's apt sources: the release, its updates and its security suite (debootstrap writes the
# release alone; Debian publishes point-release LLVM/MLIR updates through the other two).
rm -f "$dir/etc/apt/sources.list"
cat >"$dir/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $release $release-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $release-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# as in a container: no package starts a service here (one would outlive the run and hold the mounts)
printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
chmod 755 "$dir/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
mount -t sysfs sysfs "$dir/sys"
mount --bind /dev "$dir/dev"
mount --bind /dev/pts "$dir/dev/pts"

commit=$(git -C "$root" rev-parse --short HEAD)
[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ] \
  && echo "note: uncommitted changes in $root are not in the copy (git archive of HEAD $commit)"
git -C "$root" archive --format=tar --prefix=passmap/ HEAD | tar -x -C "$dir/root"
echo "== source: git archive of $commit in $dir/root/passmap"

pkgs() { chroot "$dir" dpkg-query -W -f='${binary:Package}\t${Installed-Size}\n' | sort; }
pkgs >"$work/before"
# The README's quick start as written: a fresh Debian first gets make, then `make demo` does the rest.
steps=("apt-get update && apt-get install -y make" "make demo")
declare -a took=()
rc=0
for s in "${steps[@]}"; do
  echo "== $s   (in the chroot: a login shell as root, in ~/passmap)"
  t0=$(date +%s)
  timeout "$limit" chroot "$dir" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -l -c "cd ~/passmap && $s" \
    || rc=$?
  took+=("$s: $(( $(date +%s) - t0 )) s")
  [ "$rc" = 0 ] || { echo "fresh-demo.sh: '$s' failed (exit $rc)" >&2; break; }
done
pkgs >"$work/after"

echo
echo "== result (release $release, passmap $commit)"
printf '   %s\n' "${took[@]}"
join -t $'\t' -v 2 "$work/before" "$work/after" >"$work/new"
kb=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$work/new")
echo "installed: $(wc -l <"$work/new") packages, $(( kb / 1024 )) MB (Installed-Size), on top of minbase's $(wc -l <"$work/before")"
echo "asked for (apt's history: start, end, command line; upgrades of minbase's packages that the new ones needed):"
awk '/^Start-Date:/ { s = $3 } /^End-Date:/ { e = $3 } /^Commandline:/ { sub(/^Commandline: /, ""); c = $0 }
     /^Upgrade:/ { u = $0; gsub(/ \([^)]*\)/, "", u); sub(/^Upgrade: /, "", u); gsub(/:amd64/, "", u) }
     /^$/ && c != "" { print "   " s "-" e "  " c (u != "" ? "\n     upgraded: " u : ""); c = u = "" }
     END { if (c != "") print "   " s "-" e "  " c (u != "" ? "\n     upgraded: " u : "") }' \
  "$dir/var/log/apt/history.log" 2>/dev/null || true
echo "all of them:"
cut -f1 "$work/new" | sed 's/:amd64$//' | tr '\n' ' ' | fold -s -w 110 | sed 's/^/   /'
echo
extras=$(cut -f1 "$work/new" | grep -E '^(slurm|munge|chromium|clang|libclang-rt|ccache|hyperfine|python3-pandas|nodejs|libcmocka)' || true)
ok=1
if [ -n "$extras" ]; then echo "NOT ok: test or bench extras installed: $(echo "$extras" | tr '\n' ' ')"; ok=0
else echo "ok: none of the test or bench extras (Slurm, munge, Chromium, clang, ccache, hyperfine, pandas, cmocka)"; fi
out=$dir/root/passmap/demo-out
if [ "$rc" = 0 ] && [ -s "$out/report.html" ] && grep -q '^headline' "$out/report.txt" 2>/dev/null; then
  echo "ok: the report came out ($(du -k "$out/report.html" | cut -f1) KB of HTML); its headline:"
  sed -n '/^headline/,/^$/p' "$out/report.txt" | sed 's/^/   /'
else
  echo "NOT ok: no report (exit $rc; demo-out: $(ls "$out" 2>/dev/null | tr '\n' ' '))"; ok=0
fi
[ "$ok" = 1 ]
