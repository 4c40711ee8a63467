// Chakra import: a hand-written ring step gives the closed-form time, clearfog's own exports come
// back with the step time they were planned with, and broken traces are located errors.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <google/protobuf/descriptor.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "config/ConfigLoader.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "interop/ChakraExport.hpp"
#include "interop/ChakraImport.hpp"
#include "interop/ChakraImportError.hpp"
#include "kernels/RooflineModel.hpp"
#include "support/ChakraTestTraces.hpp"
#include "support/TestPlatforms.hpp"
#include "topology/ClusterTopology.hpp"
#include "workload/types/ChakraType.hpp"

using namespace clearfog;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// A scenario importing `dir` on `devices` devices of a switch (bandwidth B, link latency).
config::ScenarioSpec import_scenario(const fs::path& dir, int devices, double bandwidth_Bps = 100e9,
                                     double link_latency_s = 1e-6) {
  config::ScenarioSpec s;
  s.name = "chakra import test";
  s.platform = test::switch_platform(devices, bandwidth_Bps, link_latency_s);
  s.workload = workload::make_chakra_workload(dir);
  s.training.global_batch = devices;
  return s;
}

parallel::StepPlan import(const config::ScenarioSpec& s) {
  const kernels::RooflineModel costs(s.platform.accelerator);
  return interop::import_chakra(s, costs, parallel::plain_group_collectives(s.platform.device_count()));
}

/// The step time of `scenario` run end to end by the driver (in a child: one simulation per process).
double step_time_s(const config::ScenarioSpec& scenario) {
  return std::stod(engine::run_forked(
      [&] { return fmt::format("{:.17g}", driver::run_scenario(scenario).metrics.step_time_s); }));
}

/// Exports `scenario`'s plan to `dir`, imports it on the same platform, and checks the step times.
void check_round_trip(const config::ScenarioSpec& scenario, const std::string& dir_name) {
  const auto dir = fresh_dir(dir_name);
  const auto plan = driver::plan_scenario(scenario);
  interop::export_chakra(plan.step, *plan.collectives, scenario.platform.device_count(), dir, scenario.name);
  auto imported = scenario;
  imported.workload = workload::make_chakra_workload(dir);
  const double planned = step_time_s(scenario);
  const double traced = step_time_s(imported);
  INFO(scenario.name << ": planned " << planned << " s, imported " << traced << " s");
  CHECK(traced == Approx(planned).epsilon(1e-3));
}

/// The message of the import error `import` throws ("" if none).
template <typename F>
std::string import_error(F import_fn) {
  try {
    import_fn();
  } catch (const interop::ChakraImportError& e) {
    return e.diagnostics().at(0).str();
  }
  return "";
}

void truncate_file(const fs::path& file, std::uintmax_t bytes) { fs::resize_file(file, bytes); }

}  // namespace

TEST_CASE("interop::import_chakra: compute then ring all-reduce gives the alpha-beta closed form",
          "[interop][simulation]") {
  const int p = 4;
  const double bandwidth_Bps = 100e9, link_latency_s = 1e-6, compute_s = 2e-3;
  const std::int64_t n = 64'000'000;
  const double alpha_s = 2 * link_latency_s;  // device -> switch -> device
  const auto dir = fresh_dir("clearfog-chakra-import-ring");
  test::write_ring_traces(dir, p, compute_s, n);
  const auto scenario = import_scenario(dir, p, bandwidth_Bps, link_latency_s);
  const auto step = import(scenario);
  REQUIRE(step.plan.rank_count() == p);
  CHECK_FALSE(step.flops_known);
  CHECK_FALSE(step.described);
  CHECK(step.forward_s == Approx(compute_s));
  const auto topology = topology::ClusterTopology::build(scenario.platform);
  const auto result = engine::simulate_forked(topology, step.plan);
  const double expected_s = compute_s + 2.0 * (p - 1) * alpha_s + 2.0 * (p - 1) / p * n / bandwidth_Bps;
  CHECK(result.makespan_s == Approx(expected_s).epsilon(1e-3));
}

TEST_CASE("interop::import_chakra: the quickstart's export comes back with its step time", "[interop][simulation]") {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  check_round_trip(scenario, "clearfog-chakra-roundtrip-quickstart");
}

