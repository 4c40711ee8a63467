#!/usr/bin/env python3
"""Time what FP8 training recipes add around a GEMM, and training steps near a memory limit, on one GPU.

scripts/measure-accelerator.py times the kernels every run prices; this script times two things the
recipes of 2025-26 and the memory model need beyond them (docs/calibration.md, "low-precision and
memory-pressure measurements"):

  scaled_gemm  torch._scaled_mm in float8_e4m3fn with a bf16 output under each scaling the recipes
               use: per tensor (torchao "tensorwise", Transformer Engine delayed and current
               scaling), per row of A and column of B (torchao "rowwise"), and DeepSeek-V3's blocks
               (1x128 tiles of A, 128x128 blocks of B) where this PyTorch and cuBLAS run them; beside
               each, torch.mm in bf16 on the same shape. Shapes: Llama 3 8B's weight GEMMs at 8192
               tokens (forward, and the weight gradients, whose contraction runs over the tokens),
               1024-token versions, and squares.
  quantize     the cast of a bf16 tensor to float8_e4m3fn with its scales, as the recipes run it:
               tensorwise (amax over the tensor, then scale and cast), delayed (the scale known from
               history, the amax taken while casting), rowwise (an amax per row), blockwise (an amax
               per 1x128 tile); one output (row-major) or two (also the transposed copy that the
               backward's GEMMs read); eagerly (one PyTorch operator at a time, as torchao's eager
               mode runs it) and compiled by torch.compile (as torchao and torchtitan run it).
  pressure     whole eager training steps of a small Llama model (scripts/measure-step.py's) under a
               cap on the caching allocator (torch.cuda.set_per_process_memory_fraction) from twice
               the step's peak down to the peak: the step time and how many times per step the
               allocator had to free its cache and retry (num_alloc_retries), or "oom".

Times are medians over --repeats of CUDA events around back-to-back calls, calls under 50 us
replayed from a CUDA graph (scripts/measure-accelerator.py's timing, imported from it). A row that
this device or PyTorch cannot run is a '#' comment saying why; the run goes on. --dry-run lists the
rows without PyTorch. About 3 minutes on an H200, most of it torch.compile.

The CSV "clearfog low-precision measurements v1", one row per measurement:
kind,recipe,impl,m,n,k,outputs,limit_bytes,time_s,peak_bytes,retries_per_step,note
  scaled_gemm: recipe bf16|tensorwise|rowwise|blockwise; m,n,k; time_s per GEMM.
  quantize:    recipe tensorwise|delayed|rowwise|blockwise; impl eager|compiled; m x n elements (m rows
               of n); outputs 1|2; time_s per cast of the whole tensor.
  pressure:    recipe the model's name; limit_bytes the allocator's cap (empty: none); time_s per step;
               peak_bytes torch.cuda.max_memory_reserved; retries_per_step; note "oom" where the cap
               was too small.
"""
import argparse
import datetime
import shlex
import sys
import time

from script_import import load

FORMAT_LINE = "# clearfog low-precision measurements v1"
COLUMNS = ["kind", "recipe", "impl", "m", "n", "k", "outputs", "limit_bytes", "time_s", "peak_bytes",
           "retries_per_step", "note"]
E4M3_MAX = 448.0
BLOCK = 128                       # DeepSeek-V3's and cuBLAS's block edge
GEMM_RECIPES = ("bf16", "tensorwise", "rowwise", "blockwise")
QUANTIZE_RECIPES = ("tensorwise", "delayed", "rowwise", "blockwise")
# Llama 3 8B (hidden 4096, 32 heads, 8 KV heads, FFN 14336) at T tokens: Q|K|V fused, O, w1 (=w3),
# w2; and the weight gradients of w1 and w2 (m and n the weight's, k the tokens).
def llama8b_gemms(tokens):
    return [(tokens, 6144, 4096), (tokens, 4096, 4096), (tokens, 14336, 4096), (tokens, 4096, 14336)]


GEMM_SHAPES = (llama8b_gemms(8192) + [(4096, 14336, 8192), (14336, 4096, 8192)] + llama8b_gemms(1024)
               + [(s, s, s) for s in (2048, 4096, 8192, 16384)])
