#!/bin/sh
# A cold render against DuckDB (issue 30): on the same results, `roundup render` builds the
# site from nothing (every job's figures, then every page and chart), and DuckDB computes
# the per-job figures alone (IOPS, MB/s, mean, p50, p99, p99.9 with quantile_cont, max) from
# the same Parquet files (a job that keeps a histogram: from its buckets). Alternated, ROUNDS times; prints each time, peak memory (GNU time)
# and the medians' ratio roundup/DuckDB (the goal: at most 0.5); and `roundup summary`, which
# computes exactly the per-job figures DuckDB does and draws nothing, beside them.
#
#   benches/render-vs-duckdb.sh [LAB_DIR]     (default /tmp/roundup-render-duckdb)
#   SAMPLES=raw (default) | suite
#
# Without results in LAB_DIR/results, it copies the example lab there and runs the demo
# suite first: with SAMPLES=raw every test keeps its rows (`samples: raw`), as the demo's
# results were when issue 30 set the goal (923 MB of rows, the work both sides share); with
# SAMPLES=suite the demo as shipped, whose bit-tech test keeps a histogram: DuckDB then sums
# a few thousand buckets for those jobs, and the ratio measures the render's charts and
# files more than its reading of the data. Needs: a release build, python3 with duckdb
# (.ci/run installs it), GNU time.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:-/tmp/roundup-render-duckdb}
. "$here/benches/roundup-bin.sh"
rounds=${ROUNDS:-3}
need_gnu_time
if [ ! -d "$lab/results" ]; then
    mkdir -p "$lab"
    cp -r "$here/suites" "$here/drives" "$here/commentary" "$here/review.yaml" "$lab/"
    case ${SAMPLES:-raw} in
    raw) sed -i 's/^\( *\)samples: histogram$/\1samples: raw/' "$lab/suites/demo.yaml" ;;
    suite) ;;
    *) echo "SAMPLES is raw or suite, not $SAMPLES" >&2; exit 1 ;;
    esac
    (cd "$lab" && "$bin" -q run --suite demo)
fi
cat > "$lab/duckdb-figures.py" <<'PY'
import sys, duckdb
con = duckdb.connect()
rows = con.execute("""
    select filename,
           count(*) / ((max(submit_ns + latency_ns) - min(submit_ns)) / 1e9) as iops,
           sum(len) / ((max(submit_ns + latency_ns) - min(submit_ns)) / 1e3) as mb_per_s,
           avg(latency_ns) / 1e3, quantile_cont(latency_ns, 0.5) / 1e3,
           quantile_cont(latency_ns, 0.99) / 1e3, quantile_cont(latency_ns, 0.999) / 1e3,
           max(latency_ns) / 1e3
    from read_parquet(?, filename = true)
    group by filename order by filename
""", [sys.argv[1] + "/results/**/samples.parquet"]).fetchall()
# Jobs that keep a histogram (`samples: histogram`): the same figures from their buckets,
# a percentile as the greatest latency of the bucket where the cumulative count reaches it.
hist = sys.argv[1] + "/results/**/histogram.parquet"
import glob
if glob.glob(hist, recursive=True):
    rows += con.execute("""
        with b as (
            select filename, low_ns, ios, bytes, latency_sum_ns, latency_max_ns,
                   first_submit_ns, last_complete_ns,
                   sum(ios) over (partition by filename order by low_ns) as cum,
                   sum(ios) over (partition by filename) as n
            from read_parquet(?, filename = true) where kind = 'latency')
        select filename,
               sum(ios) / ((max(last_complete_ns) - min(first_submit_ns)) / 1e9),
               sum(bytes) / ((max(last_complete_ns) - min(first_submit_ns)) / 1e3),
               sum(latency_sum_ns) / sum(ios) / 1e3,
               min(latency_max_ns) filter (where cum >= 0.5 * n) / 1e3,
               min(latency_max_ns) filter (where cum >= 0.99 * n) / 1e3,
               min(latency_max_ns) filter (where cum >= 0.999 * n) / 1e3,
               max(latency_max_ns) / 1e3
        from b group by filename order by filename
    """, [hist]).fetchall()
print(len(rows), "jobs", file=sys.stderr)
PY
samples=$(python3 -c "import duckdb, sys; print(duckdb.connect().execute('select count(*) from read_parquet(?)', [sys.argv[1] + '/results/**/samples.parquet']).fetchone()[0])" "$lab")
echo "results: $(find "$lab/results" -name samples.parquet | wc -l) jobs with $samples samples, $(find "$lab/results" -name histogram.parquet | wc -l) with a histogram; $(du -sh "$lab/results" | cut -f1)"
measure() { # label, command...: prints "seconds peak_kib"
    label=$1; shift
    /usr/bin/time -f "%e %M" -o "$lab/time.txt" "$@" >/dev/null 2>&1
    echo "$label $(cat "$lab/time.txt")"
}
out=""
for r in $(seq "$rounds"); do
    rm -rf "$lab/site"
    line=$(measure roundup sh -c "cd '$lab' && '$bin' -q render")
    echo "round $r: $line"
    out="$out $line"
    line=$(measure duckdb python3 "$lab/duckdb-figures.py" "$lab")
    echo "round $r: $line"
    out="$out $line"
    line=$(measure summary sh -c "cd '$lab' && '$bin' summary --json")
    echo "round $r: $line"
    out="$out $line"
done
python3 -c "
import statistics, sys
w = sys.argv[1].split()
r = [float(w[i + 1]) for i in range(0, len(w), 3) if w[i] == 'roundup']
d = [float(w[i + 1]) for i in range(0, len(w), 3) if w[i] == 'duckdb']
s = [float(w[i + 1]) for i in range(0, len(w), 3) if w[i] == 'summary']
rm = [int(w[i + 2]) for i in range(0, len(w), 3) if w[i] == 'roundup']
dm = [int(w[i + 2]) for i in range(0, len(w), 3) if w[i] == 'duckdb']
print(f'cold render: median {statistics.median(r):.2f} s, peak {max(rm) / 1024:.0f} MiB; '
      f'DuckDB per-job figures: median {statistics.median(d):.2f} s, peak {max(dm) / 1024:.0f} MiB; '
      f'roundup/DuckDB {statistics.median(r) / statistics.median(d):.2f} (goal <= 0.5 on rows'
      + (f'; {sys.argv[2]} jobs here keep a histogram' if sys.argv[2] != '0' else '') + '); '
      f'the same per-job figures alone (roundup summary): median {statistics.median(s):.2f} s, '
      f'summary/DuckDB {statistics.median(s) / statistics.median(d):.2f}')
" "$out" "$(find "$lab/results" -name histogram.parquet | wc -l)"
