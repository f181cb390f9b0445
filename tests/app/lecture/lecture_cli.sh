#!/bin/bash
# `collviz lecture` on bad scripts: exit 2, the message names file:line and
# the field, and nothing opens or is written.
#   usage: lecture_cli.sh path/to/collviz output-dir
set -u
BIN=$1
OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT"
fail() { echo "FAIL: $*"; exit 1; }
# name | script | what stderr must contain
while IFS='|' read -r name script want; do
  [ -z "$name" ] && continue
  printf "%b" "$script" >"$OUT/$name.toml"
  err=$(DISPLAY=:999 "$BIN" lecture "$OUT/$name.toml" --export "$OUT/deck_$name" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc, wanted 2 ($err)"
  case "$err" in *"$OUT/$name.toml:$want"*) ;; *) fail "$name: '$err' does not contain '$OUT/$name.toml:$want'" ;; esac
  [ -e "$OUT/deck_$name" ] && fail "$name: wrote $OUT/deck_$name for a bad script"
  echo "ok: $name -> $err"
done <<'CASES'
unknown_field|[[step]]\nop = "gather"\ncolour = "red"\n|3: unknown field colour; allowed: op, ranks
bad_value|[[step]]\nop = "gathre"\n|2: op = "gathre" is not allowed; allowed: broadcast
wrong_type|[[step]]\nranks = "four"\n|2: ranks: must be an integer (1 to 16); got a string
out_of_range|[[step]]\nop = "all_to_all"\ntrace = 9\nranks = 4\n|1: step 1: trace = 9 is beyond ranks = 4
not_toml|[[step]\nop = 3\n|1: not valid TOML
CASES
err=$("$BIN" lecture "$OUT/missing.toml" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "missing file: exit $rc"
case "$err" in *"$OUT/missing.toml: cannot read the lecture script"*) ;; *) fail "missing file: '$err'" ;; esac
echo "ok: missing -> $err"
err=$("$BIN" run --lang fr 2>&1)
[ $? -eq 2 ] || fail "--lang fr: not exit 2"
case "$err" in *"--lang fr is not a language; allowed: en, zh"*) ;; *) fail "--lang fr: '$err'" ;; esac
echo "ok: --lang fr -> $err"
# Issue 38 (minor): an empty --lang is not a language either (it was taken).
err=$("$BIN" run --lang '' 2>&1)
[ $? -eq 2 ] || fail "--lang '': not exit 2 ($err)"
case "$err" in *"is not a language; allowed: en, zh"*) ;; *) fail "--lang '': '$err'" ;; esac
echo "ok: --lang '' -> $err"
exit 0
