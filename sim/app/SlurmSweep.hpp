#pragma once
// `clearfog sweep FILE --slurm N --out DIR`: writes DIR/sweep.sbatch (a job array, one shard per
// task) and DIR/merge.sh, and prints the sbatch line that submits them (docs/sweeps.md). Submits
// nothing and simulates nothing.
#include <string>

#include "sweep/SweepSpec.hpp"

namespace clearfog::app {

struct SlurmSweepRequest {
  std::string array_size;  // --slurm, as typed
  std::string out;         // --out
  int jobs = 1;            // --jobs: points at a time within a task, and the task's CPUs
  double timeout_s = 0;    // --timeout, per point
};

/// Writes the scripts; ConfigError (exit 2) for a bad --slurm or an --out that cannot be created.
int write_slurm_sweep(const sweep::SweepSpec& spec, const SlurmSweepRequest& request);

}  // namespace clearfog::app
