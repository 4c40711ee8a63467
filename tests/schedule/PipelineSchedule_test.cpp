// Pipeline schedules of the registry: every pass runs once and in a legal order, the
// zero-communication timeline gives the published closed-form bubbles (formulas.md; Qi et al. 2024
// for ZB-H1; DeepSeek-V3 report Table 2 for DualPipe), and the in-flight counts are what the step
// lists themselves hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/Errors.hpp"
#include "schedule/PipelineSchedule.hpp"
#include "schedule/PipelineTimeline.hpp"

using namespace clearfog;
using namespace clearfog::schedule;
using Pass = PipelineStep::Pass;

namespace {

const PipelineScheduleType& named(const char* name) { return pipeline_schedule(name); }

/// Shapes each schedule accepts: m below, at and above p where the schedule allows it.
std::vector<PipelineShape> shapes_for(const PipelineScheduleType& type) {
  std::vector<PipelineShape> shapes;
  for (int p : {1, 2, 3, 4, 6, 8})
    for (int m : {1, 2, 3, 4, 6, 8, 12, 16, 24})
      for (int v : {1, 2, 3, 4}) {
        try {
          type.check({p, m, v});
          shapes.push_back({p, m, v});
        } catch (const Error&) {
        }
      }
  return shapes;
}

std::string describe(const PipelineScheduleType& type, const PipelineShape& s) {
  return std::string(type.name()) + " p=" + std::to_string(s.stages) + " m=" + std::to_string(s.micro_batches) +
         " v=" + std::to_string(s.virtual_stages);
}

/// Running count of chunk activations held (forward run, backward or W not), at its peak.
int peak_in_flight(const std::vector<PipelineStep>& steps) {
  int now = 0, peak = 0;
  for (const auto& step : steps) {
    if (step.pass == Pass::Forward) peak = std::max(peak, ++now);
    if (step.pass == Pass::Backward || step.pass == Pass::BackwardWeight) --now;
  }
  return peak;
}

/// Largest idle time of a device: makespan minus its own busy time.
double max_idle(const PipelineTimeline& t) {
  return t.makespan - *std::min_element(t.busy.begin(), t.busy.end());
}

}  // namespace

TEST_CASE("schedule::registry: names are unique and found — an unknown name lists them", "[schedule]") {
  const auto names = pipeline_schedule_names();
  CHECK(names == std::vector<std::string>{"gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe"});
  for (const auto& n : names) CHECK(find_pipeline_schedule(n)->name() == n);
  CHECK(find_pipeline_schedule("2f2b") == nullptr);
  CHECK_THROWS_WITH(pipeline_schedule("2f2b"), Catch::Matchers::Contains("allowed: gpipe, 1f1b, interleaved"));
}

TEST_CASE("schedule: every stage runs each pass of its chunks once, in dependency order on the device",
          "[schedule]") {
  for (const auto* type : pipeline_schedules())
    for (const auto& shape : shapes_for(*type))
      for (int stage = 0; stage < shape.stages; ++stage) {
        INFO(describe(*type, shape) << " stage " << stage);
        const auto steps = pipeline_order(*type, shape, stage);
        const int chunks = type->chunks_per_device(shape);
        std::map<std::tuple<int, int, Pass>, std::size_t> position;  // (micro-batch, chunk, pass) -> index
        int whole = 0, input = 0, weight = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
          const auto& s = steps[i];
          REQUIRE(s.micro_batch >= 0);
          REQUIRE(s.micro_batch < shape.micro_batches);
          REQUIRE(s.chunk >= 0);
          REQUIRE(s.chunk < chunks);
          // Each chunk serves the micro-batches of its direction only.
          CHECK(type->place(shape, stage, s.chunk).direction == type->direction_of(shape, s.micro_batch));
          REQUIRE(position.emplace(std::tuple{s.micro_batch, s.chunk, s.pass}, i).second);
          whole += s.pass == Pass::Backward;
          input += s.pass == Pass::BackwardInput;
          weight += s.pass == Pass::BackwardWeight;
        }
        const int forwards = static_cast<int>(steps.size()) - whole - input - weight;
        CHECK(forwards == chunk_passes_per_device(*type, shape));
        CHECK(whole + input == forwards);  // one backward per forward
        CHECK(input == weight);            // every B has its W
        if (!type->splits_backward()) CHECK(input == 0);
        for (const auto& [key, index] : position) {
          const auto [j, c, pass] = key;
          if (pass == Pass::Backward || pass == Pass::BackwardInput) CHECK(position.at({j, c, Pass::Forward}) < index);
          if (pass == Pass::BackwardWeight) CHECK(position.at({j, c, Pass::BackwardInput}) < index);
        }
      }
}

