#!/usr/bin/env python3
"""What a call through the Python package costs on top of the library: the same
searches (k 10, the default mode and embedder, snippets, on a store of 1000
2 KiB notes) timed in C++ (search_call_bench) and through vexfs.Store.search,
alternating, several rounds; per round the p50 and p99 of each, and the
difference of the p50s. Medians over rounds are printed, as a markdown table and
one JSON line.

  python_call_bench.py --build BUILD [--calls 2000] [--rounds 5] [--dir /tmp/vexfs-bench]

BUILD is a CMake build with benchmarks and the Python package (build-release/).
The Python side uses the package staged in BUILD/python.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

QUERIES = ["agent memory plan", "retry failed tool call", "search index vector",
           "user asked summary", "model token cache"]


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def time_python(vexfs, store_path, calls):
    """Per-call seconds of search(wait=False), search() (waits first, as by
    default), and search() plus reading every hit's path, score and snippet."""
    plain, waited, read = [], [], []
    clock = time.perf_counter
    with vexfs.Store.open(store_path) as store:
        store.search(QUERIES[0], k=10)  # loads the embedder and catalog
        # One pass per kind of call, the queries in turn, as the C++ side does.
        for samples, wait, read_hits in ((plain, False, False), (waited, True, False), (read, False, True)):
            for i in range(calls):
                t = clock()
                result = store.search(QUERIES[i % 5], k=10, wait=wait)
                if read_hits:
                    _ = [(h.path, h.score, h.snippet) for h in result.hits]
                samples.append(clock() - t)
                if len(result) != 10:
                    sys.exit(f"error: a search found {len(result)} hits, not 10")
    return plain, waited, read


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--dir", default="/tmp/vexfs-bench")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(build, "python"))
    import vexfs  # noqa: E402 - from the build given

    helper = os.path.join(build, "bench", "search_call_bench")
    store = os.path.join(args.dir, "python-calls", "store")
    shutil.rmtree(os.path.dirname(store), ignore_errors=True)
    os.makedirs(os.path.dirname(store))
    print(f"making a store of {args.files} notes", file=sys.stderr)
    subprocess.run([helper, "make", "--store", store, "--files", str(args.files)], check=True)

    rows = {"cpp_plain": [], "cpp_waited": [], "py_plain": [], "py_waited": [], "py_read": []}
    p99 = {name: [] for name in rows}
    for r in range(args.rounds):
        print(f"round {r + 1} of {args.rounds}", file=sys.stderr)
        out = subprocess.run([helper, "time", "--store", store, "--calls", str(args.calls)],
                             check=True, capture_output=True, text=True).stdout
        cpp = json.loads(out)
        py_plain, py_waited, py_read = time_python(vexfs, store, args.calls)
        for name, samples in (("cpp_plain", cpp["plain"]), ("cpp_waited", cpp["waited"]),
                              ("py_plain", py_plain), ("py_waited", py_waited), ("py_read", py_read)):
            rows[name].append(statistics.median(samples))
            p99[name].append(percentile(samples, 0.99))
    med = {name: statistics.median(v) * 1e6 for name, v in rows.items()}
    med99 = {name: statistics.median(v) * 1e6 for name, v in p99.items()}
    table = [
        "| call | C++ p50 / p99 (µs) | Python p50 / p99 (µs) | Python − C++ (p50, µs) |",
        "| --- | ---: | ---: | ---: |",
        f"| search(wait=False) vs Index::Search | {med['cpp_plain']:.1f} / {med99['cpp_plain']:.1f} | "
        f"{med['py_plain']:.1f} / {med99['py_plain']:.1f} | {med['py_plain'] - med['cpp_plain']:.1f} |",
        f"| search() vs Wait() + Search | {med['cpp_waited']:.1f} / {med99['cpp_waited']:.1f} | "
        f"{med['py_waited']:.1f} / {med99['py_waited']:.1f} | {med['py_waited'] - med['cpp_waited']:.1f} |",
        f"| search(wait=False) + reading every hit | {med['cpp_plain']:.1f} / {med99['cpp_plain']:.1f} | "
        f"{med['py_read']:.1f} / {med99['py_read']:.1f} | {med['py_read'] - med['cpp_plain']:.1f} |",
    ]
    print("\n".join(table))
    print(json.dumps({"bench": "python_calls", "files": args.files, "calls": args.calls,
                      "rounds": args.rounds, "p50_us": med, "p99_us": med99,
                      "per_round_p50_s": rows}))


if __name__ == "__main__":
    main()
