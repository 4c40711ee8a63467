#pragma once
// Closed forms for a GPT model's FLOPs and parameters (../shared/reference/formulas.md).
#include "config/WorkloadSpec.hpp"

namespace clearfog::workload {

/// Megatron Eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)).
double megatron_parameter_count(const config::WorkloadSpec& w);
/// Model FLOPs of one iteration over `batch` sequences (Korthikanti Eq. 7, PaLM's MFU definition):
/// 72 B l s h^2 (1 + s/(6h) + V/(12 h l)).
double model_flops_per_iteration(const config::WorkloadSpec& w, double batch);
/// Megatron SC21 Eq. 3 (counts a full recomputation forward): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
double megatron_flops_per_iteration(const config::WorkloadSpec& w, double batch);

}  // namespace clearfog::workload
