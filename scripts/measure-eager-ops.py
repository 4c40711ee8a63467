#!/usr/bin/env python3
"""Time the memory-bound PyTorch operators an eager (un-compiled) transformer step launches, one by one.

scripts/measure-step.py measures whole eager steps and splits the device's time by kernel family;
there the model's memory-bound kernels, priced at the copy rate of scripts/measure-accelerator.py,
come out about 1.4x faster than the measured "other" kernels (docs/validation.md). This script
times the operators behind them one at a time, each on tensors far larger than the L2, so that the
rate each reaches can be compared with a plain copy: the casts between bf16 and fp32, RMSNorm's
pow, mean over the last dimension, broadcast multiplies, rotary embedding's complex multiply,
SiLU and the SwiGLU product, residual adds, the transposed copies around attention, reductions to a
scalar and over rows, cross-entropy forward and backward on fp32 logits, and the embedding's
backward.

Each row gives the bytes the operator must move (its inputs read and its output written once, as
the script computes them from the shapes and types) and its time: the median over --repeats of
CUDA events around back-to-back calls, calls under 50 us replayed from a CUDA graph
(scripts/measure-accelerator.py's timing, imported from it). --dry-run lists the rows without
PyTorch. About 30 s on an H200.

The output is "clearfog kernel measurements v1" (docs/calibration.md), the format
scripts/measure-accelerator.py writes, so that `clearfog calibrate` reads it: the plain copy is a
`copy` row (memory.efficiency), every other operator an `elementwise` row named in the `pass`
column (memory.in_place_efficiency, fitted to the rows beyond the L2). A comment line before each
row gives the operator's dtype and shape.
"""
import argparse
import datetime
import shlex
import sys

from script_import import load

FORMAT_LINE = "# clearfog kernel measurements v1"
TOKENS, HIDDEN, VOCAB, FFN = 16384, 4096, 32000, 11008


accelerator = load("measure_accelerator", "measure-accelerator.py")


