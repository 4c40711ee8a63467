#include "slurm/SlurmArray.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/Errors.hpp"
#include "core/Quote.hpp"

namespace clearfog::slurm {
namespace {

/// Characters an #SBATCH line may hold unquoted: sbatch splits those lines at blanks, and '%'
/// starts a file-name pattern of --output.
bool safe_in_sbatch_line(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' ||
           c == ',' || c == ':' || c == '=' || c == '@';
  });
}

}  // namespace

int parse_array_size(const std::string& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (!digits_only || ec != std::errc{} || end != text.data() + text.size() || value < 1)
    throw ConfigError({{{"--slurm", 0, 0}, "",
                        fmt::format("must be the number of array tasks, a whole number >= 1 (more tasks than points "
                                    "are reduced to one per point), got {}",
                                    quote(text))}});
  return value;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SlurmArray::SlurmArray(std::filesystem::path clearfog_binary, std::filesystem::path sweep_file,
                       std::filesystem::path out_dir, std::string sweep_name, int tasks, int jobs, double timeout_s)
    : clearfog_binary_(std::move(clearfog_binary)),
      sweep_file_(std::move(sweep_file)),
      out_dir_(std::move(out_dir)),
      sweep_name_(std::move(sweep_name)),
      tasks_(tasks),
      jobs_(jobs),
      timeout_s_(timeout_s) {
  for (const auto* p : {&clearfog_binary_, &sweep_file_, &out_dir_})
    if (!p->is_absolute())
      throw Error(fmt::format("SlurmArray: path {} must be absolute", quote(p->string(), kMaxQuotedPath)));
  if (tasks_ < 1) throw Error(fmt::format("SlurmArray: tasks must be >= 1, got {}", tasks_));
  if (jobs_ < 1) throw Error(fmt::format("SlurmArray: jobs must be >= 1, got {}", jobs_));
  if (!(timeout_s_ >= 0)) throw Error(fmt::format("SlurmArray: timeout_s must be >= 0, got {}", timeout_s_));
}

std::filesystem::path SlurmArray::shard_dir(int task) const { return out_dir_ / fmt::format("shard-{}", task); }

std::string SlurmArray::job_name() const {
  std::string name = "clearfog-" + sweep_name_.substr(0, 64);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return name;
}

std::string SlurmArray::sbatch_output_line(const std::string& pattern) const {
  const auto file = (log_dir() / pattern).string();
  // Slurm's default is slurm-%A_%a.out in the submission directory: good enough when DIR cannot be
  // written on an #SBATCH line.
  if (!safe_in_sbatch_line(log_dir().string()))
    return "# (no --output: the output directory's path has characters an #SBATCH line cannot hold)\n";
  return fmt::format("#SBATCH --output={}\n", file);
}

std::string SlurmArray::job_script() const {
  const std::string timeout = timeout_s_ > 0 ? fmt::format(" --timeout {}", timeout_s_) : "";
  return fmt::format(
      "#!/bin/bash\n"
      "# Sweep {name} as a Slurm job array of {n} tasks: task i runs the points with id % {n} == i into\n"
      "# {shards}. Written by `clearfog sweep --slurm`; submit the array and the merge with\n"
      "#   {submit}\n"
      "# Resumable: a task keeps the points its shard directory already holds and runs the others, so\n"
      "# the array, or some of its tasks (sbatch --array=3,7 THIS_FILE), can be submitted again.\n"
      "# Options given to sbatch on its command line (--partition, --time) override the lines below.\n"
      "#SBATCH --job-name={job}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --cpus-per-task={jobs}\n"
      "{output}"
      "set -euo pipefail\n"
      ": \"${{SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is one task of a job array}}\"\n"
      "exec {bin} sweep {file} --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --resume --jobs {jobs}{timeout} \\\n"
      "    --out {dir}/shard-\"$SLURM_ARRAY_TASK_ID\"\n",
      fmt::arg("name", quote(sweep_name_)), fmt::arg("n", tasks_),
      fmt::arg("shards", (out_dir_ / "shard-i").string()), fmt::arg("submit", submit_command()),
      fmt::arg("job", job_name()), fmt::arg("last", tasks_ - 1), fmt::arg("jobs", jobs_),
      fmt::arg("output", sbatch_output_line("shard-%a.out")), fmt::arg("bin", shell_quote(clearfog_binary_.string())),
      fmt::arg("file", shell_quote(sweep_file_.string())), fmt::arg("timeout", timeout),
      fmt::arg("dir", shell_quote(out_dir_.string())));
}

std::string SlurmArray::merge_script() const {
  return fmt::format(
      "#!/bin/bash\n"
      "# Joins the {n} shards of the Slurm array of sweep {name} into {dir_text}: results.csv and\n"
      "# points/, as a local sweep writes them. Submit it to run after the array\n"
      "# (sbatch --dependency=afterok:JOBID THIS_FILE) or run it with bash once every task has ended.\n"
      "#SBATCH --job-name={job}-merge\n"
      "#SBATCH --cpus-per-task=1\n"
      "{output}"
      "set -euo pipefail\n"
      "shards=()\n"
      "for ((i = 0; i < {n}; i++)); do shards+=({dir}/shard-\"$i\"); done\n"
      "exec {bin} merge \"${{shards[@]}}\" --out {dir}\n",
      fmt::arg("n", tasks_), fmt::arg("name", quote(sweep_name_)), fmt::arg("dir_text", out_dir_.string()),
      fmt::arg("job", job_name()), fmt::arg("output", sbatch_output_line("merge.out")),
      fmt::arg("dir", shell_quote(out_dir_.string())), fmt::arg("bin", shell_quote(clearfog_binary_.string())));
}

std::string SlurmArray::submit_command() const {
  // --parsable prints "JOBID" or "JOBID;CLUSTER"; afterok on an array waits for all of its tasks.
  return fmt::format("jobid=$(sbatch --parsable {}) && sbatch --dependency=afterok:\"${{jobid%%;*}}\" {}",
                     shell_quote(job_script_path().string()), shell_quote(merge_script_path().string()));
}

}  // namespace clearfog::slurm
