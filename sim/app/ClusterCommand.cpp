// `clearfog cluster`: several training jobs on one machine, simulated together so that their
// traffic shares the fabric; each job's step against the same job alone (docs/cluster.md).
#include <iostream>

#include "app/Command.hpp"
#include "driver/RunWatch.hpp"
#include "cluster/ClusterRun.hpp"

namespace clearfog::app {

Command add_cluster_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string format = "text";
    LimitOptions limits;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("cluster",
                                 "run several jobs on one platform together (a cluster file, kind: cluster) and "
                                 "report each job's slowdown against running alone on the same nodes");
  cmd->add_option("file", o->file, "cluster YAML file (scenarios/cluster/)")->required();
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  o->limits.add_to(cmd);
  return {cmd, [o] {
            cluster::ClusterRunOptions options;
            options.replay.max_memory_B = o->limits.checked_max_memory_B();
            const auto spec = cluster::load_cluster_file(o->file);
            cluster::check_cluster(spec);
            // Progress every 5 s on stderr: the job being planned, the simulation running.
            driver::RunWatch watch(o->limits.timeout_s, 5.0, exit_on_timeout, "cluster");
            options.progress = [&watch](const std::string& what) { watch.phase(what); };
            const auto result = cluster::run_cluster(spec, options);
            if (o->format == "json")
              std::cout << cluster::cluster_json(result).dump(2) << '\n';
            else
              std::cout << cluster::render_cluster_text(result);
            return kExitOk;
          }};
}

}  // namespace clearfog::app
