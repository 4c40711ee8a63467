#include "report/OpTable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace clearfog::report {
namespace {

std::string shape_text(const kernels::Kernel& k) {
  if (k.kind == kernels::KernelKind::FusedAttention) {  // S = Q.K^T's shape: s x s x d, per head
    const auto& a = k.attention;
    return fmt::format("{}x{}x{} x{}", a.seq, a.seq, a.head_dim, a.batch_heads);
  }
  if (k.kind != kernels::KernelKind::Gemm) return "-";
  const auto& g = k.gemm;
  return g.batch > 1 ? fmt::format("{}x{}x{} x{}", g.m, g.n, g.k, g.batch) : fmt::format("{}x{}x{}", g.m, g.n, g.k);
}

std::string bound_text(kernels::Bound b) { return b == kernels::Bound::Compute ? "compute" : "memory"; }

double total_time_s(const parallel::StepPlan& step) {
  double total = 0;
  for (const auto& pk : step.kernels) total += pk.cost.time_s * pk.runs;
  return total;
}

}  // namespace

std::string render_op_table(const config::ScenarioSpec& /*scenario*/, const parallel::StepPlan& step) {
  const double total = total_time_s(step);
  std::string out = fmt::format(
      "\nKernels of one iteration, per device of the busiest pipeline stage ({} model)\n", "blocked-GEMM");
  // Columns as wide as their longest entry, so long pass names stay aligned.
  std::size_t pass_w = 4, kernel_w = 6;
  for (const auto& pk : step.kernels) {
    pass_w = std::max(pass_w, pk.pass.size());
    kernel_w = std::max(kernel_w, pk.kernel.name.size());
  }
  pass_w += 2;
  kernel_w += 2;
  out += fmt::format("  {:<{}}{:<{}}{:>22}{:>11}{:>11}{:>11}{:>10}{:>9}{:>8}{:>8}\n", "pass", pass_w, "kernel", kernel_w,
                     "shape (m x n x k)", "GFLOP", "MB", "time(us)", "TFLOP/s", "bound", "runs", "share");
  for (const auto& pk : step.kernels) {
    const int runs = pk.runs;
    const double t = pk.cost.time_s;
    out += fmt::format("  {:<{}}{:<{}}{:>22}{:>11.3f}{:>11.2f}{:>11.2f}{:>10.1f}{:>9}{:>8}{:>7.1f}%\n", pk.pass, pass_w,
                       pk.kernel.name, kernel_w, shape_text(pk.kernel), pk.kernel.flops / 1e9, pk.kernel.bytes / 1e6, t * 1e6,
                       t > 0 ? pk.kernel.flops / t / 1e12 : 0.0, bound_text(pk.cost.bound), runs,
                       total > 0 ? 100.0 * t * runs / total : 0.0);
  }
  return out;
}

nlohmann::ordered_json op_table_json(const config::ScenarioSpec& /*scenario*/, const parallel::StepPlan& step) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& pk : step.kernels) {
    nlohmann::ordered_json row = {{"pass", pk.pass},
                                  {"kernel", pk.kernel.name},
                                  {"dtype", dtype_name(pk.kernel.dtype)},
                                  {"flops", pk.kernel.flops},
                                  {"bytes", pk.kernel.bytes},
                                  {"time_s", pk.cost.time_s},
                                  {"bound", bound_text(pk.cost.bound)},
                                  {"runs_per_iteration", pk.runs}};
    if (pk.kernel.kind == kernels::KernelKind::Gemm)
      row["gemm"] = {{"m", pk.kernel.gemm.m}, {"n", pk.kernel.gemm.n}, {"k", pk.kernel.gemm.k}, {"batch", pk.kernel.gemm.batch}};
    if (pk.kernel.kind == kernels::KernelKind::FusedAttention)
      row["attention"] = {{"batch_heads", pk.kernel.attention.batch_heads},
                          {"seq", pk.kernel.attention.seq},
                          {"head_dim", pk.kernel.attention.head_dim},
                          {"backward", pk.kernel.attention.backward},
                          {"causal", pk.kernel.attention.causal},
                          {"kernel", attention_kernel_name(pk.kernel.attention.kernel)}};
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace clearfog::report
