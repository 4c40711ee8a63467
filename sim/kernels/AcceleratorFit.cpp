#include "kernels/AcceleratorFit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "kernels/BlockedGemmModel.hpp"
#include "kernels/EmbeddingBagModel.hpp"

namespace clearfog::kernels {
namespace {

using Rows = std::vector<const KernelMeasurement*>;
using Setter = std::function<void(config::AcceleratorSpec&, double)>;

constexpr int kGoldenSteps = 60;          // brackets shrink by 0.618 per step: far below 1e-9 relative
constexpr double kImprovement = 1e-9;     // a fit must lower the misfit by more than this share
constexpr double kBoundSlack = 1e-6;      // in log: a result this close to a bound is at it
constexpr double kIndexBytes = 8;         // an int64 index read per lookup
// Calls timed at the host's issue rate, not the device's, are fitted to nothing. Timed eagerly on an
// H200, the trivial add_ issues at 6.6 us a call (the `launch eager` row), torch.mm with out= at 10
// us and torch._scaled_mm at 15 us: their 256^3 to 1024^3 GEMMs took that long whatever their size.
// So a call is at the host's rate when it takes under 2 eager launches, or when its kind and dtype's
// fastest call takes under 3 (a heavier op's own issue rate) and it is within 25 % of that fastest
// call. A kind and dtype whose fastest call beats one eager launch was not timed at the host's rate
// (scripts/measure-accelerator.py replays short calls from a CUDA graph): none of its rows is.
constexpr double kHostBoundLaunches = 2;
// A GEMM efficiency is the share of the peak a compute-bound tile sustains (docs/calibration.md): it
// is fitted to the GEMMs the model finds compute-bound, and long enough (20 launch overheads) for the
// fixed cost of a kernel to be under 5 % of their time. Short and L2- or HBM-bound GEMMs check it.
constexpr double kFittedGemmLaunches = 20;
/// Attention rows whose file names no kernel are checked as FlashAttention-2, the kernel every
/// stack could run, and fit nothing (their class says so).
constexpr AttentionKernel kUnnamedAttentionKernel = AttentionKernel::Flash2;
constexpr double kHeavyIssueLaunches = 3;
constexpr double kIssueFloorShare = 1.25;

double gather_time_s(const config::AcceleratorSpec& a, const KernelMeasurement& r) {
  const double element = dtype_bytes(r.dtype), row_B = static_cast<double>(r.dim) * element;
  const double lookups = static_cast<double>(r.batch) * static_cast<double>(r.bag);
  EmbeddingAccess table{lookups, row_B, static_cast<double>(r.rows), row_B, IndexDistribution{}};
  const double streamed = lookups * kIndexBytes + static_cast<double>(r.batch) * row_B;  // indices, pooled out
  return embedding_bag_cost(Kernel::make_embedding_bag("gather", {table}, streamed, lookups * static_cast<double>(r.dim), r.dtype), a)
      .time_s;
}

/// Mean squared log-ratio of predicted to measured times over `rows`.
double misfit(const config::AcceleratorSpec& a, const Rows& rows) {
  double sum = 0;
  for (const auto* r : rows) sum += std::pow(std::log(predicted_time_s(a, *r) / r->time_s), 2);
  return sum / static_cast<double>(rows.size());
}

/// The value in [lo, hi] (searched in log space) that minimises the misfit of `rows`.
double golden_section(config::AcceleratorSpec a, const Setter& set, const Rows& rows, double lo, double hi) {
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double x0 = std::log(lo), x3 = std::log(hi);
  const auto f = [&](double x) {
    set(a, std::exp(x));
    return misfit(a, rows);
  };
  double x1 = x3 - phi * (x3 - x0), x2 = x0 + phi * (x3 - x0);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < kGoldenSteps; ++i) {
    if (f1 <= f2) {
      x3 = x2, x2 = x1, f2 = f1;
      x1 = x3 - phi * (x3 - x0), f1 = f(x1);
    } else {
      x0 = x1, x1 = x2, f1 = f2;
      x2 = x0 + phi * (x3 - x0), f2 = f(x2);
    }
  }
  return std::exp((x0 + x3) / 2);
}

Rows select(const KernelMeasurements& m, const std::function<bool(const KernelMeasurement&)>& keep) {
  Rows rows;
  for (const auto& r : m.rows)
    if (keep(r)) rows.push_back(&r);
  return rows;
}

double median_time_s(Rows rows) {
  std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->time_s < b->time_s; });
  const std::size_t n = rows.size();
  return n % 2 ? rows[n / 2]->time_s : (rows[n / 2 - 1]->time_s + rows[n / 2]->time_s) / 2;
}

