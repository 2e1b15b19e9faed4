#!/bin/sh
# run-fuzzers.sh BINARY_DIR FUZZ_DIR DEFAULT_SECONDS NAME...
#
# Run each libFuzzer harness fuzz_NAME for $FUZZ_SECONDS (else
# DEFAULT_SECONDS) seconds.  Each starts from its seed corpus
# (FUZZ_DIR/corpus/NAME), every saved regression (FUZZ_DIR/regressions) and
# what earlier runs found (BINARY_DIR/fuzz-corpus/NAME, where new inputs go).
# A crash lands in BINARY_DIR/fuzz-artifacts/NAME/ and makes the script fail;
# once it is fixed, copy it to FUZZ_DIR/regressions/NAME/.
#
# Each uses the dictionary of its format, FUZZ_DIR/dict/NAME.dict, else
# FUZZ_DIR/parplan.dict (the problem, plan and eval formats).
#
# FUZZ_JOBS=N runs N fuzzers at once (default 1).  FUZZ_NICE (default 19) is
# their niceness, so a long run does not starve other work.  FUZZ_TIMEOUT
# (default 30) is the wall time one input may take: a niced fuzzer on a busy
# machine is slow, and the slowest inputs take about 1 s alone.  The log of
# each is BINARY_DIR/fuzz-NAME.log; its last lines give executions, coverage
# ("cov", edges) and features ("ft").
set -u
bin=$1 src=$2 default_seconds=$3
shift 3
seconds=${FUZZ_SECONDS:-$default_seconds}
jobs=${FUZZ_JOBS:-1}
niceness=${FUZZ_NICE:-19}

run_one() {
  name=$1
  corpus=$bin/fuzz-corpus/$name
  artifacts=$bin/fuzz-artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  dict=$src/dict/$name.dict
  [ -f "$dict" ] || dict=$src/parplan.dict
  # CPU seconds (user + system) go to fuzz-NAME.cpu when /usr/bin/time is there.
  timer=""
  [ -x /usr/bin/time ] && timer="/usr/bin/time -f %U+%S -o $bin/fuzz-$name.cpu"
  $timer nice -n "$niceness" "$bin/fuzz_$name" "$corpus" "$src/corpus/$name" "$src/regressions" \
    -dict="$dict" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 \
    -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$bin/fuzz-$name.log" 2>&1
  echo $? >"$bin/fuzz-$name.status"
}

report() {
  name=$1
  rc=$(cat "$bin/fuzz-$name.status" 2>/dev/null || echo 1)
  summary=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$bin/fuzz-$name.log" | tail -1 | cut -d' ' -f1-9)
  execs=$(grep '^stat::number_of_executed_units' "$bin/fuzz-$name.log" | tail -1 | awk '{print $2}')
  cpu=$(tail -1 "$bin/fuzz-$name.cpu" 2>/dev/null | awk -F+ '$1 ~ /^[0-9.]+$/ {printf "%.0f", $1 + $2}')
  echo "fuzz_$name: ${execs:-?} executions in $seconds s (${cpu:-?} s of CPU); last: $summary"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz_$name FAILED (exit $rc): see $bin/fuzz-$name.log and $bin/fuzz-artifacts/$name/"
    grep -E 'ERROR|runtime error|parplan fuzz' "$bin/fuzz-$name.log" | head -5
    return 1
  fi
  return 0
}

echo "fuzzing $* for $seconds s each, $jobs at a time"
status=0
batch=""
count=0
for name in "$@"; do
  run_one "$name" &
  batch="$batch $name"
  count=$((count + 1))
  if [ "$count" -ge "$jobs" ]; then
    wait
    for n in $batch; do report "$n" || status=1; done
    batch="" count=0
  fi
done
wait
for n in $batch; do report "$n" || status=1; done
exit $status
