// Kernel descriptions: FLOPs and bytes of a GEMM and of a memory-bound op.
#include <catch2/catch.hpp>

#include "core/Errors.hpp"
#include "kernels/Kernel.hpp"

using namespace clearfog;
using clearfog::kernels::GemmShape;
using clearfog::kernels::Kernel;
using clearfog::kernels::KernelKind;

TEST_CASE("kernels::Kernel: a GEMM does 2mnk FLOP per instance and moves A, B and C once", "[kernels]") {
  const long long m = 96, n = 40, k = 24, batch = 3;
  const Kernel gemm = Kernel::make_gemm("g", GemmShape{m, n, k, batch}, DType::bf16);
  CHECK(gemm.kind == KernelKind::Gemm);
  CHECK(gemm.name == "g");
  CHECK(gemm.flops == static_cast<double>(2 * m * n * k * batch));
  CHECK(gemm.bytes == static_cast<double>((m * k + k * n + m * n) * batch * 2));

  const Kernel fp32 = Kernel::make_gemm("g", GemmShape{m, n, k, 1}, DType::fp32);
  CHECK(fp32.bytes == static_cast<double>((m * k + k * n + m * n) * 4));
}

TEST_CASE("kernels::Kernel: a GEMM rejects a non-positive dimension", "[kernels]") {
  SECTION("m") { CHECK_THROWS_AS(Kernel::make_gemm("g", GemmShape{0, 1, 1, 1}, DType::bf16), Error); }
  SECTION("n") { CHECK_THROWS_AS(Kernel::make_gemm("g", GemmShape{1, -1, 1, 1}, DType::bf16), Error); }
  SECTION("k") { CHECK_THROWS_AS(Kernel::make_gemm("g", GemmShape{1, 1, 0, 1}, DType::bf16), Error); }
  SECTION("batch") { CHECK_THROWS_AS(Kernel::make_gemm("g", GemmShape{1, 1, 1, 0}, DType::bf16), Error); }
}

TEST_CASE("kernels::Kernel: a memory-bound op keeps the given bytes and FLOPs", "[kernels]") {
  const Kernel op = Kernel::make_memory_bound("ln", 1000, 250, DType::fp16);
  CHECK(op.kind == KernelKind::MemoryBound);
  CHECK(op.bytes == 1000);
  CHECK(op.flops == 250);
  CHECK(op.dtype == DType::fp16);
  SECTION("negative bytes") { CHECK_THROWS_AS(Kernel::make_memory_bound("x", -1, 0, DType::fp16), Error); }
  SECTION("negative flops") { CHECK_THROWS_AS(Kernel::make_memory_bound("x", 0, -1, DType::fp16), Error); }
}

TEST_CASE("kernels::Kernel: matrix-product FLOPs of GEMMs, and of memory-bound kernels their model FLOPs", "[kernels]") {
  const Kernel gemm = Kernel::make_gemm("g", GemmShape{8, 8, 8, 1}, DType::bf16);
  CHECK(gemm.matmul_flops() == 2.0 * 8 * 8 * 8);
  Kernel norm = Kernel::make_memory_bound("ln", 1000, 250, DType::fp16);
  CHECK(norm.model_flops == 0);
  CHECK(norm.matmul_flops() == 0);
  // A depthwise convolution runs as a memory-bound kernel but does the model's multiply-adds.
  Kernel depthwise = Kernel::make_memory_bound("dw", 1000, 900, DType::fp16);
  depthwise.model_flops = 900;
  CHECK(depthwise.matmul_flops() == 900);
}

TEST_CASE("kernels::Kernel: a GEMM moves its operands' footprints when they are given", "[kernels]") {
  GemmShape s{100, 10, 90, 2};
  s.a_elements = 1000;  // the image an implicit GEMM reads instead of its 100 x 90 im2col view
  const Kernel conv = Kernel::make_gemm("conv", s, DType::fp16);
  CHECK(conv.bytes == (1000.0 + 90 * 10 + 100 * 10) * 2 * 2);
  CHECK(conv.flops == 2.0 * 100 * 10 * 90 * 2);
  s.b_elements = -1;
  CHECK_THROWS_AS(Kernel::make_gemm("bad", s, DType::fp16), Error);
}
