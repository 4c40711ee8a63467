#!/usr/bin/env python3
"""Measure the kernels clearfog's kernel model prices, on one GPU, with PyTorch.

Run it on an otherwise idle NVIDIA (CUDA) or AMD (ROCm) GPU. It times, in a fixed order:

  gemm       dense GEMMs C = A @ B (torch.mm, torch.bmm, torch._scaled_mm for fp8, torch._int_mm for
             int8) in fp32, tf32, fp16, bf16, fp8 and int8: squares, the GEMMs of a GPT layer,
             tall-skinny and batched attention-like shapes;
  attention  torch.nn.functional.scaled_dot_product_attention, forward and backward, bf16 and fp16;
  copy       streaming bandwidth: dst.copy_(src) and torch.add(a, b, out=c), 1 MiB to 4 GiB;
  gather     random-row gathers: torch.nn.functional.embedding_bag(mode="sum");
  launch     the cost of launching a trivial kernel, eagerly and replayed from a CUDA graph.

Each time is the median over --repeats repeats of CUDA events around many back-to-back calls,
divided by the number of calls (at least --min-time seconds per repeat), after warm-up calls.
A measurement that does not fit in memory or that the device or PyTorch cannot run is skipped with
a `#` comment line saying why; the run goes on.

The default run (214 rows) took 94 s on an H200, --quick (77 rows) takes under a minute, plus
start-up and 2 s of warm-up. Calls shorter than 50 us are timed replayed from a CUDA graph, so that
their time is the device's, not the host's issue rate.
--dry-run prints the rows it would measure, and needs no PyTorch.

The output is the CSV "clearfog kernel measurements v1", one row per measurement, described in
docs/calibration.md. clearfog calibrate (docs/calibration.md) fits an accelerator
file's efficiencies to it:

    scripts/measure-accelerator.py --out h100-sxm5.csv
    clearfog calibrate --measurements h100-sxm5.csv --accelerator platforms/accelerators/h100-sxm5.yaml
"""
import argparse
import datetime
import gc
import math
import os
import shlex
import statistics
import subprocess
import sys
import threading
import time

FORMAT_LINE = "# clearfog kernel measurements v1"
COLUMNS = ["kind", "dtype", "m", "n", "k", "batch", "heads", "seq", "head_dim", "causal", "pass",
           "bytes", "rows", "dim", "bag", "kernels", "time_s", "host_s"]
KINDS = ("gemm", "attention", "copy", "gather", "launch")  # also the order of the rows
DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8", "int8")

MiB = 1 << 20
GiB = 1 << 30
SEED = 0                      # torch.manual_seed: the same operands and indices on every run
WARMUP_S = 2.0                # GEMMs before the first measurement, to bring the clocks up
MAX_CALLS = 100_000           # calls per repeat, at most
GRAPH_BELOW_S = 50e-6         # calls shorter than this are timed replayed from a CUDA graph
GRAPH_CALLS = 1000            # calls captured in one graph, at most
GRAPH_OUTPUTS_B = 2 * (1 << 30)  # memory the captured calls' own outputs may take together
MEMORY_MARGIN_B = 512 * MiB   # left free for library workspaces (cuBLAS, SDPA)

# --- The plan: the rows to measure, in order (no PyTorch needed) -------------------------------

# GEMMs, (m, n, k) with A m x k and B k x n.
SQUARES = (256, 512, 1024, 2048, 4096, 8192, 16384)
QUICK_SQUARES = (1024, 4096, 8192)
LARGE_SQUARE = 16384          # measured in 16-bit and 8-bit types only (in fp32 a call takes 0.2 s)
TRANSFORMER_HIDDEN = (4096, 8192)
TRANSFORMER_TOKENS = (2048, 8192)
TALL_SKINNY = ((65536, 1024, 1024), (1024, 1024, 65536))
BATCHED_COUNT = 64            # torch.bmm of 64 heads, head dimension 128:
BATCHED_SHAPES = ((2048, 2048, 128), (2048, 128, 2048))  # Q K^T and P V
UNBATCHED_ONLY = ("fp8", "int8")  # torch._scaled_mm and torch._int_mm take 2-D operands only

# Fused attention, (batch, heads, seq, head_dim).
ATTENTION_DTYPES = ("bf16", "fp16")
ATTENTION_SHAPES = ((4, 32, 2048, 128), (1, 32, 8192, 128), (8, 16, 1024, 64))

