#pragma once
// Prices embedding-bag kernels (FBGEMM's table-batched embedding, TorchRec's EmbeddingBagCollection)
// from memory traffic: contiguous bytes at the streaming bandwidth, random row accesses at the
// accelerator's random-access efficiency, except the share an on-chip cache (L2) serves, which the
// index distribution decides. Pure functions; equations and sources in docs/dlrm.md.
#include "config/AcceleratorSpec.hpp"
#include "kernels/Kernel.hpp"

namespace clearfog::kernels {

/// Generalized harmonic number H(n, s) = sum_{k=1..n} k^-s (n >= 0, real), exact for the first
/// terms and by the Euler-Maclaurin integral beyond.
double harmonic(double n, double s);

/// Share of accesses an on-chip cache holding `cache_rows` rows serves, when it keeps the most
/// popular rows (the independent-reference model's ideal cache): uniform min(1, C/N); Zipf(s)
/// H(C, s) / H(N, s); a given hit rate as it is.
double cache_hit_rate(const IndexDistribution& distribution, double rows, double cache_rows);

/// Expected distinct rows among `draws` independent indices: sum over rows of 1 - (1 - p_k)^draws
/// (uniform: N (1 - (1 - 1/N)^draws)). A given hit rate says nothing of the law: uniform.
double expected_distinct_rows(const IndexDistribution& distribution, double rows, double draws);

/// Time of an embedding-bag kernel on `accelerator`: launch + max(flops / peak, streamed bytes /
/// (bandwidth x memory.efficiency) + sum over tables of accesses x access bytes x ((1 - h) /
/// (bandwidth x memory.random_access_efficiency) + h / sram.shared_bandwidth)). The L2 is shared
/// between the kernel's tables in proportion to the bytes of rows each touches.
KernelCost embedding_bag_cost(const Kernel& kernel, const config::AcceleratorSpec& accelerator);

}  // namespace clearfog::kernels