/// The median host time of an eager launch; 0 without an eager launch row.
double eager_issue_s(const KernelMeasurements& m) {
  std::vector<double> host;
  for (const auto& r : m.rows)
    if (r.kind == MeasurementKind::Launch && r.pass == "eager" && r.host_s > 0) host.push_back(r.host_s);
  if (host.empty()) return 0;
  std::sort(host.begin(), host.end());
  const std::size_t n = host.size();
  return n % 2 ? host[n / 2] : (host[n / 2 - 1] + host[n / 2]) / 2;
}

/// The rows timed at the host's issue rate (see kHostBoundLaunches), by their line in the file.
std::set<int> host_bound_lines(const KernelMeasurements& m) {
  std::set<int> lines;
  const double eager = eager_issue_s(m);
  if (eager <= 0) return lines;
  std::map<std::pair<MeasurementKind, DType>, double> fastest;
  for (const auto& r : m.rows) {
    auto [it, fresh] = fastest.try_emplace({r.kind, r.dtype}, r.time_s);
    if (!fresh) it->second = std::min(it->second, r.time_s);
  }
  for (const auto& r : m.rows) {
    if (r.kind == MeasurementKind::Launch) continue;
    const double floor = fastest.at({r.kind, r.dtype});
    if (floor < eager) continue;  // the device's own times
    const bool heavy_floor = floor < kHeavyIssueLaunches * eager && r.time_s < kIssueFloorShare * floor;
    if (r.time_s < kHostBoundLaunches * eager || heavy_floor) lines.insert(r.line);
  }
  return lines;
}

/// Whether a GEMM row measures the compute-bound efficiency (kFittedGemmLaunches).
bool measures_gemm_efficiency(const config::AcceleratorSpec& a, const KernelMeasurement& r) {
  if (r.kind != MeasurementKind::Gemm || !a.supports(r.dtype)) return false;
  const auto e = BlockedGemmModel(a).estimate(GemmShape{r.m, r.n, r.k, r.batch}, r.dtype);
  return e.bound == GemmBound::Compute && r.time_s >= kFittedGemmLaunches * a.launch_overhead_s;
}

/// The GEMM rows of `d` that measure its efficiency. Which rows are compute-bound depends on the
/// efficiency itself (a higher one leaves fewer), so the rows are narrowed to those compute-bound at
/// the value fitted to them too, until none drops out: the fit of the result is its own fixed point.
Rows compute_bound_rows(const config::AcceleratorSpec& a, const KernelMeasurements& m, DType d, const Setter& set) {
  const auto bound_at = [&](const config::AcceleratorSpec& x) {
    return select(m, [&](auto& r) { return r.dtype == d && measures_gemm_efficiency(x, r); });
  };
  Rows rows = bound_at(a);
  for (int round = 0; round < 16 && !rows.empty(); ++round) {
    auto fitted = a;
    set(fitted, golden_section(a, set, rows, 0.01, 1.0));
    Rows kept;
    for (const auto* r : rows)
      if (measures_gemm_efficiency(fitted, *r)) kept.push_back(r);
    if (kept.size() == rows.size() || kept.empty()) break;
    rows = std::move(kept);
  }
  return rows;
}

