// Chakra export: the traces read back through the generated classes describe the plan they were
// written from (node counts and types, collective sizes against the closed form of the gradients).
#include <catch2/catch.hpp>
#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "interop/ChakraExport.hpp"
#include "interop/ChakraNodeAttrs.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;

namespace {

/// Parameters: Megatron SC21 Eq. 2, P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)), plus the final
/// layernorm (2h), which Eq. 2 leaves out.
double parameters(const config::WorkloadSpec& workload) {
  const auto& w = test::transformer(workload);
  const double l = w.layers, s = w.seq_length, h = w.hidden, V = w.vocab_size;
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h;
}

/// An integer attribute whatever its type (the value types are checked on their own, below).
std::int64_t int_attr(const ChakraProtoMsg::Node& node, const std::string& name) {
  const auto value = interop::int_attr(node, name);
  if (!value) FAIL("node " << node.id() << " has no integer attribute " << name);
  return value.value_or(0);
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("interop::export_chakra: a data-parallel plan read back rank by rank", "[interop]") {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  REQUIRE(scenario.parallelism.tp == 1);
  REQUIRE(scenario.parallelism.pp == 1);
  const auto plan = driver::plan_scenario(scenario);
  const auto dir = fresh_dir("clearfog-chakra-export-test");
  const int devices = scenario.platform.device_count();
  const auto summary = interop::export_chakra(plan.step, *plan.collectives, devices, dir, scenario.name);
  REQUIRE(summary.files == devices);

  std::uint64_t nodes = 0;
  for (int r = 0; r < devices; ++r) {
    const auto trace = interop::read_chakra_trace(dir / interop::chakra_file_name(r));
    CHECK(trace.metadata.version() == interop::kChakraSchemaVersion);
    nodes += trace.nodes.size();

    std::map<int, int> of_type;
    double all_reduce_B = 0;
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
      const auto& node = trace.nodes[i];
      CHECK(node.id() == i);
      for (const auto d : node.ctrl_deps()) CHECK(d < node.id());
      for (const auto d : node.data_deps()) CHECK(d < node.id());
      ++of_type[node.type()];
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE && int_attr(node, "comm_type") == ChakraProtoMsg::ALL_REDUCE)
        all_reduce_B += static_cast<double>(int_attr(node, "comm_size"));
    }
    // One COMM_COLL node per collective the rank takes part in; one COMP node per compute op.
    int collectives = 0;
    for (const auto& record : plan.collectives->records())
      if (record.op != config::CollectiveOp::SendRecv)
        for (const auto& range : record.ops) collectives += range.rank == r ? 1 : 0;
    CHECK(of_type[ChakraProtoMsg::COMM_COLL_NODE] == collectives);
    int compute_ops = 0;
    for (const auto& op : plan.step.plan.ranks[r].ops()) compute_ops += op.kind == program::OpKind::Compute ? 1 : 0;
    CHECK(of_type[ChakraProtoMsg::COMP_NODE] == compute_ops);
    CHECK(of_type[ChakraProtoMsg::COMM_SEND_NODE] == 0);  // no pipeline
    // Every gradient is all-reduced once in the reduce dtype (Megatron's bf16 gradients in fp32: 4 B
    // per parameter), each bucket rounded to a byte.
    const double element_B = dtype_bytes(scenario.gradient_reduce_dtype());
    CHECK(element_B == 4);
    CHECK(all_reduce_B ==
          Approx(element_B * parameters(scenario.workload)).margin(static_cast<double>(collectives)));
  }
  CHECK(nodes == summary.nodes);
  std::filesystem::remove_all(dir);
}

TEST_CASE("interop::export_chakra: pipeline activations become matching sends and receives", "[interop]") {
  auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                        {config::parse_override("parallelism.dp=4"),
                                         config::parse_override("parallelism.pp=2")});
  const auto plan = driver::plan_scenario(scenario);
  // (src, dst, tag) of every send on its sender, of every receive on its receiver: the same set.
  std::multiset<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> sends, recvs;
  for (int r = 0; r < plan.step.plan.rank_count(); ++r)
    for (const auto& node :
         interop::chakra_trace(plan.step, *plan.collectives, r, plan.step.plan.rank_count(), scenario.name).nodes) {
      if (node.type() != ChakraProtoMsg::COMM_SEND_NODE && node.type() != ChakraProtoMsg::COMM_RECV_NODE) continue;
      auto& set = node.type() == ChakraProtoMsg::COMM_SEND_NODE ? sends : recvs;
      set.emplace(int_attr(node, "comm_src"), int_attr(node, "comm_dst"), int_attr(node, "comm_tag"),
                  int_attr(node, "comm_size"));
    }
  CHECK_FALSE(sends.empty());
  CHECK(sends == recvs);
  // Activations and their gradients carry the plan's inter-stage bytes; the empty messages are the
  // waits for the tied embedding's gradient sum between the first and the last stage.
  int activations = 0;
  for (const auto& [src, dst, tag, size] : sends) {
    CHECK((size == 0 || size == std::llround(plan.step.p2p_bytes)));
    activations += size > 0 ? 1 : 0;
  }
  // Each of the m micro-batches crosses the p - 1 stage boundaries forward and backward, on every
  // one of the dp pipelines.
  const int m = plan.step.micro_batches, p = scenario.parallelism.pp, dp = scenario.parallelism.dp;
  CHECK(activations == 2 * m * (p - 1) * dp);
}

