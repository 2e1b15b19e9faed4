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
# below.
#
# 3. Inside formulate/cost/, floors (docs/architecture.md): a module uses
#    only the floors below its own, never a module of its own floor,
#
#   0  flops, device, frameworks    (the model, the GPU, the frameworks)
#   1  layout                       (stages, micro-batches, ranks, groups)
#   2  kernels, collectives, states
#   3  stage, cp, moe, tp, pipeline, dp, memory   (the terms)
#   4  step                         (the composition)
#
# Every .c and .h of cost/ must be on a floor.  Includes: every project
# header a module's .c reaches must be a util/ header or a cost/ header of
# its floor or below (cost_ground.h 0, cost_layout.h 1, cost_kernels.h 2,
# cost_terms.h 3; costmodel.h, the public API, 0).  With BUILD_DIR, objects:
# every global symbol a module's object uses that another cost/ object
# defines (pp_ or not: most internal helpers have no prefix) must be
# defined on a lower floor, and none may come from a formulate/ room other
# than util/.
#
# 4. The MIP builder reads the step's form, not the cost model's insides:
#    of cost/'s headers the files of formulate/mip/ reach costmodel.h only,
#    and (with BUILD_DIR) of cost/'s symbols mip.c's object uses only the
#    form (pp_form_*, pp_step_form_of) and the pricing of a whole plan
#    (pp_evaluate, pp_step_time_s).
#
# 5. No circle of files anywhere (with BUILD_DIR): over every object of
#    formulate/, solve/ and reports/, "module A uses a symbol module B
#    defines" has no cycle.  The constraint families sit between what they
#    share below them (cons/cons_report.c, mip/mip_matrix.c) and what walks
#    them above (cons/cons.c, mip/mip.c).
#
# Prints the include graph; exits 1 if any arrow runs up or any circle closes.
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
    # decisions.def: the rows of the decision table, an X-macro list that includes nothing (types.h
    # expands its ids and fields, decisions.c its table)
    types.h | error.h | names.h | text.h | strbuf.h | fileio.h | decisions.def | types | error | names | text | strbuf | fileio) echo 0 ;;
    json_util.h | json_util) echo 1 ;;
    shapes_json.h | shapes_json | hfconfig) echo 2 ;;
    catalog.h | catalog_source.h | decisions.h | frameworks_json.h | catalog | catalog_source | decisions | frameworks_json) echo 3 ;;
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

for m in json_util shapes_json hfconfig frameworks_json catalog catalog_source problem measurements; do
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

cost_floor() { # floor of a formulate/cost/ module or header; 99: on no floor
    case $1 in
    costmodel.h | cost_ground.h | flops | device | frameworks) echo 0 ;;
    cost_layout.h | layout) echo 1 ;;
    cost_kernels.h | kernels | collectives | states) echo 2 ;;
    cost_terms.h | stage | cp | moe | tp | pipeline | dp | memory) echo 3 ;;
    step) echo 4 ;;
    *) echo 99 ;;
    esac
}

COST=$SRC/formulate/cost
for f in "$COST"/*.c "$COST"/*.h; do
    [ -f "$f" ] || continue
    n=$(basename "$f")
    case $n in *.c) n=${n%.c} ;; esac
    if [ "$(cost_floor "$n")" -eq 99 ]; then
        echo "  UNRANKED: formulate/cost/$(basename "$f") is on no floor (add it to cost_floor)" >&2
        status=1
    fi
done
for fl in 0 1 2 3 4; do
    mods=""
    for f in "$COST"/*.c; do
        m=$(basename "$f" .c)
        [ "$(cost_floor "$m")" = "$fl" ] && mods="$mods $m"
    done
    echo "cost floor $fl:$mods"
done
for f in "$COST"/*.c; do
    m=$(basename "$f" .c)
    r=$(cost_floor "$m")
    hs=$(closure "$f")
    printf '%-15s (floor %s) includes: %s\n' "$m" "$r" "$hs"
    for h in $hs; do
        case $(dirname "$(find_header "$h")") in
        */formulate/util) continue ;;
        */formulate/cost) ;;
        *)
            echo "  UPWARD: cost module $m includes $h, outside util/ and cost/" >&2
            status=1
            continue
            ;;
        esac
        if [ "$(cost_floor "$h")" -gt "$r" ]; then
            echo "  UPWARD: $m (floor $r) includes $h (floor $(cost_floor "$h"))" >&2
            status=1
        fi
    done
done

verdict() { # verdict STATUS MESSAGE: print the message if the check passed, else fail the script
    if [ "$1" -eq 0 ]; then echo "$2"; else status=1; fi
}

