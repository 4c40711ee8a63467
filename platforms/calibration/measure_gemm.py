#!/usr/bin/env python3
"""Measure GEMM throughput on one GPU with PyTorch, for calibrating an accelerator file.

Times bf16 GEMMs (torch.matmul) and, where the GPU and PyTorch support it, fp8 GEMMs
(torch._scaled_mm, e4m3 operands, bf16 output) over a list of shapes: CUDA events around each call,
warm-up calls first, the median of --repeats timed calls. Writes one CSV row per (shape, dtype):

    m,n,k,dtype,tflops,time_us,gpu,torch,cuda

TFLOP/s = 2*m*n*k / time. Compare the CSV with `clearfog gemm --accelerator FILE --m M --n N --k K
--dtype DTYPE` (see README.md in this folder).

Usage: python3 measure_gemm.py --out a100-sxm4-80gb.csv [--repeats 50] [--warmup 10] [--shapes m,n,k ...]
"""
import argparse
import csv
import statistics
import sys

DEFAULT_SHAPES = [
    # squares (tile and wave quantization, launch overhead at the small end)
    (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
    (8192, 8192, 8192), (16384, 16384, 16384),
    # one past a tile boundary, and odd sizes
    (1024, 2145, 1024), (4096, 4097, 4096), (4224, 4224, 4224),
    # transformer layers: b*s = 2048 tokens, GPT-3 175B (h 12288) and GPT 1.3B (h 2048)
    (2048, 3 * 12288, 12288), (2048, 12288, 12288), (2048, 4 * 12288, 12288), (2048, 12288, 4 * 12288),
    (2048, 3 * 2048, 2048), (2048, 4 * 2048, 2048), (2048, 2048, 4 * 2048),
    # tall and skinny (memory-bound side)
    (802816, 192, 768), (65536, 64, 64), (6144, 12288, 12288),
]


def parse_shape(text):
    parts = text.split(",")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected m,n,k, got {text!r}")
    return tuple(int(p) for p in parts)


def time_call(torch, fn, warmup, repeats):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times_ms = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    return statistics.median(times_ms) * 1e-3  # seconds


def fp8_supported(torch):
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return False
    major, minor = torch.cuda.get_device_capability()
    return (major, minor) >= (8, 9)  # Ada and Hopper have fp8 tensor cores


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="CSV file to write")
    parser.add_argument("--repeats", type=int, default=50, help="timed calls per shape (median reported)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls first")
    parser.add_argument("--shapes", type=parse_shape, nargs="*", default=DEFAULT_SHAPES, help="m,n,k triples")
    parser.add_argument("--dtypes", nargs="*", default=["bf16", "fp8"], choices=["bf16", "fp16", "fp8"])
    args = parser.parse_args()

    import torch  # imported here so that --help works without PyTorch

    if not torch.cuda.is_available():
        sys.exit("measure_gemm.py: no CUDA device visible to PyTorch")
    device = torch.device("cuda")
    gpu = torch.cuda.get_device_name(device)
    versions = {"gpu": gpu, "torch": torch.__version__, "cuda": torch.version.cuda}
    has_fp8 = fp8_supported(torch)
    torch.backends.cuda.matmul.allow_tf32 = False

    rows = []
    for (m, n, k) in args.shapes:
        for dtype in args.dtypes:
            if dtype == "fp8" and not has_fp8:
                print(f"skip fp8: {gpu} or torch {torch.__version__} has no fp8 GEMM", file=sys.stderr)
                continue
            try:
                if dtype == "fp8":
                    a = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
                    # _scaled_mm wants the second operand column-major
                    b = torch.randn(n, k, device=device).to(torch.float8_e4m3fn).t()
                    one = torch.ones((), device=device)
                    fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                else:
                    t = torch.bfloat16 if dtype == "bf16" else torch.float16
                    a = torch.randn(m, k, device=device, dtype=t)
                    b = torch.randn(k, n, device=device, dtype=t)
                    fn = lambda: torch.matmul(a, b)
                seconds = time_call(torch, fn, args.warmup, args.repeats)
            except (RuntimeError, torch.cuda.OutOfMemoryError) as error:  # too large, unsupported layout
                print(f"skip {m}x{n}x{k} {dtype}: {error}", file=sys.stderr)
                torch.cuda.empty_cache()
                continue
            tflops = 2.0 * m * n * k / seconds / 1e12
            rows.append({"m": m, "n": n, "k": k, "dtype": dtype, "tflops": f"{tflops:.1f}",
                         "time_us": f"{seconds * 1e6:.2f}", **versions})
            print(f"{m:>7} {n:>6} {k:>6} {dtype:>5} {tflops:8.1f} TFLOP/s {seconds * 1e6:10.1f} us", file=sys.stderr)
            del a, b
            torch.cuda.empty_cache()

    with open(args.out, "w", newline="") as f:
        f.write(f"# GEMM throughput on one {gpu}, PyTorch {torch.__version__}, CUDA {torch.version.cuda}; "
                f"median of {args.repeats} calls after {args.warmup} warm-up calls, CUDA events. "
                f"Written by platforms/calibration/measure_gemm.py.\n")
        writer = csv.DictWriter(f, fieldnames=["m", "n", "k", "dtype", "tflops", "time_us", "gpu", "torch", "cuda"])
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
