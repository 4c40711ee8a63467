#include "workload/types/ChakraType.hpp"

#include <fmt/format.h>

#include "config/CheckSupport.hpp"
#include "core/Errors.hpp"
#include "workload/types/ChakraRankFiles.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::KeySpec;
using config::KeyType;
using config::Presence;

std::string_view ChakraType::description() const {
  return "a step imported from Chakra execution traces, one file per device (docs/interop.md); "
         "`workload: {chakra: DIR}` implies it.";
}

std::vector<KeySpec> ChakraType::keys() const {
  return {
      {.path = "chakra",
       .description = "Directory of the traces, et.0.et .. et.<n-1>.et, one per device of the platform (relative "
                      "to the file that names it)."},
      {.path = "reprice",
       .type = KeyType::Bool,
       .presence = Presence::Defaulted,
       .default_text = "false",
       .description = "Price compute nodes by the kernel model from their FLOPs and bytes attributes instead of "
                      "keeping their traced durations."},
  };
}

std::shared_ptr<const config::WorkloadParams> ChakraType::build(const ConfigDocument& doc) const {
  auto params = std::make_shared<ChakraParams>();
  params->dir = resolve_chakra_dir(doc.get_string("chakra"), doc.file());
  params->reprice = doc.at("reprice").as_bool();
  return params;
}

void ChakraType::check(const ConfigDocument&, std::vector<Diagnostic>&) const {}

void ChakraType::check_scenario(const ConfigDocument& scenario, const ConfigDocument& workload,
                                std::vector<Diagnostic>& out) const {
  const ConfigDocument* platform = scenario.child("platform");
  const config::ConfigValue* dir = workload.find("chakra");
  if (!dir || !platform || !platform->complete() || !platform->find("node.devices")) return;
  const auto devices = platform->at("node.devices").as_integer() * platform->at("fabric.nodes").as_integer();
  const auto files = chakra_rank_files(resolve_chakra_dir(dir->as_string(), workload.file()), static_cast<int>(devices));
  if (files.problem) config::report_at(*dir, *files.problem, out);
}

ModelDescription ChakraType::describe(const config::WorkloadSpec& workload, const DescribeOptions&) const {
  throw Error(fmt::format("workload '{}' is a Chakra trace: it is imported, it has no model description",
                          workload.name));
}

std::string ChakraType::shape_text(const config::WorkloadSpec& workload) const {
  const auto& p = workload.as<ChakraParams>();
  return fmt::format("Chakra execution traces in {}{}", p.dir.string(), p.reprice ? ", repriced" : "");
}

config::WorkloadSpec make_chakra_workload(std::filesystem::path dir, bool reprice) {
  auto params = std::make_shared<ChakraParams>();
  params->dir = std::move(dir);
  params->reprice = reprice;
  config::WorkloadSpec spec;
  spec.name = params->dir.filename().string();
  spec.source = "Chakra execution traces";
  spec.type = "chakra";
  spec.params = std::move(params);
  return spec;
}

}  // namespace clearfog::workload