# Streaming copies: the size of one tensor.
COPY_SIZES = (64 * 1024, 1 * MiB, 8 * MiB, 64 * MiB, 256 * MiB, 1 * GiB, 4 * GiB)
QUICK_COPY_SIZES = (1 * MiB, 64 * MiB, 1 * GiB)
COPY_PASSES = (("copy", 2), ("triad", 3))  # pass, tensors moved (read + written)

# Embedding-bag gathers.
GATHER_DTYPES = ("fp32", "fp16")
GATHER_ROWS = (100_000, 1_000_000, 10_000_000)
GATHER_DIMS = (64, 128)
GATHER_BAGS = (1, 32)
GATHER_BATCH = 65536
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}

LAUNCH_KERNELS = 10_000
LAUNCH_PASSES = ("eager", "graph")


def row(kind, **columns):
    """A CSV row as a dict, every column present, the unused ones empty."""
    r = dict.fromkeys(COLUMNS, "")
    r["kind"] = kind
    r.update(columns)
    return r


def transformer_gemms(hiddens, tokens):
    """The four weight GEMMs of a GPT layer: QKV (h x 3h), proj (h x h), MLP up (h x 4h), down (4h x h)."""
    shapes = []
    for h in hiddens:
        for t in tokens:
            shapes += [(t, 3 * h, h), (t, h, h), (t, 4 * h, h), (t, h, 4 * h)]
    return shapes


def gemm_plan(quick, dtypes):
    """Per dtype: squares, GPT-layer GEMMs, tall-skinny, then batched. --quick keeps three squares,
    one layer (hidden 4096, 2048 tokens), one tall-skinny and one batched shape."""
    if quick:
        squares, layer = QUICK_SQUARES, transformer_gemms(TRANSFORMER_HIDDEN[:1], TRANSFORMER_TOKENS[:1])
        tall, batched = TALL_SKINNY[:1], BATCHED_SHAPES[:1]
    else:
        squares, layer = SQUARES, transformer_gemms(TRANSFORMER_HIDDEN, TRANSFORMER_TOKENS)
        tall, batched = TALL_SKINNY, BATCHED_SHAPES
    rows = []
    for dtype in (d for d in DTYPES if d in dtypes):
        shapes = [(s, s, s) for s in squares if s < LARGE_SQUARE or ELEMENT_BYTES[dtype] <= 2]
        shapes += layer + list(tall)
        shapes = list(dict.fromkeys(shapes))  # once each: hidden 8192 at 8192 tokens has the 8192^3 square
        rows += [row("gemm", dtype=dtype, m=m, n=n, k=k, batch=1) for m, n, k in shapes]
        if dtype not in UNBATCHED_ONLY:
            rows += [row("gemm", dtype=dtype, m=m, n=n, k=k, batch=BATCHED_COUNT) for m, n, k in batched]
    return rows


def attention_plan(quick, dtypes):
    """--quick keeps the first shape."""
    shapes = ATTENTION_SHAPES[:1] if quick else ATTENTION_SHAPES
    return [row("attention", dtype=dtype, batch=b, heads=h, seq=s, head_dim=d, causal=causal, **{"pass": p})
            for dtype in ATTENTION_DTYPES if dtype in dtypes
            for b, h, s, d in shapes
            for causal in (0, 1)
            for p in ("fwd", "bwd")]


def copy_plan(quick, dtypes):
    """Not selected by --dtypes: the element type of a copy does not matter (fp32 tensors).
    --quick keeps 1 MiB, 64 MiB and 1 GiB."""
    sizes = QUICK_COPY_SIZES if quick else COPY_SIZES
    return [row("copy", dtype="fp32", bytes=tensors * size, **{"pass": p})
            for p, tensors in COPY_PASSES for size in sizes]


def gather_plan(quick, dtypes):
    """--quick keeps the 1e6-row tables."""
    tables = GATHER_ROWS[1:2] if quick else GATHER_ROWS
    return [row("gather", dtype=dtype, batch=GATHER_BATCH, rows=rows, dim=dim, bag=bag,
                bytes=GATHER_BATCH * bag * dim * ELEMENT_BYTES[dtype])
            for dtype in GATHER_DTYPES if dtype in dtypes
            for rows in tables for dim in GATHER_DIMS for bag in GATHER_BAGS]


def launch_plan(quick, dtypes):
    """Not selected by --dtypes: a one-element fp32 tensor, the dtype column left empty."""
    return [row("launch", kernels=LAUNCH_KERNELS, **{"pass": p}) for p in LAUNCH_PASSES]


PLANS = {"gemm": gemm_plan, "attention": attention_plan, "copy": copy_plan, "gather": gather_plan,
         "launch": launch_plan}


