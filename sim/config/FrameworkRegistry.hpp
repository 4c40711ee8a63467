#pragma once
// The framework profiles clearfog knows, one file each under config/frameworks/ and one line each
// in FrameworkRegistry.cpp. docs/frameworks.md describes them.
#include <string>
#include <string_view>
#include <vector>

#include "config/FrameworkProfile.hpp"

namespace clearfog::config {

/// The profile scenarios get without a `framework:` key: clearfog's behaviour before profiles.
inline constexpr std::string_view kDefaultFramework = "megatron-2022";

/// Every registered profile, in registry order.
const std::vector<FrameworkProfile>& framework_profiles();

/// Their names, for the scenario key's choices.
std::vector<std::string> framework_names();

/// The profile called `name`; throws clearfog::Error naming the known ones if there is none.
const FrameworkProfile& framework_profile(std::string_view name);

namespace frameworks {
// One function per file of config/frameworks/.
FrameworkProfile megatron_2021();
FrameworkProfile megatron_2022();
FrameworkProfile megatron_core_2024();
FrameworkProfile pytorch_fsdp();
FrameworkProfile torchtitan();
FrameworkProfile deepspeed();
FrameworkProfile xla_fused();
FrameworkProfile mxnet();
/// The host cost of PyTorch eager mode (PytorchEagerHost.cpp), for the profiles that run it.
HostIssue pytorch_eager_host();
}  // namespace frameworks

}  // namespace clearfog::config
