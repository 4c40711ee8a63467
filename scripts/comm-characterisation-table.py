#!/usr/bin/env python3
"""Tables of the communication-characterisation study (scenarios/studies/comm-characterisation/).

Reads a sweep directory run with `--comm-profile` (results.csv with its comm.* columns) and prints
markdown: per model, sequence length and layout the step time, the bytes each device sends per
iteration on each parallel axis, its collective and point-to-point calls, the shares of
point-to-point calls and bytes and of small (< 1 MiB) messages, and the closed forms of Anthony et al.
(HOTI 2024) evaluated on the same run: a ring all-reduce sends 2(p-1)/p of the gradient bytes, ZeRO-3
about 1.5 times that. With --check it prints nothing and instead asserts what
docs/comm-characterisation-study.md states (exit 1 naming the first claim that fails). Usage:
    scripts/comm-characterisation-table.py [--check] SWEEP_DIR
"""
import csv
import sys

AXES = ["dp", "zero", "tp", "pp"]
LAYOUTS = {  # the sweep's parallelism values, by what they are called in the paper
    "{dp: 64}": "DP",
    "{dp: 64, zero_stage: 1}": "ZeRO-1",
    "{dp: 64, zero_stage: 2}": "ZeRO-2",
    "{dp: 64, zero_stage: 3}": "ZeRO-3",
    "{tp: 4, dp: 16}": "TP4 x DP16",
    "{pp: 4, dp: 16}": "PP4 x DP16",
}


def number(row, key):
    text = row.get(key, "")
    return float(text) if text else 0.0


