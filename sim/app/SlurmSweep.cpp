#include "app/SlurmSweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "app/Command.hpp"
#include "core/OutputPaths.hpp"
#include "sweep/PointRecord.hpp"
#include "slurm/SlurmArray.hpp"

namespace clearfog::app {
namespace {

namespace fs = std::filesystem;

/// This very binary, so that the tasks run the clearfog that wrote the script.
fs::path own_binary() { return fs::read_symlink("/proc/self/exe"); }

void write_script(const fs::path& file, const std::string& text) {
  sweep::write_file_atomically(file, text);
  fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
}

}  // namespace

int write_slurm_sweep(const sweep::SweepSpec& spec, const SlurmSweepRequest& request) {
  const int asked = slurm::parse_array_size(request.array_size);
  const int points = static_cast<int>(std::max<std::size_t>(1, spec.point_count()));
  // A task without points would only queue: one task per point at most.
  const int tasks = std::min(asked, points);
  if (tasks < asked)
    std::cerr << fmt::format("note: --slurm {}: the sweep has {} points, so the array has {} tasks\n", asked, points,
                             tasks);
  if (tasks > slurm::kSlurmDefaultMaxArraySize)
    std::cerr << fmt::format("note: {} tasks exceed Slurm's default MaxArraySize ({}); sbatch refuses the array "
                             "unless the cluster allows more\n",
                             tasks, slurm::kSlurmDefaultMaxArraySize);

  auto out = fs::absolute(request.out).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();  // "runs/x/"
  const slurm::SlurmArray array(own_binary(), fs::absolute(spec.file).lexically_normal(), out, spec.name, tasks,
                                request.jobs, request.timeout_s);
  prepare_output_directory(array.log_dir(), "--out");  // Slurm does not create the log directory
  write_script(array.job_script_path(), array.job_script());
  write_script(array.merge_script_path(), array.merge_script());
  std::cout << fmt::format("sweep {}: {} points in a Slurm array of {} tasks\nwrote {}\nwrote {}\nsubmit with:\n{}\n",
                           spec.name, spec.point_count(), tasks, array.job_script_path().string(),
                           array.merge_script_path().string(), array.submit_command());
  return kExitOk;
}

}  // namespace clearfog::app