/// The classes residuals are reported for, each with the rows it holds.
std::map<std::string, Rows> classes(const config::AcceleratorSpec& a, const KernelMeasurements& m) {
  std::map<std::string, Rows> out;
  const auto host_bound = host_bound_lines(m);
  for (const auto& r : m.rows) {
    if (host_bound.count(r.line)) {
      out[fmt::format("{} at the host's rate (not fitted)", measurement_kind_name(r.kind))].push_back(&r);
      continue;
    }
    std::string name(measurement_kind_name(r.kind));
    if (r.kind == MeasurementKind::Gemm || r.kind == MeasurementKind::Gather) name += " " + std::string(dtype_name(r.dtype));
    if (r.kind == MeasurementKind::Gemm && !measures_gemm_efficiency(a, r)) name += " short or memory-bound";
    if (r.kind == MeasurementKind::Copy || r.kind == MeasurementKind::Elementwise)
      name += a.sram_shared_B <= 0 || r.bytes > 2 * a.sram_shared_B ? " beyond L2"
              : r.bytes <= a.sram_shared_B / 2                   ? " inside L2"
                                                                 : " near the L2 size (not fitted)";
    if (r.kind == MeasurementKind::Attention)
      name += r.attention_kernel ? " " + std::string(attention_kernel_name(*r.attention_kernel))
                                 : fmt::format(" (kernel not named: priced as {}, not fitted)",
                                               attention_kernel_name(kUnnamedAttentionKernel));
    if (r.kind == MeasurementKind::Attention || r.kind == MeasurementKind::Launch) name += " " + r.pass;
    out[name].push_back(&r);
  }
  return out;
}

struct Signed {
  double mean = 0, worst = 0;
};

Signed signed_errors(const config::AcceleratorSpec& a, const Rows& rows) {
  Signed s;
  for (const auto* r : rows) {
    const double e = predicted_time_s(a, *r) > 0 ? r->time_s / predicted_time_s(a, *r) - 1 : 0;
    s.mean += e / static_cast<double>(rows.size());
    s.worst = std::max(s.worst, std::fabs(e));
  }
  return s;
}

}  // namespace

double predicted_time_s(const config::AcceleratorSpec& a, const KernelMeasurement& r) {
  const bool typed = r.kind == MeasurementKind::Gemm || r.kind == MeasurementKind::Attention ||
                     r.kind == MeasurementKind::Gather;
  if (typed && !a.supports(r.dtype)) return -1;
  const BlockedGemmModel model(a);
  switch (r.kind) {
    case MeasurementKind::Gemm: return model.estimate(GemmShape{r.m, r.n, r.k, r.batch}, r.dtype).time_s;
    case MeasurementKind::Copy: return model.memory_bound_time(r.bytes);
    case MeasurementKind::Gather: return gather_time_s(a, r);
    case MeasurementKind::Attention:
      return model
          .estimate_attention(AttentionShape{r.batch * r.heads, r.seq, r.head_dim, r.pass == "bwd", r.causal,
                                             r.attention_kernel.value_or(kUnnamedAttentionKernel)},
                              r.dtype)
          .time_s;
    case MeasurementKind::Launch: return a.launch_overhead_s;  // device only: eager rows show any host excess
    case MeasurementKind::Elementwise: return a.launch_overhead_s + model.in_place_time(r.bytes);
  }
  return -1;
}

namespace {

/// One fit in progress: the accelerator being fitted, the rows it is fitted to, and what is
/// recorded. Each step fits what leans only on the steps before it (AcceleratorFit.hpp).
class Fitter {
 public:
  Fitter(const config::AcceleratorSpec& start, const KernelMeasurements& all) : fit_{start, {}, {}, {}}, all_(all) {
    // Fits see only the calls the device, not the host's issue rate, timed.
    m_.gpu = all.gpu;
    const auto host_bound = host_bound_lines(all);
    for (const auto& r : all.rows)
      if (!host_bound.count(r.line)) m_.rows.push_back(r);
  }

