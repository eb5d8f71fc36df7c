#!/bin/sh
# The sweep recipe as the test command runs it: Snakemake in a virtual environment of its
# own (target/sweep-env, installed once from PyPI), the sweep of config.yaml in a scratch
# copy of this directory (target/sweep), two jobs at once, then a check of the CSV: one
# row per kernel and copy kind of each of the 2 x 2 x 2 points, the presets' differing
# parameters as columns.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
env="$root/target/sweep-env"
snakemake="$env/bin/snakemake"
if [ ! -x "$snakemake" ]; then
    if python3 -m venv "$env" 2>/dev/null; then
        "$env/bin/pip" install -q "snakemake>=8,<10"
    else
        # A Python without venv (Debian's without python3-venv): a plain target directory.
        rm -rf "$env"
        python3 -m pip install -q --target "$env/lib" "snakemake>=8,<10"
        mkdir -p "$env/bin"
        printf '#!/bin/sh\nPYTHONPATH="%s${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m snakemake "$@"\n' "$env/lib" > "$snakemake"
        chmod +x "$snakemake"
    fi
fi
work="$root/target/sweep"
rm -rf "$work"
mkdir -p "$work"
cp -r "$root/sweeps/Snakefile" "$root/sweeps/config.yaml" "$root/sweeps/presets" "$work/"
"$snakemake" -s "$work/Snakefile" -d "$work" -j 2 --quiet all \
    --config rgdev="$root/target/release/rgdev" \
    programs="{vecadd: $root/tests/cuda/vecadd.cu, matmul: $root/tests/cuda/matmul.cu}" \
    cc_flags="[-I, $root/tests/cuda]"
python3 - "$work/results/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = {r["file"] for r in rows}
assert len(runs) == 8, f"{len(runs)} runs in the CSV, 8 expected"
for col in ("program", "preset", "dram.mbps", "l2.bytes", "board.sms", "type", "name", "cycles"):
    assert col in rows[0], f"no {col} column: {list(rows[0])}"
points = {(r["program"], r["preset"], r["dram.mbps"]) for r in rows}
assert len(points) == 8, points
kernels = {r["name"] for r in rows if r["type"] == "kernel"}
assert {"_Z6vecaddPKfS0_Pfi", "_Z6matmulPKfS0_Pfiii"} <= kernels, kernels
assert all(int(r["cycles"]) > 0 for r in rows), "every row has simulated time"
print(f"sweep: {len(runs)} runs, {len(rows)} rows, columns {', '.join(list(rows[0])[:6])}, ...")
PY
