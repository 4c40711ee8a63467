// `clearfog platform info P.yaml`: what the topology offers before anything runs — device count,
// injection and bisection bandwidth, diameter, the ring order collectives use, a sketch of a node.
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "topology/ClusterTopology.hpp"
#include "topology/PlatformInfo.hpp"

namespace clearfog::app {

Command add_platform_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string format = "text";
  };
  auto o = std::make_shared<Options>();
  auto* platform = app.add_subcommand("platform", "inspect a platform file");
  platform->require_subcommand(1);
  auto* info = platform->add_subcommand("info", "device count, injection and bisection bandwidth, diameter, ring order and channels' rings, sketch");
  info->add_option("platform", o->file, "platform YAML file")->required();
  info->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {platform, [o] {
            const auto spec = config::load_platform(o->file);
            const auto cluster = topology::ClusterTopology::build(spec);
            const auto result = topology::analyse_platform(cluster);
            if (o->format == "json") {
              nlohmann::ordered_json j = {{"platform", spec.name},
                                          {"devices", result.devices},
                                          {"nodes", result.nodes},
                                          {"injection_bandwidth_Bps", result.injection_bandwidth_Bps},
                                          {"nic_bandwidth_per_device_Bps", result.nic_bandwidth_per_device_Bps},
                                          {"bisection_bandwidth_Bps", result.bisection_bandwidth_Bps},
                                          {"bisection_method", result.bisection_method},
                                          {"diameter_hops", result.diameter_hops},
                                          {"ring_order", result.ring_order},
                                          {"node_rings", result.node_rings},
                                          {"node_ring_Bps", result.node_ring_Bps}};
              std::cout << j.dump(2) << '\n';
            } else {
              std::cout << topology::render_platform_info(result, spec);
            }
            return kExitOk;
          }};
}

}  // namespace clearfog::app