TEST_CASE("schedule: GPipe runs all forwards, then all backwards in micro-batch order", "[schedule]") {
  const PipelineShape shape{4, 6, 1};
  for (int stage = 0; stage < shape.stages; ++stage) {
    const auto steps = pipeline_order(named("gpipe"), shape, stage);
    for (int j = 0; j < shape.micro_batches; ++j) {
      CHECK(steps[j].pass == Pass::Forward);
      CHECK(steps[j].micro_batch == j);
      CHECK(steps[shape.micro_batches + j].pass == Pass::Backward);
      CHECK(steps[shape.micro_batches + j].micro_batch == j);
    }
  }
}

TEST_CASE("schedule: 1F1B warms up with p - stage - 1 forwards, then alternates", "[schedule]") {
  const PipelineShape shape{4, 8, 1};
  for (int stage = 0; stage < shape.stages; ++stage) {
    const auto steps = pipeline_order(named("1f1b"), shape, stage);
    const int warmup = shape.stages - stage - 1;
    for (int k = 0; k < warmup; ++k) CHECK(steps[k].pass == Pass::Forward);
    for (int k = 0; k < shape.micro_batches - warmup; ++k) {
      CHECK(steps[warmup + 2 * k].pass == Pass::Forward);
      CHECK(steps[warmup + 2 * k].micro_batch == warmup + k);
      CHECK(steps[warmup + 2 * k + 1].pass == Pass::Backward);
      CHECK(steps[warmup + 2 * k + 1].micro_batch == k);
    }
  }
}

TEST_CASE("schedule: interleaved takes micro-batches in groups of p per chunk", "[schedule]") {
  const PipelineShape shape{2, 4, 2};
  const auto steps = pipeline_order(named("interleaved"), shape, 1);
  std::vector<std::pair<int, int>> forwards, backwards;
  for (const auto& s : steps) (s.pass == Pass::Forward ? forwards : backwards).emplace_back(s.micro_batch, s.chunk);
  const int p = shape.stages;
  const int v = shape.virtual_stages;
  for (int k = 0; k < shape.micro_batches * v; ++k) {
    const int micro_batch = k / (p * v) * p + k % p;
    CHECK(forwards[k] == std::pair{micro_batch, (k / p) % v});
    CHECK(backwards[k] == std::pair{micro_batch, v - 1 - (k / p) % v});
  }
  // Stage 1 of 2 warms up with (v - 1)·p = 2 forwards, then alternates.
  CHECK(steps[2].pass == Pass::Forward);
  CHECK(steps[3].pass == Pass::Backward);
}

