// The sharding estimate and the greedy planner against closed forms: two one-hot tables, each
// table-wise on its own device, exchange per device the indices (B·L·8 + B·4 bytes each way) and the
// pooled vectors forward and their gradients backward (B·d·e each way), at the device's bandwidth;
// a replicated table costs a ring all-reduce 2(p-1)/p·N·d·bytes / bw of its gradient and the MLP
// gradients in its bucket; identical tables spread
// one per device; a table that cannot be replicated in memory is never data parallel.
#include <catch2/catch.hpp>

#include <set>

#include "config/ConfigLoader.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "workload/types/DlrmBlocks.hpp"
#include "workload/types/DlrmGreedySharder.hpp"
#include "workload/types/DlrmShardCost.hpp"

using namespace clearfog;
using workload::DlrmSpec;
using workload::TableSharding;

namespace {

constexpr int kBatch = 1024, kDim = 128;
constexpr double kBandwidth_Bps = 100e9;

config::AcceleratorSpec accelerator() {
  return config::load_accelerator(std::string(CLEARFOG_SOURCE_DIR) + "/platforms/accelerators/a100-sxm4-80gb.yaml");
}

DlrmSpec spec_of(int count, double rows, double pooling) {
  DlrmSpec s;
  s.dense_features = 13;
  s.bottom_mlp = {kDim};
  s.top_mlp = {1};
  for (int i = 0; i < count; ++i) {
    workload::EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = rows;
    t.dim = kDim;
    t.pooling = pooling;
    s.tables.push_back(t);
  }
  return s;
}

workload::ShardCostInputs inputs(int group, const kernels::KernelCostModel& costs) {
  workload::ShardCostInputs in;
  in.group = group;
  in.node_devices = group;
  in.micro_batch = kBatch;
  in.precision = DType::fp16;
  in.intra_node_Bps = in.inter_node_Bps = kBandwidth_Bps;
  in.capacity_B = 80e9;
  in.costs = &costs;
  return in;
}

}  // namespace

TEST_CASE("sharding estimate: two table-wise tables exchange indices, pooled vectors and their gradients",
          "[workload][dlrm][shard]") {
  const kernels::BlockedGemmModel costs(accelerator());
  auto spec = spec_of(2, 1e6, 1);
  spec.tables[0].rank = 0;
  spec.tables[1].rank = 1;
  const auto e = workload::estimate_sharding(spec, inputs(2, costs));
  const double index_B = kBatch * 1.0 * workload::kIndexBytes + kBatch * workload::kLengthBytes;
  const double pooled_B = kBatch * kDim * 2.0;  // fp16
  for (int r = 0; r < 2; ++r) {
    CHECK(e.exchange_s[r] == Approx((index_B + 2 * pooled_B) / kBandwidth_Bps).epsilon(1e-12));
    CHECK(e.moved_B[r] == Approx(2 * (index_B + 2 * pooled_B)).epsilon(1e-12));
    CHECK(e.table_B[r] == Approx(1e6 * kDim * 4));  // fp32 rows, SGD: no state
  }
  CHECK(e.lookup_imbalance() == Approx(1.0));
  CHECK(e.allreduce_s == 0);
  CHECK(e.step_s == Approx(e.lookup_s[0] + e.exchange_s[0]));
}

TEST_CASE("sharding estimate: a replicated table is all-reduced as a ring and held by every device",
          "[workload][dlrm][shard]") {
  const kernels::BlockedGemmModel costs(accelerator());
  auto spec = spec_of(1, 1e5, 1);
  spec.tables[0].sharding = TableSharding::DataParallel;
  const int p = 4;
  const auto e = workload::estimate_sharding(spec, inputs(p, costs));
  const double table_B = 1e5 * kDim * 4, gradient_B = 1e5 * kDim * 2;  // fp32 rows, fp16 gradient
  CHECK(e.allreduce_s == Approx(2.0 * (p - 1) / p * gradient_B / kBandwidth_Bps).epsilon(1e-12));
  for (int r = 0; r < p; ++r) {
    CHECK(e.exchange_s[r] == 0);
    CHECK(e.table_B[r] == Approx(table_B + gradient_B));
  }
  // The bucket that holds it also carries up to a bucket of the MLPs' gradients.
  auto in = inputs(p, costs);
  in.dense_gradient_B = 3e6;
  in.bucket_B = 1e6;
  CHECK(workload::estimate_sharding(spec, in).allreduce_s ==
        Approx(2.0 * (p - 1) / p * (gradient_B + 1e6) / kBandwidth_Bps).epsilon(1e-12));
}

TEST_CASE("greedy sharding: identical tables go one per device — a table too large to replicate is not replicated",
          "[workload][dlrm][shard]") {
  const kernels::BlockedGemmModel costs(accelerator());
  const int p = 4;
  const auto plan = workload::greedy_plan(spec_of(p, 1e6, 10), inputs(p, costs));
  std::set<int> devices;
  for (const auto& c : plan) {
    CHECK(c.sharding == TableSharding::TableWise);
    devices.insert(c.rank);
  }
  CHECK(devices.size() == static_cast<std::size_t>(p));

  // One tiny one-hot table: replicated costs an all-reduce of 10·128·4 bytes and no exchange, less
  // than any placement that sends indices and pooled vectors; with room for only a sliver of it per
  // device, it is sharded instead.
  auto tiny = spec_of(1, 10, 1);
  CHECK(workload::greedy_plan(tiny, inputs(p, costs)).front().sharding == TableSharding::DataParallel);
  auto cramped = inputs(p, costs);
  cramped.capacity_B = 10 * kDim * 4 * 1.2;  // the fp32 rows fit, rows and fp16 gradient (1.5x) do not
  CHECK(workload::greedy_plan(tiny, cramped).front().sharding != TableSharding::DataParallel);
}