  AcceleratorFit run() {
    fit_launch();
    const bool l2 = a().sram_shared_B > 0 && a().sram_shared_bandwidth_Bps > 0;
    // A file without its own in-place value prices its operators at the copy rate: it follows the fit.
    const bool in_place_given = std::count(a().given_efficiencies.begin(), a().given_efficiencies.end(),
                                           std::string("memory.in_place_efficiency")) != 0;
    fit_one("memory.efficiency", a().memory_efficiency,
            [in_place_given](auto& x, double v) {
              x.memory_efficiency = v;
              if (!in_place_given) x.in_place_efficiency = v;
            },
            select(m_, [&](auto& r) {
              return r.kind == MeasurementKind::Copy && (!l2 || r.bytes > 2 * a().sram_shared_B);
            }),
            0.01, 1.0, "copies beyond the L2");
    // What a framework's memory-bound operators reach in place, after the copy rate (an in-place
    // value a file does not give starts at it).
    fit_one("memory.in_place_efficiency", a().in_place_efficiency, [](auto& x, double v) { x.in_place_efficiency = v; },
            select(m_, [&](auto& r) {
              return r.kind == MeasurementKind::Elementwise && (!l2 || r.bytes > 2 * a().sram_shared_B);
            }),
            0.01, 1.0, "elementwise operators beyond the L2");
    // sram.shared_bandwidth is not fitted to the copies inside the L2: the model feeds GEMM tiles from
    // it too, and on an H200 the copies' 7.9 TB/s would make 25 of 26 bf16 GEMMs L2-bound where they
    // run compute-bound (Hopper's tiles reach more of the L2 than a copy). The copies are a check.
    fit_gemms();
    fit_one("memory.random_access_efficiency", a().random_access_efficiency,
            [](auto& x, double v) { x.random_access_efficiency = v; },
            select(m_, [&](auto& r) { return r.kind == MeasurementKind::Gather && a().supports(r.dtype); }), 0.001,
            1.0, "embedding-bag gathers");
    fit_attention();
    report_residuals();
    return fit_;
  }

 private:
  config::AcceleratorSpec& a() { return fit_.fitted; }

  void record(std::string key, double before, double after, const Rows& rows, const std::string& what) {
    fit_.values.push_back({std::move(key), before, after, rows.size(), fmt::format("{} {}", rows.size(), what)});
  }

  void fit_one(const std::string& key, double before, const Setter& set, const Rows& rows, double lo, double hi,
               const std::string& what) {
    if (rows.empty()) return;
    const double start_misfit = misfit(a(), rows);
    const double value = golden_section(a(), set, rows, lo, hi);
    auto trial = a();
    set(trial, value);
    // A flat objective drifts to a bound without improving anything; a bound is no measurement either.
    const bool improved = misfit(trial, rows) < start_misfit * (1 - kImprovement);
    const bool at_bound = std::fabs(std::log(value / lo)) < kBoundSlack || std::fabs(std::log(value / hi)) < kBoundSlack;
    const FitStatus status = !improved ? FitStatus::Insensitive : at_bound ? FitStatus::AtBound : FitStatus::Fitted;
    if (status == FitStatus::Fitted) set(a(), value);
    record(key, before, status == FitStatus::Insensitive ? before : value, rows, what);
    fit_.values.back().status = status;
  }

  /// Replayed from a CUDA graph, an empty kernel costs the device alone; launched eagerly from Python
  /// it may cost the host's issue rate instead, which is not the device's per-kernel cost.
  void fit_launch() {
    const auto launches_of = [&](const char* pass) {
      return select(m_, [pass](auto& r) { return r.kind == MeasurementKind::Launch && r.pass == pass; });
    };
    auto launches = launches_of("graph");
    const bool replayed = !launches.empty();
    if (!replayed) launches = launches_of("eager");
    if (launches.empty()) return;
    const double before = a().launch_overhead_s;
    a().launch_overhead_s = median_time_s(launches);
    record("kernel.launch_overhead", before, a().launch_overhead_s, launches,
           replayed ? "empty kernels replayed from a CUDA graph (median)"
                    : "empty kernels launched eagerly (median; no CUDA-graph row: may include host time)");
  }

