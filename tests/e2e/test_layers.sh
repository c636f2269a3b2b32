#!/usr/bin/env bash
# lib/ layering: no file includes a header of a later layer (scripts/check-layers.sh), and the checker
# itself catches a violation planted in a copy of the tree.
. "$(dirname "$0")/lib.sh"
check "lib/ layers have one-way dependencies" "$ROOT/scripts/check-layers.sh"
mkdir -p "$TMP/tree/scripts"
cp "$ROOT/Makefile" "$TMP/tree/"; cp "$ROOT/scripts/check-layers.sh" "$TMP/tree/scripts/"
cp -r "$ROOT/lib" "$TMP/tree/lib"
echo '#include "sweep.h"' >> "$TMP/tree/lib/base/util.c"
check_fails "a base file including a sweep header is caught" "$TMP/tree/scripts/check-layers.sh"
finish
