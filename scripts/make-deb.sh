#!/usr/bin/env bash
# `make deb`: build/deb/passmap_VERSION_ARCH.deb from a shared-library build (Debian's policy: a package uses the
# system's libsqlite3, libjansson, libgsl, libzstd and libxxhash, not copies of them inside the binary), with
# `make install`'s layout under /usr (binary, data, studies, man pages gzipped, docs), a copyright file, a
# changelog, md5sums and a control file whose Depends are the shared libraries' packages (dpkg -S on what ldd
# lists). Then lintian, when installed (scripts/install-deps.sh test), which must report no error.
# Usage: scripts/make-deb.sh BINARY OUTDIR     (BINARY: a STATIC_LIBS=0 build of passmap)
set -euo pipefail
export LC_ALL=C
bin=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
stage=$out/stage
rm -rf "$stage" && mkdir -p "$stage/DEBIAN"
make -s -C "$root" install INSTALL_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" \
  DESTDIR="$(cd "$out" && pwd)/stage" PREFIX=/usr
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/passmap"
# The Valgrind meters' timer wrapper and counting tool, where they were built: stripped like the binary (the
# wrapper's redirections are dynamic symbols, which stay); the tool's link to Valgrind's core preload made
# relative; and the tool is static by design, as every Valgrind tool is (linked against Valgrind's core archives),
# which a lintian override says. It is built against this Valgrind, so the package recommends that version.
vgtool=$stage/usr/lib/passmap/vgtool
relations="Recommends: mlir-22-tools, llvm-22, gnuplot-nox"$'\n'"Suggests: valgrind"
for f in "$stage/usr/lib/passmap/passmap-vgwrap.so" "$vgtool"/pmcount-*; do
  [ -f "$f" ] && [ ! -L "$f" ] && strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done
if compgen -G "$vgtool/pmcount-*" >/dev/null; then
  for l in "$vgtool"/*; do
    t=$(readlink "$l" || true)
    case $t in /usr/*) ln -sfn "../../..${t#/usr}" "$l" ;; esac
  done
  mkdir -p "$stage/usr/share/lintian/overrides"
  for f in "$vgtool"/pmcount-*; do
    echo "passmap: statically-linked-binary [${f#"$stage"/}]"
  done >"$stage/usr/share/lintian/overrides/passmap"
  relations="Recommends: mlir-22-tools, llvm-22, gnuplot-nox, valgrind (= $(dpkg-query -W -f='${Version}' valgrind))"
fi
gzip -9n "$stage"/usr/share/man/man1/*.1 "$stage"/usr/share/man/man5/*.5
doc=$stage/usr/share/doc/passmap
cat >"$doc/copyright" <<EOF
passmap: what dominates a compiler's compile time, why, and its fixes.

Copyright (C) 2026 the passmap developers.
License: none is stated in the source tree yet; ask the maintainers before redistributing.
EOF
{
  echo "passmap ($version) unstable; urgency=medium"
  echo
  echo "  * Built from the source tree by make deb."
  echo
  echo " -- passmap maintainers <passmap@example.org>  $(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$doc/changelog.gz"
find "$stage" -type d -exec chmod 755 {} +
find "$stage/usr/share" -type f -exec chmod 644 {} +
# Depends: the packages that ship the shared libraries the binary loads
deps=$(ldd "$stage/usr/bin/passmap" | awk '/=>/ {print $3}' | while read -r lib; do
         dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true
       done | cut -d: -f1 | sort -u | while read -r pkg; do
         v=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null | sed 's/-[^-]*$//')
         echo "$pkg (>= $v)"
       done | paste -sd, - | sed 's/,/, /g')
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOF
Package: passmap
Version: $version
Architecture: $arch
Maintainer: passmap maintainers <passmap@example.org>
Installed-Size: $size
Depends: $deps
$relations
Section: devel
Priority: optional
Description: measures what dominates a compiler's compile time
 passmap sweeps a matrix of compiles, parses the compiler's per-pass timing
 reports (MLIR, LLVM, Chrome traces, GCC, the Intel NPU compiler's logs) into
 a SQLite store, and reports the stages, regimes and fixes that dominate, with
 one statistical rule for every verdict. It compares builds, gates CI on
 compile-time regressions, bisects them to the commit and the pass, and
 exports to LNT and Bencher.
EOF
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
deb=$out/passmap_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
if command -v lintian >/dev/null; then
  # errors fail the build; warnings and notes are printed
  lintian --tag-display-limit 0 "$deb" | tee "$out/lintian.txt" >&2 || true
  if grep -q '^E: ' "$out/lintian.txt"; then
    echo "make-deb.sh: lintian reports errors (above)" >&2
    exit 1
  fi
else
  echo "make-deb.sh: lintian is not installed (scripts/install-deps.sh test): the package is not checked" >&2
fi