QUANTIZE_SHAPES = [(8192, 4096), (8192, 14336), (14336, 4096), (32768, 4096)]
COMPILED_SHAPES = QUANTIZE_SHAPES[:2]  # torch.compile costs seconds per shape and recipe
PRESSURE_MODEL = "h4096-l4-s4096-b4"
# The cap as a multiple of the uncapped run's peak allocated bytes (torch.cuda.max_memory_allocated:
# what the step needs; the allocator reserves more, its cache's fragmentation).
PRESSURE_CAPS = (None, 1.5, 1.2, 1.1, 1.07, 1.05, 1.04, 1.03, 1.02, 1.01, 1.005, 1.0)
# "varied": micro-batches of these sizes in turn (of the model's sequence), as variable-length or
# packed batches give the allocator blocks of changing sizes.
VARIED_BATCHES = (4, 3, 2, 4, 1, 3)
PRESSURE_STEPS = 12                # two rounds of VARIED_BATCHES
COMPILE_BUDGET_S = 150            # compiled rows after this much compiling are skipped, said so


accelerator = load("measure_accelerator", "measure-accelerator.py")
steps = load("measure_step", "measure-step.py")
Skip = accelerator.Skip
progress = accelerator.progress


def row(kind, **columns):
    r = dict.fromkeys(COLUMNS, "")
    r["kind"] = kind
    r.update(columns)
    return r


def make_plan(only):
    rows = []
    if "scaled_gemm" in only:
        rows += [row("scaled_gemm", recipe=rc, m=m, n=n, k=k) for m, n, k in GEMM_SHAPES for rc in GEMM_RECIPES]
    if "quantize" in only:
        for impl, shapes in (("eager", QUANTIZE_SHAPES), ("compiled", COMPILED_SHAPES)):
            rows += [row("quantize", recipe=rc, impl=impl, m=m, n=n, outputs=o)
                     for m, n in shapes for rc in QUANTIZE_RECIPES for o in (1, 2)]
    if "pressure" in only:
        rows += [row("pressure", recipe=name, note=("" if c is None else f"cap {c}"))
                 for name in (PRESSURE_MODEL, PRESSURE_MODEL + "-varied") for c in PRESSURE_CAPS]
    return rows


# scaled GEMMs ----------------------------------------------------------------------------------------

def blockwise_scales(torch, dev, m, n, k):
    """Scales for 1x128 tiles of A (m x k) and 128x128 blocks of B (k x n), in the layouts this
    PyTorch accepts: the first layout that runs (A's scales M-major, as cuBLAS wants, else row-major)."""
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    candidates = (
        (torch.ones(kb, m, device=dev).t(), torch.ones(nb, kb, device=dev).t(), "a-scales m-major"),
        (torch.ones(m, kb, device=dev), torch.ones(kb, nb, device=dev), "row-major scales"),
        (torch.ones(kb, m, device=dev).t(), torch.ones(kb, nb, device=dev), "a m-major, b k-major"),
    )
    return candidates


def scaled_gemm_call(bench, r):
    torch, dev = bench.torch, bench.device
    m, n, k = r["m"], r["n"], r["k"]
    if r["recipe"] == "bf16":
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
        return (lambda: torch.mm(a, b, out=c)), ""
    f8 = accelerator.fp8_dtype(bench)
    a = torch.randn(m, k, device=dev).to(f8)
    b = torch.randn(n, k, device=dev).to(f8).t()  # column-major, as _scaled_mm requires
    if r["recipe"] == "tensorwise":
        candidates = ((torch.ones((), device=dev), torch.ones((), device=dev), ""),)
    elif r["recipe"] == "rowwise":
        candidates = ((torch.ones(m, 1, device=dev), torch.ones(1, n, device=dev), ""),)
    else:
        candidates = blockwise_scales(torch, dev, m, n, k)
    errors = []
    for scale_a, scale_b, layout in candidates:
        def call(sa=scale_a, sb=scale_b):
            return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        try:
            call()
            torch.cuda.synchronize()
            return call, layout
        except Exception as error:  # noqa: BLE001 -- try the next layout, then say why none ran
            errors.append(f"{layout or 'scales'}: {accelerator.reason(error)}")
    raise Skip("; ".join(errors))


def measure_scaled_gemm(bench, r):
    m, n, k = r["m"], r["n"], r["k"]
    bench.ensure_fits(2 * (m * k + k * n) + 2 * m * n + 4 * max(m * k, n * k))
    fn, layout = scaled_gemm_call(bench, r)
    return accelerator.median_call_time(bench, fn, 2 * m * n), layout


# quantize ------------------------------------------------------------------------------------------