TEST_CASE("schedule: GPipe, 1F1B and interleaved idle (p-1)(F+B) per device, with chunk times", "[schedule]") {
  for (const char* name : {"gpipe", "1f1b", "interleaved"})
    for (const auto& shape : shapes_for(named(name)))
      for (double backward_over_forward : {2.0, 1.0, 3.0, 0.5}) {
        const auto& type = named(name);
        INFO(describe(type, shape) << " B/F " << backward_over_forward);
        const PassTimes t{1.5, 1.5 * backward_over_forward, 0, 0};
        const auto timeline = evaluate_pipeline(type, shape, t);
        const int p = shape.stages;
        const int passes = chunk_passes_per_device(type, shape);  // m, or m·v interleaved
        CHECK(timeline.makespan == Approx((passes + p - 1) * (t.forward + t.backward)).epsilon(1e-12));
        CHECK(max_idle(timeline) == Approx((p - 1) * (t.forward + t.backward)).margin(1e-9));
        // formulas.md: (p-1)/(m+p-1), interleaved ((p-1)/v)/(m+(p-1)/v).
        const double fill = static_cast<double>(p - 1) / shape.virtual_stages;
        const double expected = fill / (shape.micro_batches + fill);
        CHECK(timeline.bubble_fraction == Approx(expected).margin(1e-9));
        CHECK(ideal_bubble_fraction(type, shape, t) == Approx(expected).margin(1e-12));
      }
}

TEST_CASE("schedule: ZB-H1 idles (p-1)(F+B-2W), a third of 1F1B's when F = B_input = W", "[schedule]") {
  // Qi et al. 2024 derive the bubble with the three passes taking equal time (their §3, T_F = T_B =
  // T_W); DeepSeek-V3 Table 2 writes it with B the whole backward: (p-1)(F+B-2W). It also holds
  // while F >= B_input >= W (the input-gradient pass no longer than the forward).
  const auto& zb = named("zb-h1");
  for (int p : {2, 3, 4, 6, 8})
    for (int m : {p, 2 * p, 3 * p + 1})
      for (const PassTimes t : {PassTimes{1, 2, 1, 0}, PassTimes{1.3, 2.0, 0.8, 0}, PassTimes{2, 3, 1, 0}}) {
        INFO("p=" << p << " m=" << m << " F=" << t.forward << " B=" << t.backward << " W=" << t.weight);
        const PipelineShape shape{p, m, 1};
        const auto timeline = evaluate_pipeline(zb, shape, t);
        const double expected = (p - 1) * (t.forward + t.backward - 2 * t.weight);
        CHECK(max_idle(timeline) == Approx(expected).margin(1e-9));
        CHECK(zb.closed_form_bubble(shape, t) == Approx(expected));
        const double one_f_one_b = max_idle(evaluate_pipeline(named("1f1b"), shape, {t.forward, t.backward, 0, 0}));
        if (t.forward == t.weight && t.backward == 2 * t.weight) CHECK(max_idle(timeline) == Approx(one_f_one_b / 3));
      }
}

TEST_CASE("schedule: ZB-H1 holds no more than 1F1B's p micro-batches on any stage", "[schedule]") {
  for (const auto& shape : shapes_for(named("zb-h1")))
    for (int s = 0; s < shape.stages; ++s) {
      INFO(describe(named("zb-h1"), shape) << " stage " << s);
      CHECK(max_in_flight(named("zb-h1"), shape, s) <= std::min(shape.stages, shape.micro_batches));
    }
}

TEST_CASE("schedule: DualPipe idles (p/2-1)(F&B+B-3W) and holds p+1 chunk activations (DeepSeek-V3 Table 2)",
          "[schedule]") {
  // The report's table assumes equal F, B_input and W; F&B runs a forward and a backward chunk
  // overlapped, in anything from max(F, B) (perfect overlap) to F + B (none).
  const auto& dual = named("dualpipe");
  for (int p : {2, 4, 6, 8})
    for (int m : {2 * p, 2 * p + 2, 4 * p})
      for (double overlapped : {0.0, 2.0, 2.5, 3.0}) {
        const PassTimes t{1, 2, 1, overlapped};
        INFO("p=" << p << " m=" << m << " F&B=" << overlapped);
        const PipelineShape shape{p, m, 1};
        const auto timeline = evaluate_pipeline(dual, shape, t);
        const double fb = overlapped > 0 ? overlapped : t.forward + t.backward;
        CHECK(max_idle(timeline) == Approx((p / 2 - 1) * (fb + t.backward - 3 * t.weight)).margin(1e-9));
        int held = 0;
        for (int s = 0; s < p; ++s) held = std::max(held, max_in_flight(dual, shape, s));
        CHECK(held == p + 1);
      }
}