def ops(torch, dev):
    """(name, dtype, shape text, bytes moved, function of no arguments) per operator."""
    F = torch.nn.functional
    T, h, V, f = TOKENS, HIDDEN, VOCAB, FFN
    n = T * h
    xb = torch.randn(T, h, device=dev, dtype=torch.bfloat16)
    yb = torch.randn(T, h, device=dev, dtype=torch.bfloat16)
    xf = xb.float()
    yf = torch.empty_like(xf)
    rows = torch.rand(T, 1, device=dev) + 0.5
    weight = torch.randn(h, device=dev, dtype=torch.bfloat16)
    gate = torch.randn(T, f, device=dev, dtype=torch.bfloat16)
    up = torch.randn(T, f, device=dev, dtype=torch.bfloat16)
    freqs = torch.polar(torch.ones(T, h // 2, device=dev), torch.rand(T, h // 2, device=dev))
    heads, hd, b = 32, h // 32, 4
    s = T // b
    logits = torch.randn(T, V, device=dev, dtype=torch.float32, requires_grad=True)
    targets = torch.randint(0, V, (T,), device=dev)
    loss = F.cross_entropy(logits, targets)
    table = torch.randn(V, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
    tokens = torch.randint(0, V, (T,), device=dev)
    emb = F.embedding(tokens, table)
    grad_emb = torch.randn_like(emb)

    def ce_backward():
        return torch.autograd.grad(loss, logits, retain_graph=True)[0]

    def embedding_backward():
        return torch.autograd.grad(emb, table, grad_emb, retain_graph=True)[0]

    return [
        ("copy", "bf16", f"{T}x{h}", 4 * n, lambda: yb.copy_(xb)),
        ("to_fp32", "bf16->fp32", f"{T}x{h}", 6 * n, lambda: xb.float()),
        ("to_bf16", "fp32->bf16", f"{T}x{h}", 6 * n, lambda: xf.to(torch.bfloat16)),
        ("pow2", "fp32", f"{T}x{h}", 8 * n, lambda: xf.pow(2)),
        ("mean_last_dim", "fp32", f"{T}x{h}", 4 * n + 4 * T, lambda: xf.mean(-1, keepdim=True)),
        ("mul_row_broadcast", "fp32", f"{T}x{h} * {T}x1", 8 * n + 4 * T, lambda: xf * rows),
        ("mul_weight", "bf16", f"{T}x{h} * {h}", 4 * n + 2 * h, lambda: xb * weight),
        ("add_scalar", "fp32", f"{T}x{h}", 8 * n, lambda: xf + 1e-5),
        ("add", "bf16", f"{T}x{h}", 6 * n, lambda: xb + yb),
        ("add_out_fp32", "fp32", f"{T}x{h}", 12 * n, lambda: torch.add(xf, xf, out=yf)),
        ("silu", "bf16", f"{T}x{f}", 4 * T * f, lambda: F.silu(gate)),
        ("mul", "bf16", f"{T}x{f}", 6 * T * f, lambda: gate * up),
        ("complex_mul", "complex64", f"{T}x{h // 2}", 8 * n // 2 * 3,
         lambda: torch.view_as_complex(xf.view(T, h // 2, 2)) * freqs),
        ("transpose_copy", "bf16", f"{b}x{s}x{heads}x{hd}", 4 * n,
         lambda: xb.view(b, s, heads, hd).transpose(1, 2).contiguous()),
        ("amax_abs", "bf16", f"{T}x{h}", 2 * n, lambda: xb.abs().amax()),
        ("sum_rows", "fp32", f"{T}x{h} -> {h}", 4 * n + 4 * h, lambda: xf.sum(0)),
        ("cross_entropy", "fp32", f"{T}x{V}", 4 * T * V, lambda: F.cross_entropy(logits, targets)),
        ("cross_entropy_bwd", "fp32", f"{T}x{V}", 8 * T * V, ce_backward),
        ("embedding_bwd", "bf16", f"{T} of {V}x{h}", 2 * n + 2 * V * h, embedding_backward),
    ]


def header(bench):
    torch, p = bench.torch, bench.props
    return "\n".join([
        FORMAT_LINE,
        f"# gpu: {p.name}",
        f"# torch: {torch.__version__}",
        f"# cuda: {torch.version.cuda}",
        f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"# command: {' '.join(shlex.quote(a) for a in sys.argv)}",
        f"# device: {p.multi_processor_count} SMs, {p.total_memory / 2**30:.1f} GiB",
        "# bytes: each input read once and the output written once (the least the operator must move)",
        ",".join(accelerator.COLUMNS)]) + "\n"


def row(name, nbytes, t):
    """One kernel-measurement row: the copy as a `copy` row, the rest as `elementwise`."""
    cells = [""] * len(accelerator.COLUMNS)
    cells[0], cells[10], cells[11], cells[16] = ("copy" if name == "copy" else "elementwise"), \
        ("copy" if name == "copy" else name), str(nbytes), f"{t:.9g}"
    return ",".join(cells) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", metavar="FILE", help="CSV file to write (default: standard output)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument("--dry-run", action="store_true", help="list the operators; needs no PyTorch")
    args = parser.parse_args(argv)
    if args.dry_run:
        print("copy to_fp32 to_bf16 pow2 mean_last_dim mul_row_broadcast mul_weight add_scalar add add_out_fp32 "
              "silu mul complex_mul transpose_copy amax_abs sum_rows cross_entropy cross_entropy_bwd embedding_bwd")
        return 0
    import torch
    bench = accelerator.Bench(torch, 0, args.repeats, args.min_time)
    out = open(args.out, "w") if args.out else sys.stdout
    out.write(header(bench))
    accelerator.warm_up(bench, 2.0)
    for name, dtype, shape, nbytes, fn in ops(torch, bench.device):
        try:
            t = accelerator.median_call_time(bench, fn, nbytes)
        except Exception as error:  # noqa: BLE001 -- one failure must not lose the rest
            out.write(f"# failed {name}: {accelerator.reason(error)}\n")
            continue
        out.write(f"# {name}: {dtype} {shape}, {nbytes / t / 1e12:.3f} TB/s\n" + row(name, nbytes, t))
        out.flush()
        accelerator.progress(f"{name}: {t * 1e6:.1f} us, {nbytes / t / 1e12:.2f} TB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
