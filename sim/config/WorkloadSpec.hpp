#pragma once
// A workload: its name, its type (transformer, cnn, ...) and that type's own parameters, which the
// type's file in workload/types/ defines, reads and turns into a model description.
#include <memory>
#include <string>
#include <typeinfo>

#include "core/Errors.hpp"

namespace clearfog::config {

/// The parameters of one workload type; each type derives its own (workload/types/*.hpp).
struct WorkloadParams {
  virtual ~WorkloadParams() = default;
};

struct WorkloadSpec {
  std::string name;
  std::string source;
  std::string type = "transformer";                 // `type:` of the workload file
  std::shared_ptr<const WorkloadParams> params;     // built by the type (never null once loaded)

  /// The parameters as `T`; throws clearfog::Error when the workload is of another type.
  template <typename T>
  [[nodiscard]] const T& as() const {
    if (const auto* p = dynamic_cast<const T*>(params.get())) return *p;
    throw Error("workload '" + name + "' (type " + type + ") does not have the parameters of " + typeid(T).name());
  }
};

}  // namespace clearfog::config
