#include "config/FrameworkRegistry.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"

namespace clearfog::config {

const std::vector<FrameworkProfile>& framework_profiles() {
  static const std::vector<FrameworkProfile> profiles = {
      frameworks::megatron_2022(),       // the default
      frameworks::megatron_2021(),
      frameworks::megatron_core_2024(),
      frameworks::pytorch_fsdp(),
      frameworks::torchtitan(),
      frameworks::deepspeed(),
      frameworks::xla_fused(),
      frameworks::mxnet(),
  };
  return profiles;
}

std::vector<std::string> framework_names() {
  std::vector<std::string> names;
  for (const auto& p : framework_profiles()) names.push_back(p.name);
  return names;
}

const FrameworkProfile& framework_profile(std::string_view name) {
  for (const auto& p : framework_profiles())
    if (p.name == name) return p;
  throw Error(fmt::format("unknown framework profile \"{}\"; known: {}", name, fmt::join(framework_names(), ", ")));
}

}  // namespace clearfog::config
