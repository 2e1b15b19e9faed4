#!/bin/sh
# Reproduction (b) of docs/reproduction.md: 2.5D [4,4,4] against 2D [8,8,1]
# and 1D tensor parallelism on 64 V100 (16 nodes of 4), one point of a weak
# scaling study: the same problem for every arrangement, at three
# micro-batch sizes.  Prints the Markdown table of the document.
#
#   sh docs/repro/tesseract.sh       (from the repository root, after the build)
set -e
P=${PARPLAN:-./build/parplan}
D=docs/repro
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

echo "| micro-batch (tokens) | arrangement | step s | TP exposed s | compute s | DP (depth) s | TFLOP/s per GPU | memory GiB | 2D / this |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for mb in 16 32 64; do
    jq --argjson b "$mb" '.training.global_batch = 4 * $b | .search.micro_batch = [$b]' $D/tesseract-64.json \
        >"$T/problem.json"
    two=""
    for arr in "2d 1 2D [8,8,1]" "2.5d 4 2.5D [4,4,4]" "1d 1 1D [64]" "3d 1 3D [4,4,4]"; do
        set -- $arr
        mode=$1 depth=$2
        shift 2
        label="$*"
        jq -n --arg m "$mode" --argjson d "$depth" --argjson b "$mb" \
            '{tp: 64, pp: 1, dp: 1, micro_batch: $b, tp_mode: $m, tp_depth: $d, recompute: "full"}' >"$T/plan.json"
        "$P" eval "$T/problem.json" --plan "$T/plan.json" --json "$T/out.json" >/dev/null 2>&1 || true
        step=$(jq '.step_time_s' "$T/out.json")
        [ -z "$two" ] && two=$step
        jq -r --arg l "$label" --argjson b "$mb" --argjson two "$two" '
            "| \($b) (\($b * 1024)) | \($l) | \(.step_time_s * 1000 | round / 1000)"
            + " | \(.time_s.exposed_comm_by_dim.tp * 1000 | round / 1000)"
            + " | \(.time_s.compute * 1000 | round / 1000) | \(.time_s.exposed_comm_by_dim.dp * 1000 | round / 1000)"
            + " | \(.throughput.model_tflops_per_gpu * 10 | round / 10) | \(.memory_gib.total * 10 | round / 10)"
            + "\(if .fits_memory then "" else " (does not fit)" end) | \($two / .step_time_s * 100 | round / 100) |"' \
            "$T/out.json"
    done
    # What parplan picks among the four modes for this problem.
    "$P" plan "$T/problem.json" --json - 2>/dev/null | jq -r --argjson b "$mb" --argjson two "$two" '
        "| \($b) | parplan plan: \(.plan.tp_mode)\(if .plan.tp_depth then " d=\(.plan.tp_depth)" else "" end)"
        + " | \(.step_time_s * 1000 | round / 1000) | | | | \(.throughput.model_tflops_per_gpu * 10 | round / 10) | \(.memory_gib.total * 10 | round / 10) | \($two / .step_time_s * 100 | round / 100) |"'
done