def make_plan(args):
    rows = []
    for kind in KINDS:
        if kind in args.only:
            rows += PLANS[kind](args.quick, args.dtypes)
    return rows


# --- CSV output ----------------------------------------------------------------------------------

def csv_line(r):
    return ",".join(str(r[c]) for c in COLUMNS)


def describe(r):
    """'gemm bf16 m=4096 n=4096 k=4096 batch=1': the row's filled columns, for comments and progress."""
    words = [r["kind"]] + ([r["dtype"]] if r["dtype"] else [])
    words += [f"{c}={r[c]}" for c in COLUMNS[2:-2] if r[c] != ""]
    return " ".join(words)


class Output:
    """The CSV being written: rows and comments in order, flushed as they come, so that an
    interrupted run keeps what it measured."""

    def __init__(self, stream):
        self.stream = stream

    def comment(self, text):
        self.stream.write(f"# {text}\n")
        self.stream.flush()

    def line(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()


def command_line():
    return shlex.join(getattr(sys, "orig_argv", sys.argv))  # orig_argv keeps "python3", 3.10+


def dry_run(plan):
    out = Output(sys.stdout)
    out.line(FORMAT_LINE)
    out.comment("dry run: the rows a run with these options measures (time_s and host_s empty); "
                "at run time rows that do not fit in memory or that the device lacks are skipped")
    out.comment(f"command: {command_line()}")
    out.line(",".join(COLUMNS))
    for r in plan:
        out.line(csv_line(r))


# --- Timing ---------------------------------------------------------------------------------------

class Skip(Exception):
    """A measurement that cannot be made here; its message says why."""


def time_calls(torch, fn, calls):
    """Device seconds of `calls` back-to-back calls of fn, between two CUDA events."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e-3  # elapsed_time is in milliseconds


def calls_per_repeat(torch, fn, min_time):
    """Warm up fn, then (the number of calls that lasts at least min_time, one call's estimated time).

    The first call pays for lazy initialisation (library handles, kernel selection); the growing
    batches that follow warm the caches and clocks and estimate the time of one call."""
    fn()
    torch.cuda.synchronize()
    calls = 1
    while True:
        elapsed = time_calls(torch, fn, calls)
        if elapsed >= min_time / 10 or calls >= MAX_CALLS:
            break
        calls = min(MAX_CALLS, calls * 10)
    per_call = max(elapsed / calls, 1e-9)
    return max(1, min(MAX_CALLS, math.ceil(min_time / per_call))), per_call


def captured(torch, fn, calls):
    """`calls` calls of fn captured in one torch.cuda.CUDAGraph (warmed up on a side stream first, as
    the CUDA graphs section of the PyTorch notes asks)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return graph


def median_call_time(bench, fn, output_bytes=0, graph=True):
    """time_s: the median over the repeats of (device time of N calls) / N.

    A call shorter than GRAPH_BELOW_S would be timed at the host's issue rate (a few microseconds a
    call from Python), not the device's: such calls are captured in a CUDA graph (up to GRAPH_CALLS,
    fewer where their outputs would take more than GRAPH_OUTPUTS_B) and the graph is replayed, so
    the time is the device's alone (graph=False: never; the attention rows, whose backward runs
autograd). Where capture fails, the calls are timed eagerly."""
    torch = bench.torch
    calls, per_call = calls_per_repeat(torch, fn, bench.min_time)
    if graph and per_call < GRAPH_BELOW_S:
        captured_calls = max(1, min(GRAPH_CALLS, calls, GRAPH_OUTPUTS_B // max(1, output_bytes)))
        try:
            graph = captured(torch, fn, captured_calls)
        except Exception as error:  # noqa: BLE001 -- no capture here: time eagerly, say so
            progress(f"  CUDA graph capture failed ({reason(error)}); timed eagerly")
        else:
            graph.replay()
            replays = max(1, math.ceil(calls / captured_calls))
            times = [time_calls(torch, graph.replay, replays) / (replays * captured_calls) for _ in range(bench.repeats)]
            bench.graphed += 1
            return statistics.median(times)
    return statistics.median([time_calls(torch, fn, calls) / calls for _ in range(bench.repeats)])


# --- The device and its measurements --------------------------------------------------------------

TORCH_DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class Bench:
    """The device being measured and the options that apply to every measurement."""

    def __init__(self, torch, index, repeats, min_time):
        self.torch = torch
        self.device = torch.device("cuda", index)
        self.index = index
        self.repeats = repeats
        self.min_time = min_time
        self.out = None  # the Output, once the device is known to work
        self.props = torch.cuda.get_device_properties(self.device)
        self.capability = (self.props.major, self.props.minor)
        self.is_rocm = bool(getattr(torch.version, "hip", None))
        self.gemm_support = {}  # dtype -> None (supported) or why not, probed once
        self.reported = set()   # dtypes whose absence has been written as a comment
        self.graphed = 0        # rows timed replayed from a CUDA graph

    def dtype(self, name):
        return getattr(self.torch, TORCH_DTYPES[name])

    def ensure_fits(self, nbytes):
        free, _ = self.torch.cuda.mem_get_info(self.device)
        if nbytes + MEMORY_MARGIN_B > free:
            raise Skip(f"needs {nbytes / GiB:.2f} GiB, {free / GiB:.2f} GiB free")


# GEMM ---------------------------------------------------------------------------------------------

def fp8_dtype(bench):
    """The e4m3 type torch._scaled_mm takes on this device, or Skip saying why there is none."""
    torch = bench.torch
    if not hasattr(torch, "_scaled_mm"):
        raise Skip(f"torch {torch.__version__} has no torch._scaled_mm")
    if bench.is_rocm:
        arch = getattr(bench.props, "gcnArchName", "")
        if arch.startswith("gfx94"):
            name = "float8_e4m3fnuz"  # MI300: the FNUZ variant of e4m3
        elif arch.startswith(("gfx95", "gfx12")):
            name = "float8_e4m3fn"
        else:
            raise Skip(f"{arch or 'this GPU'} has no fp8 matrix instructions")
    else:
        if bench.capability < (8, 9):
            raise Skip("fp8 tensor cores need compute capability 8.9 or later, this device has "
                       f"{bench.capability[0]}.{bench.capability[1]}")
        name = "float8_e4m3fn"
    if not hasattr(torch, name):
        raise Skip(f"torch {torch.__version__} has no torch.{name}")
    return getattr(torch, name)


def gemm_operands_bytes(r):
    """Device memory a GEMM row allocates: A, B, C and the fp32 staging of an 8-bit operand."""
    m, n, k, batch, dtype = r["m"], r["n"], r["k"], r["batch"], r["dtype"]
    e_in = ELEMENT_BYTES[dtype]
    e_out = {"fp8": 2, "int8": 4}.get(dtype, e_in)  # fp8 -> bf16, int8 -> int32
    staging = 4 * max(m * k, n * k) if dtype in UNBATCHED_ONLY else 0
    return batch * ((m * k + k * n) * e_in + m * n * e_out) + staging


def gemm_call(bench, r):
    """The GEMM of row r as a function of no arguments, its operands allocated and filled."""
    torch, dev = bench.torch, bench.device
    m, n, k, batch, dtype = r["m"], r["n"], r["k"], r["batch"], r["dtype"]
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    if dtype == "fp8":
        f8 = fp8_dtype(bench)
        a = torch.randn(m, k, device=dev).to(f8)
        b = torch.randn(n, k, device=dev).to(f8).t()  # the second operand column-major
        scale = torch.ones((), device=dev, dtype=torch.float32)  # per-tensor scales

        def fp8_mm():
            return torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)
        return fp8_mm
    if dtype == "int8":
        if not hasattr(torch, "_int_mm"):
            raise Skip(f"torch {torch.__version__} has no torch._int_mm")
        a = torch.randint(-128, 128, (m, k), device=dev, dtype=torch.int8)
        b = torch.randint(-128, 128, (n, k), device=dev, dtype=torch.int8).t()
        return lambda: torch._int_mm(a, b)
    t = bench.dtype(dtype)
    lead = (batch,) if batch > 1 else ()
    a = torch.randn(*lead, m, k, device=dev, dtype=t)
    b = torch.randn(*lead, k, n, device=dev, dtype=t)
    c = torch.empty(*lead, m, n, device=dev, dtype=t)
    if batch > 1:
        return lambda: torch.bmm(a, b, out=c)
    return lambda: torch.mm(a, b, out=c)


def gemm_unsupported(bench, dtype):
    """Why this device or PyTorch cannot run GEMMs in dtype, or None; probed once per dtype."""
    if dtype not in bench.gemm_support:
        torch = bench.torch
        why = None
        if dtype == "tf32" and not bench.is_rocm and bench.capability < (8, 0):
            why = "TF32 tensor cores need compute capability 8.0 or later"
        elif dtype == "bf16" and not torch.cuda.is_bf16_supported():
            why = "torch.cuda.is_bf16_supported() is False"
        else:
            try:
                fn = gemm_call(bench, row("gemm", dtype=dtype, m=64, n=64, k=64, batch=1))
                fn()
                torch.cuda.synchronize()
            except Exception as error:  # noqa: BLE001 -- any failure means: not on this device
                why = reason(error)
        bench.gemm_support[dtype] = why
    return bench.gemm_support[dtype]


def measure_gemm(bench, r):
    why = gemm_unsupported(bench, r["dtype"])
    if why:
        raise Skip(why)
    bench.ensure_fits(gemm_operands_bytes(r))
    output_bytes = r["m"] * r["n"] * {"fp8": 2, "int8": 4}.get(r["dtype"], 0)  # fp8 and int8 allocate theirs
    return median_call_time(bench, gemm_call(bench, r), output_bytes), None


# Attention ---------------------------------------------------------------------------------------

SDPA_BACKENDS = (("Flash", "flash"), ("Efficient", "efficient"), ("Cudnn", "cudnn"))


def sdpa_backend(out):
    """Which SDPA kernel produced `out`, read from its autograd node's name
    (ScaledDotProductFlashAttentionBackward0 -> flash); anything else is the math fallback."""
    name = out.grad_fn.name() if out.grad_fn is not None else "no autograd node"
    for marker, backend in SDPA_BACKENDS:
        if marker in name:
            return backend, name
    return "math", name


def measure_attention(bench, r):
    """fwd: the forward as in training (inputs require grad, so the kernel saves its logsumexp).
    bwd: torch.autograd.grad of one saved forward output, retain_graph=True, so each call runs the
    backward kernels alone (with their small pre- and post-processing kernels), not the forward."""
    torch, dev = bench.torch, bench.device
    sdpa = torch.nn.functional.scaled_dot_product_attention
    shape = (r["batch"], r["heads"], r["seq"], r["head_dim"])
    causal = bool(r["causal"])
    t = bench.dtype(r["dtype"])
    bench.ensure_fits(9 * math.prod(shape) * ELEMENT_BYTES[r["dtype"]])  # q k v o do dq dk dv, spare
    q, k, v = (torch.randn(*shape, device=dev, dtype=t, requires_grad=True) for _ in range(3))
    out = sdpa(q, k, v, is_causal=causal)
    if r["pass"] == "fwd":
        backend, node = sdpa_backend(out)
        bench.out.comment(f"sdpa backend for {describe(r).replace(' pass=fwd', '')}: {backend} ({node})")
        return median_call_time(bench, lambda: sdpa(q, k, v, is_causal=causal), graph=False), None
    dout = torch.randn_like(out)
    backward = lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)  # noqa: E731
    return median_call_time(bench, backward, graph=False), None


# Streaming copies -------------------------------------------------------------------------------

def measure_copy(bench, r):
    """copy: dst.copy_(src), bytes = 2 x the tensor; triad: torch.add(a, b, out=c), 3 x the tensor."""
    torch, dev = bench.torch, bench.device
    tensors = dict(COPY_PASSES)[r["pass"]]
    bench.ensure_fits(r["bytes"])
    elements = r["bytes"] // tensors // 4
    if r["pass"] == "copy":
        src = torch.randn(elements, device=dev)
        dst = torch.empty_like(src)
        return median_call_time(bench, lambda: dst.copy_(src)), None
    a, b = torch.randn(elements, device=dev), torch.randn(elements, device=dev)
    c = torch.empty_like(a)
    return median_call_time(bench, lambda: torch.add(a, b, out=c)), None


# Embedding-bag gathers ---------------------------------------------------------------------------

def measure_gather(bench, r):
    """embedding_bag(indices, table, offsets, mode="sum"): `batch` bags of `bag` uniform random rows."""
    torch, dev = bench.torch, bench.device
    t = bench.dtype(r["dtype"])
    lookups = r["batch"] * r["bag"]
    bench.ensure_fits((r["rows"] + r["batch"]) * r["dim"] * ELEMENT_BYTES[r["dtype"]]  # table, output
                      + 2 * lookups * 8)                                            # indices, offsets
    table = torch.randn(r["rows"], r["dim"], device=dev, dtype=t)
    indices = torch.randint(0, r["rows"], (lookups,), device=dev, dtype=torch.int64)
    offsets = torch.arange(0, lookups, r["bag"], device=dev, dtype=torch.int64)
    embedding_bag = torch.nn.functional.embedding_bag
    with torch.no_grad():
        output_bytes = r["batch"] * r["dim"] * ELEMENT_BYTES[r["dtype"]]
        return median_call_time(bench, lambda: embedding_bag(indices, table, offsets, mode="sum"), output_bytes), None


# Launch overhead ---------------------------------------------------------------------------------

def launch_loop(x, kernels):
    for _ in range(kernels):
        x.add_(1)  # one trivial kernel on a one-element tensor


def timed_launches(bench, enqueue, kernels):
    """(device s, host s) per kernel, medians over the repeats: CUDA events around the whole
    enqueue, time.perf_counter around the enqueue alone (no synchronisation inside it)."""
    torch = bench.torch
    device_s, host_s = [], []
    for _ in range(bench.repeats):
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        enqueue()
        t1 = time.perf_counter()
        end.record()
        end.synchronize()
        device_s.append(start.elapsed_time(end) * 1e-3 / kernels)
        host_s.append((t1 - t0) / kernels)
    return statistics.median(device_s), statistics.median(host_s)


def measure_launch(bench, r):
    """eager: `kernels` x.add_(1) launched one by one from Python; graph: the same kernels replayed
    from one CUDA graph. time_s per kernel, host_s per kernel launched (eager) or replayed (graph)."""
    torch = bench.torch
    kernels = r["kernels"]
    x = torch.zeros(1, device=bench.device)
    if r["pass"] == "eager":
        launch_loop(x, kernels)  # warm-up
        return timed_launches(bench, lambda: launch_loop(x, kernels), kernels)
    try:
        graph = captured(torch, lambda: launch_loop(x, kernels), 1)
    except Exception as error:  # noqa: BLE001 -- no graphs here (some ROCm builds): say so, go on
        raise Skip(f"CUDA graph capture failed: {reason(error)}") from None
    graph.replay()  # warm-up: the first replay uploads the graph
    return timed_launches(bench, graph.replay, kernels)


MEASURE = {"gemm": measure_gemm, "attention": measure_attention, "copy": measure_copy,
           "gather": measure_gather, "launch": measure_launch}


# --- Progress on stderr ---------------------------------------------------------------------------

def rate(r, time_s):
    """A figure to eyeball while it runs: TFLOP/s, GB/s or microseconds per launch."""
    if r["kind"] == "gemm":
        unit = "TOP/s" if r["dtype"] == "int8" else "TFLOP/s"
        return f"{2 * r['m'] * r['n'] * r['k'] * r['batch'] / time_s / 1e12:.1f} {unit}"
    if r["kind"] == "attention":  # FlashAttention's count: 4 s^2 d a head forward, 10 backward, half causal
        flops = (4 if r["pass"] == "fwd" else 10) * r["batch"] * r["heads"] * r["seq"] ** 2 * r["head_dim"]
        return f"{flops / (2 if r['causal'] else 1) / time_s / 1e12:.1f} TFLOP/s"
    if r["kind"] in ("copy", "gather"):
        return f"{r['bytes'] / time_s / 1e9:.1f} GB/s"
    return f"{time_s * 1e6:.2f} us per kernel"


def progress(text):
    print(text, file=sys.stderr, flush=True)


# --- The environment, for the header --------------------------------------------------------------

def reason(error):
    """Why a measurement failed, on one line: a Skip's message, else the error's type and first line."""
    if isinstance(error, Skip):
        return str(error)
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


NVIDIA_CLOCKS = "clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem"
NVIDIA_CLOCK_FIELDS = (  # tried in order: older drivers call clocks_event_reasons clocks_throttle_reasons
    NVIDIA_CLOCKS + ",clocks.applications.graphics,clocks_event_reasons.active",
    NVIDIA_CLOCKS + ",clocks.applications.graphics,clocks_throttle_reasons.active",
    NVIDIA_CLOCKS,
)
NVIDIA_CLOCK_LABELS = ("sm", "max sm", "memory", "max memory", "applications sm", "clock event reasons")


def run_quietly(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def nvidia_clocks(bench):
    """One line from nvidia-smi --query-gpu, or None. The GPU is named by its UUID, which does not
    depend on CUDA_VISIBLE_DEVICES; the PyTorch index is the fallback."""
    uuid = str(getattr(bench.props, "uuid", "") or "")
    ids = ([uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"] if uuid else []) + [str(bench.index)]
    for gpu in ids:
        for fields in NVIDIA_CLOCK_FIELDS:
            text = run_quietly(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader", "-i", gpu])
            if text:
                values = [v.strip() for v in text.splitlines()[0].split(",")]
                return ", ".join(f"{label} {value}" for label, value in zip(NVIDIA_CLOCK_LABELS, values)) + \
                    f" (nvidia-smi -i {gpu})"
    return None


def rocm_clocks(bench):
    """The current sclk/mclk levels from rocm-smi --showclocks, on one line, or None."""
    text = run_quietly(["rocm-smi", "-d", str(bench.index), "--showclocks"])
    if not text:
        return None
    levels = [line.split(":", 1)[1].strip() for line in text.splitlines() if "clock level" in line]
    return "; ".join(levels) + f" (rocm-smi -d {bench.index})" if levels else None


def clock_summary(bench):
    return (rocm_clocks(bench) if bench.is_rocm else nvidia_clocks(bench)) or "unknown"


def warm_up(bench, seconds):
    """Run GEMMs for `seconds` so that the first measurements see working clocks; return the clock
    summary, read (in a thread) while they run: clocks at idle say little."""
    torch = bench.torch
    dtype = "bf16" if not gemm_unsupported(bench, "bf16") else "fp32"
    fn = gemm_call(bench, row("gemm", dtype=dtype, m=4096, n=4096, k=4096, batch=1))
    calls, _ = calls_per_repeat(torch, fn, 0.05)
    sampled = []
    sampler = threading.Thread(target=lambda: sampled.append(clock_summary(bench)), daemon=True)
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or sampler.is_alive():
        time_calls(torch, fn, calls)
        if not sampler.ident and time.perf_counter() - started >= seconds / 2:
            sampler.start()  # halfway: the clocks have settled under load
    clocks = sampled[0] if sampled else "unknown"
    return clocks if clocks == "unknown" else f"{clocks}, read during the warm-up GEMMs"


METHOD_NOTES = (  # written under the header's first lines: how each kind was measured
    "gemm: torch.mm / torch.bmm with out=; tf32 = fp32 with torch.backends.cuda.matmul.allow_tf32 = True",
    "gemm fp8: torch._scaled_mm, float8_e4m3fn operands (float8_e4m3fnuz on MI300), A row-major x B "
    "column-major, per-tensor scales, bf16 output, use_fast_accum=False",
    "gemm int8: torch._int_mm, A row-major x B column-major, int32 output",
    "attention: fwd with q, k, v requiring grad (as in training); bwd = torch.autograd.grad of a saved "
    "output with retain_graph=True (the backward kernels alone)",
    f"launch: {LAUNCH_KERNELS} x.add_(1) on a one-element tensor; eager host_s = the Python loop and "
    "PyTorch dispatch per launch; graph = the same kernels replayed from one torch.cuda.CUDAGraph",
    f"calls under {GRAPH_BELOW_S * 1e6:g} us (gemm, copy, gather): timed replayed from a CUDA graph of up to "
    f"{GRAPH_CALLS} calls, so that the time is the device's, not the host's issue rate",
)


def header(bench, args, clocks):
    """The comment lines that say what was measured and how, then the column names."""
    torch, p, out = bench.torch, bench.props, bench.out
    now = datetime.datetime.now(datetime.timezone.utc)
    out.line(FORMAT_LINE)
    out.comment(f"gpu: {torch.cuda.get_device_name(bench.device)}")
    out.comment(f"torch: {torch.__version__}")
    out.comment(f"cuda: {'hip ' + torch.version.hip if bench.is_rocm else torch.version.cuda}")
    out.comment(f"date: {now.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    out.comment(f"command: {command_line()}")
    out.comment(f"clocks: {clocks}")
    l2 = getattr(p, "L2_cache_size", 0)  # not in every PyTorch
    out.comment(f"device: index {bench.index}, compute capability {p.major}.{p.minor}, "
                f"{p.multi_processor_count} SMs/CUs, {p.total_memory / GiB:.1f} GiB"
                + (f", L2 {l2 / MiB:.0f} MiB" if l2 else ""))
    out.comment(f"timing: CUDA events around N back-to-back calls, N such that a repeat lasts at least "
                f"{args.min_time} s; time_s = median over {args.repeats} repeats of time / N")
    out.comment(f"warm-up: {WARMUP_S:g} s of GEMMs first, then warm-up calls before each row; "
                f"torch.manual_seed({SEED})")
    for note in METHOD_NOTES:
        out.comment(note)
    out.line(",".join(COLUMNS))


# --- Command line ---------------------------------------------------------------------------------

def comma_list(allowed):
    def parse(text):
        items = [t.strip() for t in text.split(",") if t.strip()]
        unknown = [t for t in items if t not in allowed]
        if unknown or not items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {', '.join(allowed)}; "
                                             f"got {text!r}")
        return items
    return parse


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", metavar="FILE", help="CSV file to write (default: standard output)")
    parser.add_argument("--device", metavar="N", type=int, default=0,
                        help="CUDA/ROCm device index (default 0)")
    parser.add_argument("--repeats", metavar="R", type=int, default=5,
                        help="timed repeats per row; the median is reported (default 5)")
    parser.add_argument("--min-time", metavar="SECONDS", type=float, default=0.05,
                        help="least duration of one repeat, which sets the number of calls timed together "
                             "(default 0.05)")
    parser.add_argument("--quick", action="store_true", help="fewer shapes and sizes: about a minute")
    parser.add_argument("--dtypes", type=comma_list(DTYPES), default=list(DTYPES),
                        help=f"comma-separated subset of {','.join(DTYPES)}; selects gemm, attention and "
                             "gather rows (default all)")
    parser.add_argument("--only", type=comma_list(KINDS), default=list(KINDS),
                        help=f"comma-separated subset of {','.join(KINDS)} (default all)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the rows that would be measured and exit; needs no PyTorch")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.min_time <= 0:
        parser.error("--min-time must be > 0")
    return args


def open_bench(args):
    try:
        import torch  # here, not at the top: --help and --dry-run work without PyTorch
    except ImportError:
        sys.exit("measure-accelerator.py: needs PyTorch with CUDA or ROCm (--help and --dry-run do not)")
    if not torch.cuda.is_available():
        sys.exit("measure-accelerator.py: PyTorch sees no CUDA or ROCm device")
    if not 0 <= args.device < torch.cuda.device_count():
        sys.exit(f"measure-accelerator.py: no device {args.device} ({torch.cuda.device_count()} visible)")
    torch.cuda.set_device(args.device)
    torch.manual_seed(SEED)
    return Bench(torch, args.device, args.repeats, args.min_time)


def skip(bench, r, why):
    """Say why row r was not measured: once per GEMM dtype the device lacks, else once per row."""
    dtype_missing = r["kind"] == "gemm" and bench.gemm_support.get(r["dtype"])
    if not dtype_missing:
        bench.out.comment(f"skip {describe(r)}: {why}")
    elif r["dtype"] not in bench.reported:
        bench.reported.add(r["dtype"])
        bench.out.comment(f"skip gemm {r['dtype']} (every row): {why}")


def measure_all(bench, plan):
    """Measure every row in order; a row that fails is a comment, never the end of the run."""
    written = 0
    for i, r in enumerate(plan, 1):
        label = f"[{i}/{len(plan)}] {describe(r)}"
        try:
            time_s, host_s = MEASURE[r["kind"]](bench, r)
        except Exception as error:  # noqa: BLE001 -- Skip, out of memory, unsupported shape, library error
            why = reason(error)
            skip(bench, r, why)
            progress(f"{label}: skipped, {why}")
        else:
            r = dict(r, time_s=f"{time_s:.9g}", host_s="" if host_s is None else f"{host_s:.9g}")
            bench.out.line(csv_line(r))
            written += 1
            progress(f"{label}: {time_s * 1e6:.2f} us, {rate(r, time_s)}")
        finally:
            gc.collect()  # drop the row's tensors, then hand their memory back
            bench.torch.cuda.empty_cache()
    return written


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    plan = make_plan(args)
    if args.dry_run:
        try:
            dry_run(plan)
        except BrokenPipeError:  # `--dry-run | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush into the closed pipe
        return
    bench = open_bench(args)
    started = time.perf_counter()
    progress(f"warming up {bench.props.name} for {WARMUP_S:g} s")
    try:
        clocks = warm_up(bench, WARMUP_S)
    except Exception as error:  # noqa: BLE001 -- the rows say what works; the warm-up is a courtesy
        progress(f"warm-up failed ({reason(error)}); measuring without it")
        clocks = clock_summary(bench)
    stream = open(args.out, "w") if args.out else sys.stdout
    try:
        bench.out = Output(stream)
        header(bench, args, clocks)
        written = measure_all(bench, plan)
        bench.out.comment(f"clocks at end: {clock_summary(bench)}")
        bench.out.comment(f"done: {written} of {len(plan)} rows measured ({bench.graphed} replayed from CUDA "
                          f"graphs), {len(plan) - written} skipped, in {time.perf_counter() - started:.0f} s")
    finally:
        if stream is not sys.stdout:
            stream.close()


if __name__ == "__main__":
    main()
