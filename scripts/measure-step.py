#!/usr/bin/env python3
"""Time whole training steps of small Llama-style models on one GPU, eagerly, with PyTorch.

Where scripts/measure-accelerator.py times kernels one at a time, this script times what the
simulator predicts: a training step (forward, backward, optimizer) of a decoder-only model, launched
eagerly from Python as an un-compiled PyTorch training loop launches it. Small models are bound by
the host (Python and PyTorch dispatch launching kernels one by one), large ones by the device; the
configurations span both, so the rows check clearfog's host-launch model (docs/host-time.md) and its
kernel model together.

The model is the Llama reference implementation (meta-llama/llama model.py) written out in plain
PyTorch: token embedding; per layer RMSNorm (float32 arithmetic, multiplied by the weight),
Q/K/V/O projections without bias, rotary embedding through complex multiplication, causal
torch.nn.functional.scaled_dot_product_attention, a residual add, RMSNorm, a SwiGLU MLP
(w2(silu(w1 x) * w3 x)), a residual add; a final RMSNorm, the output projection, float32 logits and
cross-entropy. Every head has its own keys and values (no grouped-query attention); no dropout.

Precision is bf16 mixed precision as Megatron runs it on one GPU: the module's parameters and
gradients are bf16; float32 master copies of the parameters carry AdamW's state (torch.optim.AdamW,
fused=True). A step: forward and backward in bf16; the gradients cast into the master gradients
(torch._foreach_copy_); the fused AdamW step on the masters; the masters cast back into the bf16
parameters (torch._foreach_copy_); the gradients zeroed (set to None). No loss is read on the host
inside the timed steps (no synchronisation).

Timing: --warmup steps, then --repeats times --steps steps back to back between two CUDA events
(step_s = the median over the repeats of the elapsed time / steps), with time.perf_counter around
their enqueue (host_s = the median of that / steps: the
host's time per step when it does not wait for the device; when the device is the bottleneck the
host waits for queue room and host_s approaches step_s). peak_bytes is
torch.cuda.max_memory_allocated over the timed steps. Then 3 more steps under torch.profiler (device
events only) give, per step: kernels (kernels, memsets and copies on the device), busy_s (the time
the device was busy: the union of their intervals) and the summed time of the GEMM, attention,
optimizer (multi-tensor) and other kernels, told apart by kernel name. Before those, --repeats times
--steps more steps time the host's part of each phase (forward, backward, update; medians; no
synchronisation inside a step), and after them one step under a CPU-only profile counts the aten
operators called from Python and the autograd nodes.

The CSV "clearfog step measurements v1": one row per configuration, columns
name,hidden,layers,heads,ffn_hidden,seq,micro_batch,vocab,steps,step_s,host_s,peak_bytes,
kernels,busy_s,gemm_s,attention_s,optimizer_s,other_s,forward_host_s,backward_host_s,update_host_s,
aten_ops,autograd_nodes under '#' comment lines that say what was measured, where and how.
"""
import argparse
import datetime
import gc
import shlex
import statistics
import sys
import time

FORMAT_LINE = "# clearfog step measurements v1"
COLUMNS = ["name", "hidden", "layers", "heads", "ffn_hidden", "seq", "micro_batch", "vocab",
           "steps", "step_s", "host_s", "peak_bytes", "kernels", "busy_s", "gemm_s", "attention_s",
           "optimizer_s", "other_s", "forward_host_s", "backward_host_s", "update_host_s", "aten_ops",
           "autograd_nodes"]
PROFILED_STEPS = 3
KERNEL_ROWS = 15  # kernels listed per configuration on standard error (--kernel-rows)
# Kernel families by name (cuBLAS's Hopper GEMMs are nvjet_* or sm90_xmma_gemm_*; SDPA's are
# flash/cudnn/fmha kernels; the fused AdamW and the foreach copies are multi_tensor_apply kernels).
FAMILIES = (("attention", ("flash", "fmha", "cudnn", "attention", "sdpa")),
            ("gemm", ("nvjet", "gemm", "xmma", "cutlass", "cublas")),
            ("optimizer", ("multi_tensor", "adam", "foreach")))
SEED = 0
VOCAB = 32000

