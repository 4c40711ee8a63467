#include "config/SpecBuilder.hpp"

#include <stdexcept>
#include <string>

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
  spec.sram_per_unit_B = document.get_number("sram.per_unit");
  spec.sram_shared_B = document.get_number("sram.shared");
  if (const ConfigValue* power = document.find("power")) spec.power_W = power->as_number();
  return spec;
}

PlatformSpec build_platform(const ConfigDocument& document) {
  PlatformSpec spec;
  spec.name = document.get_string("name");
  spec.source = document.get_string("source");
  spec.accelerator = build_accelerator(child_of(document, "accelerator"));
  spec.fabric.nodes = 1;  // the fabric section is rejected by the semantic checks
  spec.node.devices = document.get_int("node.devices");
  spec.node.topology = enum_value<NodeTopology>(document, "node.topology", parse_node_topology);
  spec.node.link.bandwidth_Bps = document.get_number("node.link.bandwidth");
  spec.node.link.latency_s = document.get_number("node.link.latency");
  return spec;
}

WorkloadSpec build_workload(const ConfigDocument& document) {
  WorkloadSpec spec;
  spec.name = document.get_string("name");
  spec.source = document.get_string("source");
  spec.layers = document.get_int("layers");
  spec.hidden = document.get_int("hidden");
  spec.heads = document.get_int("heads");
  const ConfigValue& ffn = document.at("ffn_hidden");
  spec.ffn_hidden = ffn.is_derived() ? 4 * spec.hidden : static_cast<int>(ffn.as_integer());
  spec.seq_length = document.get_int("seq_length");
  spec.vocab_size = document.get_int("vocab_size");
  return spec;
}

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
  spec.parallelism.dp = document.get_int("parallelism.dp");
  spec.parallelism.tp = document.get_int("parallelism.tp");
  spec.parallelism.pp = document.get_int("parallelism.pp");
  return spec;
}

}  // namespace clearfog::config
