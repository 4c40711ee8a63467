#!/usr/bin/env python3
"""Hold-out check: llm-foundry's MPT rows on A100-40GB that no constant of the model was set with.

Joins the published rows (tests/data/reference/mpt_fsdp_a100_40gb_holdout.csv) with the results of
the two sweeps that run them and prints a markdown table (predicted and published tokens/s per GPU,
error, MFU, the memory estimate) and the error statistics, overall and by sequence length. Usage:
    clearfog sweep scenarios/sweeps/mpt-fsdp-a100-40gb-holdout-node.yaml --simulate-oom --jobs 2 --out NODE_DIR
    clearfog sweep scenarios/sweeps/mpt-fsdp-a100-40gb-holdout-cluster.yaml --simulate-oom --jobs 2 --out CLUSTER_DIR
    scripts/mpt-holdout-table.py NODE_DIR CLUSTER_DIR
"""
import csv
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLISHED = os.path.join(ROOT, "tests", "data", "reference", "mpt_fsdp_a100_40gb_holdout.csv")


def read_published():
    with open(PUBLISHED) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def read_results(sweep_dir):
    with open(os.path.join(sweep_dir, "results.csv")) as f:
        return list(csv.DictReader(f))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    published = read_published()
    results = read_results(sys.argv[1]) + read_results(sys.argv[2])
    if len(results) != len(published):
        sys.exit(f"{len(results)} results for {len(published)} published rows")
    print("| model | seq | GPUs | micro-batch | accumulation | ckpt | predicted tokens/s/GPU | published |"
          " error | predicted MFU | published MFU | memory estimate |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    errors, by_seq = [], defaultdict(list)
    for pub, res in zip(published, results):
        if int(res["workload.seq_length"]) != int(pub["seq"]) or int(res["devices"]) != int(pub["gpus"]):
            sys.exit(f"row mismatch: {pub} against {res['id']}")
        memory = float(res["memory.total_B"]) / 1e9 if res["memory.total_B"] else float("nan")
        head = (f"| {pub['model']} | {pub['seq']} | {pub['gpus']} | {pub['micro_batch']} | {pub['grad_accum']} |"
                f" {'yes' if pub['act_ckpt'] == 'true' else 'no'} |")
        if res["status"] != "ok":
            print(f"{head} {res['status']} | {pub['tokens_per_s_per_gpu']} | — | — | {pub['mfu_pct']} % |"
                  f" {memory:.1f} GB |")
            continue
        predicted = float(res["tokens_per_s"]) / int(res["devices"])
        error = 100 * (predicted / float(pub["tokens_per_s_per_gpu"]) - 1)
        errors.append(error)
        by_seq[int(pub["seq"])].append(error)
        print(f"{head} {predicted:.0f} | {pub['tokens_per_s_per_gpu']} | {error:+.1f} % |"
              f" {100 * float(res['mfu']):.1f} % | {pub['mfu_pct']} % | {memory:.1f} GB |")
    absolute = [abs(e) for e in errors]
    print()
    print(f"{len(errors)} rows simulated of {len(published)}; mean absolute error {sum(absolute) / len(absolute):.1f} %,"
          f" largest {max(absolute):.1f} %; within 10 %: {sum(a <= 10 for a in absolute)}")
    for seq in sorted(by_seq):
        e = by_seq[seq]
        print(f"- seq {seq}: {len(e)} rows, mean error {sum(e) / len(e):+.1f} %, range {min(e):+.1f} to {max(e):+.1f} %")


if __name__ == "__main__":
    main()
