// `clearfog calibrate`'s fit (kernels/AcceleratorFit.hpp) recovers known efficiencies: kernel
// times are made by the model itself on an H100 with chosen efficiencies, written in the
// measurement format, read back and fitted starting from the shipped H100 file.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "config/ConfigLoader.hpp"
#include "core/Errors.hpp"
#include "kernels/AcceleratorFit.hpp"

using namespace clearfog;
using kernels::KernelMeasurement;
using kernels::MeasurementKind;

namespace {

config::AcceleratorSpec shipped_h100() {
  return config::load_accelerator(std::filesystem::path(CLEARFOG_SOURCE_DIR) / "platforms/accelerators/h100-sxm5.yaml");
}

/// The part the "measurements" come from: the shipped file with other efficiencies.
config::AcceleratorSpec truth() {
  auto a = shipped_h100();
  a.gemm_dtype_efficiency[DType::bf16] = 0.81;
  a.gemm_dtype_efficiency[DType::fp8] = 0.66;
  a.memory_efficiency = 0.8;
  a.in_place_efficiency = 0.55;

  a.launch_overhead_s = 3e-6;
  a.random_access_efficiency = 0.2;
  a.attention_shares[AttentionKernel::Cudnn].forward = 0.66;
  return a;
}

/// A CSV row of `kind` whose time is the truth's model time.
std::string row(const KernelMeasurement& r) {
  const double t = kernels::predicted_time_s(truth(), r);
  REQUIRE(t > 0);
  const bool untyped = r.kind == MeasurementKind::Copy || r.kind == MeasurementKind::Launch ||
                       r.kind == MeasurementKind::Elementwise;
  const std::string dtype = untyped ? "" : std::string(dtype_name(r.dtype));
  const auto n = [](long long v) { return v > 0 ? std::to_string(v) : std::string(); };
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.9g},{}\n", kernels::measurement_kind_name(r.kind),
                     dtype, n(r.m), n(r.n), n(r.k), n(r.batch), n(r.heads), n(r.seq), n(r.head_dim),
                     r.kind == MeasurementKind::Attention ? (r.causal ? "1" : "0") : "", r.pass,
                     r.bytes > 0 ? fmt::format("{:.0f}", r.bytes) : "", n(r.rows), n(r.dim), n(r.bag), n(r.kernels), t,
                     r.kind == MeasurementKind::Launch ? "1e-06" : "");
}

std::string synthetic_csv() {
  std::string csv = "# clearfog kernel measurements v1\n# gpu: synthetic H100\n" + std::string(kernels::kMeasurementHeader) + "\n";
  for (DType d : {DType::bf16, DType::fp8})
    for (long long s : {1024LL, 2048LL, 4096LL, 8192LL}) {
      KernelMeasurement g;
      g.kind = MeasurementKind::Gemm, g.dtype = d, g.m = s, g.n = s, g.k = s, g.batch = 1;
      csv += row(g);
    }
  for (double mib : {1.0, 8.0, 1024.0, 4096.0}) {
    KernelMeasurement c;
    c.kind = MeasurementKind::Copy, c.pass = "copy", c.bytes = mib * 1024 * 1024;
    csv += row(c);
  }
  // scripts/measure-eager-ops.py's operators beyond the L2 (and one inside it, a check).
  for (const auto& [op, mib] : {std::pair{"to_fp32", 384.0}, std::pair{"mean_last_dim", 256.0}, std::pair{"silu", 8.0}}) {
    KernelMeasurement e;
    e.kind = MeasurementKind::Elementwise, e.pass = op, e.bytes = mib * 1024 * 1024;
    csv += row(e);
  }
  KernelMeasurement l;
  l.kind = MeasurementKind::Launch, l.pass = "graph", l.kernels = 10000;
  csv += row(l);
  // Launched eagerly, the empty kernels run at the host's issue rate, slower than the device: the
  // fit must take the CUDA-graph row. This host issues a call in 1 us: every other row is the device's.
  csv += "launch,,,,,,,,,,eager,,,,,10000,6e-06,1e-06\n";
  KernelMeasurement g;
  g.kind = MeasurementKind::Gather, g.dtype = DType::fp32, g.rows = 10000000, g.dim = 128, g.bag = 32, g.batch = 65536;
  g.bytes = static_cast<double>(g.batch * g.bag * g.dim * 4);
  csv += row(g);
  KernelMeasurement at;
  at.kind = MeasurementKind::Attention, at.dtype = DType::bf16, at.batch = 4, at.heads = 32, at.seq = 2048,
  at.head_dim = 128, at.pass = "fwd", at.causal = true, at.attention_kernel = AttentionKernel::Cudnn;
  // The line scripts/measure-accelerator.py writes before each attention shape names the kernel.
  csv += "# sdpa backend for attention bf16 batch=4 heads=32 seq=2048 head_dim=128 causal=1: cudnn (X)\n" + row(at);
  // A row after a line naming no known kernel is a check, priced as FlashAttention-2, never fitted.
  at.attention_kernel.reset();
  csv += "# attention kernel: unknown-kernel\n" + row(at);
  return csv;
}

}  // namespace

