#!/usr/bin/env python3
"""Speedup table of the gradient-compression study (scenarios/studies/grad-compression/sweep.yaml).

Reads the sweep's results.csv and prints, per model and inter-node bandwidth, the simulated step time
of syncSGD, each method's speedup over it (syncSGD time / method time), and the Agarwal et al.
(MLSys 2022, section 4.1) analytical model evaluated on the same run's figures:

    T(c) = T_fwd + max(lambda * T_bwd, (k-1) T_comm(b/c) + T_comm(b_last/c)) + T_opt
    T_comm(b) = 2 alpha (p-1) + 2 b (p-1) / (p BW)

for syncSGD (c = 1) and for an ideal compressor of ratio c = 4 with free encoding (the paper's "about
4x compression already removes the communication bottleneck"). Usage:
    scripts/grad-compression-table.py SWEEP_DIR
"""
import csv
import re
import sys
from collections import defaultdict

LAMBDA = 1.05     # compute slowdown under overlapped communication (paper: 1.04-1.1)
ALPHA_S = 5e-6    # per-step latency, the platform's NIC latency
P = 64            # ranks
BUCKET_B = 25e6   # training.bucket_size


def gbit(text):
    return float(re.match(r"([\d.]+)", text).group(1))


def model_step(row, c):
    bw = gbit(row["platform.fabric.nic.bandwidth"]) * 1e9 / 8
    grad = float(row["communication.gradient_bytes"])
    k = max(1, int(float(row["communication.buckets"])))
    last = grad - (k - 1) * BUCKET_B

    def comm(b):
        return 2 * ALPHA_S * (P - 1) + 2 * (b / c) * (P - 1) / (P * bw)

    fwd, bwd, opt = (float(row[x]) for x in ("compute.forward_s", "compute.backward_s", "compute.optimizer_s"))
    return fwd + max(LAMBDA * bwd, (k - 1) * comm(BUCKET_B) + comm(last)) + opt


def main(directory):
    rows = list(csv.DictReader(open(f"{directory}/results.csv")))
    methods = []
    step = defaultdict(dict)
    for r in rows:
        model = r["workload"].rsplit("/", 1)[-1].removesuffix(".yaml")
        m = r["training.grad_compression.method"]
        if m not in methods:
            methods.append(m)
        step[(model, r["platform.fabric.nic.bandwidth"])][m] = (float(r["step_time_s"]), r)
    others = [m for m in methods if m != "none"]
    print("| model | inter-node | syncSGD step (sim) | " + " | ".join(f"{m} speedup" for m in others)
          + " | syncSGD step (model) | 4x ideal speedup (model) |")
    print("|---|---|---|" + "---|" * len(others) + "---|---|")
    for (model, bw), by in step.items():
        base, row = by["none"]
        speedups = " | ".join(f"{base / by[m][0]:.2f}" for m in others)
        t1, t4 = model_step(row, 1), model_step(row, 4)
        print(f"| {model} | {bw} | {base * 1e3:.0f} ms | {speedups} | {t1 * 1e3:.0f} ms | {t1 / t4:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