  /// A GEMM kernel's own fixed time on the GEMMs too short for the efficiency, after a first,
  /// unrecorded fit of each efficiency (so that the short rows do not take up what the efficiency owes
  /// them); then each efficiency again, from the file's value, with the fixed time in.
  void fit_gemms() {
    const auto start = a();
    const auto setter = [](DType d) -> Setter { return [d](auto& x, double v) { x.gemm_dtype_efficiency[d] = v; }; };
    for (DType d : kAllDTypes)
      if (a().supports(d))
        if (const Rows rows = compute_bound_rows(a(), m_, d, setter(d)); !rows.empty())
          setter(d)(a(), golden_section(a(), setter(d), rows, 0.01, 1.0));
    fit_one("gemm.fixed_overhead", a().gemm_fixed_s, [](auto& x, double v) { x.gemm_fixed_s = v; },
            select(m_, [&](auto& r) {
              return r.kind == MeasurementKind::Gemm && a().supports(r.dtype) &&
                     r.time_s < kFittedGemmLaunches * a().launch_overhead_s;
            }),
            1e-8, 1e-4, "GEMMs shorter than 20 launch overheads");
    a().gemm_dtype_efficiency = start.gemm_dtype_efficiency;
    for (DType d : kAllDTypes)
      if (a().supports(d))
        fit_one("gemm.dtype_efficiency." + std::string(dtype_name(d)), start.gemm_efficiency_of(d), setter(d),
                compute_bound_rows(a(), m_, d, setter(d)), 0.01, 1.0,
                fmt::format("compute-bound GEMMs in {}", dtype_name(d)));
  }

  /// Each named attention kernel's share of the GEMM efficiency, per pass, after the GEMM
  /// efficiencies it multiplies (and the memory efficiency its memory-bound rows lean on).
  void fit_attention() {
    for (const auto& info : kAttentionKernels)
      for (const bool backward : {false, true}) {
        const AttentionKernel kernel = info.kernel;
        const Setter set = [kernel, backward](config::AcceleratorSpec& x, double v) {
          auto& shares = x.attention_shares[kernel];
          (backward ? shares.backward : shares.forward) = v;
        };
        fit_one(config::attention_share_key(kernel, backward), a().attention_share(kernel, backward), set,
                select(m_, [&](auto& r) {
                  return r.kind == MeasurementKind::Attention && r.attention_kernel == kernel &&
                         a().supports(r.dtype) && (r.pass == "bwd") == backward;
                }),
                0.05, 1.0, fmt::format("{} attention {} rows", info.name, backward ? "backward" : "forward"));
      }
  }

  void report_residuals() {
    for (const auto& [name, rows] : classes(a(), all_)) {
      Rows priced;
      for (const auto* r : rows)
        if (predicted_time_s(a(), *r) > 0) priced.push_back(r);
        else
          fit_.skipped.push_back(fmt::format("line {}: {} (the accelerator has no {} peak)", r->line, name,
                                             dtype_name(r->dtype)));
      if (priced.empty()) continue;
      const auto before = signed_errors(start_, priced), after = signed_errors(a(), priced);
      fit_.residuals.push_back({name, priced.size(), before.mean, after.mean, after.worst});
    }
  }

  AcceleratorFit fit_;
  const config::AcceleratorSpec start_ = fit_.fitted;  // the file as given, for the errors before
  const KernelMeasurements& all_;
  KernelMeasurements m_;
};

}  // namespace

AcceleratorFit fit_accelerator(const config::AcceleratorSpec& start, const KernelMeasurements& all) {
  return Fitter(start, all).run();
}

}  // namespace clearfog::kernels