TEST_CASE("kernels::fit_accelerator recovers the efficiencies the measurements were made with", "[kernels]") {
  const auto measurements = kernels::parse_kernel_measurements(synthetic_csv(), "synthetic.csv");
  CHECK(measurements.gpu == "synthetic H100");
  CHECK(measurements.rows.size() == 20);
  CHECK(measurements.rows[18].attention_kernel == AttentionKernel::Cudnn);
  CHECK_FALSE(measurements.rows[19].attention_kernel.has_value());
  const auto fit = kernels::fit_accelerator(shipped_h100(), measurements);
  const auto t = truth();
  CHECK(fit.fitted.launch_overhead_s == Approx(t.launch_overhead_s));
  CHECK(fit.fitted.memory_efficiency == Approx(t.memory_efficiency).epsilon(1e-4));
  CHECK(fit.fitted.in_place_efficiency == Approx(t.in_place_efficiency).epsilon(1e-4));
  // The L2 is not fitted (the copies inside it check it): the shipped value stays.
  CHECK(fit.fitted.sram_shared_bandwidth_Bps == shipped_h100().sram_shared_bandwidth_Bps);
  CHECK(fit.fitted.gemm_efficiency_of(DType::bf16) == Approx(0.81).epsilon(1e-4));
  CHECK(fit.fitted.gemm_efficiency_of(DType::fp8) == Approx(0.66).epsilon(1e-4));
  CHECK(fit.fitted.random_access_efficiency == Approx(t.random_access_efficiency).epsilon(1e-3));
  CHECK(fit.fitted.attention_share(AttentionKernel::Cudnn, false) == Approx(0.66).epsilon(1e-3));
  // No backward row: that share keeps the file's value; nor is FlashAttention-2 fitted to the unnamed row.
  CHECK(fit.fitted.attention_share(AttentionKernel::Cudnn, true) == shipped_h100().attention_share(AttentionKernel::Cudnn, true));
  CHECK(fit.fitted.attention_share(AttentionKernel::Flash2, false) == shipped_h100().attention_share(AttentionKernel::Flash2, false));
  // The attention row was made by the same model: after the fit the model reproduces every class,
  // but the eager launches, whose host cost (6 us against the device's 3 us) no model term holds.
  for (const auto& r : fit.residuals) {
    INFO(r.kernel_class);
    if (r.kernel_class == "launch eager")
      CHECK(r.mean_error_after == Approx(6e-6 / 3e-6 - 1));
    else
      CHECK(std::abs(r.mean_error_after) < 1e-3);
  }
  CHECK(fit.values.size() == 8);
}