# name: (hidden, layers, heads, ffn_hidden, seq, micro_batch). FFN sizes as Llama's rule:
# 8/3 hidden rounded up to a multiple of 256 (Llama 2 7B: 11008).
CONFIGS = {
    "h512-l8-s1024-b1": (512, 8, 8, 1536, 1024, 1),
    "h1024-l8-s2048-b1": (1024, 8, 16, 2816, 2048, 1),
    "h2048-l8-s2048-b2": (2048, 8, 16, 5632, 2048, 2),
    "h4096-l4-s4096-b1": (4096, 4, 32, 11008, 4096, 1),
    "h4096-l4-s4096-b4": (4096, 4, 32, 11008, 4096, 4),
}


def build_model(torch, hidden, layers, heads, ffn, seq, device):
    nn, F = torch.nn, torch.nn.functional
    head_dim = hidden // heads

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(hidden))

        def forward(self, x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(x) * self.weight

    def rotary(x, freqs):  # x: (b, s, heads, head_dim)
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs).flatten(3).type_as(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention_norm, self.ffn_norm = RMSNorm(), RMSNorm()
            self.wq, self.wk, self.wv, self.wo = (nn.Linear(hidden, hidden, bias=False) for _ in range(4))
            self.w1 = nn.Linear(hidden, ffn, bias=False)
            self.w3 = nn.Linear(hidden, ffn, bias=False)
            self.w2 = nn.Linear(ffn, hidden, bias=False)

        def forward(self, x, freqs):
            b, s, _ = x.shape
            h = self.attention_norm(x)
            q, k, v = (w(h).view(b, s, heads, head_dim) for w in (self.wq, self.wk, self.wv))
            q, k = rotary(q, freqs), rotary(k, freqs)
            o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True)
            x = x + self.wo(o.transpose(1, 2).reshape(b, s, hidden))
            h = self.ffn_norm(x)
            return x + self.w2(F.silu(self.w1(h)) * self.w3(h))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, hidden)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.norm = RMSNorm()
            self.output = nn.Linear(hidden, VOCAB, bias=False)
            self.freqs = None  # complex64, set after the cast to bf16 (which must not touch it)

        def forward(self, tokens, targets):
            x = self.embedding(tokens)
            for block in self.blocks:
                x = block(x, self.freqs)
            logits = self.output(self.norm(x)).float()
            return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))

    model = Model().to(device=device, dtype=torch.bfloat16)
    inv = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    angles = torch.outer(torch.arange(seq, device=device).float(), inv)
    model.freqs = torch.polar(torch.ones_like(angles), angles).view(1, seq, 1, head_dim // 2)
    return model


def copy_all(destinations, sources):
    """Cast-copy each source into its destination: one multi-tensor launch where PyTorch has it."""
    torch = sys.modules["torch"]
    try:
        torch._foreach_copy_(destinations, sources)
    except (AttributeError, RuntimeError):  # no multi-tensor copy, or none across dtypes
        for d, s in zip(destinations, sources):
            d.copy_(s)


class Trainer:
    """bf16 module, float32 masters with fused AdamW: one step() enqueues a whole training step."""

    def __init__(self, torch, model):
        self.torch = torch
        self.params = [p for p in model.parameters()]
        self.masters = [p.detach().float().requires_grad_() for p in self.params]
        self.optimizer = torch.optim.AdamW(self.masters, lr=1e-4, fused=True)
        self.model = model

    def step(self, tokens, targets):
        loss = self.model(tokens, targets)
        loss.backward()
        self.update()
        return loss

    def update(self):
        """The optimizer's part of a step: gradients into the masters, AdamW, masters into the module."""
        torch = self.torch
        for m, p in zip(self.masters, self.params):
            if m.grad is None:
                m.grad = torch.empty_like(m)
        with torch.no_grad():
            copy_all([m.grad for m in self.masters], [p.grad for p in self.params])
            self.optimizer.step()
            copy_all(self.params, self.masters)
        for p in self.params:
            p.grad = None


def family(kernel_name):
    lowered = kernel_name.lower()
    for name, markers in FAMILIES:
        if any(m in lowered for m in markers):
            return name
    return "other"


def kernel_profile(torch, trainer, tokens, targets):
    """Per step, from torch.profiler's device events over PROFILED_STEPS steps (after the timed
    ones: the profiler slows the host): kernels (and memsets and copies) launched, the time the
    device was busy (the union of their intervals), and the summed kernel time of each family."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(PROFILED_STEPS):
            trainer.step(tokens, targets)
        torch.cuda.synchronize()
    intervals, sums, by_name = [], {"gemm": 0.0, "attention": 0.0, "optimizer": 0.0, "other": 0.0}, {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        r = e.time_range
        intervals.append((r.start, r.end))
        sums[family(e.name)] += (r.end - r.start) * 1e-6
        count, total = by_name.get(e.name, (0, 0.0))
        by_name[e.name] = (count + 1, total + (r.end - r.start) * 1e-6)
    for kernel, (count, total) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:KERNEL_ROWS]:
        print(f"  {family(kernel):9} {count / PROFILED_STEPS:6g} x {total / PROFILED_STEPS * 1e3:8.3f} ms  "
              f"{kernel[:110]}", file=sys.stderr)
    busy_us, reach = 0.0, float("-inf")
    for begin, finish in sorted(intervals):
        busy_us += max(0.0, finish - max(begin, reach))
        reach = max(reach, finish)
    n = PROFILED_STEPS
    return [len(intervals) / n, busy_us * 1e-6 / n] + [sums[k] / n for k in ("gemm", "attention", "optimizer", "other")]


def host_phases(torch, trainer, tokens, targets, steps):
    """Per step, medians over `steps` steps: the host's time in the forward (the model's call), the
    backward (loss.backward(), which returns once the autograd engine has issued every node) and the
    update, each around its call with no synchronisation (when the device is the bottleneck they
    include waits for queue room). Then, from one step under a CPU-only torch.profiler: the aten
    operators called from Python (those with no aten parent) and the autograd nodes evaluated."""
    from torch.profiler import ProfilerActivity, profile
    times = {"forward": [], "backward": [], "update": []}
    for _ in range(steps):
        t0 = time.perf_counter()
        loss = trainer.model(tokens, targets)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        trainer.update()
        t3 = time.perf_counter()
        times["forward"].append(t1 - t0), times["backward"].append(t2 - t1), times["update"].append(t3 - t2)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        trainer.step(tokens, targets)
        torch.cuda.synchronize()
    aten_top, nodes = 0, 0
    for e in prof.events():
        if e.name.startswith("aten::"):
            parent = e.cpu_parent
            while parent is not None and not parent.name.startswith("aten::"):
                parent = parent.cpu_parent
            aten_top += parent is None
        elif e.name.startswith("autograd::engine::evaluate_function"):
            nodes += 1
    return [statistics.median(times[k]) for k in ("forward", "backward", "update")] + [aten_top, nodes]


def host_table(torch, trainer, tokens, targets, rows):
    """The host's time by operator over one step, grouped by name, most self time first; then the
    forward, backward and update phases' call counts (record_function ranges)."""
    from torch.profiler import ProfilerActivity, profile, record_function
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("phase::forward"):
            loss = trainer.model(tokens, targets)
        with record_function("phase::backward"):
            loss.backward()
        with record_function("phase::update"):
            trainer.update()
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows, max_name_column_width=70),
          file=sys.stderr, flush=True)


