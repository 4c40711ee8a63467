#pragma once
// A cnn workload described and looked up kernel by kernel, shared by the CNN kernel tests.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "config/ConfigLoader.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/CnnSpec.hpp"

namespace clearfog::test {

inline workload::ModelDescription describe(const config::WorkloadSpec& w, int b, DType dtype = DType::fp16) {
  return workload::workload_type("cnn").describe(
      w, workload::DescribeOptions{b, dtype, 1, false, config::Attention::Unfused, 1, {}, {}, 1});
}

/// A workload file of workloads/.
inline config::WorkloadSpec shipped(const std::string& file) {
  return config::load_workload(std::string(CLEARFOG_SOURCE_DIR) + "/workloads/" + file);
}

inline const workload::Block& block(const workload::ModelDescription& d, const std::string& name) {
  return d.blocks.at(d.block_index(name));
}

/// The kernel named `name` in a block's forward (or backward) pass; fails the test when absent.
inline const kernels::Kernel& kernel(const workload::Block& b, const std::string& name, bool backward = false) {
  for (const auto& k : (backward ? b.backward : b.forward).front().kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name << " in " << b.name);
  throw std::logic_error("unreachable");
}

inline bool has_kernel(const workload::Block& b, const std::string& name, bool backward) {
  for (const auto& k : (backward ? b.backward : b.forward).front().kernels)
    if (k.name == name) return true;
  return false;
}

/// A small residual network on 8x8x3 images: block a (c1, b1, r1), block b (c2, b2, the add of
/// r1, r2), a head (global pool, fc with bias, loss); 4 channels throughout, 10 classes.
inline workload::CnnSpec residual_unit_spec() {
  using workload::CnnLayerKind;
  workload::CnnSpec s;
  s.image = {8, 8, 3};
  s.classes = 10;
  s.layers = {
      {.kind = CnnLayerKind::Conv, .name = "c1", .block = "a", .out = 4, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::BatchNorm, .name = "b1"},
      {.kind = CnnLayerKind::Relu, .name = "r1"},
      {.kind = CnnLayerKind::Conv, .name = "c2", .block = "b", .out = 4, .kernel = 3, .padding = 1},
      {.kind = CnnLayerKind::BatchNorm, .name = "b2"},
      {.kind = CnnLayerKind::Add, .name = "s", .shortcut = "r1"},
      {.kind = CnnLayerKind::Relu, .name = "r2"},
      {.kind = CnnLayerKind::GlobalAvgPool, .name = "p", .block = "head"},
      {.kind = CnnLayerKind::Fc, .name = "f", .out = 10, .bias = true},
      {.kind = CnnLayerKind::Loss, .name = "loss"},
  };
  return s;
}

/// Model FLOPs of every block's forward (or backward) pass.
inline double pass_model_flops(const workload::ModelDescription& d, bool backward) {
  double f = 0;
  for (const auto& b : d.blocks) f += workload::model_flops(backward ? b.backward : b.forward);
  return f;
}

}  // namespace clearfog::test