TEST_CASE("kernels::read_kernel_measurements: malformed files are located errors", "[kernels]") {
  const std::string header = "# clearfog kernel measurements v1\n" + std::string(kernels::kMeasurementHeader) + "\n";
  const auto error_of = [](const std::string& text) {
    try {
      kernels::parse_kernel_measurements(text, "m.csv");
    } catch (const ConfigError& e) {
      return e.diagnostics().front().str();
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("kind,dtype\n"), Catch::Contains("m.csv:1") && Catch::Contains("expected the header"));
  CHECK_THAT(error_of(header + "gemm,bf16,1,1,1,1,,,,,,,,,,,0,\n"),
             Catch::Contains("m.csv:3") && Catch::Contains("time_s") && Catch::Contains("> 0"));
  CHECK_THAT(error_of(header + "conv,bf16,1,1,1,1,,,,,,,,,,,1e-3,\n"),
             Catch::Contains("kind: expected one of gemm, copy, gather, attention, launch, elementwise, got \"conv\""));
  CHECK_THAT(error_of(header + "elementwise,,,,,,,,,,to fp32,1024,,,,,1e-3,\n"),
             Catch::Contains("m.csv:3:22: pass") && Catch::Contains("expected an operator's name"));
  CHECK_THAT(error_of(header + "elementwise,,,,,,,,,,to_fp32,,,,,,1e-3,\n"), Catch::Contains("bytes: expected a number > 0"));
  CHECK_THAT(error_of(header + "launch,,,,,,,,,,Graph,,,,,10,1e-6,1e-6\n"),
             Catch::Contains("expected one of eager, graph for a launch row, got \"Graph\""));
  CHECK_THAT(error_of(header + "attention,bf16,,,,1,4294967424,128,128,1,fwd,,,,,,1e-3,\n"),
             Catch::Contains("heads: expected a whole number from 1 to 1e+06"));
  CHECK(kernels::parse_kernel_measurements("# gpu:\n" + header, "m.csv").gpu.empty());
  CHECK_THAT(error_of(header + "gemm,bf17,1,1,1,1,,,,,,,,,,,1e-3,\n"), Catch::Contains("unknown dtype \"bf17\""));
  CHECK_THAT(error_of(header + "gemm,bf16,1,1\n"), Catch::Contains("expected 18 comma-separated columns, got 4"));
  CHECK_THAT(error_of(header + "gemm,bf16,1.5,1,1,1,,,,,,,,,,,1e-3,\n"), Catch::Contains("whole number"));
  CHECK_THAT(error_of("# only comments\n"), Catch::Contains("no header line"));
}

TEST_CASE("kernels::fit_accelerator keeps a value its rows do not depend on", "[kernels]") {
  // A gather from a table the L2 holds (1000 rows of 256 B) never reaches the random-access bandwidth.
  const std::string csv = "# clearfog kernel measurements v1\n" + std::string(kernels::kMeasurementHeader) +
                          "\ngather,fp32,,,,65536,,,,,,16777216,1000,64,1,,1e-5,\n";
  const auto start = shipped_h100();
  const auto fit = kernels::fit_accelerator(start, kernels::parse_kernel_measurements(csv, "flat.csv"));
  REQUIRE(fit.values.size() == 1);
  CHECK(fit.values[0].key == "memory.random_access_efficiency");
  CHECK(fit.values[0].status == kernels::FitStatus::Insensitive);
  CHECK(fit.values[0].after == fit.values[0].before);
  CHECK(fit.fitted.random_access_efficiency == start.random_access_efficiency);
}

TEST_CASE("kernels::fit_accelerator fits no call timed at the host's issue rate", "[kernels]") {
  // The truth's bf16 GEMMs from 4096^3 up, and small ones that a slow host issues at 10 us a call
  // whatever their size (as on the H200 of platforms/calibration/h200-sxm.csv): with the eager
  // launch row saying the host needs 6 us a call, the small ones are reported, not fitted.
  std::string csv = "# clearfog kernel measurements v1\n" + std::string(kernels::kMeasurementHeader) + "\n";
  for (long long s : {256LL, 512LL, 1024LL, 4096LL, 8192LL, 16384LL}) {
    KernelMeasurement g;
    g.kind = MeasurementKind::Gemm, g.dtype = DType::bf16, g.m = s, g.n = s, g.k = s, g.batch = 1;
    if (s >= 4096)
      csv += row(g);
    else
      csv += fmt::format("gemm,bf16,{0},{0},{0},1,,,,,,,,,,,1e-05,\n", s);
  }
  // scripts/measure-eager-ops.py's operators beyond the L2 (and one inside it, a check).
  for (const auto& [op, mib] : {std::pair{"to_fp32", 384.0}, std::pair{"mean_last_dim", 256.0}, std::pair{"silu", 8.0}}) {
    KernelMeasurement e;
    e.kind = MeasurementKind::Elementwise, e.pass = op, e.bytes = mib * 1024 * 1024;
    csv += row(e);
  }
  KernelMeasurement l;
  l.kind = MeasurementKind::Launch, l.pass = "graph", l.kernels = 10000;
  csv += row(l);
  csv += "launch,,,,,,,,,,eager,,,,,10000,6e-06,6e-06\n";
  const auto measurements = kernels::parse_kernel_measurements(csv, "slow-host.csv");
  const auto fit = kernels::fit_accelerator(shipped_h100(), measurements);
  CHECK(fit.fitted.gemm_efficiency_of(DType::bf16) == Approx(0.81).epsilon(1e-4));
  bool reported = false;
  for (const auto& r : fit.residuals)
    if (r.kernel_class == "gemm at the host's rate (not fitted)") reported = r.rows == 3;
  CHECK(reported);
}

TEST_CASE("kernels::fit_accelerator fits the short calls a CUDA graph timed", "[kernels]") {
  // The same GEMMs, every one at the truth's device time (scripts/measure-accelerator.py replays
  // calls under 50 us from a CUDA graph): the smallest beat one eager launch, so no row of the dtype
  // is taken for the host's. The three long compute-bound ones are fitted, the short ones check.
  std::string csv = "# clearfog kernel measurements v1\n" + std::string(kernels::kMeasurementHeader) + "\n";
  for (long long s : {256LL, 512LL, 1024LL, 4096LL, 8192LL, 16384LL}) {
    KernelMeasurement g;
    g.kind = MeasurementKind::Gemm, g.dtype = DType::bf16, g.m = s, g.n = s, g.k = s, g.batch = 1;
    csv += row(g);
  }
  // scripts/measure-eager-ops.py's operators beyond the L2 (and one inside it, a check).
  for (const auto& [op, mib] : {std::pair{"to_fp32", 384.0}, std::pair{"mean_last_dim", 256.0}, std::pair{"silu", 8.0}}) {
    KernelMeasurement e;
    e.kind = MeasurementKind::Elementwise, e.pass = op, e.bytes = mib * 1024 * 1024;
    csv += row(e);
  }
  KernelMeasurement l;
  l.kind = MeasurementKind::Launch, l.pass = "graph", l.kernels = 10000;
  csv += row(l);
  csv += "launch,,,,,,,,,,eager,,,,,10000,6e-06,6e-06\n";
  const auto fit = kernels::fit_accelerator(shipped_h100(), kernels::parse_kernel_measurements(csv, "graphed.csv"));
  CHECK(fit.fitted.gemm_efficiency_of(DType::bf16) == Approx(0.81).epsilon(1e-4));
  for (const auto& v : fit.values)
    if (v.key == "gemm.dtype_efficiency.bf16") CHECK(v.rows == 3);
  for (const auto& r : fit.residuals) {
    INFO(r.kernel_class);
    CHECK(r.kernel_class.find("host's rate") == std::string::npos);
    if (r.kernel_class == "gemm bf16") CHECK(std::abs(r.mean_error_after) < 1e-3);  // the model's own times
  }
}

TEST_CASE("kernels::fit_accelerator: the shipped H200 file is what clearfog calibrate fits to its measurements", "[kernels]") {
  // platforms/accelerators/h200-sxm.yaml says its efficiencies were fitted to platforms/calibration/
  // h200-sxm.csv: fitting again from the file must leave each where it is (to the file's rounding).
  const std::filesystem::path root(CLEARFOG_SOURCE_DIR);
  const auto shipped = config::load_accelerator(root / "platforms/accelerators/h200-sxm.yaml");
  const auto fit = kernels::fit_accelerator(shipped, kernels::read_kernel_measurements(root / "platforms/calibration/h200-sxm.csv"));
  REQUIRE(fit.values.size() == 12);
  for (const auto& v : fit.values) {
    INFO(v.key);
    CHECK(v.status == kernels::FitStatus::Fitted);
    CHECK(v.after == Approx(v.before).epsilon(0.005));
  }
}