TEST_CASE("schedule: DualPipe feeds both ends: device s holds model chunks s and p-1-s", "[schedule]") {
  const auto& dual = named("dualpipe");
  const PipelineShape shape{4, 8, 1};
  CHECK(dual.model_chunks(shape) == 4);
  for (int s = 0; s < 4; ++s) {
    const auto a = dual.place(shape, s, 0);
    const auto b = dual.place(shape, s, 1);
    CHECK(std::min(a.model_chunk, b.model_chunk) == std::min(s, 3 - s));
    CHECK(a.model_chunk + b.model_chunk == 3);
    CHECK(a.direction != b.direction);
    CHECK(dual.stage_of(shape, a.model_chunk, a.direction) == s);
    CHECK(dual.stage_of(shape, b.model_chunk, b.direction) == s);
  }
  // Device 0 starts direction 0's micro-batches, device p-1 direction 1's.
  CHECK(pipeline_order(dual, shape, 0).front().micro_batch == 0);
  CHECK(pipeline_order(dual, shape, 3).front().micro_batch == 4);
}

TEST_CASE("schedule: the timeline honours the model-order dependencies of every schedule", "[schedule]") {
  for (const auto* type : pipeline_schedules())
    for (const auto& shape : shapes_for(*type)) {
      INFO(describe(*type, shape));
      const auto timeline = evaluate_pipeline(*type, shape, {1, 2, 1, 0});
      std::map<std::tuple<int, int, Pass>, std::pair<double, double>> when;  // (model chunk, mb, pass)
      for (int s = 0; s < shape.stages; ++s) {
        const auto steps = pipeline_order(*type, shape, s);
        REQUIRE(timeline.intervals[s].size() == steps.size());
        for (std::size_t i = 0; i < steps.size(); ++i) {
          const Pass pass = steps[i].pass == Pass::BackwardInput ? Pass::Backward : steps[i].pass;
          when[{type->place(shape, s, steps[i].chunk).model_chunk, steps[i].micro_batch, pass}] = timeline.intervals[s][i];
          if (i > 0) CHECK(timeline.intervals[s][i].first >= timeline.intervals[s][i - 1].first);
        }
      }
      const int chunks = type->model_chunks(shape);
      for (int g = 0; g < chunks; ++g)
        for (int j = 0; j < shape.micro_batches; ++j) {
          if (g > 0) CHECK(when[{g, j, Pass::Forward}].first >= when[{g - 1, j, Pass::Forward}].second);
          if (g + 1 < chunks) CHECK(when[{g, j, Pass::Backward}].first >= when[{g + 1, j, Pass::Backward}].second);
          CHECK(when[{g, j, Pass::Backward}].first >= when[{g, j, Pass::Forward}].second);
        }
    }
}

TEST_CASE("schedule: max_in_flight is the peak of the schedule's own running count", "[schedule]") {
  for (const auto* type : pipeline_schedules())
    for (const auto& shape : shapes_for(*type))
      for (int stage = 0; stage < shape.stages; ++stage) {
        INFO(describe(*type, shape) << " stage " << stage);
        const int counted = peak_in_flight(pipeline_order(*type, shape, stage));
        CHECK(max_in_flight(*type, shape, stage) == counted);
        const int p = shape.stages;
        const int m = shape.micro_batches;
        const int v = shape.virtual_stages;
        if (type->name() == "gpipe") CHECK(counted == m);
        if (type->name() == "1f1b") CHECK(counted == std::min(p - stage, m));
        if (type->name() == "interleaved") CHECK(counted == std::min(2 * (p - stage - 1) + (v - 1) * p + 1, m * v));
      }
  // formulas.md: "1F1B keeps p micro-batches in flight on the first stage".
  CHECK(max_in_flight(named("1f1b"), {4, 8, 1}, 0) == 4);
}

