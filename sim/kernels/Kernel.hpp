#pragma once
// What a kernel asks of an accelerator: a description that the cost models price. Deliberately
// narrow so that the roofline model can be replaced by the blocked-GEMM model without touching
// planners.
#include <string>
#include <vector>

#include "core/AttentionKernel.hpp"
#include "core/DType.hpp"
#include "kernels/EmbeddingAccess.hpp"

namespace clearfog::kernels {

enum class KernelKind {
  Gemm,        // C[m x n] = A[m x k] . B[k x n], `batch` independent instances
  MemoryBound,    // elementwise / reduction ops (layernorm, softmax, GeLU, dropout, add, optimizer)
  FusedAttention,  // FlashAttention-2-style softmax(Q.K^T).V in one kernel, forward or backward
  GroupedGemm,     // several independent GEMMs of their own shapes in one launch (MoE experts)
  EmbeddingBag     // table-batched embedding lookups (FBGEMM TBE): random row traffic plus streamed bytes
};

struct GemmShape {
  long long m = 0, n = 0, k = 0;
  long long batch = 1;
  /// Elements of A, B and C in memory per instance, when smaller than the matrices: an
  /// implicit-GEMM convolution reads its input image, not the kh*kw times larger im2col matrix it
  /// multiplies. 0: the dense matrix (m*k, k*n, m*n).
  double a_elements = 0, b_elements = 0, c_elements = 0;
  /// The library may split k over units and sum the partial products in a second kernel (cuDNN's
  /// weight-gradient kernels: a small m x n over a long k); docs/compute-model.md, "Split-K".
  bool split_k = false;

  [[nodiscard]] double a_footprint() const { return a_elements > 0 ? a_elements : dense(m, k); }
  [[nodiscard]] double b_footprint() const { return b_elements > 0 ? b_elements : dense(k, n); }
  [[nodiscard]] double c_footprint() const { return c_elements > 0 ? c_elements : dense(m, n); }

private:
  static double dense(long long rows, long long cols) { return static_cast<double>(rows) * static_cast<double>(cols); }
};

/// One fused attention pass over `batch_heads` independent heads: `seq` queries attend to `seq`
/// keys of `head_dim` elements, all of them, or (causal) each only the keys up to its own, as the
/// kernel that runs it (`kernel`) skips the blocks the mask hides.
struct AttentionShape {
  long long batch_heads = 0;  // b * a (heads of this tensor-parallel rank)
  long long seq = 0;          // s
  long long head_dim = 0;     // d = h / a
  bool backward = false;      // the backward kernel (recomputes S and P, gives dQ, dK, dV)
  bool causal = false;        // causal mask: the key blocks above the diagonal are skipped
  AttentionKernel kernel = AttentionKernel::Flash2;  // the implementation (its share of the GEMM efficiency)
};

struct Kernel {
  std::string name;           // "qkv", "attn_scores", "fc1.dgrad", ...
  KernelKind kind = KernelKind::MemoryBound;
  DType dtype = DType::bf16;  // arithmetic / storage type
  GemmShape gemm;             // only for Gemm
  AttentionShape attention;   // only for FusedAttention
  std::vector<GemmShape> groups;  // only for GroupedGemm: one shape per group (an expert's tokens)
  std::vector<EmbeddingAccess> tables;  // only for EmbeddingBag: the random row traffic, per table (shard)
  double flops = 0;           // arithmetic work, FLOP (2*m*n*k*batch for a GEMM)
  double bytes = 0;           // DRAM/HBM traffic assuming no reuse across kernels, B; for fused
                              // attention the compulsory part (tensors read or written once)
  /// Memory-bound kernels: the part of `bytes` streamed in one dtype by a multi-tensor kernel (the
  /// optimizer's update), priced at the copy rate (memory.efficiency); the rest moves at the rate a
  /// framework's elementwise, cast and reduction kernels reach in place (memory.in_place_efficiency).
  double streaming_bytes = 0;
  /// The matrix-product FLOPs of the model's own math that this kernel performs, as MFU counts them
  /// (PaLM's definition): a GEMM's 2*m*n*k*batch; none for memory-bound kernels; a fused attention
  /// backward leaves out the 2*s^2*d per head it spends recomputing S = Q.K^T.
  double model_flops = 0;
  /// A weight-gradient kernel (dW = X^T dY): what the zero-bubble schedules run apart, as W, after
  /// the input-gradient pass (B) has sent its gradients on.
  bool weight_gradient = false;

  /// Matrix-product FLOPs actually executed (model FLOPs plus any recomputation inside the kernel),
  /// what hardware FLOPs utilization counts. A memory-bound kernel executes its model FLOPs: none,
  /// except a convolution too narrow for a GEMM (depthwise), run as a memory-bound kernel.
  [[nodiscard]] double matmul_flops() const { return kind == KernelKind::MemoryBound ? model_flops : flops; }

  static Kernel make_gemm(std::string name, GemmShape shape, DType dtype);
  static Kernel make_memory_bound(std::string name, double bytes, double flops, DType dtype);
  /// FLOPs of the matrix products only: 4*s^2*d per head forward (S = Q.K^T, O = P.V), 10*s^2*d
  /// backward (S again, dV, dP, dQ, dK). Bytes: forward reads Q, K, V and writes O and the fp32
  /// logsumexp; backward reads Q, K, V, O, dO and the logsumexp and writes dQ, dK, dV.
  static Kernel make_fused_attention(std::string name, AttentionShape shape, DType dtype);
  /// A grouped GEMM (CUTLASS / cuBLAS grouped or "batched with varying sizes"): each group its own
  /// m x n x k; FLOPs and compulsory bytes are the groups' sums. Groups of size 0 (an expert with
  /// no tokens) are dropped; an empty list is a kernel of no work.
  static Kernel make_grouped_gemm(std::string name, std::vector<GemmShape> groups, DType dtype);
  /// A table-batched embedding-bag kernel (one launch for all of a device's tables): `streamed_B`
  /// of contiguous traffic (indices, offsets, pooled outputs or their gradients) plus each table's
  /// random row accesses. `bytes` is their sum (what a model without random-access pricing reads).
  static Kernel make_embedding_bag(std::string name, std::vector<EmbeddingAccess> tables, double streamed_B,
                                   double flops, DType dtype);
};

/// `k` marked as a weight-gradient kernel.
inline Kernel weight_gradient(Kernel k) {
  k.weight_gradient = true;
  return k;
}

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