mip_status=0
for f in "$SRC"/formulate/mip/*.c "$SRC"/formulate/mip/*.h; do
    [ -f "$f" ] || continue
    inside=$(for h in $(closure "$f"); do [ "$(find_header "$h")" = "$COST/$h" ] && echo "$h"; done | grep -vx costmodel.h || true)
    for h in $inside; do
        echo "  INSIDE: $(basename "$f") includes $h: the MIP reads the cost model through costmodel.h's form" >&2
        mip_status=1
    done
done
verdict $mip_status "mip: of cost/ only costmodel.h is included"

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
    for m in json_util shapes_json hfconfig frameworks_json catalog catalog_source problem measurements; do
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

    # cost/: every global symbol a module uses from another formulate/ object
    costdefs=$(mktemp)
    trap 'rm -f "$defs" "$costdefs"' EXIT
    for o in "$OBJ"/formulate/*/*.c.o; do
        [ -f "$o" ] || continue
        room=$(basename "$(dirname "$o")")
        nm --defined-only "$o" | awk -v n="$(basename "$o" .c.o)" -v room="$room" \
            '$2 ~ /^[A-TV-Z]$/ {print $3, n, room}'
    done >"$costdefs"
    cost_status=0
    for f in "$COST"/*.c; do
        m=$(basename "$f" .c)
        r=$(cost_floor "$m")
        o=$OBJ/formulate/cost/$m.c.o
        if [ ! -f "$o" ]; then
            echo "  MISSING: $o (build first)" >&2
            cost_status=1
            continue
        fi
        for s in $(nm --undefined-only "$o" | awk '{print $2}'); do
            line=$(awk -v s="$s" '$1 == s {print $2, $3; exit}' "$costdefs")
            [ -n "$line" ] || continue # the C library, GLPK, cJSON
            owner=${line% *}
            room=${line#* }
            case $room in
            util) ;;
            cost)
                if [ "$owner" != "$m" ] && [ "$(cost_floor "$owner")" -ge "$r" ]; then
                    echo "  UPWARD: $m (floor $r) uses $s of $owner (floor $(cost_floor "$owner"))" >&2
                    cost_status=1
                fi
                ;;
            *)
                echo "  UPWARD: cost module $m uses $s of $room/$owner" >&2
                cost_status=1
                ;;
            esac
        done
    done
    [ $cost_status -eq 0 ] && echo "objects: every call of a cost/ module runs down to a lower floor"
    [ $cost_status -eq 0 ] || status=1

    # mip/: of cost/ only the step's form and the pricing of a plan
    mip_status=0
    for o in "$OBJ"/formulate/mip/*.c.o; do
        [ -f "$o" ] || continue
        for s in $(nm --undefined-only "$o" | awk '{print $2}'); do
            line=$(awk -v s="$s" '$1 == s {print $2, $3; exit}' "$costdefs")
            [ "${line#* }" = cost ] || continue
            case $s in
            pp_form_* | pp_step_form_of | pp_evaluate | pp_step_time_s) ;;
            *)
                echo "  INSIDE: $(basename "$o" .c.o) uses $s of cost/${line% *}, not the step's form" >&2
                mip_status=1
                ;;
            esac
        done
    done
    verdict $mip_status "objects: the MIP builder uses of cost/ only the step's form and pp_evaluate"

    # No circle of files anywhere: the graph "module A uses a symbol module B
    # defines", over every object of the house, has no cycle.  Sinks and
    # sources are peeled off until none is left; what remains is a circle
    # (and what runs between circles), named in full.
    edges=$(mktemp)
    trap 'rm -f "$defs" "$costdefs" "$edges"' EXIT
    for o in "$OBJ"/formulate/*/*.c.o "$BUILD"/CMakeFiles/parplan_solve.dir/solve/*.c.o \
             "$BUILD"/CMakeFiles/parplan_reports.dir/reports/*.c.o; do
        [ -f "$o" ] || continue
        n=${o#"$BUILD"/CMakeFiles/*.dir/}
        nm --defined-only "$o" | awk -v n="$n" '$2 ~ /^[A-TV-Z]$/ {print "D", $3, n}'
        nm --undefined-only "$o" | awk -v n="$n" '{print "U", $2, n}'
    done | awk '$1 == "D" {owner[$2] = $3; next}
                {use[NR] = $3; sym[NR] = $2}
                END {for (i in use) if ((sym[i] in owner) && owner[sym[i]] != use[i]) print use[i], owner[sym[i]]}' |
        sort -u >"$edges"
    circle=$(awk '{from[NR] = $1; to[NR] = $2; node[$1]; node[$2]; n = NR}
        END {
            do {
                changed = 0
                for (v in node) { out[v] = 0; inn[v] = 0 }
                for (i = 1; i <= n; i++)
                    if ((from[i] in node) && (to[i] in node)) { out[from[i]]++; inn[to[i]]++ }
                for (v in node) if (out[v] == 0 || inn[v] == 0) { delete node[v]; changed = 1 }
            } while (changed)
            for (v in node) printf "%s ", v
        }' "$edges")
    if [ -n "$circle" ]; then
        echo "  CIRCLE: these modules use each other in a circle: $circle" >&2
        status=1
    else
        echo "objects: no circle of files ($(wc -l <"$edges") uses between $(awk '{print $1; print $2}' "$edges" | sort -u | wc -l) modules)"
    fi
fi
exit $status
