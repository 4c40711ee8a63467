// The dlrm workload type against closed forms (docs/dlrm.md): a table-wise lookup reads B·L·d·bytes
// of rows; the forward all-to-all brings each device B·(tables not on it)·d·bytes; row-wise tables
// reduce-scatter B·ep·d·bytes of partial sums; column-wise shards split d; table-row-wise shards
// stay in a node; data-parallel tables are parameters looked up locally; the tables' bytes are
// held by their devices; the MLPs are the GEMMs of their layers; the large DLE model does not fit one GPU.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "config/ConfigLoader.hpp"
#include "parallel/MemoryEstimate.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/DlrmBlocks.hpp"
#include "workload/types/DlrmPlacement.hpp"
#include "workload/types/DlrmType.hpp"

using namespace clearfog;
using workload::Block;
using workload::DlrmSpec;
using workload::EmbeddingTable;
using workload::TableSharding;

namespace {

constexpr int kBatch = 512, kDim = 64, kPooling = 3;
constexpr double kRows = 1e6;

DlrmSpec spec_with(std::vector<EmbeddingTable> tables) {
  DlrmSpec s;
  s.dense_features = 13;
  s.bottom_mlp = {128, kDim};
  s.top_mlp = {256, 1};
  s.tables = std::move(tables);
  return s;
}

EmbeddingTable table(TableSharding sharding, int rank = workload::kAutoPlacement) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = kRows;
  t.dim = kDim;
  t.pooling = kPooling;
  t.sharding = sharding;
  t.rank = rank;
  return t;
}

workload::ModelDescription describe(const DlrmSpec& s, int ep, DType precision = DType::fp16, int node_devices = 8) {
  workload::DescribeOptions o;
  o.micro_batch = kBatch;
  o.precision = precision;
  o.ep = ep;
  o.node_devices = node_devices;
  return workload::workload_type("dlrm").describe(workload::make_dlrm_workload("test", s), o);
}

const Block& block(const workload::ModelDescription& d, const std::string& name) { return d.blocks.at(d.block_index(name)); }

const workload::Segment* segment(const std::vector<workload::Segment>& pass, const std::string& name) {
  for (const auto& s : pass)
    if (s.name == name) return &s;
  return nullptr;
}

/// Random row bytes of device r's kernels named `kernel` in a segment.
double random_B(const workload::Segment& s, std::size_t r, const std::string& kernel) {
  double bytes = 0;
  for (const auto& k : s.kernels_by_expert_rank.at(r))
    if (k.name == kernel)
      for (const auto& t : k.tables) bytes += t.accesses * t.access_B;
  return bytes;
}

double column(const std::vector<std::vector<double>>& m, std::size_t j) {
  double s = 0;
  for (const auto& row : m) s += row[j];
  return s;
}

}  // namespace

TEST_CASE("dlrm: a table-wise lookup reads B·L·d·bytes of rows", "[workload][dlrm]") {
  const auto d = describe(spec_with({table(TableSharding::TableWise)}), 1);
  const auto* lookup = segment(block(d, "embeddings").forward, "lookup");
  REQUIRE(lookup);
  const double fp32 = 4;  // embedding_precision defaults to fp32
  CHECK(random_B(*lookup, 0, "tbe.fwd") == Approx(double(kBatch) * kPooling * kDim * fp32));
  // Streamed: the int64 indices, the int32 lengths and the fp16 pooled outputs.
  const auto& k = lookup->kernels_by_expert_rank[0].front();
  CHECK(k.bytes - random_B(*lookup, 0, "tbe.fwd") == Approx(double(kBatch) * (kPooling * 8.0 + 4 + kDim * 2.0)));
  // Backward with the fused SGD update: each lookup reads and writes its row.
  const auto* update = segment(block(d, "embeddings").backward, "update");
  REQUIRE(update);
  CHECK(random_B(*update, 0, "tbe.bwd") == Approx(2.0 * kBatch * kPooling * kDim * fp32));
  CHECK(block(d, "embeddings").sparse_weights_B_by_expert_rank.at(0) == Approx(kRows * kDim * fp32));
}

