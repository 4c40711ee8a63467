// `clearfog merge DIR... --out DIR`: join the point files of sweep shards (`--shard i/n`) into one
// directory and one results.csv, identical to what a single unsharded sweep writes.
#include <fmt/format.h>

#include <iostream>

#include "app/Command.hpp"
#include "core/Errors.hpp"
#include "core/OutputPaths.hpp"
#include "sweep/PointRecord.hpp"
#include "sweep/SweepManifest.hpp"

namespace clearfog::app {

Command add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> dirs;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("merge", "join sweep shard directories into one results.csv");
  cmd->add_option("dirs", o->dirs, "sweep output directories (each with points/)")->required();
  cmd->add_option("--out", o->out, "merged output directory")->required();
  return {cmd, [o] {
            std::map<int, sweep::PointRecord> all;
            std::vector<Diagnostic> problems;
            const auto manifest = sweep::same_sweep_manifest(o->dirs);  // throws ConfigError when they differ
            for (const auto& d : o->dirs) {
              auto files = sweep::read_point_files(d);
              for (const auto& damaged : files.damaged)
                problems.push_back({{damaged.file.string(), 0, 0}, "",
                                    fmt::format("damaged point file ({}); run `clearfog sweep --resume` on {} to "
                                                "compute the point again",
                                                damaged.reason, d)});
              for (auto& [id, p] : files.points) {
                const auto [it, added] = all.emplace(id, p);
                if (!added && it->second != p)
                  problems.push_back({{d, 0, 0}, "",
                                      fmt::format("point {} differs between shard directories (was {} in one, {} in "
                                                  "another)",
                                                  id, it->second.value("status", "?"), p.value("status", "?"))});
              }
            }
            if (!problems.empty()) throw ConfigError(std::move(problems));
            prepare_output_directory(std::filesystem::path(o->out) / "points", "--out");
            for (const auto& [id, p] : all) sweep::write_point(o->out, p);
            sweep::write_file_atomically(std::filesystem::path(o->out) / "sweep.json", manifest.dump(2) + "\n");
            sweep::write_file_atomically(std::filesystem::path(o->out) / "results.csv", sweep::results_csv(all));
            std::cout << fmt::format("merged {} points from {} directories into {}\n", all.size(), o->dirs.size(),
                                     (std::filesystem::path(o->out) / "results.csv").string());
            return kExitOk;
          }};
}

}  // namespace clearfog::app
