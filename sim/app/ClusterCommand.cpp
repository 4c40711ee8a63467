// `clearfog cluster`: several training jobs on one machine, simulated together so that their
// traffic shares the fabric; each job's step against the same job alone (docs/cluster.md).
#include <iostream>

#include "app/Command.hpp"
#include "sweep/ClusterRun.hpp"

namespace clearfog::app {

Command add_cluster_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string format = "text";
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("cluster",
                                 "run several jobs on one platform together (a cluster file, kind: cluster) and "
                                 "report each job's slowdown against running alone on the same nodes");
  cmd->add_option("file", o->file, "cluster YAML file (scenarios/cluster/)")->required();
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] {
            const auto spec = sweep::load_cluster_file(o->file);
            sweep::check_cluster(spec);
            const auto result = sweep::run_cluster(spec);
            if (o->format == "json")
              std::cout << sweep::cluster_json(result).dump(2) << '\n';
            else
              std::cout << sweep::render_cluster_text(result);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
