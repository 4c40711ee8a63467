#pragma once
// Platforms and scenarios built in code for tests that must not depend on shipped YAML files.
#include "config/ScenarioSpec.hpp"
#include "workload/types/TransformerType.hpp"

namespace clearfog::test {

/// An accelerator with round figures so that expected values are easy to derive by hand.
inline config::AcceleratorSpec ideal_accelerator() {
  config::AcceleratorSpec a;
  a.name = "test accelerator";
  a.compute_units = 100;
  a.clock_Hz = 1e9;
  a.peak_flops = {{DType::fp32, 25e12}, {DType::bf16, 100e12}, {DType::fp16, 100e12}};
  a.memory_capacity_B = 80e9;
  a.memory_bandwidth_Bps = 2e12;
  a.sram_per_unit_B = 192e3;
  a.sram_shared_B = 40e6;
  a.power_W = 400;
  return a;
}

/// `devices` devices on a non-blocking switch, `bandwidth_Bps` per direction, `latency_s` per link.
inline config::PlatformSpec switch_platform(int devices, double bandwidth_Bps, double latency_s) {
  config::PlatformSpec p;
  p.name = "test switch";
  p.accelerator = ideal_accelerator();
  p.node.devices = devices;
  p.node.topology = config::NodeTopology();  // the first kind registered: switch
  p.node.link = {bandwidth_Bps, latency_s};
  return p;
}

/// A small GPT (4 layers, hidden 512, 8 heads, sequence 256, vocabulary 1024).
inline workload::TransformerSpec small_gpt_spec() {
  workload::TransformerSpec w;
  w.layers = 4;
  w.hidden = 512;
  w.heads = 8;
  w.ffn_hidden = 4 * 512;
  w.seq_length = 256;
  w.vocab_size = 1024;
  return w;
}
inline config::WorkloadSpec small_gpt() { return workload::make_transformer_workload("small gpt", small_gpt_spec()); }

/// The transformer parameters of a workload (tests read and change them).
inline const workload::TransformerSpec& transformer(const config::WorkloadSpec& w) {
  return w.as<workload::TransformerSpec>();
}
/// `w` with its transformer parameters changed by `change`.
template <typename Change>
config::WorkloadSpec with_transformer(const config::WorkloadSpec& w, Change change) {
  auto spec = transformer(w);
  change(spec);
  auto out = workload::make_transformer_workload(w.name, spec);
  out.source = w.source;
  return out;
}

}  // namespace clearfog::test
