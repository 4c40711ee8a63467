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
