// The communication profile (report/CommProfile): per-axis data volumes per device and iteration
// against their closed forms — a ring all-reduce sends 2(p-1)/p of the buffer, ZeRO-3's
// reduce-scatter and two all-gathers 3(p-1)/p (1.5x plain data parallelism), a pipeline sends each
// micro-batch's activation forward and its gradient back across each of the p-1 boundaries.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "collectives/CollectiveAlgorithmType.hpp"
#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"
#include "report/CommProfile.hpp"
#include "support/TestPlatforms.hpp"

using namespace clearfog;

namespace {

config::ScenarioSpec layout(int tp, int pp, int dp, int micro_batches) {
  config::ScenarioSpec s;
  s.name = "comm profile test";
  s.platform = test::switch_platform(tp * pp * dp, 100e9, 1e-6);
  s.workload = test::small_gpt();
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * dp;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  s.collectives.algorithm = clearfog::collectives::collective_algorithm("ring");
  return s;
}

struct Volumes {
  std::map<std::string, double> sent, payload;  // per axis, per device and iteration
  double gradient_B = 0;                         // the plan's gradient bytes per device
};

/// Runs `s` in a child process; the per-axis volumes come back as text.
Volumes volumes_of(const config::ScenarioSpec& s) {
  const std::string text = engine::run_forked([&] {
    const auto run = driver::run_scenario(s);
    const auto profile = report::build_comm_profile(run.step.plan, run.simulation, *run.collectives,
                                                    s.platform.device_count(), s.parallelism.zero_stage);
    std::map<std::string, std::pair<double, double>> by_axis;
    for (const auto& e : profile.events) {
      const double share = report::per_device_share(e, profile.devices);
      by_axis[e.axis].first += share * e.sent_B;
      by_axis[e.axis].second += share * e.payload_B;
    }
    std::ostringstream out;
    out.precision(17);
    out << run.step.gradient_bytes;
    for (const auto& [axis, v] : by_axis) out << ' ' << axis << ' ' << v.first << ' ' << v.second;
    return out.str();
  });
  std::istringstream in(text);
  Volumes v;
  in >> v.gradient_B;
  std::string axis;
  double sent = 0, payload = 0;
  while (in >> axis >> sent >> payload) {
    v.sent[axis] = sent;
    v.payload[axis] = payload;
  }
  return v;
}

}  // namespace

TEST_CASE("report::CommProfile: data parallelism sends 2(p-1)/p of the gradients, ZeRO-3 1.5 times that",
          "[report][comm]") {
  for (const int p : {2, 4}) {
    INFO("dp " << p);
    const auto plain = volumes_of(layout(1, 1, p, 2));
    CHECK(plain.sent.at("dp") == Approx(2.0 * (p - 1) / p * plain.gradient_B).epsilon(1e-9));
    CHECK(plain.sent.count("tp") == 0);
    auto z3 = layout(1, 1, p, 2);
    z3.parallelism.zero_stage = 3;
    const auto sharded = volumes_of(z3);
    // Every micro-batch's gradients are reduce-scattered (ZeRO-2/3), each unit's parameters
    // gathered for its forward and again for its backward: per micro-batch 3(p-1)/p of them.
    const double m = 2;
    CHECK(sharded.sent.at("zero") == Approx(m * 3.0 * (p - 1) / p * plain.gradient_B).epsilon(1e-9));
  }
}

TEST_CASE("report::CommProfile: a pipeline sends 2m(p-1)/p activations per device", "[report][comm]") {
  const auto w = test::small_gpt_spec();
  const double activation_B = 1.0 * w.seq_length * w.hidden * 2;  // micro-batch 1, bf16
  for (const auto& [p, m] : std::vector<std::pair<int, int>>{{2, 4}, {4, 8}}) {
    INFO("pp " << p << " m " << m);
    const auto v = volumes_of(layout(1, p, 1, m));
    CHECK(v.sent.at("pp") == Approx(2.0 * m * (p - 1) / p * activation_B).epsilon(1e-12));
    CHECK(v.payload.at("pp") == Approx(v.sent.at("pp")).epsilon(1e-12));
  }
}