TEST_CASE("interop::import_chakra: a pipeline's export (sends and receives) comes back with its step time",
          "[interop][simulation]") {
  auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/gpt-7.5b-pp.yaml");
  REQUIRE(scenario.parallelism.pp > 1);
  scenario.training.global_batch = 8;  // 4 micro-batches per pipeline: small and fast
  check_round_trip(scenario, "clearfog-chakra-roundtrip-pp");
}

TEST_CASE("interop::import_chakra: a DLRM's export (all-to-all-v of pooled embeddings) comes back with its step time",
          "[interop][simulation]") {
  const auto scenario =
      config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/dlrm-dgx-a100.yaml");
  REQUIRE(scenario.parallelism.ep == scenario.platform.device_count());  // tables sharded over every GPU
  check_round_trip(scenario, "clearfog-chakra-roundtrip-dlrm");
}

TEST_CASE("interop::import_chakra: a MoE's export (expert all-to-all-v, NVSwitch rank) comes back with its step time",
          "[interop][simulation]") {
  const auto scenario = config::load_scenario(std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-8gpu.yaml");
  REQUIRE(scenario.parallelism.ep > 1);
  check_round_trip(scenario, "clearfog-chakra-roundtrip-moe");
}

TEST_CASE("interop::import_chakra: DeepEP's de-duplicated all-to-alls come back hierarchical, with their network share",
          "[interop][simulation][moe]") {
  // Qwen3-30B-A3B, two layers, ep 16 over two DGX H100 nodes (as driver::DeepEP dispatch): the
  // dispatcher's choice is not the platform's, so the traces must carry it.
  const auto scenario = config::load_scenario(
      std::string(CLEARFOG_SOURCE_DIR) + "/scenarios/validation/qwen3-30b-a3b-h100.yaml",
      {{"platform.fabric.nodes", "2"}, {"parallelism.pp", "1"}, {"parallelism.dp", "16"}, {"parallelism.ep", "16"},
       {"parallelism.schedule", "1f1b"}, {"parallelism.virtual_stages", "1"}, {"training.global_batch", "32"},
       {"workload.layers", "2"}, {"moe.dispatcher", "deepep"}});
  const auto dir = fresh_dir("clearfog-chakra-roundtrip-deepep");
  const auto plan = driver::plan_scenario(scenario);
  interop::export_chakra(plan.step, *plan.collectives, scenario.platform.device_count(), dir, scenario.name);
  auto imported = scenario;
  imported.workload = workload::make_chakra_workload(dir);
  const auto back = driver::plan_scenario(imported);
  std::vector<double> planned_shares, imported_shares;
  for (const auto& r : plan.collectives->records())
    if (r.op == config::CollectiveOp::AllToAll) planned_shares.push_back(r.network_share);
  for (const auto& r : back.collectives->records())
    if (r.op == config::CollectiveOp::AllToAll) {
      CHECK(r.algorithm == clearfog::collectives::collective_algorithm("hierarchical"));
      imported_shares.push_back(r.network_share);
    }
  REQUIRE(!planned_shares.empty());
  CHECK(planned_shares.front() < 1);  // de-duplicated
  CHECK(imported_shares == planned_shares);
  CHECK(step_time_s(imported) == Approx(step_time_s(scenario)).epsilon(1e-3));
}

TEST_CASE("interop::import_chakra: a hierarchical all-to-all has a network share above 0 and at most 1", "[interop]") {
  const int p = 2;
  const auto dir = fresh_dir("clearfog-chakra-import-share");
  for (int r = 0; r < p; ++r) {
    auto trace = test::ring_trace(r, p, 1e-3, 0);
    trace.nodes[1] = test::coll_node(1, ChakraProtoMsg::ALL_TO_ALL, 1000, p, 0);
    auto* algorithm = trace.nodes[1].add_attr();
    algorithm->set_name("algorithm");
    algorithm->set_string_val("hierarchical");
    auto* share = trace.nodes[1].add_attr();
    share->set_name("network_share");
    share->set_double_val(1.5);
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), trace);
  }
  const auto scenario = import_scenario(dir, p);
  CHECK_THAT(import_error([&] { import(scenario); }), Catch::Contains("network_share must be in (0, 1]"));
  // A valid share on one node: the hierarchical exchange needs several whole nodes.
  for (int r = 0; r < p; ++r) {
    auto trace = interop::read_chakra_trace(dir / fmt::format("et.{}.et", r));
    for (auto& attr : *trace.nodes[1].mutable_attr())
      if (attr.name() == "network_share") attr.set_double_val(0.5);
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), trace);
  }
  CHECK_THAT(import_error([&] { import(scenario); }), Catch::Contains("needs a group of whole nodes"));
}

