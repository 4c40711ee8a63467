#!/usr/bin/env python3
"""Simulated vs published nccl-tests all_reduce busbw on 8x A100 (shared/reference/nccl_allreduce_a100x8.csv).

Usage: scripts/validate_collectives.py [path/to/clearfog]   (default build/sim/clearfog)
Prints the Markdown table that docs/validation.md shows. The same comparison is asserted by the test
`validation::nccl-tests all_reduce on 8x A100`.
"""
import csv
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "sim", "clearfog")
reference = os.path.join(root, "..", "shared", "reference", "nccl_allreduce_a100x8.csv")

with open(reference) as f:
    rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
lo, hi = int(rows[0]["bytes"]), int(rows[-1]["bytes"])
out = subprocess.run([binary, "collective", "--platform", os.path.join(root, "platforms", "dgx-a100.yaml"),
                      "--op", "all_reduce", "--algo", "ring", "--sizes", f"{lo}:{hi}", "--factor", "2",
                      "--format", "json"], check=True, capture_output=True, text=True).stdout
simulated = {int(round(r["bytes"])): r for r in json.loads(out)["rows"]}

print("| size | protocol | simulated busbw (GB/s) | published busbw (GB/s) | error | source |")
print("|---:|---|---:|---:|---:|---|")
for r in rows:
    size = int(r["bytes"])
    sim = simulated[size]
    pub = float(r["busbw_GBps"])
    err = (sim["busbw_GBps"] - pub) / pub * 100
    label = f"{size // 2**30} GiB" if size >= 2**30 else f"{size // 2**20} MiB" if size >= 2**20 else f"{size // 2**10} KiB"
    print(f"| {label} | {sim['protocol']} | {sim['busbw_GBps']:.2f} | {pub:.2f} | {err:+.1f} % | nccl_allreduce_a100x8.csv |")
