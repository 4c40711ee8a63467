#include "kernels/FusedAttentionTiling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/Errors.hpp"

// Equations: docs/compute-model.md ("Fused attention").
namespace clearfog::kernels {

namespace {

// Multiples of the tensor-core fragment; 128 is the largest block FlashAttention-2 uses (its
// accumulators live in registers, which bound the block before shared memory does).
constexpr std::array<long long, 4> kBlockRows = {128, 64, 32, 16};
constexpr double kStatisticBytes = 4;  // logsumexp, D = rowsum(dO * O) and the dQ accumulator are fp32

}  // namespace

double attention_flops(const AttentionShape& shape) {
  const double s = static_cast<double>(shape.seq), d = static_cast<double>(shape.head_dim);
  // Forward: S = Q.K^T and O = P.V, 2*s^2*d each. Backward: S again (P is recomputed from it and
  // the logsumexp), dV = P^T.dO, dP = dO.V^T, dQ = dS.K, dK = dS^T.Q.
  const double products = shape.backward ? 5 : 2;
  return products * 2 * s * s * d * static_cast<double>(shape.batch_heads);
}

double attention_compulsory_bytes(const AttentionShape& shape, double element_bytes) {
  const double s = static_cast<double>(shape.seq), d = static_cast<double>(shape.head_dim);
  // Forward: Q, K, V, O. Backward: Q, K, V, O, dO, dQ, dK, dV (O and dO give D = rowsum(dO * O)).
  const double tensors = shape.backward ? 8 : 4;
  return static_cast<double>(shape.batch_heads) * (tensors * s * d * element_bytes + kStatisticBytes * s);
}

long long attention_block_rows(const AttentionShape& shape, double element_bytes, double sram_per_unit_B) {
  // Blocks held at once: forward Q_i, K_j, V_j; backward K_j, V_j, Q_i, dO_i (B rows each).
  const double blocks = shape.backward ? 4 : 3;
  const double row_bytes = static_cast<double>(shape.head_dim) * element_bytes;
  for (const long long rows : kBlockRows) {
    const bool fits = blocks * static_cast<double>(rows) * row_bytes <= sram_per_unit_B;
    if (fits && (rows <= shape.seq || rows == kBlockRows.back())) return rows;
  }
  return kBlockRows.back();
}

AttentionTiling plan_attention_tiling(const AttentionShape& shape, double element_bytes, double sram_per_unit_B) {
  if (shape.batch_heads <= 0 || shape.seq <= 0 || shape.head_dim <= 0 || !(element_bytes > 0))
    throw Error(fmt::format("plan_attention_tiling: batch_heads, seq, head_dim and element bytes must be > 0, got "
                            "batch_heads={} seq={} head_dim={} element_bytes={}",
                            shape.batch_heads, shape.seq, shape.head_dim, element_bytes));
  const double s = static_cast<double>(shape.seq), d = static_cast<double>(shape.head_dim);
  const double e = element_bytes;

  AttentionTiling t;
  t.block_rows = attention_block_rows(shape, element_bytes, sram_per_unit_B);
  t.blocks_per_head = (shape.seq + t.block_rows - 1) / t.block_rows;
  t.tiles = shape.batch_heads * t.blocks_per_head;
  const double B = static_cast<double>(t.block_rows);
  const double padded_s = static_cast<double>(t.blocks_per_head) * B;
  const double rows = std::min(B, s);  // rows past the sequence are not loaded
  if (!shape.backward) {
    // Forward (Algorithm 1): Q_i in, O_i and its logsumexp out; K and V of the head streamed.
    t.tile_flops = 4 * B * padded_s * d;
    t.resident_bytes = 2 * rows * d * e + kStatisticBytes * rows;
    t.streamed_bytes = 2 * s * d * e;
  } else {
    // Backward (Algorithm 2): K_j, V_j in and dK_j, dV_j out; Q, dO, logsumexp and D streamed, dQ
    // accumulated in fp32 (read and written once per key block).
    t.tile_flops = 10 * B * padded_s * d;
    t.resident_bytes = 4 * rows * d * e;
    t.streamed_bytes = 2 * s * d * e + 2 * kStatisticBytes * s + 2 * kStatisticBytes * s * d;
  }
  if (shape.causal) {
    // A causal mask hides the key blocks above the diagonal: query block i (forward) works through
    // key blocks 0..i, key block j (backward) through query blocks j..n-1. On average a tile does
    // (n + 1) / 2n of the work and streams as much; FlashAttention-2 skips the hidden blocks.
    const double n = static_cast<double>(t.blocks_per_head);
    const double visible = (n + 1) / (2 * n);
    t.tile_flops *= visible;
    t.streamed_bytes *= visible;
  }
  t.compulsory_bytes = attention_compulsory_bytes(shape, element_bytes);
  return t;
}

}  // namespace clearfog::kernels
