#!/usr/bin/env python3
"""Simulated collectives against published nccl-tests figures, with the default algorithm (nccl:
NCCL's own choice of algorithm, protocol and channels) unless a row says otherwise.

Usage: scripts/validate_collectives.py [path/to/clearfog]   (default build/sim/clearfog)
Prints the Markdown tables that docs/validation.md shows. The tests under tests/validation/ assert
the same comparisons (NcclAllReduce_test, NvlinkCeilings_test, MultiNode_test).

Sources (busbw = algbw x nccl-tests' factor, doc/PERFORMANCE.md):
  A100 sweep   shared/reference/nccl_allreduce_a100x8.csv (8x A100, NCCL 2.18.5)
  A100 misc    shared/reference/nccl_misc.md (mscclpp NDmv4, NCCL 2.17.1; NVIDIA/nccl #812, #412)
  H100/H200    shared/reference/moe_alltoall.md (NCCL maintainers, nccl-tests #212, #130, #267;
               8x H200 nccl-tests at 16 GiB)
  H200 sweep   tests/data/reference/h200_allreduce_sweep.csv (stas00/ml-engineering)
"""
import csv
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "sim", "clearfog")
reference = os.path.join(root, "..", "shared", "reference")
GiB, MiB, KiB = 2**30, 2**20, 2**10


def platform(name):
    return os.path.join(root, "platforms", name)


def collective(plat, op, lo, hi=None, factor=2, algo=None, ranks=None):
    args = [binary, "collective", "--platform", platform(plat), "--op", op, "--sizes", f"{lo}:{hi or lo}",
            "--factor", str(factor), "--format", "json"]
    if algo:
        args += ["--algo", algo]
    if ranks:
        args += ["--ranks", str(ranks)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {int(round(r["bytes"])): r for r in json.loads(out)["rows"]}


def label(size):
    if size >= GiB:
        return f"{size // GiB} GiB"
    if size >= MiB:
        return f"{size // MiB} MiB"
    return f"{size // KiB} KiB"


def read_sweep(path):
    with open(path) as f:
        return [(int(r["bytes"]), float(r["busbw_GBps"])) for r in csv.DictReader(l for l in f if not l.startswith("#"))]


def error(sim, pub):
    return f"{(sim - pub) / pub * 100:+.1f} %"


def sweep_table(plat, rows, source):
    sim = collective(plat, "all_reduce", rows[0][0], rows[-1][0])
    print("| size | algorithm | protocol | channels | simulated busbw (GB/s) | published busbw (GB/s) | error | source |")
    print("|---:|---|---|---:|---:|---:|---:|---|")
    for size, pub in rows:
        s = sim[size]
        print(f"| {label(size)} | {s['algorithm']} | {s['protocol']} | {s['channels']} | {s['busbw_GBps']:.2f} | "
              f"{pub:.2f} | {error(s['busbw_GBps'], pub)} | {source} |")


def ceiling_table(rows):
    print("| platform | operation | size | algorithm | protocol | simulated busbw (GB/s) | published busbw (GB/s) | error | role | source |")
    print("|---|---|---:|---|---|---:|---:|---:|---|---|")
    for plat, op, size, algo, ranks, pub, role, source in rows:
        s = collective(plat, op, size, algo=algo, ranks=ranks)[size]
        pub_text = f"{pub:.2f}" if pub else "—"
        err = error(s["busbw_GBps"], pub) if pub else "—"
        print(f"| {plat} | {op}{' (--ranks %d)' % ranks if ranks else ''} | {label(size)} | {s['algorithm']} | "
              f"{s['protocol']} | {s['busbw_GBps']:.2f} | {pub_text} | {err} | {role} | {source} |")


print("### 8x A100, all_reduce, default algorithm\n")
sweep_table("dgx-a100.yaml", read_sweep(os.path.join(reference, "nccl_allreduce_a100x8.csv")),
            "nccl_allreduce_a100x8.csv")

print("\n### 8x H100, all_reduce, default algorithm, against an 8x H200 sweep\n")
sweep_table("dgx-h100.yaml", read_sweep(os.path.join(root, "tests", "data", "reference", "h200_allreduce_sweep.csv")),
            "h200_allreduce_sweep.csv")

print("\n### Ceilings of the other collectives, and across nodes\n")
maint = "moe_alltoall.md (nccl-tests #212)"
h200 = "moe_alltoall.md (8x H200, nccl-tests)"
ceiling_table([
    ("dgx-a100.yaml", "all_reduce", GiB, None, None, 231.45, "check", "nccl_misc.md (mscclpp NDmv4)"),
    ("dgx-a100.yaml", "all_gather", GiB, None, None, 253.59, "calibrates copy efficiency", "nccl_misc.md (mscclpp NDmv4)"),
    ("dgx-a100.yaml", "all_to_all", GiB, None, None, 254.69, "check", "nccl_misc.md (mscclpp NDmv4)"),
    ("dgx-a100.yaml", "reduce_scatter", GiB, None, None, None, "—", "no published figure"),
    ("dgx-a100.yaml", "broadcast", GiB, None, None, None, "—", "no published figure"),
    ("dgx-a100.yaml", "sendrecv", GiB, None, None, None, "—", "no published figure"),
    ("dgx-h100.yaml", "all_reduce", 16 * GiB, None, None, 480.0, "calibrates NVLS efficiency", h200),
    ("dgx-h100.yaml", "all_reduce", GiB, None, None, 480.0, "check", maint),
    ("dgx-h100.yaml", "all_reduce", 16 * GiB, "ring", None, 367.2, "calibrates Simple efficiency", h200),
    ("dgx-h100.yaml", "all_reduce", GiB, "ring", None, 370.0, "check", maint),
    ("dgx-h100.yaml", "all_gather", GiB, None, None, 370.0, "check", maint),
    ("dgx-h100.yaml", "all_gather", 16 * GiB, None, None, 361.4, "calibrates copy efficiency", h200),
    ("dgx-h100.yaml", "reduce_scatter", GiB, None, None, 370.0, "check", maint),
    ("dgx-h100.yaml", "reduce_scatter", 16 * GiB, None, None, 362.9, "check", h200),
    ("dgx-h100.yaml", "all_to_all", GiB, None, None, 370.0, "check", maint),
    ("dgx-h100.yaml", "broadcast", GiB, None, None, None, "—", "no published figure"),
    ("dgx-h100.yaml", "sendrecv", GiB, None, None, None, "—", "no published figure"),
    ("dgx-a100-cluster.yaml", "all_reduce", GiB, None, 32, 192.0, "check", "nccl_misc.md (NVIDIA/nccl #812)"),
    ("dgx-a100-cluster.yaml", "all_to_all", GiB, None, 16, 2 * 24.0, "check (N/(N-1) NICs)", maint),
    ("dgx-h100-cluster.yaml", "all_reduce", 4 * GiB, None, 32, 8 * 48.0, "bound: 8 NICs x 48", maint),
    ("dgx-h100-cluster.yaml", "all_to_all", GiB, None, 16, 2 * 48.0, "check (N/(N-1) NICs)", maint),
    ("dgx-h100-cluster.yaml", "all_reduce", 4 * GiB, None, 16, None, "—", "no published figure"),
])
