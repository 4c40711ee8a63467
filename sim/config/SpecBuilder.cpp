#include "config/NodeTopologySchema.hpp"
#include "config/SpecBuilder.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "config/AcceleratorCalibration.hpp"
#include "config/FrameworkRegistry.hpp"
#include "config/KeyReferences.hpp"
#include "config/RoutingTrace.hpp"
#include "config/WorkloadTypeSchema.hpp"

namespace clearfog::config {

namespace {

const ConfigDocument& child_of(const ConfigDocument& document, std::string_view key) {
  if (const ConfigDocument* child = document.child(key)) return *child;
  throw std::out_of_range("configuration document \"" + document.display_key(key) + "\" is absent");
}

template <typename Enum, typename Parse>
Enum enum_value(const ConfigDocument& document, std::string_view key, Parse parse) {
  if (const auto e = parse(document.get_string(key))) return *e;
  // The key table lists the same names as the parse function, so the reader has already rejected
  // anything else.
  throw std::logic_error("configuration value \"" + document.display_key(key) + "\" has no enum value");
}

}  // namespace

/// The tiles of `gemm.tiles`; check_accelerator() has refused malformed ones.
static std::vector<TileShape> gemm_tiles_of(const ConfigDocument& document) {
  std::vector<TileShape> tiles;
  for (const ConfigValue& element : document.at("gemm.tiles").as_list()) {
    const auto tile = parse_tile_shape(element.as_string());
    if (!tile) throw std::logic_error("configuration value \"" + element.key + "\" was not checked");
    tiles.push_back(*tile);
  }
  return tiles;
}

AcceleratorSpec build_accelerator(const ConfigDocument& document) {
  AcceleratorSpec spec;
  spec.name = document.get_string("name");
  spec.source = document.get_string("source");
  spec.compute_units = document.get_int("compute_units");
  spec.clock_Hz = document.get_number("clock");
  for (DType d : kAllDTypes)
    if (const ConfigValue* peak = document.find("peak." + std::string(dtype_name(d))))
      spec.peak_flops[d] = peak->as_number();
  spec.memory_capacity_B = document.get_number("memory.capacity");
  spec.memory_bandwidth_Bps = document.get_number("memory.bandwidth");
  spec.memory_efficiency = document.get_number("memory.efficiency");
  const ConfigValue* in_place = document.find("memory.in_place_efficiency");
  spec.in_place_efficiency = in_place && !in_place->is_derived() ? in_place->as_number() : spec.memory_efficiency;
  const ConfigValue* random = document.find("memory.random_access_efficiency");
  spec.random_access_efficiency = random && !random->is_derived() ? random->as_number() : spec.memory_efficiency;
  spec.access_granularity_B = document.get_number("memory.access_granularity");
  spec.sram_per_unit_B = document.get_number("sram.per_unit");
  spec.sram_shared_B = document.get_number("sram.shared");
  spec.sram_shared_bandwidth_Bps = document.get_number("sram.shared_bandwidth");
  if (const ConfigValue* int4 = document.find("peak.int4")) spec.int4_peak_ops = int4->as_number();
  spec.gemm_tiles = gemm_tiles_of(document);
  spec.gemm_efficiency = document.get_number("gemm.efficiency");
  for (DType d : kAllDTypes)
    if (const ConfigValue* e = document.find("gemm.dtype_efficiency." + std::string(dtype_name(d))))
      spec.gemm_dtype_efficiency[d] = e->as_number();
  for (const std::string& key : calibratable_accelerator_keys()) {
    const ConfigValue* value = document.find(key);
    if (value && !value->is_default() && !value->is_derived()) spec.given_efficiencies.push_back(key);
    if (const ConfigValue* source = document.find("calibrated." + key)) spec.calibrated[key] = source->as_string();
  }
  spec.launch_overhead_s = document.get_number("kernel.launch_overhead");
  spec.gemm_fixed_s = document.get_number("gemm.fixed_overhead");
  for (const auto& info : kAttentionKernels) {
    const ConfigValue* forward = document.find(attention_share_key(info.kernel, false));
    const ConfigValue* backward = document.find(attention_share_key(info.kernel, true));
    if (!forward && !backward) continue;
    AttentionShares& shares = spec.attention_shares[info.kernel];
    if (forward) shares.forward = forward->as_number();
    if (backward) shares.backward = backward->as_number();
  }
  spec.simd_width_bits = document.get_int("simd.width");
  if (const ConfigValue* peak = document.find("power.peak")) spec.power_W = peak->as_number();
  if (const ConfigValue* idle = document.find("power.idle")) spec.idle_power_W = idle->as_number();
  return spec;
}

namespace {

/// A link from "<prefix>.bandwidth" and "<prefix>.latency", or zero when the keys are not there
/// (not used by this topology).
LinkSpec link_of(const ConfigDocument& document, const std::string& prefix) {
  LinkSpec link;
  if (const ConfigValue* bandwidth = document.find(prefix + ".bandwidth")) link.bandwidth_Bps = bandwidth->as_number();
  if (const ConfigValue* latency = document.find(prefix + ".latency")) link.latency_s = latency->as_number();
  return link;
}

NodeSpec build_node(const ConfigDocument& document) {
  NodeSpec node;
  node.devices = document.get_int("node.devices");
  node.topology = enum_value<NodeTopology>(document, "node.topology", parse_node_topology);
  node.link = link_of(document, "node.link");
  // Keys of other topologies are rejected by the semantic checks; defaulted ones keep their default.
  node.in_switch_reduction = document.get_bool("node.in_switch_reduction");
  node.params = node.topology.schema().read(document);
  return node;
}

/// An integer list, or `fallback` when the key is derived (not given).
std::vector<int> int_list_or(const ConfigDocument& document, std::string_view key, std::vector<int> fallback) {
  return document.at(key).is_derived() ? fallback : document.get_int_list(key);
}

FabricSpec build_fabric(const ConfigDocument& document) {
  FabricSpec fabric;
  fabric.nodes = document.get_int("fabric.nodes");
  if (fabric.nodes == 1) return fabric;  // no fabric: every other key is unused
  fabric.topology = enum_value<FabricTopology>(document, "fabric.topology", parse_fabric_topology);
  fabric.nic_count = document.get_int("fabric.nic.count");
  fabric.nic = link_of(document, "fabric.nic");
  fabric.rail_optimized = document.get_bool("fabric.rail_optimized");
  if (const ConfigValue* degraded = document.find("fabric.degraded_nics"))
    for (const ConfigValue& d : degraded->as_list())
      fabric.degraded_nics.push_back({static_cast<int>(d.field("node")->as_integer()),
                                      static_cast<int>(d.field("nic")->as_integer()), d.field("slowdown")->numeric()});
  // Derived: switch-to-switch links as fast as a NIC.
  const ConfigValue& bandwidth = document.at("fabric.link.bandwidth");
  const ConfigValue& latency = document.at("fabric.link.latency");
  // Derived: the node's link into the fabric carries all its NICs (rail planes folded).
  fabric.link.bandwidth_Bps =
      bandwidth.is_derived() ? fabric.nic_count * fabric.nic.bandwidth_Bps : bandwidth.as_number();
  fabric.link.latency_s = latency.is_derived() ? fabric.nic.latency_s : latency.as_number();
  switch (fabric.topology) {
    case FabricTopology::FatTree: {
      // Derived: the shape from the node count alone (derived_fat_tree); given levels without up or
      // parallel: one parent and one link per level.
      const auto shape = derived_fat_tree(fabric.nodes, document.get_int("fabric.fat_tree.leaf_nodes"));
      const bool given = !document.at("fabric.fat_tree.down").is_derived();
      fabric.fat_tree_down = given ? document.get_int_list("fabric.fat_tree.down") : shape.down;
      const std::vector<int> ones(fabric.fat_tree_down.size(), 1);
      fabric.fat_tree_up = int_list_or(document, "fabric.fat_tree.up", given ? ones : shape.up);
      fabric.fat_tree_parallel = int_list_or(document, "fabric.fat_tree.parallel", given ? ones : shape.parallel);
      break;
    }
    case FabricTopology::Torus: fabric.torus_dims = document.get_int_list("fabric.torus.dims"); break;
    case FabricTopology::Dragonfly:
      fabric.dragonfly = {document.get_int("fabric.dragonfly.groups"),
                          document.get_int("fabric.dragonfly.group_links"),
                          document.get_int("fabric.dragonfly.chassis"),
                          document.get_int("fabric.dragonfly.chassis_links"),
                          document.get_int("fabric.dragonfly.routers"),
                          document.get_int("fabric.dragonfly.router_links"),
                          document.get_int("fabric.dragonfly.nodes_per_router")};
      break;
  }
  fabric.in_network_reduction = document.get_bool("fabric.in_network_reduction");
  return fabric;
}

/// A protocol's figures under `prefix`, or none when its efficiency is not given.
ProtocolCost protocol_cost(const ConfigDocument& document, const std::string& prefix) {
  const ConfigValue* efficiency = document.find(prefix + ".efficiency");
  if (!efficiency) return {};
  const ConfigValue* copy = document.find(prefix + ".copy_efficiency");
  return {efficiency->as_number(), document.get_number(prefix + ".step_overhead"), copy ? copy->as_number() : 0.0};
}

CollectiveCalibration build_collectives(const ConfigDocument& document) {
  CollectiveCalibration c;
  const ConfigValue* copy = document.find("collectives.copy_efficiency");
  c.simple = {document.get_number("collectives.efficiency"), document.get_number("collectives.step_overhead"),
              copy ? copy->as_number() : 0.0};
  c.ll = protocol_cost(document, "collectives.low_latency");
  c.ll128 = protocol_cost(document, "collectives.ll128");
  c.intra_simple = protocol_cost(document, "collectives.intra_node");
  c.intra_ll = protocol_cost(document, "collectives.intra_node.low_latency");
  c.intra_ll128 = protocol_cost(document, "collectives.intra_node.ll128");
  c.in_switch_efficiency = document.get_number("collectives.in_switch.efficiency");
  c.in_switch_latency_s = document.get_number("collectives.in_switch.latency");
  c.chunk_B = document.get_number("collectives.chunk");
  c.arch = enum_value<GpuArch>(document, "collectives.nccl.arch", parse_gpu_arch);
  c.source = document.get_string("collectives.source");
  c.calibrated = !document.at("collectives.efficiency").is_default();
  c.interference_units = document.get_int("collectives.interference.units");
  c.interference_memory_share = document.get_number("collectives.interference.memory_share");
  return c;
}

}  // namespace

PlatformSpec build_platform(const ConfigDocument& document) {
  PlatformSpec spec;
  spec.name = expand_key_references(document, "name");  // counts cited by key, as resolved
  spec.source = document.get_string("source");
  if (const ConfigValue* framework = document.find("framework")) spec.framework = framework->as_string();
  spec.accelerator = build_accelerator(child_of(document, "accelerator"));
  spec.node = build_node(document);
  spec.fabric = build_fabric(document);
  spec.collectives = build_collectives(document);
  if (const ConfigDocument* mixed = document.child("mixed.accelerator")) {
    MixedNodes m;
    m.accelerator = build_accelerator(*mixed);
    if (const ConfigValue* nodes = document.find("mixed.nodes"))
      for (const ConfigValue& n : nodes->as_list()) m.nodes.push_back(static_cast<int>(n.as_integer()));
    spec.mixed = std::move(m);
  }
  return spec;
}

WorkloadSpec build_workload(const ConfigDocument& document) {
  WorkloadSpec spec;
  spec.name = document.get_string("name");
  spec.source = document.get_string("source");
  spec.type = document.get_string("type");
  const WorkloadTypeSchema* type = find_workload_type_schema(spec.type);
  // The reader has checked `type` against the same registry.
  if (!type) throw std::logic_error("workload type \"" + spec.type + "\" is not registered");
  spec.params = type->build(document);
  return spec;
}

namespace {

StragglerSpec build_stragglers(const ConfigDocument& document) {
  StragglerSpec out;
  if (const ConfigValue* devices = document.find("stragglers.devices"))
    for (const ConfigValue& d : devices->as_list())
      out.devices.push_back({static_cast<int>(d.field("device")->as_integer()), d.field("slowdown")->numeric()});
  out.sigma = document.get_number("stragglers.sigma");
  out.seed = static_cast<std::uint64_t>(document.get_int("stragglers.seed"));
  return out;
}

MoeSpec build_moe(const ConfigDocument& document, const std::string& file) {
  MoeSpec moe;
  moe.routing = enum_value<Routing>(document, "moe.routing", parse_routing);
  moe.zipf_exponent = document.get_number("moe.zipf_exponent");
  moe.seed = static_cast<std::uint64_t>(document.at("moe.seed").as_integer());
  if (const ConfigValue* trace = document.find("moe.trace"); trace && moe.routing == Routing::Trace) {
    std::vector<Diagnostic> problems;
    moe.trace_file = trace->as_string();
    moe.trace = read_routing_trace(*trace, file, problems);
    if (!problems.empty()) throw ConfigError(std::move(problems));  // the checks reported these already
  }
  if (const ConfigValue& d = document.at("moe.dispatch_precision"); !d.is_derived())
    moe.dispatch_precision = parse_dtype(d.as_string());
  moe.dispatcher = enum_value<Dispatcher>(document, "moe.dispatcher", parse_dispatcher);
  return moe;
}

/// The scenario's `framework`, else its platform's, else the default profile.
std::string scenario_framework(const ConfigDocument& document, const PlatformSpec& platform) {
  if (!document.at("framework").is_derived()) return document.get_string("framework");
  return platform.framework.empty() ? std::string(kDefaultFramework) : platform.framework;
}

}  // namespace

namespace {

/// The scenario keys that replace a field of the framework profile where the scenario gives them.
void override_profile(const ConfigDocument& document, FrameworkProfile& profile) {
  const auto flag = [&](const char* key, bool& field) {
    if (!document.at(key).is_derived()) field = document.get_bool(key);
  };
  const auto number = [&](const char* key, double& field) {
    if (!document.at(key).is_derived()) field = document.get_number(key);
  };
  flag("training.pointwise_fusion", profile.fusions.pointwise);
  flag("training.projection_fusion", profile.fusions.projections);
  flag("training.master_copies", profile.optimizer.master_copies);
  number("training.host_forward_launch", profile.host.forward_launch_s);
  number("training.host_backward_launch", profile.host.backward_launch_s);
  flag("training.cuda_graphs", profile.host.cuda_graphs);
  flag("training.overlap_param_gather", profile.overlap_param_gather);
  if (const ConfigValue& d = document.at("training.grad_reduce_dtype"); !d.is_derived())
    profile.gradient_reduce_dtype = parse_dtype(d.as_string());
}

}  // namespace

ScenarioSpec build_scenario(const ConfigDocument& document, std::string file) {
  ScenarioSpec spec;
  spec.name = document.get_string("name");
  spec.file = std::move(file);
  spec.platform = build_platform(child_of(document, "platform"));
  spec.workload = build_workload(child_of(document, "workload"));
  spec.training.global_batch = document.get_int("training.global_batch");
  spec.training.micro_batch = document.get_int("training.micro_batch");
  spec.training.precision = enum_value<DType>(document, "training.precision", parse_dtype);
  spec.training.optimizer = enum_value<Optimizer>(document, "training.optimizer", parse_optimizer);
  spec.training.bucket_size_B = document.get_number("training.bucket_size");
  spec.framework = framework_profile(scenario_framework(document, spec.platform));
  const bool zero3 = document.get_int("parallelism.zero_stage") >= 3;
  const DdpFlavour profile_ddp = zero3 ? spec.framework.ddp_zero3.value_or(spec.framework.ddp) : spec.framework.ddp;
  spec.training.overlap_grad_reduce = document.at("training.overlap_grad_reduce").is_derived()
                                          ? profile_ddp == DdpFlavour::Torch
                                          : document.get_bool("training.overlap_grad_reduce");
  spec.training.grad_accumulation_fusion = document.at("training.grad_accumulation_fusion").is_derived()
                                               ? spec.framework.grad_accumulation_fusion
                                               : document.get_bool("training.grad_accumulation_fusion");
  spec.parallelism.dp = document.get_int("parallelism.dp");
  spec.parallelism.tp = document.get_int("parallelism.tp");
  spec.parallelism.pp = document.get_int("parallelism.pp");
  spec.parallelism.shard_group = document.at("parallelism.shard_group").is_derived()
                                     ? 0
                                     : document.get_int("parallelism.shard_group");
  spec.training.recompute = enum_value<Recompute>(document, "training.recompute", parse_recompute);
  spec.training.grad_compression.method = document.get_string("training.grad_compression.method");
  spec.training.grad_compression.rank = document.get_int("training.grad_compression.rank");
  spec.training.grad_compression.ratio = document.get_number("training.grad_compression.ratio");
  spec.training.grad_compression.error_feedback = document.get_bool("training.grad_compression.error_feedback");
  spec.training.grad_compression.bits = document.get_int("training.grad_compression.bits");
  spec.training.attention = document.at("training.attention").is_derived()
                               ? (spec.framework.fusions.attention ? Attention::Fused : Attention::Unfused)
                               : enum_value<Attention>(document, "training.attention", parse_attention);
  spec.training.attention_kernel =
      document.at("training.attention_kernel").is_derived()
          ? spec.framework.fusions.attention_kernel
          : enum_value<AttentionKernel>(document, "training.attention_kernel", parse_attention_kernel);
  spec.training.batchnorm_relu_fusion = document.at("training.batchnorm_relu_fusion").is_derived()
                                            ? spec.framework.fusions.batchnorm_relu
                                            : document.get_bool("training.batchnorm_relu_fusion");
  override_profile(document, spec.framework);
  // The scenario's keys win: the profile the planner reads says what runs.
  spec.framework.ddp = spec.training.overlap_grad_reduce ? DdpFlavour::Torch : DdpFlavour::Local;
  spec.framework.grad_accumulation_fusion = spec.training.grad_accumulation_fusion;
  spec.framework.fusions.attention = spec.training.attention == Attention::Fused;
  spec.framework.fusions.attention_kernel = spec.training.attention_kernel;
  spec.framework.fusions.batchnorm_relu = spec.training.batchnorm_relu_fusion;
  spec.parallelism.sequence_parallel = document.get_bool("parallelism.sequence_parallel");
  spec.parallelism.virtual_stages = document.get_int("parallelism.virtual_stages");
  spec.parallelism.schedule = document.get_string("parallelism.schedule");
  if (document.find("parallelism.layer_split")) spec.parallelism.layer_split = document.get_int_list("parallelism.layer_split");
  spec.parallelism.partition =
      enum_value<StagePartitionChoice>(document, "parallelism.partition", parse_stage_partition_choice);
  spec.parallelism.scatter_gather = document.get_bool("parallelism.scatter_gather");
  spec.parallelism.ep = document.get_int("parallelism.ep");
  spec.moe = build_moe(document, spec.file);
  spec.parallelism.zero_stage = document.get_int("parallelism.zero_stage");
  const auto order = document.get_string_list("parallelism.order");
  for (std::size_t i = 0; i < order.size() && i < spec.parallelism.order.size(); ++i)
    if (const auto axis = parse_parallel_axis(order[i])) spec.parallelism.order[i] = *axis;
  spec.collectives.algorithm =
      enum_value<CollectiveAlgorithm>(document, "collectives.algorithm", parse_collective_algorithm);
  const auto fidelity = enum_value<FidelityChoice>(document, "collectives.fidelity", parse_fidelity_choice);
  spec.collectives.fidelity = resolve_fidelity(fidelity, spec.platform.device_count());
  spec.collectives.fidelity_auto = fidelity == FidelityChoice::Auto;
  spec.granularity = enum_value<Granularity>(document, "simulation.granularity", parse_granularity);
  spec.stragglers = build_stragglers(document);
  return spec;
}

}  // namespace clearfog::config
