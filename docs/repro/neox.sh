#!/bin/sh
# Reproduction (a) of docs/reproduction.md: GPT-NeoX-20B on 48 Lassen nodes
# (192 V100-16GB), without compression, with compression on every
# dimension, and with the hybrid policy; at the released configuration and
# at parplan's optimum.  Prints the Markdown tables of the document.
#
#   sh docs/repro/neox.sh            (from the repository root, after the build)
#
# Every row is one parplan run; the problem variants are made with jq from
# docs/repro/neox-lassen.json and docs/repro/neox-released.plan.json.
set -e
P=${PARPLAN:-./build/parplan}
D=docs/repro
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Problem variants.
ANY='.constraints.error_tolerance = {"dp": 1, "tp": 1, "pp": 1, "params": 1}'
jq "$ANY" $D/neox-lassen.json >"$T/any.json"                                  # every codec allowed
jq '.constraints.error_tolerance = {"dp": 0.06}' $D/neox-lassen.json >"$T/aggressive.json" # zfp8 on DP
jq "$ANY | .training.grad_reduce_dtype = \"fp32\"" $D/neox-lassen.json >"$T/any-fp32.json"
jq '.cluster.intra_node_GBps = 1e7 | .cluster.inter_node_Gbps = 1e7' $D/neox-lassen.json >"$T/free-links.json"
fix() { # problem, codec list: the problem with every dimension's codec fixed
    jq --arg c "$2" '.search.compression = {"dp": [$c], "tp": [$c], "pp": [$c], "params": [$c]}' "$1"
}
fix "$T/any.json" none >"$T/opt-none.json"
fix "$T/any.json" zfp16 >"$T/opt-zfp16.json"
fix "$T/any.json" zfp8 >"$T/opt-zfp8.json"
jq '.search.compression = {"dp": ["zfp8"], "tp": ["mpc"], "pp": ["mpc"], "params": ["mpc"]}' "$T/any.json" \
    >"$T/opt-mzhybrid.json"

# Plans at the released degrees.
plan() { # dp tp pp params
    jq --arg a "$1" --arg b "$2" --arg c "$3" --arg d "$4" \
        '.compression = {"dp": $a, "tp": $b, "pp": $c, "params": $d}' $D/neox-released.plan.json
}
plan none none none none >"$T/r-none.json"
plan zfp16 zfp16 zfp16 zfp16 >"$T/r-zfp16.json"
plan zfp8 zfp8 zfp8 zfp8 >"$T/r-zfp8.json"
plan zfp8 mpc mpc mpc >"$T/r-mzhybrid.json"
plan zfp8 zfp16 zfp16 zfp16 >"$T/r-zhybrid.json"
plan zfp16 none none none >"$T/r-dp-zfp16.json"

# One table row: label, parplan arguments.  The gain is against the first
# row of the table.
BASE=""
row() {
    label=$1
    shift
    "$P" "$@" --json - 2>/dev/null | jq -r --arg l "$label" --arg base "$BASE" '
        (.throughput.model_tflops_per_gpu) as $tf
        | (if $base == "" then 0 else ($tf / ($base | tonumber) - 1) * 100 end) as $gain
        | (.plan.compression) as $c
        | "| \($l) | tp \(.plan.tp) pp \(.plan.pp) dp \(.plan.dp) mb \(.plan.micro_batch) ZeRO-\(.plan.zero) \(.plan.recompute)"
          + (if .plan.sequence_parallel then " sp" else "" end)
          + " | \($c.dp)/\($c.tp)/\($c.pp)/\($c.params) | \(.step_time_s * 1000 | round / 1000)"
          + " | \(.time_s.exposed_comm * 1000 | round / 1000) | \(.time_s.compression * 1000 | round / 1000)"
          + " | \($tf * 10 | round / 10) | \(if $base == "" then "-" else "\($gain * 10 | round / 10) %" end)"
          + " | \(if .fits_memory then "yes" else "no" end) |"'
    if [ -z "$BASE" ]; then
        BASE=$("$P" "$@" --json - 2>/dev/null | jq '.throughput.model_tflops_per_gpu')
    fi
}
HEAD='| run | plan | codecs dp/tp/pp/params | step s | exposed comm s | codec s | TFLOP/s per GPU | gain | fits |
| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |'

