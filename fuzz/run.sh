#!/usr/bin/env bash
# Runs every fuzz target (or those named after SECONDS) for SECONDS (default
# 120) each on its seeds (fuzz/seed.sh),
# one at a time, with a 512 MB allocation limit, and prints the executions
# and time of each. Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). A crash stops the script and leaves the input
# in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-120}
shift || true
[ -d corpus ] || ./seed.sh
targets=${*:-$(cargo +nightly fuzz list)}
for t in $targets; do
  log=$(mktemp)
  cargo +nightly fuzz run -O "$t" -- -max_total_time="$secs" -malloc_limit_mb=512 \
      -rss_limit_mb=2048 -timeout=10 > "$log" 2>&1 ||
    { grep -E "panicked|ERROR|SUMMARY|Reproduce|cargo fuzz run" -A1 "$log" | head -20; exit 1; }
  line=$(grep -E "^#[0-9]+.*(DONE|pulse)" "$log" | tail -1)
  echo "$t: ${line}"
  rm -f "$log"
done
