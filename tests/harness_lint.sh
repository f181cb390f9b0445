#!/bin/bash
# Lint of the shell tests: a helper that ends the test on a failure (it calls
# exit, fail, bad or skip) cannot do so from inside $( ... ): the capture is
# a subshell, its exit ends only the subshell, and the test goes on (the
# audit found "FAIL ... never named '02 Scatter'" followed by "ok"). Every
# such capture must check the status on the same line (`x=$(helper) || fail
# ...`), unless the script runs under `set -e` (errexit: an assignment takes
# the capture's status).
#   usage: harness_lint.sh TESTS_DIR   (exit 1 naming file:line of each one)
set -euo pipefail
dir=${1:?usage: harness_lint.sh TESTS_DIR}
mapfile -t scripts < <(find "$dir" -name '*.sh' | sort)
[ "${#scripts[@]}" -gt 0 ] || { echo "FAIL: no shell tests under $dir"; exit 1; }

# Helpers that end a test: functions (in any test script, the sourced ones
# included) whose body exits or calls fail/bad/skip.
aborting=$(awk '
  match($0, /^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*\(\)[[:space:]]*\{/) {
    name = $0; sub(/^[[:space:]]*/, "", name); sub(/\(\).*/, "", name)
    indent = $0; sub(/[^[:space:]].*/, "", indent)
    body = $0
    if ($0 ~ /\{[[:space:]]*$/) {  # a block: up to the brace at its indent
      while ((getline line) > 0) {
        body = body "\n" line
        if (line ~ ("^" indent "\\}")) break
      }
    } else if ($0 !~ /\}[[:space:]]*$/) {  # one line, continued: up to its closing brace
      while ((getline line) > 0) {
        body = body "\n" line
        if (line ~ /\}[[:space:]]*$/) break
      }
    }
    sub(/^[^{]*\{/, "", body)
    if (name == "fail" || name == "bad" || name == "skip" ||
        body ~ /(^|[[:space:];&|({])(exit([[:space:]]+[0-9$]|[[:space:]]*(;|\n|$))|(fail|bad|skip)([[:space:]]+["$]|[[:space:]]*(;|\n|$)))/)
      print name
  }' "${scripts[@]}" | sort -u)

# One grep a file for every helper at once, then the helpers on each line
# found (a grep per helper and file took 30 s on a loaded machine).
alts=$(echo $aborting | tr ' ' '|')
found=0
for f in "${scripts[@]}"; do
  errexit=0
  grep -qE '^[[:space:]]*set -[a-z]*e' "$f" && errexit=1
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    line=${hit%%:*}
    text=${hit#*:}
    for name in $aborting; do
      re='\$\('"$name"'([[:space:]]|\))'
      [[ $text =~ $re ]] || continue
      # Checked on the same line, or the script stops on any failed command.
      case "$text" in *"\$($name"*"||"*) continue ;; esac
      [ "$errexit" = 1 ] && case "$text" in *"local "*) ;; *) continue ;; esac
      echo "FAIL: $f:$line: \$($name ...) ignores $name's failure (add || fail \"...\"): $text"
      found=1
    done
  done < <([ -n "$alts" ] && grep -nE "\\\$\\((${alts})([[:space:]]|\\))" "$f" || true)
done
[ "$found" = 0 ] || exit 1
echo "ok: ${#scripts[@]} shell tests; helpers that end a test: $(echo $aborting | tr '\n' ' ')"
