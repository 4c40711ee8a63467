#include "report/StepMetrics.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "report/ComputeBusy.hpp"
#include "report/StreamWaits.hpp"


namespace clearfog::report {

namespace {

/// Total length of the union of [start, end) intervals.
double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, covered_to = -1e300;
  for (const auto& [start, end] : intervals) {
    const double from = std::max(start, covered_to);
    if (end > from) total += end - from;
    covered_to = std::max(covered_to, end);
  }
  return total;
}

/// Phase 1: the figures that follow from the plan and the step time alone (throughput, FLOPs,
/// MFU, the plan's per-device pass times).
void headline_figures(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                      const engine::SimulationResult& result, StepMetrics& m) {
  const auto& training = scenario.training;
  const int devices = scenario.platform.device_count();
  m.step_time_s = result.makespan_s;
  m.samples_per_s = training.global_batch / m.step_time_s;
  m.tokens_per_s = m.samples_per_s * step.tokens_per_sample;
  m.sample_unit = step.sample_unit;
  m.parameters = step.parameters;
  m.expert_load = step.expert_load;
  m.model_flops = step.model_flops;
  // A mixed platform: the mean of its devices' peaks, so that MFU is model FLOPs over all of them.
  m.peak_flops_per_device = scenario.platform.accelerator.peak(training.precision);
  if (const auto& mixed = scenario.platform.mixed) {
    const double share = static_cast<double>(mixed->nodes.size()) / scenario.platform.fabric.nodes;
    m.peak_flops_per_device = (1 - share) * m.peak_flops_per_device + share * mixed->accelerator.peak(training.precision);
  }
  m.mfu = m.model_flops / (m.step_time_s * devices * m.peak_flops_per_device);
  m.flops_known = step.flops_known;
  m.described = step.described;

  m.forward_s = step.forward_s * step.micro_batches;
  m.backward_s = step.backward_s * step.micro_batches;
  m.optimizer_s = step.optimizer_s;
  m.buckets = step.buckets.size();
  m.gradient_bytes = step.gradient_bytes;

  // Megatron SC21's "TFLOP/s per GPU" counts one recomputed forward of every layer (Eq. 3);
  // hardware FLOPs count what the plan executes, recomputation included (Korthikanti Eq. 8).
  m.megatron_tflops_per_gpu = step.megatron_flops / (m.step_time_s * devices);
  m.hardware_flops = step.hardware_flops;
  m.hfu = m.hardware_flops / (m.step_time_s * devices * m.peak_flops_per_device);
  m.recompute_s = step.recompute_s * step.micro_batches;
  m.ideal_bubble_fraction = step.ideal_bubble;
  m.stage_busy_s.assign(static_cast<std::size_t>(std::max(1, step.pp)), 0.0);
  m.interference_factor = step.plan.interference.compute;
  m.collective_interference_factor = step.plan.interference.collective;
}

/// Phase 3: the busiest device's idle time, split into what it waits for.
void split_idle(StepMetrics& m, double pp_wait_s, double host_wait_s, double gather_wait_s) {
  // With one compute stream, every moment of the step in which the busiest device does not compute
  // it waits: on pipeline receives (the bubble), for its host's launches, or else for communication.
  m.idle_s = std::max(0.0, m.step_time_s - m.compute_busy_s);
  m.pipeline_wait_s = std::min(m.idle_s, pp_wait_s);
  m.host_bound_s = std::min(m.idle_s - m.pipeline_wait_s, host_wait_s);
  m.exposed_comm_s = m.idle_s - m.pipeline_wait_s - m.host_bound_s;
  m.gather_exposed_s = std::min(m.exposed_comm_s, gather_wait_s);
}

/// Phase 4: hidden reduction, memory and counts.
void closing_figures(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                     const engine::SimulationResult& result, StepMetrics& m) {
  // What of the gradient reduction ran while the device still had backward work: the part that is
  // not in the step's tail (tensor-parallel collectives and the bubble are exposed, not hidden).
  m.hidden_comm_s = std::max(0.0, m.dp_comm_s - m.dp_exposed_s);
  if (step.described) m.memory = parallel::estimate_memory(scenario);
  m.oom = step.described && !m.memory.fits();
  m.ops = result.ops_executed;
  m.messages = result.messages;
}

}  // namespace