TEST_CASE("interop::read_chakra_trace: rejects a missing or cut-short file", "[interop]") {
  const auto dir = fresh_dir("clearfog-chakra-read-test");
  SECTION("missing") { CHECK_THROWS_AS(interop::read_chakra_trace(dir / "none.et"), Error); }
  SECTION("cut short") {
    interop::ChakraTrace trace;
    trace.metadata.set_version("0.0.4");
    trace.nodes.emplace_back().set_name("a node long enough to be cut");
    interop::write_chakra_trace(dir / "t.et", trace);
    std::filesystem::resize_file(dir / "t.et", std::filesystem::file_size(dir / "t.et") - 3);
    CHECK_THROWS_AS(interop::read_chakra_trace(dir / "t.et"), Error);
  }
  std::filesystem::remove_all(dir);
}

namespace {

std::vector<std::int64_t> int_list_attr(const ChakraProtoMsg::Node& node, const std::string& name) {
  for (const auto& a : node.attr())
    if (a.name() == name) return {a.int64_list().values().begin(), a.int64_list().values().end()};
  FAIL("node " << node.id() << " has no attribute " << name);
  return {};
}

}  // namespace

TEST_CASE("interop::export_chakra: an all-to-all-v's split travels as matching send and receive sizes", "[interop]") {
  const auto scenario =
      config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/dlrm-dgx-a100.yaml");
  const auto plan = driver::plan_scenario(scenario);
  const int devices = scenario.platform.device_count();
  // Per rank, its all-to-all nodes in order: comm_group, comm_send_sizes, comm_recv_sizes.
  struct Split {
    std::vector<std::int64_t> group, send, recv;
  };
  std::vector<std::vector<Split>> splits(static_cast<std::size_t>(devices));
  for (int r = 0; r < devices; ++r)
    for (const auto& node : interop::chakra_trace(plan.step, *plan.collectives, r, devices, scenario.name).nodes)
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE && int_attr(node, "comm_type") == ChakraProtoMsg::ALL_TO_ALL)
        splits[r].push_back({int_list_attr(node, "comm_group"), int_list_attr(node, "comm_send_sizes"),
                             int_list_attr(node, "comm_recv_sizes")});
  // The plan's all-to-alls, each an uneven split (the tables' pooled embeddings per shard).
  std::vector<double> planned_B;
  for (const auto& record : plan.collectives->records()) {
    if (record.op != config::CollectiveOp::AllToAll) continue;
    REQUIRE(record.members == devices);  // ep = dp: every all-to-all spans all the devices
    REQUIRE_FALSE(record.matrix.empty());
    double total = 0;
    for (const auto& row : record.matrix)
      for (const double b : row) total += b;
    planned_B.push_back(total);
  }
  REQUIRE_FALSE(planned_B.empty());
  for (int r = 0; r < devices; ++r) REQUIRE(splits[r].size() == planned_B.size());
  for (std::size_t k = 0; k < planned_B.size(); ++k) {
    double sent_B = 0;
    std::set<std::int64_t> sizes;
    for (int i = 0; i < devices; ++i) {
      const auto& mine = splits[i][k];
      for (std::size_t q = 0; q < mine.group.size(); ++q) {
        // What rank i says it receives from peer q is what q says it sends to i.
        const auto& peer = splits[static_cast<std::size_t>(mine.group[q])][k];
        const auto at = std::find(peer.group.begin(), peer.group.end(), i) - peer.group.begin();
        INFO("all-to-all " << k << ", rank " << i << ", from rank " << mine.group[q]);
        CHECK(mine.recv[q] == peer.send[static_cast<std::size_t>(at)]);
        sent_B += static_cast<double>(mine.send[q]);
        if (mine.group[q] != i) sizes.insert(mine.send[q]);
      }
    }
    CHECK(sizes.size() > 1);  // not an even split
    CHECK(sent_B == Approx(planned_B[k]).margin(static_cast<double>(devices * devices)));  // whole bytes
  }
}

TEST_CASE("interop::export_chakra: one file per device, none for an in-switch reduction endpoint", "[interop]") {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-8gpu.yaml");
  const auto plan = driver::plan_scenario(scenario);
  const int devices = scenario.platform.device_count();
  REQUIRE(plan.step.plan.rank_count() > devices);  // the NVSwitch (NVLS) is a rank of the plan
  const auto dir = fresh_dir("clearfog-chakra-export-switch");
  const auto summary = interop::export_chakra(plan.step, *plan.collectives, devices, dir, scenario.name);
  CHECK(summary.files == devices);
  for (int r = 0; r < devices; ++r) CHECK(std::filesystem::exists(dir / interop::chakra_file_name(r)));
  CHECK_FALSE(std::filesystem::exists(dir / interop::chakra_file_name(devices)));
  std::filesystem::remove_all(dir);
}

