// Pipeline schedules (GPipe, 1F1B, interleaved 1F1B): every pass runs once and in a legal order,
// the zero-communication makespan gives the closed-form bubbles of formulas.md, and the in-flight
// counts are what the step lists themselves hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/Errors.hpp"
#include "parallel/PipelineSchedule.hpp"

using namespace clearfog;
using namespace clearfog::parallel;
using Pass = PipelineStep::Pass;

namespace {

/// Shapes each schedule accepts: m below, at and above p; interleaved only with m % p == 0.
std::vector<PipelineShape> shapes_for(PipelineScheduleKind kind) {
  std::vector<PipelineShape> shapes;
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {1, 2, 3, 4, 6, 8, 12, 16}) {
      if (kind != PipelineScheduleKind::Interleaved) {
        shapes.push_back({p, m, 1});
      } else if (m % p == 0) {
        for (int v : {2, 3, 4}) shapes.push_back({p, m, v});
      }
    }
  return shapes;
}

std::string describe(PipelineScheduleKind kind, const PipelineShape& s) {
  return std::string(pipeline_schedule_name(kind)) + " p=" + std::to_string(s.stages) +
         " m=" + std::to_string(s.micro_batches) + " v=" + std::to_string(s.virtual_stages);
}

/// Running count of passes whose forward has run and whose backward has not, at its peak.
int peak_in_flight(const std::vector<PipelineStep>& steps) {
  int now = 0;
  int peak = 0;
  for (const auto& step : steps) {
    now += step.pass == Pass::Forward ? 1 : -1;
    peak = std::max(peak, now);
  }
  return peak;
}

}  // namespace

TEST_CASE("parallel::PipelineSchedule: every stage runs each forward and backward once, forward first",
          "[parallel]") {
  for (auto kind : kAllPipelineSchedules)
    for (const auto& shape : shapes_for(kind))
      for (int stage = 0; stage < shape.stages; ++stage) {
        INFO(describe(kind, shape) << " stage " << stage);
        const auto steps = pipeline_schedule(kind, shape, stage);
        REQUIRE(steps.size() == 2u * shape.micro_batches * shape.virtual_stages);
        std::map<std::tuple<int, int, Pass>, std::size_t> position;  // (micro-batch, chunk, pass) -> index
        for (std::size_t i = 0; i < steps.size(); ++i) {
          const auto& s = steps[i];
          REQUIRE(s.micro_batch >= 0);
          REQUIRE(s.micro_batch < shape.micro_batches);
          REQUIRE(s.chunk >= 0);
          REQUIRE(s.chunk < shape.virtual_stages);
          REQUIRE(position.emplace(std::tuple{s.micro_batch, s.chunk, s.pass}, i).second);  // no repeat
        }
        for (const auto& [key, index] : position)
          if (std::get<2>(key) == Pass::Backward)
            CHECK(position.at({std::get<0>(key), std::get<1>(key), Pass::Forward}) < index);
      }
}

TEST_CASE("parallel::PipelineSchedule: GPipe runs all forwards, then all backwards in micro-batch order",
          "[parallel]") {
  const PipelineShape shape{4, 6, 1};
  for (int stage = 0; stage < shape.stages; ++stage) {
    const auto steps = pipeline_schedule(PipelineScheduleKind::GPipe, shape, stage);
    for (int j = 0; j < shape.micro_batches; ++j) {
      CHECK(steps[j].pass == Pass::Forward);
      CHECK(steps[j].micro_batch == j);
      CHECK(steps[shape.micro_batches + j].pass == Pass::Backward);
      CHECK(steps[shape.micro_batches + j].micro_batch == j);
    }
  }
}

TEST_CASE("parallel::PipelineSchedule: 1F1B warms up with p - stage - 1 forwards, then alternates",
          "[parallel]") {
  const PipelineShape shape{4, 8, 1};
  for (int stage = 0; stage < shape.stages; ++stage) {
    const auto steps = pipeline_schedule(PipelineScheduleKind::OneFOneB, shape, stage);
    const int warmup = shape.stages - stage - 1;
    for (int k = 0; k < warmup; ++k) CHECK(steps[k].pass == Pass::Forward);
    // Steady state: forward warmup + k, then backward k, for every remaining micro-batch.
    for (int k = 0; k < shape.micro_batches - warmup; ++k) {
      CHECK(steps[warmup + 2 * k].pass == Pass::Forward);
      CHECK(steps[warmup + 2 * k].micro_batch == warmup + k);
      CHECK(steps[warmup + 2 * k + 1].pass == Pass::Backward);
      CHECK(steps[warmup + 2 * k + 1].micro_batch == k);
    }
  }
}