def quantize_function(torch, f8, recipe, outputs):
    """The recipe's cast of x (bf16, m x n) as torchao / Transformer Engine compute it in PyTorch
    operators: fp32 arithmetic, clamp to e4m3's range, the scale as E4M3_MAX / amax."""
    def to_f8(x, scale):
        return (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(f8)

    def tensorwise(x, history_scale):
        scale = E4M3_MAX / x.abs().amax().float().clamp(min=1e-12)
        y = to_f8(x, scale)
        return (y, y.t().contiguous(), scale) if outputs == 2 else (y, scale)

    def delayed(x, history_scale):
        amax = x.abs().amax()  # recorded for the next step's scale
        y = to_f8(x, history_scale)
        return (y, y.t().contiguous(), amax) if outputs == 2 else (y, amax)

    def rowwise(x, history_scale):
        rows = E4M3_MAX / x.abs().amax(dim=1, keepdim=True).float().clamp(min=1e-12)
        y = to_f8(x, rows)
        if outputs == 1:
            return y, rows
        cols = E4M3_MAX / x.abs().amax(dim=0, keepdim=True).float().clamp(min=1e-12)
        return y, to_f8(x, cols).t().contiguous(), rows, cols

    def blockwise(x, history_scale):
        m, n = x.shape
        tiles = x.view(m, n // BLOCK, BLOCK)
        scale = E4M3_MAX / tiles.abs().amax(dim=2, keepdim=True).float().clamp(min=1e-12)
        y = to_f8(tiles, scale).view(m, n)
        if outputs == 1:
            return y, scale
        xt = x.t().contiguous().view(n, m // BLOCK, BLOCK)
        scale_t = E4M3_MAX / xt.abs().amax(dim=2, keepdim=True).float().clamp(min=1e-12)
        return y, to_f8(xt, scale_t).view(n, m), scale, scale_t

    return {"tensorwise": tensorwise, "delayed": delayed, "rowwise": rowwise, "blockwise": blockwise}[recipe]


def measure_quantize(bench, r):
    torch, dev = bench.torch, bench.device
    f8 = accelerator.fp8_dtype(bench)
    m, n, outputs = r["m"], r["n"], r["outputs"]
    bench.ensure_fits(m * n * (2 + 4 + 2 * outputs))
    x = torch.randn(m, n, device=dev, dtype=torch.bfloat16)
    history = torch.tensor(E4M3_MAX / 4.0, device=dev)
    fn = quantize_function(torch, f8, r["recipe"], outputs)
    if r["impl"] == "compiled":
        if bench.compile_s > COMPILE_BUDGET_S:
            raise Skip(f"torch.compile has taken {bench.compile_s:.0f} s, over the {COMPILE_BUDGET_S} s budget")
        started = time.perf_counter()
        fn = torch.compile(fn, dynamic=False, fullgraph=True)
        fn(x, history)
        torch.cuda.synchronize()
        bench.compile_s += time.perf_counter() - started
        progress(f"  compiled; {bench.compile_s:.1f} s of compiling so far")
    return accelerator.median_call_time(bench, lambda: fn(x, history), m * n * outputs), ""


# memory pressure -------------------------------------------------------------------------------------

class Pressure:
    """One model and its data, built once; each cap times PRESSURE_STEPS steps under it."""

    def __init__(self, bench, varied):
        torch, dev = bench.torch, bench.device
        hidden, layers, heads, ffn, seq, micro_batch = steps.CONFIGS[PRESSURE_MODEL]
        torch.manual_seed(steps.SEED)
        model = steps.build_model(torch, hidden, layers, heads, ffn, seq, dev)
        self.trainer = steps.Trainer(torch, model)
        batches = VARIED_BATCHES if varied else (micro_batch,)
        self.data = [(torch.randint(0, steps.VOCAB, (b, seq), device=dev),
                      torch.randint(0, steps.VOCAB, (b, seq), device=dev)) for b in batches]
        self.next = 0
        self.torch, self.bench = torch, bench
        self.total = torch.cuda.get_device_properties(dev).total_memory
        self.peak = None

    def step(self):
        tokens, targets = self.data[self.next % len(self.data)]
        self.next += 1
        self.trainer.step(tokens, targets)

    def run(self, cap):
        torch, dev = self.torch, self.bench.device
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        limit = None if cap is None else int(cap * self.peak)
        torch.cuda.set_per_process_memory_fraction(1.0 if limit is None else min(1.0, limit / self.total), dev)
        torch.cuda.reset_peak_memory_stats(dev)
        try:
            for _ in range(len(self.data)):
                self.step()
            torch.cuda.synchronize()
            retries = torch.cuda.memory_stats(dev).get("num_alloc_retries", 0)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(PRESSURE_STEPS):
                self.step()
            end.record()
            end.synchronize()
        except torch.OutOfMemoryError:
            for p in self.trainer.params:
                p.grad = None
            torch.cuda.empty_cache()
            return None, limit, None, None
        retries = (torch.cuda.memory_stats(dev).get("num_alloc_retries", 0) - retries) / PRESSURE_STEPS
        step_s = start.elapsed_time(end) * 1e-3 / PRESSURE_STEPS
        if cap is None:
            self.peak = torch.cuda.max_memory_allocated(dev)
        return step_s, limit, torch.cuda.max_memory_reserved(dev), retries


def measure_pressure(bench, r, state):
    if state.get("pressure_model") != r["recipe"]:
        state.pop("pressure", None)
        bench.torch.cuda.empty_cache()
        state["pressure"] = Pressure(bench, r["recipe"].endswith("-varied"))
        state["pressure_model"] = r["recipe"]
    cap = None if not r["note"] else float(r["note"].split()[1])
    if cap is not None and state["pressure"].peak is None:
        raise Skip("the uncapped step did not run")
    step_s, limit, peak, retries = state["pressure"].run(cap)
    r.update(limit_bytes="" if limit is None else limit)
    if step_s is None:
        r.update(note=f"{r['note']}: oom")
        return None, r["note"]
    r.update(peak_bytes=peak, retries_per_step=f"{retries:g}")
    return step_s, r["note"]


# the run -----------------------------------------------------------------------------------------------

def header(bench, args):
    torch, p = bench.torch, bench.props
    lines = [FORMAT_LINE,
             f"# gpu: {p.name}, {p.multi_processor_count} SMs, {p.total_memory / 2**30:.1f} GiB",
             f"# torch: {torch.__version__}; cuda: {torch.version.cuda}",
             f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
             f"# command: {' '.join(shlex.quote(a) for a in sys.argv)}",
             f"# timing: median of {args.repeats} repeats, at least {args.min_time} s each; calls under 50 us "
             "replayed from a CUDA graph",
             "# scaled_gemm: float8_e4m3fn A row-major x B column-major, bf16 output, use_fast_accum=False",
             "# pressure: scripts/measure-step.py's model and step (bf16, fp32 masters, fused AdamW), "
             "default caching allocator, cap = set_per_process_memory_fraction(cap x uncapped max_memory_allocated)",
             ",".join(COLUMNS)]
    return "\n".join(lines) + "\n"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", metavar="FILE", help="CSV file to write (default: standard output)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument("--only", default="scaled_gemm,quantize,pressure",
                        help="comma-separated kinds: scaled_gemm, quantize, pressure")
    parser.add_argument("--dry-run", action="store_true", help="list the rows; needs no PyTorch")
    args = parser.parse_args(argv)
    args.only = [k for k in args.only.split(",") if k]
    unknown = [k for k in args.only if k not in ("scaled_gemm", "quantize", "pressure")]
    if unknown:
        parser.error(f"--only: unknown kind {unknown[0]!r}; allowed: scaled_gemm, quantize, pressure")
    return args


MEASURE = {"scaled_gemm": measure_scaled_gemm, "quantize": measure_quantize}


def main(argv=None):
    args = parse_args(argv)
    plan = make_plan(args.only)
    if args.dry_run:
        for r in plan:
            print(",".join(str(r[c]) for c in COLUMNS))
        return 0
    import torch
    bench = accelerator.Bench(torch, 0, args.repeats, args.min_time)
    bench.compile_s = 0.0
    out = open(args.out, "w") if args.out else sys.stdout
    out.write(header(bench, args))
    out.flush()
    accelerator.warm_up(bench, 2.0)
    state, started = {}, time.perf_counter()
    for i, r in enumerate(plan):
        progress(f"[{i + 1}/{len(plan)}] {r['kind']} {r['recipe']} {r['impl']} {r['m']} {r['n']} {r['k']} "
                 f"{r['outputs']} {r['note']}")
        try:
            if r["kind"] == "pressure":
                time_s, note = measure_pressure(bench, r, state)
            else:
                time_s, note = MEASURE[r["kind"]](bench, r)
        except Skip as why:
            out.write(f"# skipped {r['kind']} {r['recipe']} {r['m']}x{r['n']}x{r['k']}: {why}\n")
            out.flush()
            continue
        except Exception as error:  # noqa: BLE001 -- one failure must not lose the rest
            out.write(f"# failed {r['kind']} {r['recipe']} {r['impl']} {r['m']}x{r['n']}x{r['k']}: "
                      f"{accelerator.reason(error)}\n")
            out.flush()
            torch.cuda.empty_cache()
            continue
        r.update(time_s="" if time_s is None else f"{time_s:.9g}", note=note or r["note"])
        out.write(",".join(str(r[c]) for c in COLUMNS) + "\n")
        out.flush()
        torch.cuda.empty_cache()
    progress(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
