#pragma once
// A sweep laid out as a Slurm job array (`clearfog sweep FILE --slurm N --out DIR`): task i of the
// array runs `clearfog sweep FILE --shard i/N --resume --out DIR/shard-i`, and a merge step joins the
// shards into DIR (`clearfog merge`), so that DIR/results.csv is the one a local sweep writes.
// Nothing is submitted: the scripts are text, written by the caller. Every path in them is absolute
// and shell-quoted, so that they run from any directory on any node that sees the same file system.
#include <filesystem>
#include <string>

namespace clearfog::slurm {

/// Slurm's default MaxArraySize (slurm.conf): arrays of at most this many tasks, indices 0..1000.
inline constexpr int kSlurmDefaultMaxArraySize = 1001;

/// "--slurm N": a whole number >= 1 (decimal digits only); ConfigError located at --slurm otherwise.
int parse_array_size(const std::string& text);

/// `text` as one word for /bin/sh and bash: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text);

class SlurmArray {
public:
  /// Paths must be absolute (ConfigError otherwise, a programming error of the caller); tasks >= 1,
  /// jobs >= 1, timeout_s >= 0 (0: none).
  SlurmArray(std::filesystem::path clearfog_binary, std::filesystem::path sweep_file,
             std::filesystem::path out_dir, std::string sweep_name, int tasks, int jobs, double timeout_s);

  [[nodiscard]] int tasks() const { return tasks_; }
  [[nodiscard]] std::filesystem::path job_script_path() const { return out_dir_ / "sweep.sbatch"; }
  [[nodiscard]] std::filesystem::path merge_script_path() const { return out_dir_ / "merge.sh"; }
  /// Where Slurm writes the tasks' output (the directory must exist before submission).
  [[nodiscard]] std::filesystem::path log_dir() const { return out_dir_ / "logs"; }
  /// DIR/shard-i, one per task.
  [[nodiscard]] std::filesystem::path shard_dir(int task) const;

  /// DIR/sweep.sbatch: `#SBATCH --array=0-(N-1)`, one shard per task, resumable.
  [[nodiscard]] std::string job_script() const;
  /// DIR/merge.sh: a batch script (or plain bash) running `clearfog merge` over every shard into DIR.
  [[nodiscard]] std::string merge_script() const;
  /// One shell line: submit the array, then the merge once every task has succeeded.
  [[nodiscard]] std::string submit_command() const;

private:
  [[nodiscard]] std::string job_name() const;
  [[nodiscard]] std::string sbatch_output_line(const std::string& pattern) const;

  std::filesystem::path clearfog_binary_;
  std::filesystem::path sweep_file_;
  std::filesystem::path out_dir_;
  std::string sweep_name_;
  int tasks_;
  int jobs_;
  double timeout_s_;  // per point, s; 0 = none
};

}  // namespace clearfog::slurm