TEST_CASE("schedule: interleaving multiplies stage 0's activations by 1 + (p-1)/(p·v)", "[schedule]") {
  // Korthikanti et al. 2022 §4.2.3 (their m is our v): stage 0 holds (v+1)·p - 1 chunk activations of
  // 1/v of a stage each once m >= 2p.
  for (int p : {2, 4, 8})
    for (int v : {2, 3, 4})
      for (int m : {2 * p, 4 * p}) {
        INFO("p=" << p << " v=" << v << " m=" << m);
        const int one_f_one_b = max_in_flight(named("1f1b"), {p, m, 1}, 0);
        CHECK(one_f_one_b == p);
        const double interleaved = peak_activation_micro_batches(named("interleaved"), {p, m, v}, 0);
        CHECK(interleaved == Approx(one_f_one_b * (1.0 + (p - 1.0) / (p * v))).epsilon(1e-12));
      }
}

TEST_CASE("schedule: rejects impossible shapes, naming the rule and values", "[schedule]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(pipeline_order(named("interleaved"), {4, 6, 2}, 0), Contains("(6)") && Contains("pp 4"));
  CHECK_THROWS_WITH(pipeline_order(named("interleaved"), {4, 8, 1}, 0), Contains("v >= 2") && Contains("v = 1"));
  CHECK_THROWS_WITH(pipeline_order(named("interleaved"), {1, 8, 2}, 0), Contains("pp >= 2"));
  CHECK_THROWS_WITH(pipeline_order(named("1f1b"), {4, 8, 2}, 0), Contains("v = 2"));
  CHECK_THROWS_WITH(max_in_flight(named("gpipe"), {0, 8, 1}, 0), Contains("p = 0"));
  CHECK_THROWS_WITH(ideal_bubble_fraction(named("1f1b"), {4, 0, 1}, {}), Contains("m = 0"));
  CHECK_THROWS_WITH(evaluate_pipeline(named("interleaved"), {4, 8, 0}, {}), Contains("v = 0"));
  CHECK_THROWS_WITH(pipeline_order(named("dualpipe"), {3, 8, 1}, 0), Contains("even number of stages"));
  CHECK_THROWS_WITH(pipeline_order(named("dualpipe"), {4, 6, 1}, 0), Contains("at least 2p = 8"));
  CHECK_THROWS_AS(pipeline_order(named("gpipe"), {4, 8, 1}, 4), Error);
  CHECK_THROWS_AS(evaluate_pipeline(named("gpipe"), {4, 8, 1}, {0, 2, 0, 0}), Error);
  CHECK_THROWS_AS(evaluate_pipeline(named("zb-h1"), {4, 8, 1}, {1, 2, 0, 0}), Error);  // split needs W > 0
}

TEST_CASE("schedule: the chart shows each pass in its slot and both bubbles", "[schedule]") {
  const auto chart = render_pipeline_schedule(named("1f1b"), {2, 2, 1});
  // p = 2, m = 2, unit forward and 2-slot backward: stage 1 starts one slot late and stage 0 waits
  // for B0 to come back; bubble (p-1)/(m+p-1) = 1/3 both ways.
  CHECK_THAT(chart, Catch::Matchers::Contains("stage 0: F0 F1 .  .  B0 B0 .  B1 B1"));
  CHECK_THAT(chart, Catch::Matchers::Contains("stage 1: .  F0 B0 B0 F1 B1 B1"));
  CHECK_THAT(chart, Catch::Matchers::Contains("0.3333 simulated, 0.3333 closed form"));
  // ZB-H1 on the same shape: B then W one slot each; the last stage keeps one W pending.
  const auto zb = render_pipeline_schedule(named("zb-h1"), {2, 2, 1});
  CHECK_THAT(zb, Catch::Matchers::Contains("stage 1: .  F0 B0 F1 B1 W0 W1"));
}