StepMetrics compute_step_metrics(const config::ScenarioSpec& scenario, const parallel::StepPlan& step,
                                 const engine::SimulationResult& result) {
  StepMetrics m;
  headline_figures(scenario, step, result, m);
  // Phase 2: each device's simulated timeline; the busiest device's figures are the step's.
  const int devices = scenario.platform.device_count();
  const int device_count = std::min(devices, step.plan.rank_count());
  ComputeBusy busy(step.plan, result);
  double busiest_pp_wait = 0;  // pipeline receive waits of the device with the most compute
  double busiest_host_wait = 0;  // its waits for host launches
  double busiest_gather_wait = 0;  // and for parameter all-gathers
  for (int r = 0; r < device_count; ++r) {
    double compute = 0, comm = 0, tp = 0, ep = 0, pp = 0, tied = 0, last_backward_end = 0, optimizer = 0,
           busy_before = 0;
    double slowed = 0;  // kernel time beyond the ops' own: interference
    double beside_kernels = 0;  // time its sending collectives ran beside its kernels
    const auto& program = step.plan.ranks[r];
    const auto n = static_cast<program::OpIndex>(program.size());
    for (program::OpIndex i = 0; i < n; ++i) {
      const auto& timing = result.ops[r][i];
      const double d = timing.duration_s();
      const program::OpHead op = program.head(i);
      if (op.stream == program::Stream::Compute) {
        if (op.kind == program::OpKind::Compute) {
          compute += d;
          // Only interference lengthens a kernel (a timer's rounding aside: none counted without it).
          if (m.interference_factor != 1)
            slowed += std::max(0.0, d - program.seconds(i));
        }
        if (op.category == program::Category::TensorParallelComm) tp += d;
        if (op.category == program::Category::ExpertParallelComm) ep += d;
        if (op.category == program::Category::PipelineComm) pp += d;
        if (op.category == program::Category::Optimizer) optimizer += d;
        if (op.category == program::Category::Backward || op.category == program::Category::Recompute)
          last_backward_end = std::max(last_backward_end, timing.end_s);
      } else if (op.category == program::Category::DataParallelComm) {
        comm += d;
      }
      if (op.category == program::Category::TiedGradientComm) tied += d;
      if (m.collective_interference_factor != 1 && program.sends_beside_compute(i))
        beside_kernels += d - busy.exposed(r, timing.start_s, timing.end_s);
    }
    // Pipeline waits in the tail (a last stage waiting for the first one before the tied
    // embeddings are summed) are drain; the sum of the tied copies and the last layer's tensor- or
    // expert-parallel collectives are their own communication: none of them is data-parallel.
    std::vector<std::pair<double, double>> drain;  // pipeline ops in the tail, clipped to it
    std::vector<std::pair<double, double>> not_data_parallel;  // drain, tied sums, layer collectives in the tail
    double drain_after_backward = 0, rank_end = 0, tp_hidden = 0, ep_hidden = 0;
    for (program::OpIndex i = 0; i < n; ++i) {
      const program::OpHead op = program.head(i);
      rank_end = std::max(rank_end, result.ops[r][i].end_s);
      // Tensor- and expert-parallel collectives moved off the compute stream (DualPipe's F&B
      // pairs): the part the compute stream waits for is exposed, the rest ran behind compute.
      const bool layer_comm =
          op.category == program::Category::TensorParallelComm || op.category == program::Category::ExpertParallelComm;
      if (layer_comm && op.stream != program::Stream::Compute) {
        const auto& timing = result.ops[r][i];
        const double exposed = busy.exposed(r, timing.start_s, timing.end_s);
        const bool expert = op.category == program::Category::ExpertParallelComm;
        (expert ? ep : tp) += exposed;
        (expert ? ep_hidden : tp_hidden) += timing.duration_s() - exposed;
        if (timing.end_s <= last_backward_end) busy_before += exposed;
      }
      if (result.ops[r][i].end_s > last_backward_end) {
        const std::pair<double, double> in_tail{std::max(result.ops[r][i].start_s, last_backward_end),
                                                result.ops[r][i].end_s};
        if (op.category == program::Category::PipelineComm) drain.push_back(in_tail);
        if (op.category == program::Category::PipelineComm || op.category == program::Category::TiedGradientComm ||
            (layer_comm && op.stream == program::Stream::Compute))
          not_data_parallel.push_back(in_tail);
      }
      if (op.stream != program::Stream::Compute || result.ops[r][i].end_s > last_backward_end) continue;
      if (op.kind == program::OpKind::Compute || op.category == program::Category::TensorParallelComm ||
          op.category == program::Category::ExpertParallelComm)
        busy_before += result.ops[r][i].duration_s();
    }
    drain_after_backward = union_length(drain);
    // Its pipeline waits: receives on the compute stream, and the drain after its last backward
    // (a last stage waiting for the first before the tied embeddings are summed; a stage done
    // before the others, until the step ends).
    if (r == 0 || compute > m.compute_busy_s)
      busiest_pp_wait = step.pp > 1 ? pp + drain_after_backward + (m.step_time_s - rank_end) : 0.0;
    if (r == 0 || compute > m.compute_busy_s) {
      busiest_host_wait = host_wait_s(program, result.ops[r]);
      busiest_gather_wait = stream_wait_s(program, result.ops[r], program::Stream::Gather);
      m.interference_s = slowed;
      m.collective_interference_s = beside_kernels * (1 - 1 / m.collective_interference_factor);
    }
    if (compute > m.compute_busy_s) m.busiest_device = r;
    m.least_busy_s = r == 0 ? compute : std::min(m.least_busy_s, compute);
    m.compute_busy_s = std::max(m.compute_busy_s, compute);
    m.dp_comm_s = std::max(m.dp_comm_s, comm);
    m.tp_comm_s = std::max(m.tp_comm_s, tp);
    m.ep_comm_s = std::max(m.ep_comm_s, ep);
    m.tp_hidden_s = std::max(m.tp_hidden_s, tp_hidden);
    m.ep_hidden_s = std::max(m.ep_hidden_s, ep_hidden);
    m.pp_wait_s = std::max(m.pp_wait_s, pp);
    m.tied_comm_s = std::max(m.tied_comm_s, tied);
    const std::size_t stage = step.stage_of_rank.empty() ? 0 : static_cast<std::size_t>(step.stage_of_rank[r]);
    const double bubble = (last_backward_end - busy_before) / m.step_time_s;
    if (step.pp > 1 && bubble > m.bubble_fraction) {
      m.bubble_fraction = bubble;
      m.bubble_stage = static_cast<int>(stage);
    }
    m.dp_exposed_s = std::max(m.dp_exposed_s,
                              rank_end - last_backward_end - optimizer - union_length(std::move(not_data_parallel)));
    if (stage < m.stage_busy_s.size()) m.stage_busy_s[stage] = std::max(m.stage_busy_s[stage], compute);
  }
  split_idle(m, busiest_pp_wait, busiest_host_wait, busiest_gather_wait);
  closing_figures(scenario, step, result, m);
  return m;
}

}  // namespace clearfog::report
