// The registry of fused attention kernels (core/AttentionKernel.hpp): names round-trip, and each
// kernel is a value of training.attention_kernel and has its two accelerator keys, so that adding
// one is one line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "config/AcceleratorCalibration.hpp"
#include "config/AcceleratorSpec.hpp"
#include "config/KeyTable.hpp"
#include "core/AttentionKernel.hpp"

using namespace clearfog;

TEST_CASE("core::AttentionKernel: every kernel has a unique name that parses back", "[core]") {
  std::set<std::string> names;
  for (const auto& info : kAttentionKernels) {
    INFO(info.name);
    CHECK(names.insert(std::string(info.name)).second);
    CHECK(parse_attention_kernel(info.name) == info.kernel);
    CHECK(attention_kernel_name(info.kernel) == info.name);
    CHECK_FALSE(info.description.empty());
  }
  CHECK_FALSE(parse_attention_kernel("flash").has_value());  // PyTorch's backend name is not a kernel's
}

TEST_CASE("core::AttentionKernel: each kernel is a scenario choice with its accelerator shares", "[core]") {
  const auto& scenario = config::KeyTable::of(config::DocumentKind::Scenario);
  const auto& accelerator = config::KeyTable::of(config::DocumentKind::Accelerator);
  const auto* key = scenario.find("training.attention_kernel");
  REQUIRE(key != nullptr);
  const auto& keys = config::calibratable_accelerator_keys();
  for (const auto& info : kAttentionKernels) {
    INFO(info.name);
    CHECK(std::count(key->choices.begin(), key->choices.end(), std::string(info.name)) == 1);
    for (const bool backward : {false, true}) {
      const std::string share = config::attention_share_key(info.kernel, backward);
      CHECK(accelerator.find(share) != nullptr);
      CHECK(std::count(keys.begin(), keys.end(), share) == 1);  // calibrate can fit it and a file can cite it
    }
  }
  // A part that names no share for a kernel prices it at the conservative default.
  CHECK(config::AcceleratorSpec{}.attention_share(AttentionKernel::Flash3, true) == config::kDefaultAttentionShare);
}
