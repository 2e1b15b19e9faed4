#!/bin/sh
# check_layers.sh SOURCE_DIR [BUILD_DIR]: the house depends one way only.
#
# 1. The layers: formulate <- solve <- reports <- cli.  No file of a layer
#    includes a header that lives in a layer above it.  (The build enforces
#    this too, by include directories; this check names the offender.)
#
# 2. Inside formulate/, the input layer depends one way only,
#
#   names, error, types  <-  json_util  <-  shapes_json, hfconfig
#                        <-  catalog, catalog_source, decisions  <-  problem  <-  measurements
#
# For each module, every project header its .c and .h include, directly or
# through other headers, must sit on its own layer or below.  costmodel.h
# (used by problem.c) counts as problem's layer and rules.h (used by
# measurements.c) as measurements'; any other project header is above the
# whole input layer.  With BUILD_DIR, the same is checked on the objects:
# every pp_ symbol a module's object uses must be defined on its layer or
# below.  Prints the include graph; exits 1 on the first upward arrow.
set -eu
SRC=${1:-.}
BUILD=${2:-}
ROOMS="util input space cost cons mip" # formulate/'s rooms (docs/architecture.md)
DIRS=""
for room in $ROOMS; do DIRS="$DIRS $SRC/formulate/$room"; done
DIRS="$DIRS $SRC/solve $SRC/reports $SRC/cli"

house_rank() { # the layer a folder belongs to
    case $1 in
    */cli) echo 3 ;;
    */reports) echo 2 ;;
    */solve) echo 1 ;;
    *) echo 0 ;;
    esac
}

rank() { # rank of a header or module name
    case $1 in
    types.h | error.h | names.h | text.h | strbuf.h | fileio.h | types | error | names | text | strbuf | fileio) echo 0 ;;
    json_util.h | json_util) echo 1 ;;
    shapes_json.h | shapes_json | hfconfig) echo 2 ;;
    catalog.h | catalog_source.h | decisions.h | catalog | catalog_source | decisions) echo 3 ;;
    problem.h | costmodel.h | problem | costmodel) echo 4 ;;
    flops | device | frameworks | layout | kernels | collectives | states | stage | cp | moe | tp | pipeline | dp | memory | step) echo 4 ;; # formulate/cost/ modules
    measurements.h | rules.h | measurements | rules) echo 5 ;;
    *) echo 99 ;;
    esac
}

find_header() { # path of a project header, or nothing
    for d in $DIRS; do
        if [ -f "$d/$1" ]; then
            echo "$d/$1"
            return
        fi
    done
}

direct() { # the project headers a file includes with "..."
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | while read -r h; do
        [ -n "$(find_header "$h")" ] && echo "$h"
    done
    return 0
}

closure() { # every project header reachable from the given files
    todo=$*
    seen=""
    while [ -n "$todo" ]; do
        next=""
        for f in $todo; do
            for h in $(direct "$f"); do
                case " $seen " in *" $h "*) continue ;; esac
                seen="$seen $h"
                next="$next $(find_header "$h")"
            done
        done
        todo=$next
    done
    echo $seen | tr ' ' '\n' | sort | tr '\n' ' '
}

status=0
for d in $DIRS; do
    r=$(house_rank "$d")
    for f in "$d"/*.c "$d"/*.h; do
        [ -f "$f" ] || continue
        for h in $(direct "$f"); do
            hd=$(dirname "$(find_header "$h")")
            if [ "$(house_rank "$hd")" -gt "$r" ]; then
                echo "  UPWARD: $f includes $hd/$h" >&2
                status=1
            fi
        done
    done
done
[ $status -eq 0 ] && echo "house: no file includes a header of a layer above its own"

for m in json_util shapes_json hfconfig catalog catalog_source problem measurements; do
    files="$SRC/formulate/input/$m.c"
    [ -f "$SRC/formulate/input/$m.h" ] && files="$files $SRC/formulate/input/$m.h"
    r=$(rank "$m")
    hs=$(closure $files)
    printf '%-15s (layer %d) includes: %s\n' "$m" "$r" "$hs"
    for h in $hs; do
        if [ "$(rank "$h")" -gt "$r" ]; then
            echo "  UPWARD: $m (layer $r) includes $h (layer $(rank "$h"))" >&2
            status=1
        fi
    done
done

if [ -n "$BUILD" ] && ! command -v nm >/dev/null 2>&1; then
    echo "objects: not checked (no nm)"
elif [ -n "$BUILD" ]; then
    OBJ=$BUILD/CMakeFiles/parplan_formulate.dir
    defs=$(mktemp)
    trap 'rm -f "$defs"' EXIT
    for o in "$OBJ"/formulate/*/*.c.o \
             "$BUILD"/CMakeFiles/parplan_solve.dir/solve/*.c.o "$BUILD"/CMakeFiles/parplan_reports.dir/reports/*.c.o; do
        [ -f "$o" ] || continue
        n=$(basename "$o" .c.o)
        nm --defined-only "$o" | awk -v n="$n" '$2 ~ /^[TDRB]$/ && $3 ~ /^pp_/ {print $3, n}'
    done >"$defs"
    for m in json_util shapes_json hfconfig catalog catalog_source problem measurements; do
        r=$(rank "$m")
        for s in $(nm --undefined-only "$OBJ/formulate/input/$m.c.o" | awk '$2 ~ /^pp_/ {print $2}'); do
            owner=$(awk -v s="$s" '$1 == s {print $2}' "$defs")
            if [ -z "$owner" ] || [ "$(rank "$owner")" -gt "$r" ]; then
                echo "  UPWARD: $m (layer $r) uses $s of ${owner:-nowhere}" >&2
                status=1
            fi
        done
    done
    [ $status -eq 0 ] && echo "objects: every pp_ symbol used is defined on the same layer or below"
fi
exit $status