namespace {

using ValueCase = ChakraProtoMsg::AttributeProto::ValueCase;

/// The value type of every node attribute clearfog writes. The ones Chakra reads take the type its
/// reader reads them as (mlcommons/chakra src/feeder/et_feeder_node.cpp, ETFeederNode's
/// constructor: is_cpu_op bool_val, comm_type and comm_size int64_val, comm_src, comm_dst and
/// comm_tag int32_val; a value of another type reads there as 0). The others are clearfog's own,
/// in the types docs/interop.md ("The files") gives them.
const std::map<std::string, ValueCase>& node_attr_types() {
  static const std::map<std::string, ValueCase> types = {
      // Read by Chakra's feeder.
      {"is_cpu_op", ChakraProtoMsg::AttributeProto::kBoolVal},
      {"comm_type", ChakraProtoMsg::AttributeProto::kInt64Val},
      {"comm_size", ChakraProtoMsg::AttributeProto::kInt64Val},
      {"comm_src", ChakraProtoMsg::AttributeProto::kInt32Val},
      {"comm_dst", ChakraProtoMsg::AttributeProto::kInt32Val},
      {"comm_tag", ChakraProtoMsg::AttributeProto::kInt32Val},
      // clearfog's (docs/interop.md).
      {"stream", ChakraProtoMsg::AttributeProto::kStringVal},
      {"category", ChakraProtoMsg::AttributeProto::kStringVal},
      {"algorithm", ChakraProtoMsg::AttributeProto::kStringVal},
      {"duration_s", ChakraProtoMsg::AttributeProto::kDoubleVal},
      {"network_share", ChakraProtoMsg::AttributeProto::kDoubleVal},
      {"comm_group", ChakraProtoMsg::AttributeProto::kInt64List},
      {"comm_send_sizes", ChakraProtoMsg::AttributeProto::kInt64List},
      {"comm_recv_sizes", ChakraProtoMsg::AttributeProto::kInt64List},
  };
  return types;
}

/// GlobalMetadata's attributes, strings (docs/interop.md, "The files").
const std::set<std::string>& metadata_attrs() {
  static const std::set<std::string> names = {"generator", "scenario", "rank", "ranks"};
  return names;
}

std::string value_case_name(ValueCase c) {
  const auto* field = ChakraProtoMsg::AttributeProto::descriptor()->FindFieldByNumber(static_cast<int>(c));
  return field ? field->name() : "unset";
}

/// Checks every attribute of `scenario`'s export, read back from its files through the schema,
/// against the tables above; returns the names of the node attributes it saw.
std::set<std::string> check_attr_types(const config::ScenarioSpec& scenario, const std::string& dir_name) {
  const auto plan = driver::plan_scenario(scenario);
  const auto dir = fresh_dir(dir_name);
  const int devices = scenario.platform.device_count();
  interop::export_chakra(plan.step, *plan.collectives, devices, dir, scenario.name);
  std::set<std::string> seen;
  for (int r = 0; r < devices; ++r) {
    const auto trace = interop::read_chakra_trace(dir / interop::chakra_file_name(r));
    for (const auto& a : trace.metadata.attr()) {
      INFO("rank " << r << ", metadata attribute " << a.name());
      CHECK(metadata_attrs().count(a.name()) == 1);
      CHECK(value_case_name(a.value_case()) == "string_val");
    }
    for (const auto& node : trace.nodes)
      for (const auto& a : node.attr()) {
        INFO("rank " << r << ", node " << node.id() << " (" << ChakraProtoMsg::NodeType_Name(node.type())
                     << "), attribute " << a.name());
        const auto expected = node_attr_types().find(a.name());
        REQUIRE(expected != node_attr_types().end());  // every attribute written is in the table
        CHECK(value_case_name(a.value_case()) == value_case_name(expected->second));
        seen.insert(a.name());
      }
  }
  std::filesystem::remove_all(dir);
  return seen;
}

}  // namespace

TEST_CASE("interop::export_chakra: every attribute has the value type Chakra's reader reads it as", "[interop]") {
  // Pipeline parallel (sends and receives between the stages, all-reduces within each stage).
  const auto pipeline = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                              {config::parse_override("parallelism.dp=4"),
                                               config::parse_override("parallelism.pp=2")});
  auto seen = check_attr_types(pipeline, "clearfog-chakra-export-types-pp");
  for (const char* name : {"comm_src", "comm_dst", "comm_tag", "comm_size", "comm_type", "comm_group", "is_cpu_op",
                           "stream", "category", "algorithm", "duration_s"}) {
    INFO(name);
    CHECK(seen.count(name) == 1);
  }
  // A DLRM: all-to-all-v, with per-peer sizes.
  seen = check_attr_types(
      config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/dlrm-dgx-a100.yaml"),
      "clearfog-chakra-export-types-dlrm");
  CHECK(seen.count("comm_send_sizes") == 1);
  CHECK(seen.count("comm_recv_sizes") == 1);
}
