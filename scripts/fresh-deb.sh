#!/usr/bin/env bash
# The .deb on a bare Debian (issue 36): `make deb` here, a minimal Debian of this machine's release in DIR
# (debootstrap --variant=minbase, the apt sources of Debian's container image), `apt-get install ./passmap_*.deb`
# in a chroot, then `passmap doctor` and `passmap --version` from the installed package. Prints the packages the
# install pulled in with their size and doctor's output. The sibling of scripts/fresh-demo.sh (which runs
# `make demo` from the source instead); downloads some 100 MB, so make test never runs it; docs/fresh-debian.md
# has the last result.
# Usage: scripts/fresh-deb.sh [--keep] [--deb FILE] DIR      (as root; DIR must not exist yet)
#   --keep       leave DIR afterwards (unmounted)
#   --deb FILE   install this package instead of building one with `make deb`
#   MIRROR=URL   the Debian mirror (default http://deb.debian.org/debian); RELEASE=NAME (default: this machine's)
# Exit 0 when the package installed and `passmap doctor` ran from it (its own verdict is printed, not judged:
# a bare system has no compiler to find).
set -euo pipefail
export LC_ALL=C
keep=0 dir="" deb=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --deb) deb=${2:?--deb FILE}; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fresh-deb.sh: unknown option '$1' (--keep, --deb, --help)" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "fresh-deb.sh: one DIR only" >&2; exit 2; }; dir=$1 ;;
  esac
  shift
done
die() { echo "fresh-deb.sh: $*" >&2; exit 1; }
[ -n "$dir" ] || { echo "usage: scripts/fresh-deb.sh [--keep] [--deb FILE] DIR   (see --help)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "debootstrap and chroot need root: run it as root"
[ -e "$dir" ] && die "$dir exists: give a folder that does not exist yet (it is removed afterwards)"
case "$dir" in *[[:space:]]*) die "'$dir': a folder without spaces, please (mount points are compared by name)" ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$deb" ]; then
  echo "== make deb"
  make -s -C "$root" -j2 deb >/dev/null || die "make deb failed"
  deb=$(ls -t "$root"/build/deb/passmap_*.deb | head -1)
fi
[ -f "$deb" ] || die "$deb: no such package (make deb writes build/deb/passmap_VERSION_ARCH.deb)"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
release=${RELEASE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[ -n "$release" ] || die "no VERSION_CODENAME in /etc/os-release: set RELEASE (e.g. RELEASE=bookworm)"
work=$(mktemp -d)

mounts_under() { awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
cleanup() {
  local m
  for m in $(mounts_under); do umount "$m" || umount -l "$m" || true; done
  if [ -n "$(mounts_under)" ]; then   # never delete through a bind mount of /dev
    echo "fresh-deb.sh: still mounted under $dir, not removed: $(mounts_under | tr '\n' ' ')" >&2
  elif [ "$keep" = 1 ]; then echo "kept: $dir (unmounted)"
  else rm -rf "$dir"; fi
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
rm -f "$dir/etc/apt/sources.list"
printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: %s\n\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: %s\n' \
  "$mirror" "$release" "$release" /usr/share/keyrings/debian-archive-keyring.gpg \
  http://deb.debian.org/debian-security "$release" /usr/share/keyrings/debian-archive-keyring.gpg \
  >"$dir/etc/apt/sources.list.d/debian.sources"
printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"   # as in a container: no service starts
chmod 755 "$dir/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
mount --bind /dev "$dir/dev"
cp "$deb" "$dir/root/"
in_chroot() {
  chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -l -c "cd /root && $1"
}
pkgs() { chroot "$dir" dpkg-query -W -f='${binary:Package}\t${Installed-Size}\n' | sort; }
pkgs >"$work/before"
rc=0
echo "== apt-get update && apt-get install -y ./$(basename "$deb")   (in the chroot, as root)"
t0=$(date +%s)
in_chroot "apt-get update -qq && apt-get install -y -q ./$(basename "$deb")" >"$work/apt.log" 2>&1 || rc=$?
echo "   $(( $(date +%s) - t0 )) s, exit $rc"
[ "$rc" = 0 ] || { tail -20 "$work/apt.log" >&2; die "the install failed (apt's log's end above)"; }
pkgs >"$work/after"
join -t $'\t' -v 2 "$work/before" "$work/after" >"$work/new"
kb=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$work/new")
echo
echo "== result (release $release, $(basename "$deb"), $(du -k "$deb" | cut -f1) KB)"
echo "installed: $(wc -l <"$work/new") packages, $(( kb / 1024 )) MB (Installed-Size), on top of minbase's $(wc -l <"$work/before")"
cut -f1 "$work/new" | sed 's/:amd64$//' | tr '\n' ' ' | fold -s -w 110 | sed 's/^/   /'
echo
echo "== passmap --version; passmap doctor   (from the package: $(in_chroot 'command -v passmap'))"
in_chroot "passmap --version" || rc=$?
drc=0
in_chroot "passmap doctor" || drc=$?
echo "(doctor exit $drc)"
[ "$rc" = 0 ] && [ "$drc" -le 1 ]