TEST_CASE("dlrm: the forward all-to-all brings each device B·(tables not on it)·d·bytes", "[workload][dlrm]") {
  constexpr int ep = 4, tables = 6;
  std::vector<EmbeddingTable> list;
  for (int i = 0; i < tables; ++i) list.push_back(table(TableSharding::TableWise, i % 3));  // devices 0, 1, 2 own 2 each
  const auto d = describe(spec_with(list), ep);
  const auto& emb = block(d, "embeddings");
  const auto* lookup = segment(emb.forward, "lookup");
  REQUIRE(lookup);
  REQUIRE(lookup->comm.active());
  const auto& m = lookup->comm.matrix;
  const double fp16 = 2;
  for (std::size_t j = 0; j < ep; ++j) {
    const int local = j < 3 ? 2 : 0;
    CHECK(column(m, j) == Approx(double(kBatch) * (tables - local) * kDim * fp16));
    CHECK(m[j][j] == 0);
  }
  // The gradients go back the same way; indices go to the owners: B·L·8 + B·4 per table.
  const auto* grad = segment(emb.backward, "grad_dist");
  REQUIRE(grad);
  for (std::size_t i = 0; i < ep; ++i)
    for (std::size_t j = 0; j < ep; ++j) CHECK(grad->comm.matrix[i][j] == m[j][i]);
  const auto* index = segment(emb.forward, "input_dist");
  REQUIRE(index);
  CHECK(index->comm.matrix[3][0] == Approx(2.0 * kBatch * (kPooling * 8.0 + 4)));
  // Device 3 holds no table: no lookup kernel, no table bytes.
  CHECK(lookup->kernels_by_expert_rank[3].empty());
  CHECK(emb.sparse_weights_B_by_expert_rank[3] == 0);
}

TEST_CASE("dlrm: greedy placement balances lookup bytes, explicit ranks first", "[workload][dlrm]") {
  DlrmSpec s = spec_with({});
  for (int i = 0; i < 5; ++i) {
    auto t = table(TableSharding::TableWise);
    t.pooling = i + 1;  // loads 1..5 x dim
    s.tables.push_back(t);
  }
  s.tables.push_back(table(TableSharding::TableWise, 1));  // load 3 x dim on device 1, placed first
  const auto placed = workload::place_tables(s, 2, 8);
  // Descending loads 5, 4, 3, 2, 1 onto the least loaded device: 5 -> 0, 4 -> 1 (3 + 4), 3 -> 0
  // (5 + 3), 2 -> 1 (7 + 2), 1 -> 0 (8 + 1).
  CHECK(placed[4].shards[0].rank == 0);
  CHECK(placed[3].shards[0].rank == 1);
  CHECK(placed[2].shards[0].rank == 0);
  CHECK(placed[1].shards[0].rank == 1);
  CHECK(placed[0].shards[0].rank == 0);
  CHECK(placed[5].shards[0].rank == 1);
}

TEST_CASE("dlrm: row-wise tables reduce-scatter B·ep·d·bytes — each shard sees 1/ep of the lookups", "[workload][dlrm]") {
  constexpr int ep = 4;
  const auto d = describe(spec_with({table(TableSharding::RowWise)}), ep);
  const auto& emb = block(d, "embeddings");
  const auto* rs = segment(emb.forward, "pooled_rs");
  REQUIRE(rs);
  CHECK(rs->comm.ops == std::vector<config::CollectiveOp>{config::CollectiveOp::ReduceScatter});
  CHECK(rs->comm.bytes == Approx(double(kBatch) * ep * kDim * 2));
  const auto* ag = segment(emb.backward, "grad_ag");
  REQUIRE(ag);
  CHECK(ag->comm.ops == std::vector<config::CollectiveOp>{config::CollectiveOp::AllGather});
  const auto* lookup = segment(emb.forward, "lookup");
  for (std::size_t r = 0; r < ep; ++r) {
    CHECK(random_B(*lookup, r, "tbe.fwd") == Approx(double(kBatch) * ep * kPooling / ep * kDim * 4));
    CHECK(emb.sparse_weights_B_by_expert_rank[r] == Approx(kRows / ep * kDim * 4));
  }
}