namespace {

/// Bytes rank i sends rank j in the all-to-all-v tests: distinct per pair, none to itself.
std::int64_t pair_bytes(int i, int j) { return i == j ? 0 : 1000 * (1 + i + 3 * j); }

/// Rank `rank`'s trace: compute, then an all-to-all-v over every rank whose split is
/// pair_bytes() (comm_send_sizes, comm_recv_sizes; comm_size the mean a member sends).
interop::ChakraTrace all_to_all_v_trace(int rank, int ranks) {
  auto trace = test::ring_trace(rank, ranks, 1e-3, 0);
  std::vector<std::int64_t> send, recv;
  std::int64_t total = 0;
  for (int j = 0; j < ranks; ++j) {
    send.push_back(pair_bytes(rank, j));
    recv.push_back(pair_bytes(j, rank));
    for (int i = 0; i < ranks; ++i) total += pair_bytes(i, j);
  }
  trace.nodes[1] = test::coll_node(1, ChakraProtoMsg::ALL_TO_ALL, total / ranks, ranks, 0);
  test::add_int_list_attr(trace.nodes[1], "comm_send_sizes", send);
  test::add_int_list_attr(trace.nodes[1], "comm_recv_sizes", recv);
  return trace;
}

}  // namespace

TEST_CASE("interop::import_chakra: comm_send_sizes make an all-to-all-v of those bytes per pair", "[interop]") {
  const int p = 3;
  const auto dir = fresh_dir("clearfog-chakra-import-alltoallv");
  for (int r = 0; r < p; ++r)
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), all_to_all_v_trace(r, p));
  const auto step = import(import_scenario(dir, p));
  for (int i = 0; i < p; ++i) {
    const auto& program = step.plan.ranks[static_cast<std::size_t>(i)];
    std::vector<double> sent(p, 0.0), received(p, 0.0);
    for (program::OpIndex op = 0; op < program.size(); ++op)
      for (auto t = program.transfer_begin(op); t < program.transfer_end(op); ++t)
        (t < program.sends_end(op) ? sent : received)[static_cast<std::size_t>(program.peer(t))] += program.bytes(t);
    for (int j = 0; j < p; ++j) {
      INFO("rank " << i << ", peer " << j);
      CHECK(sent[static_cast<std::size_t>(j)] == Approx(static_cast<double>(pair_bytes(i, j))));
      CHECK(received[static_cast<std::size_t>(j)] == Approx(static_cast<double>(pair_bytes(j, i))));
    }
  }
}