def size(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B" if b else "-"


def main(directory):
    rows = [r for r in csv.DictReader(open(f"{directory}/results.csv")) if r["status"] in ("ok", "oom")]
    print("| model | seq | layout | step (s) | " + " | ".join(f"{a} sent" for a in AXES)
          + " | collectives | p2p msgs | p2p share (calls) | p2p share (bytes) | small msgs | median tp msg | median pp msg |")
    print("|---|---|---|---|" + "---|" * len(AXES) + "---|---|---|---|---|---|---|")
    for r in rows:
        model = r["workload"].rsplit("/", 1)[-1].removesuffix(".yaml")
        calls = sum(number(r, f"comm.{a}.collectives") for a in AXES)
        msgs = sum(number(r, f"comm.{a}.messages") for a in AXES)
        cells = [model, r["workload.seq_length"], LAYOUTS.get(r["parallelism"], r["parallelism"]),
                 f"{number(r, 'step_time_s'):.3f}"]
        cells += [size(number(r, f"comm.{a}.sent_B")) for a in AXES]
        cells += [f"{calls:.0f}", f"{msgs:.0f}", f"{number(r, 'comm.p2p_message_share'):.0%}",
                  f"{number(r, 'comm.p2p_bytes_share'):.1%}", f"{number(r, 'comm.small_message_share'):.0%}",
                  size(number(r, "comm.tp.median_message_B")), size(number(r, "comm.pp.median_message_B"))]
        print("| " + " | ".join(cells) + " |")
    print()
    print_closed_forms(rows)


def print_closed_forms(rows):
    """Data-parallel volumes against 2(p-1)/p G and ZeRO-3 against 1.5 times plain DP."""
    print("| model | seq | DP sent / 2(p-1)/p G | ZeRO-3 sent / DP sent |")
    print("|---|---|---|---|")
    by = {}
    for r in rows:
        key = (r["workload"].rsplit("/", 1)[-1].removesuffix(".yaml"), r["workload.seq_length"])
        by.setdefault(key, {})[LAYOUTS.get(r["parallelism"], r["parallelism"])] = r
    for (model, seq), layouts in by.items():
        if "DP" not in layouts or "ZeRO-3" not in layouts:
            continue
        dp = layouts["DP"]
        p = 64
        grad = number(dp, "communication.gradient_bytes")
        dp_sent = number(dp, "comm.dp.sent_B")
        z3 = layouts["ZeRO-3"]
        z3_sent = number(z3, "comm.zero.sent_B") + number(z3, "comm.dp.sent_B")
        # ZeRO-3 reduce-scatters every micro-batch's gradients and gathers the parameters twice per
        # micro-batch: per micro-batch 1.5 times one all-reduce (m micro-batches per replica).
        print(f"| {model} | {seq} | {dp_sent / (2 * (p - 1) / p * grad):.4f} | {z3_sent / dp_sent:.3f} |")


def by_point(rows):
    """(model, seq, layout) -> row."""
    return {(r["workload"].rsplit("/", 1)[-1].removesuffix(".yaml"), int(r["workload.seq_length"]),
             LAYOUTS.get(r["parallelism"], r["parallelism"])): r for r in rows}


def claim(ok, text):
    if not ok:
        sys.exit(f"claim fails: {text}")


def check(directory):
    """The study's stated findings, each derived from a closed form or a stated trend."""
    rows = list(csv.DictReader(open(f"{directory}/results.csv")))
    claim(len(rows) == 72 and all(r["status"] in ("ok", "oom") for r in rows), "all 72 points simulated")
    pts = by_point(rows)
    models = list(dict.fromkeys(m for m, _, _ in pts))  # the sweep's order: growing size
    seqs = sorted({s for _, s, _ in pts})
    p = 64
    for m in models:
        for s in seqs:
            dp, z3 = pts[(m, s, "DP")], pts[(m, s, "ZeRO-3")]
            grad = number(dp, "communication.gradient_bytes")
            claim(abs(number(dp, "comm.dp.sent_B") / (2 * (p - 1) / p * grad) - 1) < 1e-6,
                  f"{m} seq {s}: DP sends 2(p-1)/p of the gradient bytes")
            claim(abs(number(z3, "comm.zero.sent_B") / number(dp, "comm.dp.sent_B") - 1.5) < 1e-3,
                  f"{m} seq {s}: ZeRO-3 sends 1.5 times DP")
            for z in ("ZeRO-1", "ZeRO-2"):  # one micro-batch: reduce-scatter + all-gather = all-reduce
                claim(abs(number(pts[(m, s, z)], "comm.zero.sent_B") / number(dp, "comm.dp.sent_B") - 1) < 1e-3,
                      f"{m} seq {s}: {z} sends what DP sends")
        for a, b in zip(seqs, seqs[1:]):
            for layout, axis in (("TP4 x DP16", "tp"), ("PP4 x DP16", "pp")):
                ratio = number(pts[(m, b, layout)], f"comm.{axis}.sent_B") / number(pts[(m, a, layout)], f"comm.{axis}.sent_B")
                claim(abs(ratio - b / a) < 0.01 * b / a, f"{m}: {axis} volume grows with the sequence ({a} -> {b})")
            ratio = number(pts[(m, b, "DP")], "comm.dp.sent_B") / number(pts[(m, a, "DP")], "comm.dp.sent_B")
            claim(abs(ratio - 1) < 0.02, f"{m}: DP volume does not depend on the sequence ({a} -> {b})")
            share = [number(pts[(m, x, "PP4 x DP16")], "comm.p2p_bytes_share") for x in (a, b)]
            claim(share[1] > share[0], f"{m}: the p2p share of bytes grows with the sequence ({a} -> {b})")
    for s in seqs:  # the smaller the model, the larger the share of calls that are pipeline messages
        shares = [number(pts[(m, s, "PP4 x DP16")], "comm.p2p_message_share") for m in models]
        claim(shares == sorted(shares, reverse=True), f"seq {s}: p2p share of calls falls with model size")
    # The paper's small-message finding: pipeline messages of the smallest model and sequence are small.
    small = pts[(models[0], seqs[0], "PP4 x DP16")]
    claim(number(small, "comm.pp.median_message_B") < 1 << 20, "the smallest model's pipeline messages are < 1 MiB")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--check":
        check(args[1])
    elif len(args) == 1:
        main(args[0])
    else:
        sys.exit(__doc__)
