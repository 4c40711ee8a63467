#pragma once
// What an embedding-bag kernel asks of memory: rows gathered from (forward) or scatter-added into
// (backward) embedding tables at indices of a known distribution. Plain data shared by the workload
// (which counts the accesses) and the kernel models (which price them); docs/dlrm.md.
#include <string_view>

namespace clearfog::kernels {

/// How a table's indices are drawn: uniformly over its rows, by a Zipf law of exponent `zipf_s`
/// over its rows ranked by popularity, or with a known on-chip cache hit rate.
enum class IndexKind { Uniform, Zipf, HitRate };
constexpr std::string_view index_kind_name(IndexKind k) {
  switch (k) {
    case IndexKind::Uniform: return "uniform";
    case IndexKind::Zipf: return "zipf";
    case IndexKind::HitRate: return "hit_rate";
  }
  return "?";
}

struct IndexDistribution {
  IndexKind kind = IndexKind::Uniform;
  double zipf_s = 0;    // Zipf exponent (> 0), IndexKind::Zipf
  double hit_rate = 0;  // [0, 1], IndexKind::HitRate
};

/// The random row traffic of one table (shard) in one embedding-bag kernel.
struct EmbeddingAccess {
  double accesses = 0;       // row accesses (lookups, or distinct rows after deduplication)
  double access_B = 0;       // bytes moved per access (a row read; a read and a write; plus optimizer state)
  double rows = 0;           // rows of the table (shard): what the indices are drawn from
  double row_B = 0;          // bytes of one row: its footprint in the on-chip cache
  IndexDistribution distribution;
};

}  // namespace clearfog::kernels