TEST_CASE("parallel::PipelineSchedule: interleaved takes micro-batches in groups of p per chunk",
          "[parallel]") {
  const PipelineShape shape{2, 4, 2};
  const auto steps = pipeline_schedule(PipelineScheduleKind::Interleaved, shape, 1);
  // The k-th forward is chunk (k / p) % v of micro-batch (k / (p·v))·p + k % p; backwards walk the
  // chunks in reverse. Stage 1 of 2 warms up with (v - 1)·p = 2 forwards.
  std::vector<std::pair<int, int>> forwards;
  std::vector<std::pair<int, int>> backwards;
  for (const auto& s : steps)
    (s.pass == Pass::Forward ? forwards : backwards).emplace_back(s.micro_batch, s.chunk);
  const int p = shape.stages;
  const int v = shape.virtual_stages;
  for (int k = 0; k < shape.micro_batches * v; ++k) {
    const int micro_batch = k / (p * v) * p + k % p;
    CHECK(forwards[k] == std::pair{micro_batch, (k / p) % v});
    CHECK(backwards[k] == std::pair{micro_batch, v - 1 - (k / p) % v});
  }
  CHECK(steps[0].pass == Pass::Forward);
  CHECK(steps[1].pass == Pass::Forward);
  CHECK(steps[2].pass == Pass::Forward);
  CHECK(steps[3].pass == Pass::Backward);
}

TEST_CASE("parallel::PipelineSchedule: zero-communication bubble of GPipe and 1F1B is (p-1)/(m+p-1)",
          "[parallel]") {
  for (auto kind : {PipelineScheduleKind::GPipe, PipelineScheduleKind::OneFOneB})
    for (const auto& shape : shapes_for(kind))
      for (double backward_over_forward : {2.0, 1.0, 3.0, 0.5}) {
        INFO(describe(kind, shape) << " t_b/t_f " << backward_over_forward);
        const double t_f = 1.5;
        const double t_b = backward_over_forward * t_f;
        const auto timeline = evaluate_pipeline(kind, shape, t_f, t_b);
        const int p = shape.stages;
        const int m = shape.micro_batches;
        // Fill and drain cost (p - 1)·(t_f + t_b) on top of the m·(t_f + t_b) of work.
        CHECK(timeline.makespan == Approx((m + p - 1) * (t_f + t_b)).epsilon(1e-12));
        const double expected = static_cast<double>(p - 1) / (m + p - 1);
        CHECK(timeline.bubble_fraction == Approx(expected).margin(1e-9));
        CHECK(ideal_bubble_fraction(kind, shape) == Approx(expected).margin(1e-15));
      }
}

TEST_CASE("parallel::PipelineSchedule: zero-communication bubble of interleaved is ((p-1)/v)/(m+(p-1)/v)",
          "[parallel]") {
  const auto kind = PipelineScheduleKind::Interleaved;
  for (const auto& shape : shapes_for(kind))
    for (double backward_over_forward : {2.0, 1.0, 3.0, 0.5}) {
      INFO(describe(kind, shape) << " t_b/t_f " << backward_over_forward);
      const double t_f = 1.0;
      const double t_b = backward_over_forward * t_f;
      const auto timeline = evaluate_pipeline(kind, shape, t_f, t_b);
      const double fill = static_cast<double>(shape.stages - 1) / shape.virtual_stages;
      CHECK(timeline.makespan == Approx((shape.micro_batches + fill) * (t_f + t_b)).epsilon(1e-12));
      CHECK(timeline.bubble_fraction == Approx(fill / (shape.micro_batches + fill)).margin(1e-9));
      CHECK(ideal_bubble_fraction(kind, shape) == Approx(fill / (shape.micro_batches + fill)).margin(1e-15));
    }
}

TEST_CASE("parallel::PipelineSchedule: the timeline honours the model-order dependencies", "[parallel]") {
  // Stage s chunk c is model chunk c·p + s: a forward starts after the previous model chunk's
  // forward of the same micro-batch ends, a backward after the next one's backward ends.
  for (auto kind : kAllPipelineSchedules)
    for (const auto& shape : shapes_for(kind)) {
      INFO(describe(kind, shape));
      const auto timeline = evaluate_pipeline(kind, shape, 1.0, 2.0);
      const int p = shape.stages;
      std::map<std::tuple<int, int, Pass>, std::pair<double, double>> when;  // (model chunk, mb, pass)
      for (int s = 0; s < p; ++s) {
        const auto steps = pipeline_schedule(kind, shape, s);
        REQUIRE(timeline.busy[s].size() == steps.size());
        for (std::size_t i = 0; i < steps.size(); ++i) {
          when[{steps[i].chunk * p + s, steps[i].micro_batch, steps[i].pass}] = timeline.busy[s][i];
          if (i > 0) CHECK(timeline.busy[s][i].first >= timeline.busy[s][i - 1].second);
        }
      }
      const int chunks = p * shape.virtual_stages;
      for (int g = 0; g < chunks; ++g)
        for (int j = 0; j < shape.micro_batches; ++j) {
          if (g > 0) CHECK(when[{g, j, Pass::Forward}].first >= when[{g - 1, j, Pass::Forward}].second);
          if (g + 1 < chunks) CHECK(when[{g, j, Pass::Backward}].first >= when[{g + 1, j, Pass::Backward}].second);
          CHECK(when[{g, j, Pass::Backward}].first >= when[{g, j, Pass::Forward}].second);
        }
    }
}