TEST_CASE("interop::import_chakra: broken per-peer sizes are errors naming the file and the node", "[interop]") {
  const int p = 3;
  const auto dir = fresh_dir("clearfog-chakra-import-alltoallv-bad");
  for (int r = 0; r < p; ++r)
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), all_to_all_v_trace(r, p));
  const auto scenario = import_scenario(dir, p);
  const auto rewrite = [&](int rank, auto change) {
    auto trace = all_to_all_v_trace(rank, p);
    change(trace.nodes[1]);
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", rank), trace);
  };
  const auto without = [](ChakraProtoMsg::Node& node, const std::string& name) {
    auto& attrs = *node.mutable_attr();
    for (int a = attrs.size() - 1; a >= 0; --a)
      if (attrs[a].name() == name) attrs.DeleteSubrange(a, 1);
  };
  const auto error = [&] { return import_error([&] { import(scenario); }); };

  SECTION("one member without sizes") {
    rewrite(1, [&](auto& node) { without(node, "comm_send_sizes"); });
    CHECK_THAT(error(), Catch::Contains("et.1.et: node 1: this all-to-all over ranks [0, 1, 2] has no comm_send_sizes "
                                        "but node 1 of " +
                                        (dir / "et.0.et").string() + " has"));
  }
  SECTION("a list that is not one size per member") {
    rewrite(2, [&](auto& node) {
      without(node, "comm_send_sizes");
      test::add_int_list_attr(node, "comm_send_sizes", {1, 2});
    });
    CHECK_THAT(error(), Catch::Contains("et.2.et: node 1: comm_send_sizes has 2 entries for 3 members of comm_group"));
  }
  SECTION("a negative size") {
    rewrite(0, [&](auto& node) {
      without(node, "comm_send_sizes");
      test::add_int_list_attr(node, "comm_send_sizes", {0, -5, 7});
    });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 1: comm_send_sizes gives -5 B for rank 1; allowed: bytes >= 0"));
  }
  SECTION("a receive size its sender does not send") {
    rewrite(2, [&](auto& node) {
      without(node, "comm_recv_sizes");
      test::add_int_list_attr(node, "comm_recv_sizes", {pair_bytes(0, 2) + 1, pair_bytes(1, 2), 0});
    });
    CHECK_THAT(error(), Catch::Contains(fmt::format("et.2.et: node 1: comm_recv_sizes expects {} B from rank 0, whose "
                                                    "comm_send_sizes sends {} B",
                                                    pair_bytes(0, 2) + 1, pair_bytes(0, 2))));
  }
  SECTION("receive sizes without any send sizes") {
    for (int r = 0; r < p; ++r) rewrite(r, [&](auto& node) { without(node, "comm_send_sizes"); });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 1: comm_recv_sizes without comm_send_sizes on any member of "
                                        "this all-to-all over ranks [0, 1, 2]"));
  }
  SECTION("sizes on a collective that is not an all-to-all") {
    for (int r = 0; r < p; ++r)
      rewrite(r, [](auto& node) { node.mutable_attr(0)->set_int64_val(ChakraProtoMsg::ALL_REDUCE); });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 1: comm_send_sizes on a collective that is not ALL_TO_ALL"));
  }
}

namespace {

using ValueCase = ChakraProtoMsg::AttributeProto::ValueCase;

/// Rank `rank` of 2: a compute node of `flops` FLOPs and `bytes` bytes (num_ops, tensor_size),
/// then rank 0 sends rank 1 `message` bytes (tag 5), then both all-reduce `message` bytes; every
/// integer attribute in the value type `type`.
interop::ChakraTrace send_recv_trace(int rank, std::int64_t flops, std::int64_t bytes, std::int64_t message,
                                     ValueCase type) {
  interop::ChakraTrace trace;
  trace.metadata.set_version("0.0.4");
  auto& compute = trace.nodes.emplace_back(test::comp_node(0, "compute", 1e-3));
  test::add_int_attr_as(compute, "num_ops", flops, type);
  test::add_int_attr_as(compute, "tensor_size", bytes, type);
  auto& p2p = trace.nodes.emplace_back();
  p2p.set_id(1);
  p2p.set_type(rank == 0 ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
  p2p.add_data_deps(0);
  test::add_int_attr_as(p2p, "comm_src", 0, type);
  test::add_int_attr_as(p2p, "comm_dst", 1, type);
  test::add_int_attr_as(p2p, "comm_tag", 5, type);
  test::add_int_attr_as(p2p, "comm_size", message, type);
  auto& all_reduce = trace.nodes.emplace_back();
  all_reduce.set_id(2);
  all_reduce.set_type(ChakraProtoMsg::COMM_COLL_NODE);
  all_reduce.add_data_deps(1);
  test::add_int_attr_as(all_reduce, "comm_type", ChakraProtoMsg::ALL_REDUCE, type);
  test::add_int_attr_as(all_reduce, "comm_size", message, type);
  return trace;
}

}  // namespace

TEST_CASE("interop::import_chakra: integer attributes read alike in every integer type (int32 as Chakra's reader "
          "takes comm_src, int64 as earlier clearfog exports wrote it)",
          "[interop]") {
  using A = ChakraProtoMsg::AttributeProto;
  const std::int64_t flops = 1'000'000'000, bytes = 1'000, message = 3000;  // each fits every type
  const auto dir = fresh_dir("clearfog-chakra-import-integer-types");
  auto scenario = import_scenario(dir, 2);
  scenario.workload = workload::make_chakra_workload(dir, /*reprice=*/true);
  const double peak = scenario.platform.accelerator.peak(scenario.training.precision);
  for (const auto type : test::integer_scalar_types()) {
    INFO("value type " << A::descriptor()->FindFieldByNumber(type)->name());
    for (int r = 0; r < 2; ++r)
      interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), send_recv_trace(r, flops, bytes, message, type));
    const auto step = import(scenario);
    // num_ops, tensor_size: the roofline's max(FLOPs / peak, bytes / bandwidth), FLOPs-bound here.
    CHECK(step.plan.ranks[0].seconds(0) == Approx(static_cast<double>(flops) / peak));
    // comm_src, comm_dst, comm_tag, comm_size: rank 0 sends rank 1 the message, rank 1 receives it.
    for (int r = 0; r < 2; ++r) {
      const auto& program = step.plan.ranks[static_cast<std::size_t>(r)];
      REQUIRE(program.transfer_end(1) - program.transfer_begin(1) == 1);
      const auto t = program.transfer_begin(1);
      CHECK((t < program.sends_end(1)) == (r == 0));
      CHECK(program.peer(t) == 1 - r);
      CHECK(program.bytes(t) == Approx(static_cast<double>(message)));
    }
    // comm_type, comm_size: one all-reduce of the message's bytes.
    const auto plan = driver::plan_scenario(scenario);
    REQUIRE(plan.collectives->records().size() == 1);
    CHECK(plan.collectives->records()[0].op == config::CollectiveOp::AllReduce);
    CHECK(plan.collectives->records()[0].bytes == Approx(static_cast<double>(message)));
  }
}

