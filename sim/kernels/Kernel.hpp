#pragma once
// What a kernel asks of an accelerator: a description that the cost models price. Deliberately
// narrow so that the roofline model can be replaced by the blocked-GEMM model without touching
// planners.
#include <string>

#include "core/DType.hpp"

namespace clearfog::kernels {

enum class KernelKind {
  Gemm,        // C[m x n] = A[m x k] . B[k x n], `batch` independent instances
  MemoryBound  // elementwise / reduction ops (layernorm, softmax, GeLU, dropout, add, optimizer)
};

struct GemmShape {
  long long m = 0, n = 0, k = 0;
  long long batch = 1;
};

struct Kernel {
  std::string name;           // "qkv", "attn_scores", "fc1.dgrad", ...
  KernelKind kind = KernelKind::MemoryBound;
  DType dtype = DType::bf16;  // arithmetic / storage type
  GemmShape gemm;             // only for Gemm
  double flops = 0;           // arithmetic work, FLOP (2*m*n*k*batch for a GEMM)
  double bytes = 0;           // DRAM/HBM traffic assuming no reuse across kernels, B

  static Kernel make_gemm(std::string name, GemmShape shape, DType dtype);
  static Kernel make_memory_bound(std::string name, double bytes, double flops, DType dtype);
};

enum class Bound { Compute, Memory };

struct KernelCost {
  double time_s = 0;
  Bound bound = Bound::Compute;
};

/// Prices a kernel on one accelerator. Pure: same kernel, same cost.
class KernelCostModel {
public:
  virtual ~KernelCostModel() = default;
  [[nodiscard]] virtual KernelCost cost(const Kernel& kernel) const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

}  // namespace clearfog::kernels