TEST_CASE("parallel::PipelineSchedule: max_in_flight is the peak of the schedule's own running count",
          "[parallel]") {
  for (auto kind : kAllPipelineSchedules)
    for (const auto& shape : shapes_for(kind))
      for (int stage = 0; stage < shape.stages; ++stage) {
        INFO(describe(kind, shape) << " stage " << stage);
        const int counted = peak_in_flight(pipeline_schedule(kind, shape, stage));
        CHECK(max_in_flight(kind, shape, stage) == counted);
        const int p = shape.stages;
        const int m = shape.micro_batches;
        const int v = shape.virtual_stages;
        switch (kind) {
          case PipelineScheduleKind::GPipe: CHECK(counted == m); break;
          case PipelineScheduleKind::OneFOneB: CHECK(counted == std::min(p - stage, m)); break;
          case PipelineScheduleKind::Interleaved:
            CHECK(counted == std::min(2 * (p - stage - 1) + (v - 1) * p + 1, m * v));
            break;
        }
      }
  // formulas.md: "1F1B keeps p micro-batches in flight on the first stage".
  CHECK(max_in_flight(PipelineScheduleKind::OneFOneB, {4, 8, 1}, 0) == 4);
}

TEST_CASE("parallel::PipelineSchedule: interleaving multiplies stage 0's activations by 1 + (p-1)/(p·v)",
          "[parallel]") {
  // formulas.md quotes Korthikanti et al. 2022 §4.2.3 as "(1 + (p−1)/(p·m))"; there m is the number of
  // interleaved chunks, our v, not the micro-batch count. What holds exactly: stage 0 holds
  // (v+1)·p - 1 chunk activations of 1/v of a stage each, i.e. p·(1 + (p-1)/(p·v)) micro-batches'
  // worth, once m·v is large enough not to cap the warm-up (m >= 2p suffices).
  for (int p : {2, 4, 8})
    for (int v : {2, 3, 4})
      for (int m : {2 * p, 4 * p}) {
        INFO("p=" << p << " v=" << v << " m=" << m);
        const PipelineShape shape{p, m, v};
        const int one_f_one_b = max_in_flight(PipelineScheduleKind::OneFOneB, {p, m, 1}, 0);
        CHECK(one_f_one_b == p);
        const double interleaved = peak_activation_micro_batches(PipelineScheduleKind::Interleaved, shape, 0);
        CHECK(interleaved == Approx(one_f_one_b * (1.0 + (p - 1.0) / (p * v))).epsilon(1e-12));
      }
}

TEST_CASE("parallel::PipelineSchedule: rejects impossible shapes, naming the rule and values", "[parallel]") {
  using Catch::Matchers::Contains;
  const auto interleaved = PipelineScheduleKind::Interleaved;
  SECTION("interleaved with m not a multiple of p") {
    CHECK_THROWS_WITH(pipeline_schedule(interleaved, {4, 6, 2}, 0),
                      Contains("m % p == 0") && Contains("m = 6") && Contains("p = 4"));
  }
  SECTION("interleaved with a single chunk") {
    CHECK_THROWS_WITH(pipeline_schedule(interleaved, {4, 8, 1}, 0), Contains("v >= 2") && Contains("v = 1"));
  }
  SECTION("several chunks without interleaving") {
    CHECK_THROWS_WITH(pipeline_schedule(PipelineScheduleKind::OneFOneB, {4, 8, 2}, 0), Contains("v = 2"));
  }
  SECTION("zero stages") {
    CHECK_THROWS_WITH(max_in_flight(PipelineScheduleKind::GPipe, {0, 8, 1}, 0), Contains("p = 0"));
  }
  SECTION("zero micro-batches") {
    CHECK_THROWS_WITH(ideal_bubble_fraction(PipelineScheduleKind::OneFOneB, {4, 0, 1}), Contains("m = 0"));
  }
  SECTION("zero chunks") {
    CHECK_THROWS_WITH(evaluate_pipeline(interleaved, {4, 8, 0}, 1, 2), Contains("v = 0"));
  }
  SECTION("a stage outside the pipeline") {
    CHECK_THROWS_AS(pipeline_schedule(PipelineScheduleKind::GPipe, {4, 8, 1}, 4), Error);
  }
  SECTION("a non-positive pass time") {
    CHECK_THROWS_AS(evaluate_pipeline(PipelineScheduleKind::GPipe, {4, 8, 1}, 0, 2), Error);
  }
}

TEST_CASE("parallel::PipelineSchedule: the chart shows each pass in its slot and both bubbles", "[parallel]") {
  const auto chart = render_pipeline_schedule(PipelineScheduleKind::OneFOneB, {2, 2, 1});
  // p = 2, m = 2, unit forward and 2-slot backward: stage 1 starts one slot late and stage 0 waits
  // for B0 to come back; bubble (p-1)/(m+p-1) = 1/3 both ways.
  CHECK_THAT(chart, Catch::Matchers::Contains("stage 0: F0 F1 .  .  B0 B0 .  B1 B1"));
  CHECK_THAT(chart, Catch::Matchers::Contains("stage 1: .  F0 B0 B0 F1 B1 B1"));
  CHECK_THAT(chart, Catch::Matchers::Contains("0.3333 simulated, 0.3333 closed form"));
}