TEST_CASE("interop::import_chakra: reprice prices compute nodes by the kernel model", "[interop]") {
  const auto dir = fresh_dir("clearfog-chakra-import-reprice");
  test::write_ring_traces(dir, 2, 1e-3, 1000);
  auto scenario = import_scenario(dir, 2);
  scenario.workload = workload::make_chakra_workload(dir, /*reprice=*/true);
  SECTION("a compute node without num_ops or tensor_size is an error naming it") {
    CHECK_THAT(import_error([&] { import(scenario); }),
               Catch::Contains("et.0.et: node 0: reprice: true needs num_ops"));
  }
  SECTION("num_ops and tensor_size: the roofline's max(FLOPs / peak, bytes / bandwidth)") {
    for (int r = 0; r < 2; ++r) {
      auto trace = test::ring_trace(r, 2, 1e-3, 1000);
      test::add_int_attr(trace.nodes[0], "num_ops", 1'000'000'000'000);  // 1 TFLOP
      test::add_int_attr(trace.nodes[0], "tensor_size", 1'000'000);
      interop::write_chakra_trace(dir / fmt::format("et.{}.et", r), trace);
    }
    const auto step = import(scenario);
    const double peak = scenario.platform.accelerator.peak(scenario.training.precision);
    CHECK(step.plan.ranks[0].seconds(0) == Approx(1e12 / peak));
    CHECK(step.flops_known);
    CHECK(step.model_flops == Approx(2e12));
  }
}

