// moe.dispatcher: deepep in a training plan: across nodes the expert all-to-alls run as the
// hierarchical all-to-all, and what crosses the network is one copy per token and node — against
// k copies per token spread over the members with Megatron's dispatcher. Expected bytes from the
// routing's closed form (docs/moe.md, "Dispatchers").
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"

using namespace clearfog;

namespace {

struct Traffic {
  double network_B = 0;  // all-to-all bytes sent to another node, all members, all exchanges
  int exchanges = 0;
  int hierarchical = 0;
};

Traffic expert_traffic(const std::string& dispatcher) {
  // Qwen3-30B-A3B (128 experts, top-8), two layers, ep 16 over two DGX H100 nodes.
  const auto scenario = config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/qwen3-30b-a3b-h100.yaml",
      {{"platform.fabric.nodes", "2"}, {"parallelism.pp", "1"}, {"parallelism.dp", "16"}, {"parallelism.ep", "16"},
       {"parallelism.schedule", "1f1b"}, {"parallelism.virtual_stages", "1"}, {"training.global_batch", "32"},
       {"workload.layers", "2"}, {"moe.dispatcher", dispatcher}});
  const auto plan = driver::plan_scenario(scenario);
  const int per_node = scenario.platform.node.devices;
  Traffic t;
  for (const auto& record : plan.collectives->records()) {
    if (record.op != config::CollectiveOp::AllToAll) continue;
    ++t.exchanges;
    if (record.algorithm == clearfog::collectives::collective_algorithm("hierarchical")) ++t.hierarchical;
    for (const auto& range : record.ops) {
      const auto& program = plan.step.plan.ranks[static_cast<std::size_t>(range.rank)];
      for (program::OpIndex op = range.first; op < range.end; ++op)
        for (const auto& send : program.sends(op))
          if (send.peer / per_node != range.rank / per_node) t.network_B += send.bytes;
    }
  }
  return t;
}

}  // namespace

TEST_CASE("driver::DeepEP dispatch: one copy per token and node crosses the network", "[driver][moe][simulation]") {
  const Traffic megatron = expert_traffic("alltoall"), deepep = expert_traffic("deepep");
  REQUIRE(megatron.exchanges > 0);
  CHECK(deepep.exchanges == megatron.exchanges);
  CHECK(megatron.hierarchical == 0);
  CHECK(deepep.hierarchical == deepep.exchanges);
  // Per token: Megatron sends its k = 8 copies to 16 members, 8 of them on the other node: 4
  // copies cross. DeepEP sends one copy if the other node (64 of the 128 experts) holds any of the
  // token's experts: 1 - C(64,8)/C(128,8).
  double miss = 1;
  for (int t = 0; t < 8; ++t) miss *= (64.0 - t) / (128.0 - t);
  CHECK(deepep.network_B / megatron.network_B == Approx((1 - miss) / 4).epsilon(1e-6));
}
