# shellcheck shell=bash
# Step 7 of device_check.sh (sourced there; it uses its say, bad, limit,
# now, $B, $W, $T0, $FULL, $REHEARSAL): `collviz watch` on a PyTorch
# program (issue 59). 2 ranks on GPU 0, each its own NCCL_HOSTID, started as
# torchrun starts them (tests/gpu/watch_torch.py: a python launcher whose
# children are the ranks, the tap in the environment it passes on), an
# all_reduce and an all_gather a step. Checked: the capture's kept bytes
# against the tensors (`collviz job --json --all`); printed: the median step
# time without and with the tap, and their ratio (goal <= 1.03x, a NOTE
# above it: one run each, not a benchmark). Its own budget: 120 s after the
# other steps (the whole check: 410 s; FULL 525), its log in runs.log.
#
# torch is not part of the bundle: the step runs where some python here
# imports it with CUDA and NCCL (python3, /opt/torch/.venv/bin/python3,
# python), and is SKIPPED, saying why, elsewhere. The rehearsal (stand-in,
# no torch) runs the same launcher with the bundled stand-in NCCL program
# as its ranks (COLLVIZ_WATCH_STANDIN) and checks the bytes against each
# other instead of the tensors; it proves the plumbing only.
watch_step() {
  local end=$(( $(now) + 120 )) hard=$(( T0 + 410 )) py="" why="" cand left rc t
  [ "$FULL" = 1 ] && hard=$(( T0 + 525 ))
  [ "$end" -le "$hard" ] || end=$hard
  HARD_END=$hard  # limit() stops every step at HARD_END: this one ends later
  local log=$W/runs.log cap=$W/watch_cap what="collviz watch on PyTorch"
  echo "---- 7. collviz watch on PyTorch" >> "$log"
  if [ ! -f "$B/libcollviz-tap-nccl.so" ] || [ ! -f "$B/watch_torch.py" ]; then
    bad "$what: the bundle lacks libcollviz-tap-nccl.so or watch_torch.py (make_bundle.sh)"
    return
  fi
  # The ranks' python: torch brings its own NCCL and CUDA runtime, so the
  # LD_LIBRARY_PATH this check set for the bundle's is not theirs.
  local -a penv=(env "LD_LIBRARY_PATH=$ORIG_LD_LIBRARY_PATH")
  [ -n "$ORIG_LD_LIBRARY_PATH" ] || penv=(env -u LD_LIBRARY_PATH)
  if [ "$REHEARSAL" = standin ]; then
    py=$(command -v python3) || { bad "rehearsal: no python3 for the watch step"; return; }
    [ -x "$B/nccl-watch-ranks" ] || { bad "rehearsal: the bundle lacks nccl-watch-ranks"; return; }
    export COLLVIZ_WATCH_STANDIN=$B/nccl-watch-ranks
    what="collviz watch on PyTorch (REHEARSAL: nccl-watch-ranks in its place)"
    penv=(env)  # the stand-in's libraries are the ones this check chose
  else
    for cand in python3 /opt/torch/.venv/bin/python3 python; do
      command -v "$cand" >/dev/null 2>&1 || continue
      why=$(timeout 60 "${penv[@]}" "$cand" "$B/watch_torch.py" probe 2>&1 | tail -1)
      [ "$why" = ok ] && { py=$(command -v "$cand"); break; }
      echo "$cand: $why" >> "$log"
    done
    if [ -z "$py" ]; then
      say "SKIPPED: collviz watch on PyTorch: no python here imports torch with CUDA and NCCL (${why:-no python found}; runs.log)"
      return
    fi
  fi
  t=$(now)
  if ! left=$(limit "$end" 60 10); then bad "$what: not run (out of time)"; return; fi
  timeout --kill-after=5 "$left" "${penv[@]}" "$py" "$B/watch_torch.py" launch "$W/torch_plain.json" >> "$log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { bad "$what: the program alone failed (rc=$rc; runs.log)"; return; }
  if ! left=$(limit "$end" 60 10); then bad "$what: the watched run not run (out of time)"; return; fi
  timeout --kill-after=10 "$left" "${penv[@]}" "$B/collviz" watch --out "$cap" --hang-after 30 --kill-on-hang -- \
    "$py" "$B/watch_torch.py" launch "$W/torch_watched.json" >> "$log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { bad "$what: collviz watch exited $rc (runs.log)"; return; }
  "$B/collviz" job "$cap" --json --all > "$W/watch_job.json" 2>> "$log" ||
    { bad "$what: collviz job could not read the capture (runs.log)"; return; }
  local got
  got=$("$py" "$B/watch_torch.py" check "$W/watch_job.json" 2>&1)
  rc=$?
  echo "$got" >> "$log"
  if [ "$rc" -eq 0 ]; then say "$what: $(echo "$got" | head -1) ($(( $(now) - t )) s)"
  else bad "$what: $(echo "$got" | head -3 | paste -sd';')"; fi
  got=$("$py" - "$W/torch_plain.json" "$W/torch_watched.json" <<'EOF'
import json, sys
def step(p):
    r = json.load(open(p))
    return max(x["step_s"] for x in r) if r else None, r[0] if r else {}
(a, info), (b, _) = step(sys.argv[1]), step(sys.argv[2])
if a and b:
    what = "; torch %s, NCCL %s" % (info["torch"], info.get("nccl")) if "torch" in info else ""
    print("step time (the slower rank's median): %.3f ms alone, %.3f ms under collviz watch: %.3fx (goal <= 1.03x)%s"
          % (a * 1e3, b * 1e3, b / a, what))
    print("ratio %.4f" % (b / a))
else:
    print("no step times (the ranks printed none)")
EOF
  )
  echo "$got" >> "$log"
  say "  $(echo "$got" | head -1)"
  local ratio
  ratio=$(echo "$got" | sed -n 's/^ratio //p')
  if [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.03) }'; then
    say "NOTE: the step time under collviz watch is above the 1.03x goal (one run each; runs.log)"
  fi
  rm -rf "$cap"
}