TEST_CASE("interop::import_chakra: broken traces are errors naming the file and the node", "[interop]") {
  const int p = 4;
  const auto dir = fresh_dir("clearfog-chakra-import-bad");
  test::write_ring_traces(dir, p, 1e-3, 4096);
  const auto scenario = import_scenario(dir, p);
  const auto rewrite = [&](int rank, auto change) {
    auto trace = test::ring_trace(rank, p, 1e-3, 4096);
    change(trace);
    interop::write_chakra_trace(dir / fmt::format("et.{}.et", rank), trace);
  };
  const auto error = [&] { return import_error([&] { import(scenario); }); };

  SECTION("an unknown node type") {
    rewrite(1, [](auto& t) { t.nodes[0].set_type(ChakraProtoMsg::MEM_LOAD_NODE); });
    CHECK_THAT(error(), Catch::Contains("et.1.et: node 0: node type MEM_LOAD_NODE is not modelled; allowed:"));
  }
  SECTION("a METADATA node is not skipped either") {
    rewrite(2, [](auto& t) { t.nodes[1].set_type(ChakraProtoMsg::METADATA_NODE); });
    CHECK_THAT(error(), Catch::Contains("et.2.et: node 1: node type METADATA_NODE"));
  }
  SECTION("a collective whose members disagree names both nodes and files") {
    rewrite(2, [](auto& t) { t.nodes[1] = test::coll_node(1, ChakraProtoMsg::ALL_REDUCE, 8192, 4, 0); });
    const auto message = error();
    CHECK_THAT(message, Catch::Contains("et.2.et: node 1: collective 1 over ranks [0, 1, 2, 3] is all_reduce of 8192 B"));
    CHECK_THAT(message, Catch::Contains("node 1 of " + (dir / "et.0.et").string()));
  }
  SECTION("a collective type that differs") {
    rewrite(3, [](auto& t) { t.nodes[1] = test::coll_node(1, ChakraProtoMsg::ALL_GATHER, 4096, 4, 0); });
    CHECK_THAT(error(), Catch::Contains("is all_gather of 4096 B here but all_reduce of 4096 B"));
  }
  SECTION("a collective a member never reaches") {
    rewrite(3, [](auto& t) { t.nodes.pop_back(); });
    CHECK_THAT(error(), Catch::Contains("never reached by rank(s) 3"));
  }
  SECTION("a missing rank file") {
    fs::remove(dir / "et.2.et");
    CHECK_THAT(error(), Catch::Contains("has 3 rank files but no et.2.et"));
  }
  SECTION("more rank files than devices") {
    test::write_ring_traces(dir, p + 1, 1e-3, 4096);
    CHECK_THAT(error(), Catch::Contains("holds traces of 5 ranks; the platform has 4 devices"));
  }
  SECTION("a truncated file") {
    truncate_file(dir / "et.1.et", fs::file_size(dir / "et.1.et") - 3);
    CHECK_THAT(error(), Catch::Contains("et.1.et: message 2") && Catch::Contains("is cut short"));
  }
  SECTION("an empty file") {
    truncate_file(dir / "et.0.et", 0);
    CHECK_THAT(error(), Catch::Contains("et.0.et: ") && Catch::Contains("empty"));
  }
  SECTION("a dependency on an id the file does not have") {
    rewrite(0, [](auto& t) { t.nodes[1].add_ctrl_deps(99); });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 1: ctrl_deps names node 99, which et.0.et does not have"));
  }
  SECTION("a dependency cycle") {
    rewrite(0, [](auto& t) { t.nodes[0].add_data_deps(1); });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 0: it is in or behind a dependency cycle"));
  }
  SECTION("a send without its receive") {
    rewrite(0, [](auto& t) {
      ChakraProtoMsg::Node send;
      send.set_id(2);
      send.set_type(ChakraProtoMsg::COMM_SEND_NODE);
      test::add_int_attr(send, "comm_dst", 1);
      test::add_int_attr(send, "comm_tag", 7);
      test::add_int_attr(send, "comm_size", 100);
      t.nodes.push_back(send);
    });
    CHECK_THAT(error(), Catch::Contains("et.0.et: node 2: send (src 0, dst 1, tag 7) has no matching COMM_RECV_NODE"));
  }
  SECTION("comm_type outside the six clearfog models") {
    rewrite(0, [](auto& t) { t.nodes[1] = test::coll_node(1, ChakraProtoMsg::BARRIER, 0, 4, 0); });
    CHECK_THAT(error(), Catch::Contains("comm_type BARRIER is not modelled"));
  }
}

TEST_CASE("interop::import_chakra: the shipped example traces are write_ring_traces(8 ranks, 10 ms, 100 MB)",
          "[interop]") {
  const auto dir = fresh_dir("clearfog-chakra-example");
  test::write_ring_traces(dir, 8, 10e-3, 100'000'000);
  const fs::path shipped = fs::path(CLEARFOG_SOURCE_DIR) / "scenarios/chakra/ring8";
  for (int r = 0; r < 8; ++r) {
    const auto name = fmt::format("et.{}.et", r);
    std::ifstream a(dir / name, std::ios::binary), b(shipped / name, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(a)), {}), committed((std::istreambuf_iterator<char>(b)), {});
    INFO(name);
    CHECK(written == committed);
  }
}