echo "### Released configuration (eval)"
echo
echo "$HEAD"
BASE=""
row "no compression" eval "$T/any.json" --plan "$T/r-none.json"
row "every dimension zfp16" eval "$T/any.json" --plan "$T/r-zfp16.json"
row "every dimension zfp8" eval "$T/any.json" --plan "$T/r-zfp8.json"
row "hybrid MZHybrid: DP zfp8, TP/PP/params mpc" eval "$T/any.json" --plan "$T/r-mzhybrid.json"
row "hybrid ZHybrid: DP zfp8, TP/PP/params zfp16" eval "$T/any.json" --plan "$T/r-zhybrid.json"
row "ceiling: links 10^7 GB/s, no codec" eval "$T/free-links.json" --plan "$T/r-none.json"
echo
echo "### parplan's optimum (plan)"
echo
echo "$HEAD"
BASE=""
row "no compression" plan "$T/opt-none.json"
row "every dimension zfp16" plan "$T/opt-zfp16.json"
row "every dimension zfp8" plan "$T/opt-zfp8.json"
row "hybrid MZHybrid: DP zfp8, TP/PP/params mpc" plan "$T/opt-mzhybrid.json"
row "hybrid policy (default tolerances), codecs free" plan $D/neox-lassen.json
row "aggressive hybrid (DP tolerance 0.06), codecs free" plan "$T/aggressive.json"
row "every codec allowed, codecs free" plan "$T/any.json"
"$P" plan $D/neox-lassen.json --json - 2>/dev/null | jq '.plan' >"$T/opt.plan.json"
row "ceiling: links 10^7 GB/s, no codec" eval "$T/free-links.json" --plan "$T/opt.plan.json"
echo
echo "### The same policy on a modern cluster: 24 nodes of 8 H100, 400 Gb/s per GPU, NCCL (plan)"
echo
jq '.cluster = {"gpu": "h100-sxm5-80gb", "gpus_per_node": 8, "nodes": 24, "intra_node_GBps": 450,
      "inter_node_Gbps": 400} | .training.precision = "bf16" | del(.training.collectives)' \
    $D/neox-lassen.json >"$T/h100.json"
jq "$ANY" "$T/h100.json" >"$T/h100-any.json"
jq '.search.compression = {"dp": ["none"], "tp": ["none"], "pp": ["none"], "params": ["none"]}' "$T/h100.json" \
    >"$T/h100-none.json"
echo "$HEAD"
BASE=""
row "no compression" plan "$T/h100-none.json"
row "hybrid policy (default tolerances), codecs free" plan "$T/h100.json"
row "every codec NCCL can use allowed, codecs free" plan "$T/h100-any.json"
echo
echo "### DP gradients in fp32 on the wire (released configuration, eval)"
echo
echo "$HEAD"
BASE=""
row "fp32 gradients, no compression" eval "$T/any-fp32.json" --plan "$T/r-none.json"
row "fp32 gradients, DP zfp16" eval "$T/any-fp32.json" --plan "$T/r-dp-zfp16.json"
row "fp32 gradients, hybrid MZHybrid" eval "$T/any-fp32.json" --plan "$T/r-mzhybrid.json"
echo
echo "### Sensitivity: codecs 10 times faster than the catalog's (a what-if, not the catalog)"
echo
# A copy of the catalogs whose codecs run at 10x compress_GBps / decompress_GBps.
cp -r data "$T/data"
jq 'def x10: if type == "object" then map_values(. * 10) else . * 10 end;
    .codecs |= map(if .compress_GBps then .compress_GBps |= x10 | .decompress_GBps |= x10 else . end)' \
    data/codecs.json >"$T/data/codecs.json"
echo "$HEAD"
BASE=""
row "released, no compression" eval "$T/any.json" --plan "$T/r-none.json" --data-dir "$T/data"
row "released, every dimension zfp8" eval "$T/any.json" --plan "$T/r-zfp8.json" --data-dir "$T/data"
row "released, hybrid MZHybrid" eval "$T/any.json" --plan "$T/r-mzhybrid.json" --data-dir "$T/data"
echo
echo "$HEAD"
BASE=""
row "optimum, no compression" plan "$T/opt-none.json" --data-dir "$T/data"
row "optimum, hybrid policy (default tolerances)" plan $D/neox-lassen.json --data-dir "$T/data"
row "optimum, aggressive hybrid (DP tolerance 0.06)" plan "$T/aggressive.json" --data-dir "$T/data"
row "optimum, every codec allowed" plan "$T/any.json" --data-dir "$T/data"
