// Memory per device under tensor/sequence parallelism, recomputation and ZeRO, against
// formulas.md (ZeRO paper example, Korthikanti Table 2).
#include <catch2/catch.hpp>

#include "workload/MemoryEstimate.hpp"

using namespace clearfog;

TEST_CASE("workload::model_state_bytes: ZeRO stages, 7.5B parameters over 64 ranks", "[workload][memory]") {
  const double psi = 7.5e9;
  const int nd = 64;
  auto total = [&](int stage) {
    return workload::model_state_bytes(psi, DType::fp16, config::Optimizer::Adam, stage, nd).total_B();
  };
  CHECK(total(0) == Approx(16 * psi));                  // 120 GB
  CHECK(total(1) == Approx(4 * psi + 12 * psi / nd));   // 31.4 GB
  CHECK(total(2) == Approx(2 * psi + 14 * psi / nd));   // 16.6 GB
  CHECK(total(3) == Approx(16 * psi / nd));             // 1.9 GB
  CHECK(total(0) / 1e9 == Approx(120).epsilon(1e-3));
  CHECK(total(1) / 1e9 == Approx(31.4).epsilon(2e-3));
  CHECK(total(2) / 1e9 == Approx(16.6).epsilon(3e-3));  // formulas.md rounds 16.64 to 16.6
  CHECK(total(3) / 1e9 == Approx(1.9).epsilon(0.02));
}

TEST_CASE("workload::activation_bytes_per_layer: Korthikanti Table 2 rows", "[workload][memory]") {
  config::WorkloadSpec w;
  w.layers = 48;
  w.hidden = 6144;
  w.heads = 64;
  w.seq_length = 2048;
  w.vocab_size = 51200;
  const int b = 4;
  const double s = 2048, h = 6144, a = 64, t = 8, sbh = s * b * h;
  using R = config::Recompute;
  auto act = [&](int tp, bool sp, R r) { return workload::activation_bytes_per_layer(w, b, DType::bf16, tp, sp, r); };
  CHECK(act(1, false, R::None) == Approx(sbh * (34 + 5 * a * s / h)));
  CHECK(act(8, false, R::None) == Approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
  CHECK(act(8, true, R::None) == Approx(sbh * (34 / t + 5 * a * s / (h * t))));
  CHECK(act(8, false, R::Selective) == Approx(sbh * (10 + 24 / t)));
  CHECK(act(8, true, R::Selective) == Approx(sbh * 34 / t));
  CHECK(act(8, true, R::Full) == Approx(2 * sbh));
}
