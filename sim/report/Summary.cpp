#include "report/Summary.hpp"

#include <fmt/format.h>

#include "config/AcceleratorCalibration.hpp"
#include "config/WorkloadTypeSchema.hpp"
#include "core/Units.hpp"
#include "workload/WorkloadType.hpp"

namespace clearfog::report {
namespace {

using units::Dimension;

std::string t(double s) { return units::format(s, Dimension::Time); }
std::string bytes(double b) { return units::format(b, Dimension::Bytes); }
std::string pct(double fraction) { return fmt::format("{:.1f} %", 100.0 * fraction); }

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

// A bucket closes at the first whole gradient tensor that takes it to the configured size, so the
// buckets are often larger than that size: print what they are.
std::string bucket_text(const config::ScenarioSpec& s, const StepMetrics& m) {
  return fmt::format("at least {}, {} on average", bytes(s.training.bucket_size_B),
                     bytes(m.gradient_bytes / static_cast<double>(m.buckets)));
}

/// The breakdown of a step imported from traces (docs/interop.md): per device, the busiest one's
/// compute by category and the collectives off the compute stream; no memory estimate.
std::string imported_breakdown(const StepMetrics& m) {
  std::string o;
  auto line = [&o](std::string_view label, const std::string& value) { o += fmt::format("  {:<24}{}\n", label, value); };
  o += "\nCompute, per device\n";
  line("forward", t(m.forward_s));
  line("backward", t(m.backward_s));
  line("optimizer step", t(m.optimizer_s));
  line("busy", fmt::format("{} ({} of the step)", t(m.compute_busy_s), pct(share(m.compute_busy_s, m.step_time_s))));
  o += "\nCommunication, per device\n";
  line("dp_comm collectives", fmt::format("{} (off the compute stream; collectives without a category count here)",
                                          t(m.dp_comm_s)));
  line("exposed", fmt::format("{} ({} of the step: the busiest device waits for communication)", t(m.exposed_comm_s),
                              pct(share(m.exposed_comm_s, m.step_time_s))));
  o += "\nMemory per device: unknown (an imported trace has no model to estimate it from)\n";
  return o;
}

/// What ran: the scenario, its platform (and second kind of device), workload, batch and framework.
std::string header_text(const config::ScenarioSpec& s, const StepMetrics& m) {
  const auto& acc = s.platform.accelerator;
  const auto& w = s.workload;
  const auto& tr = s.training;
  std::string o;
  auto line = [&o](std::string_view label, const std::string& value) { o += fmt::format("  {:<24}{}\n", label, value); };
  o += fmt::format("clearfog {} — scenario {}\n", CLEARFOG_VERSION, s.name);
  line("platform", fmt::format("{}: {} x {}, {} links of {} per direction", s.platform.name,
                               s.platform.device_count(), acc.name, config::node_topology_name(s.platform.node.topology),
                               units::format(s.platform.node.link.bandwidth_Bps, Dimension::Bandwidth)));
  if (const auto& mixed = s.platform.mixed)
    line("mixed", fmt::format("the {} devices of nodes {} are {}", mixed->nodes.size() * s.platform.node.devices,
                              fmt::join(mixed->nodes, ", "), mixed->accelerator.name));
  line("workload", m.described ? fmt::format("{} ({}): {} ({:.4g} B parameters)", w.name, w.type,
                                             workload::workload_type(w.type).shape_text(w), m.parameters / 1e9)
                               : fmt::format("{} ({}): {}", w.name, w.type, workload::workload_type(w.type).shape_text(w)));
  if (!m.described)
    line("training", fmt::format("global batch {} (for the throughput: the traces fix the work), {}", tr.global_batch,
                                 dtype_name(tr.precision)));
  else
  line("training", fmt::format("global batch {} = dp {} x micro-batch {} x {} micro-batches, {}, {}{}",
                               tr.global_batch, s.parallelism.dp, tr.micro_batch, s.micro_batches_per_replica(),
                               dtype_name(tr.precision), config::optimizer_name(tr.optimizer),
                               tr.attention == config::Attention::Fused
                                   ? fmt::format(", fused attention ({})", attention_kernel_name(tr.attention_kernel))
                                   : ""));
  line("framework", s.framework.name.empty() ? std::string("(none: built in code)") : s.framework.name);
  // Efficiencies no measurement backs: where the step is most likely off (docs/calibration.md).
  const auto gaps = config::uncalibrated_values(s);
  for (std::size_t i = 0; i < gaps.size(); ++i)
    line(i == 0 ? "uncalibrated" : "", fmt::format("{} {}: {}", gaps[i].accelerator, gaps[i].key, gaps[i].why));
  if (!s.platform.collectives.calibrated)
    line("collectives", "ideal: the platform gives no collectives.efficiency (links at their nominal bandwidth, "
                        "no per-step overhead); measured figures: docs/collectives.md");
  // Said only where auto departs from a message per algorithm step.
  if (s.collectives.fidelity_auto && s.collectives.fidelity == config::Fidelity::Fluid)
    line("simulation", fmt::format("fluid collectives (collectives.fidelity auto: {} devices > {}; step gives a "
                                   "message per algorithm step, in minutes at this scale)",
                                   s.platform.device_count(), config::kAutoStepMaxDevices));
  return o;
}

/// Appends "  label                   value" rows to `o`.
auto row_writer(std::string& o) {
  return [&o](std::string_view label, const std::string& value) { o += fmt::format("  {:<24}{}\n", label, value); };
}

/// The layout and what its axes cost, where there is more than data parallelism.
std::string parallelism_rows(const config::ScenarioSpec& s, const StepMetrics& m) {
  std::string o;
  const auto line = row_writer(o);
  if (s.parallelism.tp > 1 || s.parallelism.pp > 1 || s.parallelism.zero_stage > 0 ||
      s.training.recompute != config::Recompute::None || (s.parallelism.ep > 1 && config::workload_traits(s.workload.type).embedding_tables)) {
    const auto& p = s.parallelism;
    line("parallelism", fmt::format("tp {} x pp {} x dp {}{}{}, schedule {} (v = {}), ZeRO {}, recompute {}", p.tp, p.pp,
                                    p.dp, p.ep > 1 ? fmt::format(" (ep {})", p.ep) : std::string(),
                                    p.sequence_parallel ? " (sequence parallel)" : "",
                                    p.schedule, p.virtual_stages, p.zero_stage,
                                    config::recompute_name(s.training.recompute)));
    line("TFLOP/s per GPU", fmt::format("{:.1f} (Megatron Eq. 3, counts recomputation); HFU {}",
                                        m.megatron_tflops_per_gpu / 1e12, pct(m.hfu)));
    if (p.pp > 1)
      line("pipeline bubble", fmt::format("{} of the step (ideal {}): stage {}, the one idle longest before its last "
                                          "backward",
                                          pct(m.bubble_fraction), pct(m.ideal_bubble_fraction), m.bubble_stage));
    const auto hidden = [&](double x) { return x > 0 ? fmt::format("; {} more ran behind compute", t(x)) : ""; };
    line("tensor-parallel comm", fmt::format("{} (on the critical path{})", t(m.tp_comm_s), hidden(m.tp_hidden_s)));
    if (m.expert_load.moe_layers > 0)
      line("experts", fmt::format("{} MoE layers, {} routing: busiest expert rank {:.3f} x the mean, {} of the "
                                  "token copies dropped",
                                  m.expert_load.moe_layers, config::routing_name(s.moe.routing),
                                  m.expert_load.imbalance, pct(m.expert_load.dropped_share)));
    if (p.ep > 1 && config::workload_traits(s.workload.type).embedding_tables)  // tables over ep (docs/dlrm.md)
      line("embedding comm", fmt::format("{} (index and pooled-embedding all-to-alls, row-wise reduce-scatters; "
                                         "waits for the busiest table owner included)",
                                         t(m.ep_comm_s)));
    else if (p.ep > 1)
      line("expert-parallel comm", fmt::format("{} (all-to-alls on the critical path, waits for the busiest expert "
                                               "rank included{})",
                                               t(m.ep_comm_s), hidden(m.ep_hidden_s)));
    line("data-parallel exposed", t(m.dp_exposed_s));
    if (m.stage_busy_s.size() > 1) {
      std::string busy;
      for (double b : m.stage_busy_s) busy += (busy.empty() ? "" : ", ") + t(b);
      line("busy per stage", busy);
    }
  }
  return o;
}

/// Compute per device: passes, busy time, interference, stragglers.
std::string compute_rows(const config::ScenarioSpec& s, const StepMetrics& m) {
  std::string o;
  const auto line = row_writer(o);
  // A mixed platform's pass times are priced on its first kind (the simulated "busy per stage" above
  // has every stage on its own kind).
  o += s.platform.mixed ? fmt::format("\nCompute, per device (passes priced on the {}; busy: every stage as simulated)\n",
                                      s.platform.accelerator.name)
                        : std::string("\nCompute, per device\n");
  line("forward", fmt::format("{} ({} per micro-batch)", t(m.forward_s), t(m.forward_s / s.micro_batches_per_replica())));
  line("backward", fmt::format("{} ({} per micro-batch)", t(m.backward_s), t(m.backward_s / s.micro_batches_per_replica())));
  line("optimizer step", t(m.optimizer_s));
  line("busy", fmt::format("{} ({} of the step)", t(m.compute_busy_s), pct(share(m.compute_busy_s, m.step_time_s))));
  if (m.interference_factor != 1)
    line("beside collectives", fmt::format("{} of it: kernels ran {:.3g}x slower while a collective ran beside them "
                                           "(collectives.interference)",
                                           t(m.interference_s), m.interference_factor));
  if (s.stragglers.any())
    line("stragglers", fmt::format("device {} computes longest, {}; the least busy device computes {} and waits the "
                                   "{} difference for it in collectives and pipeline receives",
                                   m.busiest_device, t(m.compute_busy_s), t(m.least_busy_s),
                                   t(m.compute_busy_s - m.least_busy_s)));
  return o;
}

/// Communication per device: the data-parallel reduction, what hid, what was exposed, pipeline waits.
std::string communication_rows(const config::ScenarioSpec& s, const StepMetrics& m) {
  std::string o;
  const auto line = row_writer(o);
  o += "\nCommunication, per device\n";
  if (m.buckets == 0) {
    line("gradient all-reduce", "none (dp = 1)");
  } else if (s.parallelism.zero_stage == 0) {
    line("gradient all-reduce", fmt::format("{} in {} all-reduces (buckets of {}), {} of gradients", t(m.dp_comm_s),
                                            m.buckets, bucket_text(s, m), bytes(m.gradient_bytes)));
  } else {
    // ZeRO: the data-parallel time also holds the parameter all-gathers (docs/parallelism.md).
    const int zero = s.parallelism.zero_stage;
    const auto& par = s.parallelism;
    const std::string hybrid =
        par.hybrid_sharding() ? fmt::format(" within groups of {} replicas, each shard then all-reduced over the {} "
                                            "groups (hybrid sharding)",
                                            par.shard_degree(), par.dp / par.shard_degree())
                              : std::string();
    line("data-parallel comm",
         fmt::format("{}: {} gradient buckets ({}) reduce-scattered {}{}, {}; {} of gradients", t(m.dp_comm_s),
                     m.buckets, bucket_text(s, m), s.reduces_every_micro_batch() ? "every micro-batch" : "once",
                     hybrid,
                     s.holds_unsharded_parameters()
                         ? "parameters all-gathered per layer once a step and held by the stage (FSDP2 under "
                           "pipeline parallelism)"
                     : zero >= 3                     ? "parameters all-gathered per layer in forward and backward"
                     : s.gathers_parameters_ahead() ? "updated parameters all-gathered behind the next forward"
                                                    : "updated parameters all-gathered",
                     bytes(m.gradient_bytes)));
  }
  if (m.buckets > 0)
    line("hidden behind backward", fmt::format("{} ({})", t(m.hidden_comm_s), pct(share(m.hidden_comm_s, m.dp_comm_s))));
  if (m.tied_comm_s > 0)
    line("tied gradients", fmt::format("{} (parameters two pipeline stages both hold, tied embeddings or mirrored "
                                       "chunks: their gradients summed between the two after the data-parallel "
                                       "reduction)",
                                       t(m.tied_comm_s)));
  line("exposed", fmt::format("{} ({} of the step: the busiest device waits for communication)", t(m.exposed_comm_s),
                              pct(share(m.exposed_comm_s, m.step_time_s))));
  if (s.parallelism.zero_stage >= 3)
    line("of which gathers", fmt::format("{} (the busiest device waits for parameter all-gathers the previous "
                                         "unit's compute did not hide)",
                                         t(m.gather_exposed_s)));
  if (m.collective_interference_factor != 1)
    line("beside kernels", fmt::format("{}: its sending collectives ran {:.3g}x slower while its kernels ran "
                                       "(collectives.interference.memory_share)",
                                       t(m.collective_interference_s), m.collective_interference_factor));
  if (m.pipeline_wait_s > 0)
    line("pipeline waits", fmt::format("{} ({} of the step: the busiest device, {}, waits on pipeline receives or for "
                                       "the other stages to finish)",
                                       t(m.pipeline_wait_s), pct(share(m.pipeline_wait_s, m.step_time_s)),
                                       m.busiest_device));
  if (m.host_bound_s > 0)
    line("host-bound", fmt::format("{} ({} of the step: the busiest device waits for its host to launch kernels; "
                                   "docs/host-time.md)",
                                   t(m.host_bound_s), pct(share(m.host_bound_s, m.step_time_s))));
  return o;
}

/// The memory estimate per device.
std::string memory_rows(const StepMetrics& m) {
  std::string o;
  const auto line = row_writer(o);
  const auto& mem = m.memory;
  o += fmt::format("\nMemory per device (estimate): {} of {} — {}\n", bytes(mem.total_B()), bytes(mem.capacity_B),
                   !mem.fits()       ? "DOES NOT FIT (status: oom; timing still simulated)"
                   : mem.near_limit() ? fmt::format("fits, with less than {:.0f} % free: runs this close to capacity "
                                                    "measure slower than modelled (allocator retries, fragmentation; "
                                                    "docs/validation.md), so the step may be optimistic",
                                                    100 * parallel::kNearMemoryLimitShare)
                                      : std::string("fits"));
  line("weights", bytes(mem.weights_B));
  line("gradients", bytes(mem.gradients_B));
  line("optimizer states", bytes(mem.optimizer_B));
  line("activations", bytes(mem.activations_B));
  line("buffers", bytes(mem.buffers_B));
  return o;
}

}  // namespace

std::string render_summary_text(const config::ScenarioSpec& s, const StepMetrics& m) {
  std::string o;
  const auto line = row_writer(o);

  o += header_text(s, m);
  o += "\nIteration\n";
  line("step time", t(m.step_time_s));
  line("throughput", m.tokens_per_s > 0
                         ? fmt::format("{:.1f} {}/s, {:.0f} tokens/s", m.samples_per_s, m.sample_unit, m.tokens_per_s)
                         : fmt::format("{:.1f} {}/s", m.samples_per_s, m.sample_unit));
  line("MFU", m.flops_known ? fmt::format("{} (model FLOPs {:.4g} PFLOP per step; peak {} per device)", pct(m.mfu),
                                         m.model_flops / 1e15, units::format(m.peak_flops_per_device, Dimension::FlopRate))
                            : std::string("unknown (the trace gives no FLOPs: num_ops on every compute node)"));

  o += parallelism_rows(s, m);
  if (!m.described) {
    o += imported_breakdown(m);
    o += fmt::format("\nSimulated {} ops and {} messages.\n", m.ops, m.messages);
    return o;
  }
  o += compute_rows(s, m) + communication_rows(s, m) + memory_rows(m);
  o += fmt::format("\nSimulated {} ops and {} messages.\n", m.ops, m.messages);
  return o;
}

nlohmann::ordered_json memory_json(const parallel::MemoryEstimate& memory) {
  return {{"weights_B", memory.weights_B},
          {"gradients_B", memory.gradients_B},
          {"optimizer_B", memory.optimizer_B},
          {"activations_B", memory.activations_B},
          {"buffers_B", memory.buffers_B},
          {"total_B", memory.total_B()},
          {"capacity_B", memory.capacity_B},
          {"fits", memory.fits()},
          {"near_limit", memory.near_limit()}};
}

nlohmann::ordered_json summary_json(const config::ScenarioSpec& s, const StepMetrics& m) {
  nlohmann::ordered_json j;
  j["clearfog_version"] = CLEARFOG_VERSION;
  j["scenario"] = s.name;
  j["platform"] = s.platform.name;
  j["accelerator"] = s.platform.accelerator.name;
  if (const auto& mixed = s.platform.mixed)
    j["mixed"] = {{"accelerator", mixed->accelerator.name}, {"nodes", mixed->nodes}};
  j["workload"] = s.workload.name;
  j["workload_type"] = s.workload.type;
  j["framework"] = s.framework.name;
  j["parameters"] = m.parameters;
  j["devices"] = s.platform.device_count();
  j["parallelism"] = {{"dp", s.parallelism.dp}, {"tp", s.parallelism.tp}, {"pp", s.parallelism.pp}};
  j["training"] = {{"global_batch", s.training.global_batch},
                   {"micro_batch", s.training.micro_batch},
                   {"micro_batches_per_replica", s.micro_batches_per_replica()},
                   {"precision", dtype_name(s.training.precision)},
                   {"optimizer", config::optimizer_name(s.training.optimizer)},
                   {"bucket_size_B", s.training.bucket_size_B},
                   {"attention", config::attention_name(s.training.attention)}};
  j["status"] = m.oom ? "oom" : "ok";
  j["step_time_s"] = m.step_time_s;
  j["samples_per_s"] = m.samples_per_s;
  j["sample_unit"] = m.sample_unit;
  j["tokens_per_s"] = m.tokens_per_s;
  j["model_flops_per_step"] = m.flops_known ? nlohmann::ordered_json(m.model_flops) : nlohmann::ordered_json();
  j["mfu"] = m.flops_known ? nlohmann::ordered_json(m.mfu) : nlohmann::ordered_json();
  j["compute"] = {{"forward_s", m.forward_s},
                  {"backward_s", m.backward_s},
                  {"optimizer_s", m.optimizer_s},
                  {"busy_s", m.compute_busy_s},
                  {"busiest_device", m.busiest_device},
                  {"least_busy_s", m.least_busy_s},
                  {"interference_s", m.interference_s},
                  {"idle_s", m.idle_s},
                  {"host_bound_s", m.host_bound_s}};
  j["communication"] = {{"dp_allreduce_s", m.dp_comm_s},
                        {"hidden_s", m.hidden_comm_s},
                        {"exposed_s", m.exposed_comm_s},
                        {"gather_exposed_s", m.gather_exposed_s},
                        {"pipeline_wait_s", m.pipeline_wait_s},
                        {"interference_s", m.collective_interference_s},
                        {"buckets", m.buckets},
                        {"gradient_bytes", m.gradient_bytes}};
  // An imported trace has no model: no parameters, no memory estimate (null, never 0).
  if (!m.described) j["parameters"] = nullptr;
  j["memory"] = m.described ? memory_json(m.memory) : nullptr;
  j["parallel"] = {{"sequence_parallel", s.parallelism.sequence_parallel},
                   {"virtual_stages", s.parallelism.virtual_stages},
                   {"schedule", s.parallelism.schedule},
                   {"zero_stage", s.parallelism.zero_stage},
                   {"shard_group", s.parallelism.shard_degree()},
                   {"recompute", config::recompute_name(s.training.recompute)},
                   {"megatron_tflops_per_gpu", m.megatron_tflops_per_gpu / 1e12},
                   {"hardware_flops_per_step", m.hardware_flops},
                   {"hfu", m.hfu},
                   {"bubble_fraction", m.bubble_fraction},
                   {"ideal_bubble_fraction", m.ideal_bubble_fraction},
                   {"tp_comm_s", m.tp_comm_s},
                   {"ep", s.parallelism.ep},
                   {"ep_comm_s", m.ep_comm_s},
                   {"tp_hidden_s", m.tp_hidden_s},
                   {"ep_hidden_s", m.ep_hidden_s},
                   {"moe_layers", m.expert_load.moe_layers},
                   {"expert_imbalance", m.expert_load.imbalance},
                   {"dropped_token_share", m.expert_load.dropped_share},
                   {"pp_wait_s", m.pp_wait_s},
                   {"dp_exposed_s", m.dp_exposed_s},
                   {"recompute_s", m.recompute_s},
                   {"stage_busy_s", m.stage_busy_s}};
  // Pipelines only: the sums of tied copies between two stages (absent without pipeline stages).
  if (s.parallelism.pp > 1) j["parallel"]["tied_comm_s"] = m.tied_comm_s;
  j["simulation"] = {{"ops", m.ops},
                     {"messages", m.messages},
                     {"collectives_fidelity", config::fidelity_name(s.collectives.fidelity)},
                     {"fidelity_auto", s.collectives.fidelity_auto},
                     {"collectives_calibrated", s.platform.collectives.calibrated}};
  auto& gaps = j["simulation"]["accelerator_uncalibrated"] = nlohmann::ordered_json::array();
  for (const auto& u : config::uncalibrated_values(s))
    gaps.push_back({{"accelerator", u.accelerator}, {"key", u.key}, {"why", u.why}});
  return j;
}

std::string render_replay_text(const engine::ReplayInfo& replay) {
  return fmt::format("Replay: {}, {} ops and {} messages simulated ({}).\n", replay.mode, replay.simulated_ops,
                     replay.simulated_messages, replay.detail);
}

nlohmann::ordered_json replay_json(const engine::ReplayInfo& replay) {
  return {{"mode", replay.mode},
          {"detail", replay.detail},
          {"simulated_ops", replay.simulated_ops},
          {"simulated_messages", replay.simulated_messages}};
}

}  // namespace clearfog::report
