#include "schedule/PipelineSchedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "core/Errors.hpp"

namespace clearfog::schedule {

int PipelineScheduleType::chunks_per_device(const PipelineShape&) const { return 1; }

int PipelineScheduleType::model_chunks(const PipelineShape& shape) const {
  return shape.stages * chunks_per_device(shape);
}

int PipelineScheduleType::direction_of(const PipelineShape&, int) const { return 0; }

ChunkPlace PipelineScheduleType::place(const PipelineShape& shape, int stage, int chunk) const {
  return {chunk * shape.stages + stage, 0};
}

int PipelineScheduleType::stage_of(const PipelineShape& shape, int model_chunk, int) const {
  return model_chunk % shape.stages;
}

void PipelineScheduleType::check(const PipelineShape& shape) const {
  const auto n = name();
  if (shape.stages < 1) throw Error(fmt::format("{} pipeline: stages must be >= 1, got p = {}", n, shape.stages));
  if (shape.micro_batches < 1)
    throw Error(fmt::format("{} pipeline: micro-batches must be >= 1, got m = {}", n, shape.micro_batches));
  if (shape.virtual_stages != 1)
    throw Error(fmt::format("{} pipeline: holds one model chunk per device (v = 1), got v = {}; use interleaved for "
                            "v >= 2",
                            n, shape.virtual_stages));
}

const PipelineScheduleType* find_pipeline_schedule(std::string_view name) {
  for (const auto* type : pipeline_schedules())
    if (type->name() == name) return type;
  return nullptr;
}

std::vector<std::string> pipeline_schedule_names() {
  std::vector<std::string> names;
  for (const auto* type : pipeline_schedules()) names.emplace_back(type->name());
  return names;
}

const PipelineScheduleType& pipeline_schedule(std::string_view name) {
  if (const auto* type = find_pipeline_schedule(name)) return *type;
  throw Error(fmt::format("unknown pipeline schedule \"{}\"; allowed: {}", name,
                          fmt::join(pipeline_schedule_names(), ", ")));
}

std::vector<PipelineStep> pipeline_order(const PipelineScheduleType& type, const PipelineShape& shape, int stage) {
  type.check(shape);
  if (stage < 0 || stage >= shape.stages)
    throw Error(fmt::format("pipeline schedule: stage must be in 0 … p-1 = {}, got {}", shape.stages - 1, stage));
  return type.order(shape, stage);
}

int max_in_flight(const PipelineScheduleType& type, const PipelineShape& shape, int stage) {
  using P = PipelineStep::Pass;  // not `Pass`: schedule files alias that at namespace scope
  int held = 0, peak = 0;
  for (const auto& step : pipeline_order(type, shape, stage)) {
    if (step.pass == P::Forward) peak = std::max(peak, ++held);
    if (step.pass == P::Backward || step.pass == P::BackwardWeight) --held;
  }
  return peak;
}

double peak_activation_micro_batches(const PipelineScheduleType& type, const PipelineShape& shape, int stage) {
  return static_cast<double>(max_in_flight(type, shape, stage)) * shape.stages / type.model_chunks(shape);
}

int chunk_passes_per_device(const PipelineScheduleType& type, const PipelineShape& shape) {
  return shape.micro_batches * type.model_chunks(shape) / shape.stages;
}

double ideal_bubble_fraction(const PipelineScheduleType& type, const PipelineShape& shape, const PassTimes& t) {
  type.check(shape);
  const double bubble = type.closed_form_bubble(shape, t);
  return bubble / (bubble + chunk_passes_per_device(type, shape) * (t.forward + t.backward));
}

}  // namespace clearfog::schedule
