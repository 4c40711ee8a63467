#pragma once
// How a FlashAttention-2-style kernel cuts one attention pass into per-unit tiles (Dao 2023,
// Algorithms 1 and 2): the forward gives each compute unit a block of B query rows of one head and
// streams that head's K and V through it; the backward gives each unit a block of B key rows and
// streams Q, dO (and the row statistics) through it, accumulating dQ. Pure geometry and bytes; the
// blocked-GEMM model turns a tiling into time. docs/compute-model.md ("Fused attention").
#include "kernels/Kernel.hpp"

namespace clearfog::kernels {

struct AttentionTiling {
  long long block_rows = 0;       // B: query rows (forward) or key rows (backward) one unit owns
  long long blocks_per_head = 0;  // ceil(s / B)
  long long tiles = 0;            // batch_heads * blocks_per_head
  double tile_flops = 0;          // one tile, rows and keys padded to whole blocks: c * B * ceil(s/B)*B * d
  double resident_bytes = 0;      // one tile's own rows, read and written once
  double streamed_bytes = 0;      // what one tile streams past its rows (one head's worth)
  double compulsory_bytes = 0;    // every tensor read or written once (Kernel::bytes)
  [[nodiscard]] double tile_bytes() const { return resident_bytes + streamed_bytes; }
};

/// Useful FLOPs of the matrix products: 4*s^2*d per head forward, 10*s^2*d backward.
double attention_flops(const AttentionShape& shape);
/// Compulsory traffic: forward Q, K, V read, O written, e bytes each, plus the fp32 logsumexp (4*s
/// per head); backward Q, K, V, O, dO read, dQ, dK, dV written, plus the logsumexp read.
double attention_compulsory_bytes(const AttentionShape& shape, double element_bytes);

/// Rows of a block: the largest of 128, 64, 32, 16 whose working set fits in `sram_per_unit_B`
/// (forward: Q, K and V blocks, 3*B*d*e; backward: K, V, Q and dO blocks, 4*B*d*e) and that is not
/// longer than the sequence; 16 if none fits (spills are not charged).
long long attention_block_rows(const AttentionShape& shape, double element_bytes, double sram_per_unit_B);

/// The tiling of `shape` with elements of `element_bytes`; clearfog::Error on a non-positive shape.
AttentionTiling plan_attention_tiling(const AttentionShape& shape, double element_bytes, double sram_per_unit_B);

}  // namespace clearfog::kernels