def measure(torch, name, config, args):
    hidden, layers, heads, ffn, seq, batch = config
    device = torch.device("cuda")
    torch.manual_seed(SEED)
    model = build_model(torch, hidden, layers, heads, ffn, seq, device)
    trainer = Trainer(torch, model)
    tokens = torch.randint(0, VOCAB, (batch, seq), device=device)
    targets = torch.randint(0, VOCAB, (batch, seq), device=device)
    for _ in range(args.warmup):
        trainer.step(tokens, targets)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    step_times, host_times = [], []
    for _ in range(args.repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            loss = trainer.step(tokens, targets)
        t1 = time.perf_counter()
        end.record()
        end.synchronize()
        step_times.append(start.elapsed_time(end) * 1e-3 / args.steps)
        host_times.append((t1 - t0) / args.steps)
    if not torch.isfinite(loss).item():
        raise RuntimeError("the loss is not finite")
    row = [name, hidden, layers, heads, ffn, seq, batch, VOCAB, args.steps, f"{statistics.median(step_times):.9g}",
           f"{statistics.median(host_times):.9g}", torch.cuda.max_memory_allocated()]
    phases = host_phases(torch, trainer, tokens, targets, args.steps * args.repeats)  # before any profiler
    row += [f"{v:.9g}" if isinstance(v, float) else v for v in kernel_profile(torch, trainer, tokens, targets)]
    row += [f"{v:.9g}" if isinstance(v, float) else v for v in phases]
    if args.host_table > 0:
        host_table(torch, trainer, tokens, targets, args.host_table)
    del model, trainer, tokens, targets, loss
    gc.collect()
    torch.cuda.empty_cache()
    return row


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", metavar="FILE", help="CSV file to write (default: standard output)")
    parser.add_argument("--steps", type=int, default=10, help="timed steps per configuration (default 10)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="time --steps steps this many times; step_s and host_s are the medians (default 1)")
    parser.add_argument("--host-table", metavar="N", type=int, default=0,
                        help="also print, to standard error, the N operators and autograd nodes with the most "
                             "host time in one step of each configuration (torch.profiler, CPU only)")
    parser.add_argument("--kernel-rows", metavar="N", type=int, default=KERNEL_ROWS,
                        help="kernels listed per configuration, most device time first, on standard error")
    parser.add_argument("--only", default=",".join(CONFIGS),
                        help="comma-separated configuration names (default all): " + ", ".join(CONFIGS))
    args = parser.parse_args(argv)
    unknown = [n for n in args.only.split(",") if n not in CONFIGS]
    if unknown:
        parser.error(f"--only: unknown configuration {', '.join(unknown)}; allowed: {', '.join(CONFIGS)}")
    if args.steps < 1 or args.warmup < 1 or args.repeats < 1:
        parser.error("--steps, --warmup and --repeats must be at least 1")
    return args


def main(argv=None):
    global KERNEL_ROWS
    args = parse_args(sys.argv[1:] if argv is None else argv)
    KERNEL_ROWS = args.kernel_rows
    import torch  # here: --help works without PyTorch
    if not torch.cuda.is_available():
        sys.exit("measure-step.py: PyTorch sees no CUDA device")
    out = open(args.out, "w") if args.out else sys.stdout
    p = torch.cuda.get_device_properties(0)
    lines = [FORMAT_LINE,
             f"# gpu: {torch.cuda.get_device_name(0)}, {p.multi_processor_count} SMs, "
             f"{p.total_memory / 2**30:.1f} GiB",
             f"# torch: {torch.__version__}; cuda: {torch.version.cuda}",
             f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
             f"# command: {shlex.join(getattr(sys, 'orig_argv', sys.argv))}",
             "# model: Llama reference layers (see the script's docstring), bf16 module, fp32 masters, "
             "fused AdamW; eager, no torch.compile, no CUDA graphs",
             f"# timing: {args.warmup} warm-up steps, then {args.repeats} x {args.steps} steps (step_s, host_s: "
             f"medians over the repeats), {args.repeats} x {args.steps} steps by phase, {PROFILED_STEPS} profiled",
             ",".join(COLUMNS)]
    out.write("\n".join(lines) + "\n")
    out.flush()
    for name in args.only.split(","):
        try:
            row = measure(torch, name, CONFIGS[name], args)
        except Exception as error:  # noqa: BLE001 -- say why, go on with the next configuration
            out.write(f"# skip {name}: {type(error).__name__}: {str(error).strip().splitlines()[:1]}\n")
            gc.collect()
            torch.cuda.empty_cache()
            continue
        out.write(",".join(str(v) for v in row) + "\n")
        out.flush()
        print(f"{name}: {float(row[9]) * 1e3:.2f} ms/step, host {float(row[10]) * 1e3:.2f} ms, "
              f"peak {row[11] / 2**30:.2f} GiB, {float(row[12]):g} kernels, busy {float(row[13]) * 1e3:.2f} ms, "
              f"host fwd/bwd/update {float(row[18]) * 1e3:.2f}/{float(row[19]) * 1e3:.2f}/{float(row[20]) * 1e3:.2f} ms, "
              f"{row[21]} aten ops, {row[22]} autograd nodes", file=sys.stderr, flush=True)
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