TEST_CASE("report::CommProfile: without data parallelism there is no dp traffic — the tied embedding is its own axis",
          "[report][comm]") {
  // pp 2, dp 1: the word embedding (vocabulary x hidden, bf16) lives on the first stage and its tied
  // copy on the last; after the backward pass the two gradients are summed by an all-reduce of the
  // two stages (Megatron's embedding-gradient all-reduce), a ring of two sending 2(2-1)/2 = 1 buffer
  // per member. Both devices are members.
  const auto w = test::small_gpt_spec();
  const double embedding_B = 1.0 * w.vocab_size * w.hidden * 2;
  const auto v = volumes_of(layout(1, 2, 1, 2));
  CHECK(v.sent.count("dp") == 0);
  CHECK(v.sent.count("zero") == 0);
  REQUIRE(v.sent.count("tied") == 1);
  CHECK(v.sent.at("tied") == Approx(embedding_B).epsilon(1e-9));
  CHECK(v.payload.at("tied") == Approx(embedding_B).epsilon(1e-9));
}

TEST_CASE("report::CommProfile: tensor parallelism adds four all-reduces of b*s*h per layer, SP the same volume",
          "[report][comm]") {
  // Korthikanti et al. (2022), section 4.2.2: each layer all-reduces its activation (b s h, bf16) twice
  // in the forward pass and twice in the backward; sequence parallelism turns each all-reduce into a
  // reduce-scatter and an all-gather, which send the same (t-1)/t * 2 bsh between them. Embedding, head
  // and loss communicate too; adding layers isolates the per-layer part.
  const auto w = test::small_gpt_spec();
  const double activation_B = 1.0 * w.seq_length * w.hidden * 2;  // micro-batch 1, bf16
  const int t = 4, m = 2;
  for (const bool sp : {false, true}) {
    INFO("sequence parallel " << sp);
    auto with_layers = [&](int layers) {
      auto s = layout(t, 1, 1, m);
      s.parallelism.sequence_parallel = sp;
      s.workload = test::with_transformer(s.workload, [&](auto& x) { x.layers = layers; });
      return volumes_of(s);
    };
    const auto base = with_layers(w.layers), more = with_layers(2 * w.layers);
    const double per_layer = (more.sent.at("tp") - base.sent.at("tp")) / w.layers;
    CHECK(per_layer == Approx(m * 4 * 2.0 * (t - 1) / t * activation_B).epsilon(1e-9));
  }
}

TEST_CASE("report::CommProfile: the JSON section's shares and medians", "[report][comm]") {
  // 4 devices; one 4-member all-reduce of 8 MiB (counts once per device), one 2-member tp
  // all-reduce of 64 KiB (half a call per device) and two pipeline sends of 1 KiB (a quarter each).
  report::CommProfile profile;
  profile.devices = 4;
  const double MiB = 1 << 20;
  profile.events = {{"g", "dp", "all_reduce", 4, 8 * MiB, 12 * MiB, "ring", "simple", 0, 0, 1, 0.5},
                    {"t", "tp", "all_reduce", 2, MiB / 16, MiB / 16, "ring", "simple", 0, 0, 1, 0},
                    {"a", "pp", "sendrecv", 2, 1024, 1024, "p2p", "-", 0, 0, 1, 0},
                    {"b", "pp", "sendrecv", 2, 3072, 3072, "p2p", "-", 1, 0, 1, 0}};
  const auto j = report::comm_profile_json(profile);
  CHECK(j.at("dp").at("collectives").get<double>() == Approx(1.0));
  CHECK(j.at("dp").at("sent_B").get<double>() == Approx(12 * MiB));
  CHECK(j.at("dp").at("exposed_s").get<double>() == Approx(0.5));
  CHECK(j.at("tp").at("collectives").get<double>() == Approx(0.5));
  CHECK(j.at("pp").at("messages").get<double>() == Approx(0.5));
  CHECK(j.at("pp").at("median_message_B").get<double>() == Approx(2048));
  CHECK(j.at("pp").at("max_message_B").get<double>() == Approx(3072));
  const double calls = 1 + 0.5 + 0.5;
  CHECK(j.at("p2p_message_share").get<double>() == Approx(0.5 / calls));
  const double sent = 12 * MiB + 0.5 * MiB / 16 + 0.25 * 4096;
  CHECK(j.at("p2p_bytes_share").get<double>() == Approx(0.25 * 4096 / sent));
  CHECK(j.at("small_message_share").get<double>() == Approx((0.5 + 0.5) / calls));
  CHECK_FALSE(j.contains("zero"));
}
