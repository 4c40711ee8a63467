// `clearfog gemm --accelerator A.yaml --m M --n N --k K [--batch B] [--dtype D] [--format F]`:
// price one GEMM with the blocked-GEMM model (or, for wXaY, the low-precision model) and print
// time, throughput, efficiency, what bounds it, the tile and the quantization losses.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <tuple>

#include "app/Command.hpp"
#include "config/ConfigLoader.hpp"
#include "core/DType.hpp"
#include "core/Errors.hpp"
#include "kernels/BlockedGemmModel.hpp"
#include "kernels/LowPrecisionGemmModel.hpp"

namespace clearfog::app {

namespace {

struct Options {
  std::string accelerator_file;
  long long m = 0, n = 0, k = 0, batch = 1;
  std::string dtype = "bf16";
  std::string format = "text";
};

[[noreturn]] void bad_dtype(const std::string& text) {
  std::string allowed;
  for (DType d : kAllDTypes) allowed += fmt::format("{}, ", dtype_name(d));
  throw ConfigError({Diagnostic{SourceLocation{"--dtype", 0, 0}, "dtype",
                                fmt::format("unknown data type \"{}\"; allowed: {}int4 or wXaY with X, Y in 1..{} "
                                            "(w3a3)",
                                            text, allowed, kernels::kMaxLowPrecisionBits)}});
}

[[noreturn]] void no_peak(const Options& o, const config::AcceleratorSpec& acc, std::string_view dtype) {
  throw ConfigError({Diagnostic{SourceLocation{o.accelerator_file, 0, 0}, fmt::format("peak.{}", dtype),
                                fmt::format("accelerator \"{}\" has no {} peak; give peak.{} in its file or pick "
                                            "another --dtype",
                                            acc.name, dtype, dtype)}});
}

nlohmann::json gemm_json(const kernels::GemmEstimate& e, double peak) {
  return {{"time_s", e.time_s},
          {"tflops", e.flops_per_s / 1e12},
          {"peak_tflops", peak / 1e12},
          {"efficiency", e.efficiency},
          {"bound", std::string(kernels::gemm_bound_name(e.bound))},
          {"tile", fmt::format("{}x{}", e.tile.m, e.tile.n)},
          {"tiles", e.tiles},
          {"waves", e.waves},
          {"wave_efficiency", e.wave_efficiency},
          {"tile_efficiency", e.tile_efficiency},
          {"l2_bytes", e.l2_bytes},
          {"hbm_bytes", e.hbm_bytes}};
}

/// What the blocked-GEMM model says beyond time and throughput: efficiency against `peak` (in
/// `rate`, "TFLOP/s" or, for integer GEMMs, "TOP/s"), what bounds it, tile and waves.
std::string gemm_details(const kernels::GemmEstimate& e, double peak, int units, std::string_view rate) {
  std::string out;
  out += fmt::format("  efficiency       {:.1f} % of the {:.1f} {} peak\n", 100 * e.efficiency, peak / 1e12, rate);
  out += fmt::format("  bound            {}\n", kernels::gemm_bound_name(e.bound));
  out += fmt::format("  tile             {}x{}\n", e.tile.m, e.tile.n);
  out += fmt::format("  tiles, waves     {} tiles in {} waves of {} units\n", e.tiles, e.waves, units);
  out += fmt::format("  wave efficiency  {:.1f} % (tiles / (waves x units))\n", 100 * e.wave_efficiency);
  out += fmt::format("  tile efficiency  {:.1f} % (useful / padded MACs)\n", 100 * e.tile_efficiency);
  return out;
}

/// Largest m, n, k and batch: the tile and wave counts (up to m x n x batch for 1x1 tiles) stay
/// within 64-bit integers; a GEMM of 16 M rows is already far beyond any layer.
constexpr long long kMaxDimension = 1LL << 24;
constexpr long long kMaxBatch = 1LL << 14;

void check_dimensions(const Options& o) {
  std::vector<Diagnostic> problems;
  for (const auto& [option, value, max] : {std::tuple{"--m", o.m, kMaxDimension}, std::tuple{"--n", o.n, kMaxDimension},
                                           std::tuple{"--k", o.k, kMaxDimension}, std::tuple{"--batch", o.batch, kMaxBatch}})
    if (value > max)
      problems.push_back({SourceLocation{option, 0, 0}, "",
                          fmt::format("must be at most {} (tile counts stay within 64-bit integers), got {}", max,
                                      value)});
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

int run_gemm(const Options& o) {
  check_dimensions(o);
  const auto acc = config::load_accelerator(o.accelerator_file);
  const kernels::GemmShape shape{o.m, o.n, o.k, o.batch};
  const std::string header = fmt::format("GEMM {} x {} x {} (batch {}), {} on {}", o.m, o.n, o.k, o.batch, o.dtype,
                                         acc.name);

  // Integer types take the low-precision model's kernel selection, as wXaY does: on a SIMD part
  // int8 runs at what its int8 kernels reach, not at the multiplier's peak.
  auto bits = kernels::parse_bit_widths(o.dtype);
  if (const auto integer = kernels::integer_bit_widths(o.dtype)) {
    if (o.dtype == "int8" && !acc.supports(DType::int8)) no_peak(o, acc, "int8");
    if (o.dtype == "int4" && !(acc.int4_peak_ops > 0) && acc.simd_width_bits <= 0) no_peak(o, acc, "int4");
    bits = integer;
  }
  if (bits) {
    const kernels::LowPrecisionGemmModel model(acc);
    const auto est = model.estimate(shape, *bits);
    const auto& best = est.chosen();
    if (o.format == "json") {
      nlohmann::json candidates = nlohmann::json::array();
      for (const auto& c : est.candidates)
        candidates.push_back({{"method", std::string(kernels::low_precision_method_name(c.method))},
                              {"time_s", c.time_s},
                              {"tops", c.ops_per_s / 1e12}});
      nlohmann::json out = {{"accelerator", acc.name},   {"m", o.m},
                            {"n", o.n},                  {"k", o.k},
                            {"batch", o.batch},          {"dtype", o.dtype},
                            {"method", std::string(kernels::low_precision_method_name(best.method))},
                            {"time_s", best.time_s},     {"tops", best.ops_per_s / 1e12},
                            {"candidates", candidates}};
      if (best.packing) {
        out["local_accumulations"] = best.packing->local_accumulations;  // the guard bits' bound
        out["accumulations_per_extraction"] = best.packing->accumulations_per_extraction();  // what runs
      }
      std::cout << out.dump(2) << '\n';
      return kExitOk;
    }
    std::cout << header << '\n';
    std::cout << fmt::format("  method           {}\n", kernels::low_precision_method_name(best.method));
    std::cout << fmt::format("  time             {:.3f} us\n", best.time_s * 1e6);
    std::cout << fmt::format("  throughput       {:.3f} TOP/s\n", best.ops_per_s / 1e12);
    if (const auto& packing = best.packing) {
      // The count the time model runs; the guard bits' bound beside it when the port's kernels stop short.
      const long long runs = packing->accumulations_per_extraction();
      std::cout << fmt::format("  packing          {} scheme, {} products per multiply, field at bit {}, {} local "
                               "accumulations before an extraction{}\n",
                               kernels::packing_scheme_name(packing->scheme), packing->products_per_multiply,
                               packing->field_shift, runs,
                               runs < packing->local_accumulations
                                   ? fmt::format(" (the guard bits allow {}; the port's kernels unroll at most {})",
                                                 packing->local_accumulations, kernels::kMaxUnrolledAccumulations)
                                   : std::string());
    }
    // Integer operations: the rate is in OP/s whichever unit runs them.
    if (best.gemm)
      std::cout << gemm_details(*best.gemm, best.gemm->flops_per_s / best.gemm->efficiency, acc.compute_units, "TOP/s");
    std::cout << "  candidates\n";
    for (const auto& c : est.candidates)
      std::cout << fmt::format("    {:<46} {:>12.3f} us  {:.2f}x the pick\n", kernels::low_precision_method_name(c.method),
                               c.time_s * 1e6, c.time_s / best.time_s);
    return kExitOk;
  }

  const kernels::BlockedGemmModel model(acc);
  const auto dtype = parse_dtype(o.dtype);
  if (!dtype) bad_dtype(o.dtype);
  if (!acc.supports(*dtype)) no_peak(o, acc, o.dtype);
  const kernels::GemmArithmetic arithmetic = model.arithmetic_of(*dtype);
  const auto est = model.estimate(shape, arithmetic);
  if (o.format == "json") {
    auto out = gemm_json(est, arithmetic.peak_ops);
    out["accelerator"] = acc.name;
    out["m"] = o.m;
    out["n"] = o.n;
    out["k"] = o.k;
    out["batch"] = o.batch;
    out["dtype"] = o.dtype;
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << header << " (blocked-GEMM model)\n";
    std::cout << fmt::format("  time             {:.3f} us\n", est.time_s * 1e6);
    std::cout << fmt::format("  throughput       {:.1f} TFLOP/s\n", est.flops_per_s / 1e12);
    std::cout << gemm_details(est, arithmetic.peak_ops, acc.compute_units, "TFLOP/s");
  }
  return kExitOk;
}

}  // namespace

Command add_gemm_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("gemm", "price one GEMM C[m x n] = A[m x k] B[k x n] on an accelerator");
  cmd->add_option("--accelerator", o->accelerator_file, "accelerator YAML file")->required();
  cmd->add_option("--m", o->m, "rows of A and C")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--n", o->n, "columns of B and C")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--k", o->k, "columns of A, rows of B")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--batch", o->batch, "independent GEMMs of this shape (default 1)")->check(CLI::PositiveNumber);
  cmd->add_option("--dtype", o->dtype, "fp32, tf32, fp16, bf16, fp8, int8, int4 or wXaY (w3a3), default bf16");
  cmd->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o] { return run_gemm(*o); }};
}

}  // namespace clearfog::app
