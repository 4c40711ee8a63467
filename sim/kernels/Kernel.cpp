#include "kernels/Kernel.hpp"

#include <fmt/format.h>

#include <utility>

#include "core/Errors.hpp"
#include "kernels/FusedAttentionTiling.hpp"

namespace clearfog::kernels {

Kernel Kernel::make_gemm(std::string name, GemmShape shape, DType dtype) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.batch <= 0)
    throw Error(fmt::format("Kernel::make_gemm: '{}': m, n, k and batch must be > 0, got m={} n={} k={} batch={}",
                            name, shape.m, shape.n, shape.k, shape.batch));
  if (!(shape.a_elements >= 0) || !(shape.b_elements >= 0) || !(shape.c_elements >= 0))
    throw Error(fmt::format("Kernel::make_gemm: '{}': operand footprints must be >= 0, got a={} b={} c={}", name,
                            shape.a_elements, shape.b_elements, shape.c_elements));
  // In double: m*n*k*batch of a large GEMM can overflow long long; results below 2^53 stay exact.
  const auto m = static_cast<double>(shape.m);
  const auto n = static_cast<double>(shape.n);
  const auto k = static_cast<double>(shape.k);
  const auto batch = static_cast<double>(shape.batch);

  Kernel kernel;
  kernel.name = std::move(name);
  kernel.kind = KernelKind::Gemm;
  kernel.dtype = dtype;
  kernel.gemm = shape;
  kernel.flops = 2.0 * m * n * k * batch;                                   // one multiply-add = 2 FLOP
  // read A and B, write C once (their footprints: an implicit-GEMM convolution reads its image)
  kernel.bytes = (shape.a_footprint() + shape.b_footprint() + shape.c_footprint()) * batch * dtype_bytes(dtype);
  kernel.model_flops = kernel.flops;
  return kernel;
}

Kernel Kernel::make_memory_bound(std::string name, double bytes, double flops, DType dtype) {
  if (!(bytes >= 0) || !(flops >= 0))
    throw Error(fmt::format("Kernel::make_memory_bound: '{}': bytes and flops must be >= 0, got bytes={} flops={}",
                            name, bytes, flops));
  Kernel kernel;
  kernel.name = std::move(name);
  kernel.kind = KernelKind::MemoryBound;
  kernel.dtype = dtype;
  kernel.flops = flops;
  kernel.bytes = bytes;
  return kernel;
}

Kernel Kernel::make_grouped_gemm(std::string name, std::vector<GemmShape> groups, DType dtype) {
  Kernel kernel;
  kernel.name = std::move(name);
  kernel.kind = KernelKind::GroupedGemm;
  kernel.dtype = dtype;
  for (const auto& g : groups) {
    if (g.m < 0 || g.n <= 0 || g.k < 0 || g.batch <= 0)
      throw Error(fmt::format("Kernel::make_grouped_gemm: '{}': m, k >= 0 and n, batch > 0, got m={} n={} k={} batch={}",
                              kernel.name, g.m, g.n, g.k, g.batch));
    if (g.m == 0 || g.k == 0) continue;
    const auto m = static_cast<double>(g.m), n = static_cast<double>(g.n), k = static_cast<double>(g.k);
    const auto batch = static_cast<double>(g.batch);
    kernel.flops += 2.0 * m * n * k * batch;
    kernel.bytes += (m * k + k * n + m * n) * batch * dtype_bytes(dtype);
    kernel.groups.push_back(g);
  }
  kernel.model_flops = kernel.flops;
  return kernel;
}

Kernel Kernel::make_embedding_bag(std::string name, std::vector<EmbeddingAccess> tables, double streamed_B,
                                  double flops, DType dtype) {
  Kernel kernel = make_memory_bound(std::move(name), streamed_B, flops, dtype);
  kernel.kind = KernelKind::EmbeddingBag;
  for (const auto& t : tables) {
    if (!(t.accesses >= 0) || !(t.access_B >= 0) || !(t.rows > 0) || !(t.row_B > 0))
      throw Error(fmt::format("Kernel::make_embedding_bag: '{}': accesses and access bytes must be >= 0, rows and "
                              "row bytes > 0, got accesses={} access_B={} rows={} row_B={}",
                              kernel.name, t.accesses, t.access_B, t.rows, t.row_B));
    kernel.bytes += t.accesses * t.access_B;
  }
  kernel.tables = std::move(tables);
  return kernel;
}

Kernel Kernel::make_fused_attention(std::string name, AttentionShape shape, DType dtype) {
  if (shape.batch_heads <= 0 || shape.seq <= 0 || shape.head_dim <= 0)
    throw Error(fmt::format("Kernel::make_fused_attention: '{}': batch_heads, seq and head_dim must be > 0, got "
                            "batch_heads={} seq={} head_dim={}",
                            name, shape.batch_heads, shape.seq, shape.head_dim));
  Kernel kernel;
  kernel.name = std::move(name);
  kernel.kind = KernelKind::FusedAttention;
  kernel.dtype = dtype;
  kernel.attention = shape;
  kernel.flops = attention_flops(shape);
  kernel.bytes = attention_compulsory_bytes(shape, dtype_bytes(dtype));
  // Backward: 10*s^2*d per head of which 2*s^2*d recompute S; the model's own backward is 8*s^2*d.
  constexpr double kBackwardModelShare = 8.0 / 10.0;
  kernel.model_flops = shape.backward ? kBackwardModelShare * kernel.flops : kernel.flops;
  return kernel;
}

}  // namespace clearfog::kernels
