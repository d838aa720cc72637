#!/usr/bin/env python3
"""Summarises bench/before_after.sh: for every time or rate the benchmarks report
in their JSON lines (fields named median_*, p50_*, p99_*, *_ms, *_per_s, *_qps,
or the KV steps' seconds; a field holding an object by mode or configuration,
such as search_scale_bench's "p50_ms": {"dense": ...}, counts each of its
numbers), the median over rounds of the "before" and "after" builds and their
ratio. Items of a list are told apart by their scalar fields (set, files,
tokens, ef, method, visible, who, call).
Usage: before_after_summary.py RESULTS_JSONL"""
import json
import statistics
import sys
from collections import defaultdict

LABELS = ("set", "files", "tokens", "ef", "method", "visible", "who", "call")
KV_STEPS = {"capture", "verify", "restore", "rebuild_and_set_data", "reprefill", "prefill_source"}


def measured(key):
    return (key.startswith(("median_", "p50_", "p99_")) or key.endswith(("qps", "_ms", "_per_s"))
            or key in KV_STEPS)


def collect(value, path, out, counted=False):
    """Adds every measured number under `value` to `out` by its path; `counted`
    says `value` sits under a measured field, so all its numbers count."""
    if isinstance(value, list):
        for child in value:
            collect(child, path, out, counted)
    if not isinstance(value, dict):
        return
    label = ",".join(f"{k}={value[k]}" for k in LABELS
                     if isinstance(value.get(k), (str, int, float)))
    here = f"{path}[{label}]" if label else path
    for key, child in value.items():
        if isinstance(child, (int, float)) and not isinstance(child, bool):
            if counted or measured(key):
                out[f"{here}/{key}"] = float(child)
        else:
            collect(child, f"{here}/{key}", out, counted or measured(key))


def main():
    runs = defaultdict(lambda: defaultdict(list))  # (program, field) -> side -> values
    for line in open(sys.argv[1]):
        record = json.loads(line)
        found = {}
        collect({k: v for k, v in record.items() if k not in ("side", "program")}, "", found)
        for field, value in found.items():
            runs[(record["program"], field)][record["side"]].append(value)
    print(f"{'benchmark':<14} {'measure':<70} {'before':>11} {'after':>11} {'ratio':>6}")
    for (program, field), sides in sorted(runs.items()):
        if not sides["before"] or not sides["after"]:
            continue
        b = statistics.median(sides["before"])
        a = statistics.median(sides["after"])
        ratio = f"{a / b:.3f}" if b else "-"
        print(f"{program:<14} {field:<70} {b:>11.5g} {a:>11.5g} {ratio:>6}")


if __name__ == "__main__":
    main()
