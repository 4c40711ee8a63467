// The Slurm job array of `clearfog sweep --slurm`: the array size, the shell quoting, and what the
// scripts run, checked by running them with /bin/echo in place of clearfog.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/Errors.hpp"
#include "slurm/SlurmArray.hpp"

namespace fs = std::filesystem;
using clearfog::ConfigError;
using clearfog::slurm::parse_array_size;
using clearfog::slurm::shell_quote;
using clearfog::slurm::SlurmArray;

namespace {

/// stdout of `command` run by /bin/sh (trailing newline kept).
std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  CHECK(WIFEXITED(status));
  return out;
}

fs::path write_script(const std::string& name, const std::string& text) {
  const auto dir = fs::temp_directory_path() / ("clearfog-slurm-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

}  // namespace

TEST_CASE("parse_array_size takes a whole number >= 1 and nothing else", "[sweep][slurm]") {
  CHECK(parse_array_size("1") == 1);
  CHECK(parse_array_size("16") == 16);
  for (const char* bad : {"0", "-1", "+3", "3.0", "", "abc", "4 ", "1e3", "99999999999"}) {
    INFO(bad);
    try {
      parse_array_size(bad);
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.diagnostics().at(0).location.file == "--slurm");
    }
  }
}

TEST_CASE("shell_quote gives back the text through /bin/sh", "[sweep][slurm]") {
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  const std::string nasty = "a b'c\"d$HOME`x` \\n;*";
  CHECK(output_of("printf '%s' " + shell_quote(nasty)) == nasty);
}

TEST_CASE("the job script runs one shard per task, resumable, with absolute paths", "[sweep][slurm]") {
  const fs::path dir = fs::temp_directory_path() / "out dir's";
  const SlurmArray array("/bin/echo", "/data/sweep file.yaml", dir, "dp scaling", 4, 2, 30);
  const auto script = array.job_script();
  CHECK(script.find("\n#SBATCH --array=0-3\n") != std::string::npos);
  CHECK(script.find("\n#SBATCH --cpus-per-task=2\n") != std::string::npos);
  CHECK(script.find("\n#SBATCH --job-name=clearfog-dp_scaling\n") != std::string::npos);
  CHECK(script.find("#SBATCH --output") == std::string::npos);  // the blank cannot go on an #SBATCH line

  const auto file = write_script("job.sbatch", script);
  const std::string expected =
      "sweep /data/sweep file.yaml --shard 2/4 --resume --jobs 2 --timeout 30 --out " + (dir / "shard-2").string() + "\n";
  CHECK(output_of("SLURM_ARRAY_TASK_ID=2 bash " + shell_quote(file.string())) == expected);
  // Not inside an array: refused instead of running shard "/4".
  CHECK(output_of("unset SLURM_ARRAY_TASK_ID; bash " + shell_quote(file.string()) + " 2>/dev/null || echo refused") ==
        "refused\n");
}

TEST_CASE("the merge script joins every shard into the output directory", "[sweep][slurm]") {
  const fs::path dir = "/scratch/runs/dp";
  const SlurmArray array("/bin/echo", "/data/s.yaml", dir, "dp", 3, 1, 0);
  CHECK(array.job_script().find("--timeout") == std::string::npos);
  CHECK(array.job_script().find("\n#SBATCH --output=/scratch/runs/dp/logs/shard-%a.out\n") != std::string::npos);
  const auto file = write_script("merge.sh", array.merge_script());
  CHECK(output_of("bash " + shell_quote(file.string())) ==
        "merge /scratch/runs/dp/shard-0 /scratch/runs/dp/shard-1 /scratch/runs/dp/shard-2 --out /scratch/runs/dp\n");
  CHECK(array.submit_command() ==
        "jobid=$(sbatch --parsable '/scratch/runs/dp/sweep.sbatch') && "
        "sbatch --dependency=afterok:\"${jobid%%;*}\" '/scratch/runs/dp/merge.sh'");
}

TEST_CASE("SlurmArray refuses relative paths and empty arrays", "[sweep][slurm]") {
  CHECK_THROWS_AS(SlurmArray("clearfog", "/s.yaml", "/out", "s", 1, 1, 0), clearfog::Error);
  CHECK_THROWS_AS(SlurmArray("/bin/clearfog", "/s.yaml", "/out", "s", 0, 1, 0), clearfog::Error);
}
