#pragma once
// The parameters of a recommendation model (type: dlrm): dense features through a bottom MLP,
// categorical features looked up in embedding tables and pooled, an interaction (dot products,
// concatenation, optionally DCNv2 cross layers), a top MLP and the click loss. Naumov et al. 2019
// (DLRM), Wang et al. 2021 (DCN-V2); TorchRec's sharding types. docs/dlrm.md.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "config/WorkloadSpec.hpp"
#include "core/DType.hpp"
#include "kernels/EmbeddingAccess.hpp"

namespace clearfog::workload {

/// How a table is split over the devices its tables are sharded over (TorchRec's ShardingType).
enum class TableSharding { TableWise, RowWise, ColumnWise, TableRowWise, DataParallel };
inline constexpr std::array<TableSharding, 5> kAllTableShardings = {
    TableSharding::TableWise, TableSharding::RowWise, TableSharding::ColumnWise, TableSharding::TableRowWise,
    TableSharding::DataParallel};
constexpr std::string_view table_sharding_name(TableSharding s) {
  switch (s) {
    case TableSharding::TableWise: return "table-wise";
    case TableSharding::RowWise: return "row-wise";
    case TableSharding::ColumnWise: return "column-wise";
    case TableSharding::TableRowWise: return "table-row-wise";
    case TableSharding::DataParallel: return "data-parallel";
  }
  return "?";
}

inline constexpr std::array<kernels::IndexKind, 3> kAllIndexKinds = {
    kernels::IndexKind::Uniform, kernels::IndexKind::Zipf, kernels::IndexKind::HitRate};

enum class DlrmInteraction { Dot, Concat };
inline constexpr std::array<DlrmInteraction, 2> kAllDlrmInteractions = {DlrmInteraction::Dot, DlrmInteraction::Concat};
constexpr std::string_view dlrm_interaction_name(DlrmInteraction i) { return i == DlrmInteraction::Dot ? "dot" : "concat"; }

/// The optimizer of the embedding tables (FBGEMM's TBE optimizers): what state each row carries.
enum class EmbeddingOptimizer { Sgd, RowwiseAdagrad, Adagrad, Adam };
inline constexpr std::array<EmbeddingOptimizer, 4> kAllEmbeddingOptimizers = {
    EmbeddingOptimizer::Sgd, EmbeddingOptimizer::RowwiseAdagrad, EmbeddingOptimizer::Adagrad, EmbeddingOptimizer::Adam};
constexpr std::string_view embedding_optimizer_name(EmbeddingOptimizer o) {
  switch (o) {
    case EmbeddingOptimizer::Sgd: return "sgd";
    case EmbeddingOptimizer::RowwiseAdagrad: return "rowwise_adagrad";
    case EmbeddingOptimizer::Adagrad: return "adagrad";
    case EmbeddingOptimizer::Adam: return "adam";
  }
  return "?";
}

inline constexpr int kAutoPlacement = -1;  // a table's rank or host chosen by the greedy placement

struct EmbeddingTable {
  std::string name;
  double rows = 0;
  int dim = 0;
  double pooling = 1;  // mean lookups per sample
  kernels::IndexDistribution distribution;
  TableSharding sharding = TableSharding::TableWise;
  int rank = kAutoPlacement;  // table-wise: owner; row-, column-wise: first of its consecutive devices
  int shards = 0;             // row-, column-wise: consecutive devices (0: the default)
  int host = kAutoPlacement;  // table-row-wise: the node whose devices share its rows
};

struct DlrmSpec : config::WorkloadParams {
  int dense_features = 0;
  std::vector<int> bottom_mlp;  // output features of each layer; the last is the embedding dimension (dot)
  std::vector<int> top_mlp;     // the last is 1 (the click logit)
  std::vector<EmbeddingTable> tables;
  DlrmInteraction interaction = DlrmInteraction::Dot;
  int cross_layers = 0;  // DCNv2 cross layers on the concatenated features (0: none)
  int cross_rank = 0;    // their low rank (0: full-rank D x D weights)
  DType embedding_precision = DType::fp32;
  EmbeddingOptimizer embedding_optimizer = EmbeddingOptimizer::Sgd;
  bool fused_optimizer = true;  // the update runs inside the backward kernel (FBGEMM TBE)
  bool deduplicate = false;     // the backward sorts the indices and updates each distinct row once
  /// The bottom MLP runs on this device for the whole group's samples and its output travels with
  /// the pooled embeddings (DeepLearningExamples' hybrid parallel); kAutoPlacement: data parallel.
  int bottom_mlp_rank = kAutoPlacement;
};

}  // namespace clearfog::workload