TEST_CASE("dlrm: column-wise shards split d — table-row-wise shards stay in one node", "[workload][dlrm]") {
  constexpr int ep = 4;
  SECTION("column-wise over 2 devices from device 2") {
    auto t = table(TableSharding::ColumnWise, 2);
    t.shards = 2;
    const auto d = describe(spec_with({t}), ep);
    const auto* lookup = segment(block(d, "embeddings").forward, "lookup");
    for (std::size_t r : {2, 3}) {
      CHECK(random_B(*lookup, r, "tbe.fwd") == Approx(double(kBatch) * ep * kPooling * (kDim / 2) * 4));
      CHECK(column(lookup->comm.matrix, 0) == Approx(double(kBatch) * kDim * 2));  // both halves reach device 0
    }
    CHECK(lookup->kernels_by_expert_rank[0].empty());
  }
  SECTION("table-row-wise on node 1 of two 2-device nodes") {
    auto t = table(TableSharding::TableRowWise);
    t.host = 1;
    const auto d = describe(spec_with({t}), ep, DType::fp16, 2);
    const auto& emb = block(d, "embeddings");
    CHECK(emb.sparse_weights_B_by_expert_rank[0] == 0);
    CHECK(emb.sparse_weights_B_by_expert_rank[2] == Approx(kRows / 2 * kDim * 4));
    // Devices 2 and 3 each send every other device its samples' partial sums.
    const auto& m = segment(emb.forward, "lookup")->comm.matrix;
    CHECK(column(m, 0) == Approx(2.0 * kBatch * kDim * 2));
    CHECK(column(m, 2) == Approx(1.0 * kBatch * kDim * 2));
  }
}

TEST_CASE("dlrm: a data-parallel table is a parameter looked up locally, with no all-to-all", "[workload][dlrm]") {
  const auto d = describe(spec_with({table(TableSharding::DataParallel)}), 4);
  const auto& emb = block(d, "embeddings");
  REQUIRE(emb.params.size() == 1);
  CHECK(emb.params[0].elements == Approx(kRows * kDim));
  CHECK(!segment(emb.forward, "input_dist"));
  CHECK(segment(emb.forward, "lookup")->comm.active() == false);
  for (std::size_t r = 0; r < 4; ++r)
    CHECK(random_B(*segment(emb.forward, "lookup"), r, "dp_tables.fwd") == Approx(double(kBatch) * kPooling * kDim * 4));
}

TEST_CASE("dlrm: MLPs are their layers' GEMMs — dot interaction outputs d + F(F-1)/2", "[workload][dlrm]") {
  const auto s = spec_with({table(TableSharding::TableWise), table(TableSharding::TableWise)});
  const auto d = describe(s, 1);
  const auto& bottom = block(d, "bottom_mlp");
  double flops = 0;
  for (const auto& k : bottom.forward.front().kernels) flops += k.matmul_flops();
  CHECK(flops == Approx(2.0 * kBatch * (13 * 128 + 128 * kDim)));
  const int f = 3;  // two tables and the bottom output
  CHECK(workload::interaction_outputs(s) == kDim + f * (f - 1) / 2);
  CHECK(bottom.device_parameters() == Approx(13 * 128 + 128 + 128 * kDim + kDim));
}

TEST_CASE("dlrm: DLE's large model (82 GB of fp32 tables) does not fit one 80 GB A100", "[workload][dlrm]") {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/dlrm-dgx-a100.yaml",
                                              {{"platform.node.devices", "1"},
                                               {"parallelism.dp", "1"},
                                               {"parallelism.ep", "1"},
                                               {"training.micro_batch", "65536"}});
  const auto memory = parallel::estimate_memory(scenario);
  CHECK(memory.weights_B >= 82e9);
  CHECK_FALSE(memory.fits());
  // On 8 GPUs each holds its tables: the busiest device's share, well under the total.
  const auto eight = parallel::estimate_memory(
      config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/dlrm-dgx-a100.yaml"));
  CHECK(eight.fits());
  CHECK(eight.weights_B < 0.3 * memory.weights_B);
}
