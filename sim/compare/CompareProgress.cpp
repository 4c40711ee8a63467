#include "compare/CompareProgress.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "compare/CompareTable.hpp"

namespace clearfog::compare {

CompareProgress::CompareProgress(std::function<void(const std::string&)> sink, std::vector<std::string> platforms,
                                 std::vector<std::size_t> platform_of, std::string pass)
    : sink_(std::move(sink)), platforms_(std::move(platforms)), platform_of_(std::move(platform_of)),
      pass_(std::move(pass)), total_(platforms_.size()), done_(platforms_.size()) {
  for (const std::size_t p : platform_of_) ++total_[p];
  if (!sink_ || platform_of_.empty()) return;
  sink_(fmt::format("compare: {}: {} configurations to simulate ({})", pass_, platform_of_.size(), counts(false)));
}

void CompareProgress::finished(std::size_t i) {
  ++done_[platform_of_[i]];
  ++finished_;
  print(finished_ == platform_of_.size());
}

void CompareProgress::print(bool now) {
  const auto t = Clock::now();
  if (!sink_ || (!now && t - printed_ < kProgressEvery)) return;
  printed_ = t;
  sink_(fmt::format("compare: {}: {} ({:.0f} s)", pass_, counts(true),
                    std::chrono::duration<double>(t - started_).count()));
}

std::string CompareProgress::counts(bool done) const {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < total_.size(); ++i) {
    if (total_[i] == 0) continue;
    const std::string name = short_platform_name(platforms_[i]);
    parts.push_back(done ? fmt::format("{} {}/{}", name, done_[i], total_[i]) : fmt::format("{} {}", name, total_[i]));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace clearfog::compare
