#!/usr/bin/env python3
"""The sharding-choice experiment (docs/dlrm.md, "Choosing the sharding"; issue: "the 85 % right pick").

Draws CONFIGS random DLRM configurations (seeded: the same configurations every run), each with
TABLES embedding tables of random rows (10^3 .. 5*10^7, log-uniform), dimension (32, 64 or 128),
pooling factor (1 .. 100, log-uniform), index distribution (uniform or zipf 1.05) and table
optimizer (SGD or row-wise Adagrad), on the 8 GPUs of a DGX A100 (scenarios/studies/sharding-choice/).
For each it runs `clearfog shard --exhaustive --format json`: the planner's pick (estimated, not
simulated) against every plan of the exhaustive space, simulated. Prints a markdown table per
configuration and the share of configurations where the pick is the fastest plan, with how much
slower it is where not. With --check it asserts what docs/dlrm.md states instead (exit 1 naming the
first failure). Usage:
    scripts/sharding-experiment.py CLEARFOG WORK_DIR [--configs 20] [--tables 4] [--seed 7] [--jobs 2] [--check]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "scenarios", "studies", "sharding-choice", "scenario.yaml")
GROUP = 8
DIMS = (32, 64, 128)


def pick(rng, values):
    return values[min(int(rng.random() * len(values)), len(values) - 1)]


def log_uniform(rng, low, high):
    return math.exp(math.log(low) + rng.random() * (math.log(high) - math.log(low)))


def configuration(rng, tables):
    """One random DLRM: its tables and table optimizer (bottom MLP ends at the largest dim)."""
    rows = []
    for i in range(tables):
        t = {"name": f"t{i}", "rows": int(log_uniform(rng, 1e3, 5e7)), "dim": pick(rng, DIMS),
             "pooling": round(log_uniform(rng, 1, 100), 1)}
        if rng.random() < 0.5:
            t.update({"distribution": "zipf", "zipf_s": 1.05})
        rows.append(t)
    return {"tables": rows, "optimizer": pick(rng, ("sgd", "rowwise_adagrad"))}


def workload_yaml(index, config):
    dim = max(t["dim"] for t in config["tables"])
    lines = ["kind: workload", f"name: sharding experiment config {index}",
             "source: scripts/sharding-experiment.py (random, seeded)", "type: dlrm", "dense_features: 13",
             f"embedding_dim: {dim}", f"bottom_mlp: [256, {dim}]", "top_mlp: [512, 256, 1]",
             "interaction: concat", f"embedding_optimizer: {config['optimizer']}", "tables:"]
    for t in config["tables"]:
        fields = ", ".join(f"{k}: {v}" for k, v in t.items())
        lines.append(f"  - {{{fields}}}")
    return "\n".join(lines) + "\n"


def run(clearfog, directory, jobs):
    out = subprocess.run([clearfog, "shard", os.path.join(directory, "scenario.yaml"), "--exhaustive",
                          "--format", "json", "--jobs", str(jobs), "--max-plans", "100000"],
                         check=True, capture_output=True, text=True).stdout
    with open(os.path.join(directory, "shard.json"), "w") as f:
        f.write(out)
    return json.loads(out)


def describe(config):
    return "; ".join(f"{t['rows']:.2g}x{t['dim']} L={t['pooling']:g}{' zipf' if 'zipf_s' in t else ''}"
                     for t in config["tables"]) + f"; {config['optimizer']}"


def stirling2(n, k):
    if n == k:
        return 1
    if n == 0 or k == 0:
        return 0
    return k * stirling2(n - 1, k) + stirling2(n - 1, k - 1)


def space_size(config):
    """The exhaustive space by its closed form: the table-wise tables partition into at most 8
    devices; every other table is row-wise, column-wise (8 divides its dim) or data parallel."""
    n = len(config["tables"])
    total = 0
    for k in range(n + 1):
        total += math.comb(n, k) * sum(stirling2(k, j) for j in range(min(k, GROUP) + 1)) * 3 ** (n - k)
    return total


def check(results):
    def fail(message):
        print(f"sharding experiment check failed: {message}", file=sys.stderr)
        sys.exit(1)

    for i, (config, r) in enumerate(results):
        if r["exhaustive_space"] != space_size(config):
            fail(f"config {i}: exhaustive space {r['exhaustive_space']}, closed form {space_size(config)}")
        steps = [p["step_time_s"] for p in r["plans"] if p["status"] == "ok"]
        if steps != sorted(steps):
            fail(f"config {i}: plans not ranked by step time")
        if r["simulated"] < space_size(config):
            fail(f"config {i}: {r['simulated']} plans simulated, fewer than the space's {space_size(config)}")
    right = sum(1 for _, r in results if r["pick_is_best"])
    share = right / len(results)
    slow = [r["pick_slowdown"] for _, r in results if not r["pick_is_best"]]
    # docs/dlrm.md: the pick is the fastest plan in 19 of the 20 configurations (95 %; the seed
    # paper's figure is 85 %); asserted: at least 80 %, and never more than 5 % slower than the fastest.
    if share < 0.80:
        fail(f"the pick is the fastest in {right} of {len(results)} configurations ({share:.0%}), below 80 %")
    if slow and max(slow) > 0.05:
        fail(f"the pick is {max(slow):.1%} slower than the fastest plan in one configuration, above 5 %")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clearfog")
    parser.add_argument("work")
    parser.add_argument("--configs", type=int, default=20)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scenario = open(SCENARIO).read().replace("../../../platforms/", os.path.join(HERE, "..", "platforms") + "/")
    results = []
    for i in range(args.configs):
        config = configuration(rng, args.tables)
        directory = os.path.join(args.work, f"config-{i:02d}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "workload.yaml"), "w") as f:
            f.write(workload_yaml(i, config))
        with open(os.path.join(directory, "scenario.yaml"), "w") as f:
            f.write(scenario)
        results.append((config, run(args.clearfog, directory, args.jobs)))
    if args.check:
        check(results)
        return
    print("| config | tables (rows x dim, pooling) | plans | fastest plan | ms | pick | pick rank | pick slower by |")
    print("|---:|---|---:|---|---:|---|---:|---:|")
    for i, (config, r) in enumerate(results):
        best = r["plans"][0]
        chosen = r["plans"][r["pick_rank"] - 1]
        print(f"| {i} | {describe(config)} | {r['simulated']} | {best['plan']} | {best['step_time_s'] * 1e3:.3f} | "
              f"{chosen['plan']} | {r['pick_rank']} | {r['pick_slowdown']:.1%} |")
    right = sum(1 for _, r in results if r["pick_is_best"])
    slow = [r["pick_slowdown"] for _, r in results if not r["pick_is_best"]]
    print(f"\nThe pick is the fastest plan in {right} of {len(results)} configurations ({right / len(results):.0%}).")
    if slow:
        print(f"Where it is not: {sum(slow) / len(slow):.1%} slower on average, {max(slow):.1%} at most.")


if __name__ == "__main__":
    main()
