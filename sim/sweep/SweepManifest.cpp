#include "sweep/SweepManifest.hpp"

#include <fmt/format.h>

#include <optional>

#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "sweep/PointRecord.hpp"

namespace clearfog::sweep {
namespace {

constexpr std::string_view kManifest = "sweep.json";

/// The manifest of DIR, or nullopt with the reason it cannot be used.
std::optional<nlohmann::ordered_json> read_manifest(const std::filesystem::path& out_dir, std::string& why) {
  std::vector<Diagnostic> problems;
  const auto text = config::read_text_file(out_dir / kManifest, std::nullopt, problems);
  if (!text) {
    why = problems.empty() ? "unreadable" : problems.front().message;
    return std::nullopt;
  }
  auto j = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("fingerprint") || !j.at("fingerprint").is_string()) {
    why = fmt::format("{} is damaged (no \"fingerprint\")", kManifest);
    return std::nullopt;
  }
  return j;
}

std::string sweep_name(const nlohmann::ordered_json& j) {
  return j.contains("sweep") && j.at("sweep").is_string() ? quote(j.at("sweep").get<std::string>()) : "unnamed";
}

[[noreturn]] void refuse(const std::string& where, const std::filesystem::path& dir, const std::string& why,
                         std::string_view advice) {
  throw ConfigError({Diagnostic{SourceLocation{where, 0, 0}, "",
                                fmt::format("{}: {}; {}", dir.string(), why, advice)}});
}

}  // namespace

void write_manifest(const std::filesystem::path& out_dir, const SweepSpec& spec) {
  const nlohmann::ordered_json j = {{"sweep", spec.name},
                                    {"file", spec.file.string()},
                                    {"fingerprint", spec.fingerprint()},
                                    {"points", spec.point_count()}};
  write_file_atomically(out_dir / kManifest, j.dump(2) + "\n");
}

void check_resumable(const std::filesystem::path& out_dir, const SweepSpec& spec) {
  constexpr std::string_view kAdvice = "use another --out, or leave out --resume to start over";
  std::error_code ec;
  if (!std::filesystem::exists(out_dir / kManifest, ec)) {
    const auto files = read_point_files(out_dir);
    if (!files.points.empty() || !files.damaged.empty())
      refuse("--resume", out_dir,
             fmt::format("has points but no {}, so nothing says which sweep they belong to", kManifest), kAdvice);
    return;  // nothing to resume: a fresh start
  }
  std::string why;
  const auto manifest = read_manifest(out_dir, why);
  if (!manifest) refuse("--resume", out_dir, why, kAdvice);
  const std::string theirs = manifest->at("fingerprint").get<std::string>();
  if (theirs != spec.fingerprint())
    refuse("--resume", out_dir,
           fmt::format("it holds the points of another sweep ({}, fingerprint {}; this sweep's is {})",
                       sweep_name(*manifest), theirs, spec.fingerprint()),
           kAdvice);
}

nlohmann::ordered_json same_sweep_manifest(const std::vector<std::string>& dirs) {
  std::optional<nlohmann::ordered_json> first;
  std::string first_dir;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(std::filesystem::path(d) / "points", ec))
      refuse(d, d, "not a sweep output directory (no points/ inside)", "give the --out directories of the shards");
    std::string why;
    const auto manifest = read_manifest(d, why);
    if (!manifest) refuse(d, d, why, "merge only directories written by `clearfog sweep`");
    if (!first) {
      first = manifest;
      first_dir = d;
    } else if (manifest->at("fingerprint") != first->at("fingerprint")) {
      refuse(d, d,
             fmt::format("its points belong to another sweep ({}, fingerprint {}) than those of {} ({}, {})",
                         sweep_name(*manifest), manifest->at("fingerprint").get<std::string>(), first_dir,
                         sweep_name(*first), first->at("fingerprint").get<std::string>()),
             "merge only the shards of one sweep");
    }
  }
  return first.value_or(nlohmann::ordered_json::object());
}

}  // namespace clearfog::sweep
