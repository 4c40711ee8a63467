// The registry of gradient-compression methods: one line per method; each lives in its own file.
#include <fmt/format.h>

#include <algorithm>

#include "compression/GradCompression.hpp"
#include "core/Errors.hpp"

namespace clearfog::compression {

const GradCompressionMethod& no_compression();       // NoCompression.cpp
const GradCompressionMethod& powersgd_compression();  // PowerSgd.cpp
const GradCompressionMethod& topk_compression();      // TopK.cpp
const GradCompressionMethod& signsgd_compression();   // SignSgd.cpp
const GradCompressionMethod& qsgd_compression();      // Qsgd.cpp
const GradCompressionMethod& fp16_cast_compression(); // CastCompression.cpp
const GradCompressionMethod& bf16_cast_compression(); // CastCompression.cpp

const std::vector<const GradCompressionMethod*>& grad_compressions() {
  static const std::vector<const GradCompressionMethod*> all = {
      &no_compression(),     &powersgd_compression(),  &topk_compression(),      &signsgd_compression(),
      &qsgd_compression(),   &fp16_cast_compression(), &bf16_cast_compression()};
  return all;
}

const GradCompressionMethod* find_grad_compression(std::string_view name) {
  for (const auto* m : grad_compressions())
    if (m->name() == name) return m;
  return nullptr;
}

const GradCompressionMethod& grad_compression(std::string_view name) {
  if (const auto* m = find_grad_compression(name)) return *m;
  throw Error(fmt::format("unknown gradient compression \"{}\"; known: {}", name,
                          fmt::join(grad_compression_names(), ", ")));
}

std::vector<std::string> grad_compression_names() {
  std::vector<std::string> names;
  for (const auto* m : grad_compressions()) names.emplace_back(m->name());
  return names;
}

std::vector<std::string> grad_compressions_using(std::string_view parameter) {
  std::vector<std::string> names;
  for (const auto* m : grad_compressions()) {
    const auto used = m->parameters();
    if (std::find(used.begin(), used.end(), parameter) != used.end()) names.emplace_back(m->name());
  }
  return names;
}

double BucketInput::elements() const {
  double n = 0;
  for (const auto& t : tensors) n += t.elements;
  return n;
}

double BucketCompression::wire_bytes() const {
  double bytes = 0;
  for (const auto& r : rounds) bytes += r.bytes;
  return bytes;
}

double BucketCompression::encode_flops() const {
  double flops = 0;
  for (const auto& r : rounds)
    for (const auto& k : r.encode) flops += k.flops;
  return flops;
}

}  // namespace clearfog::compression
