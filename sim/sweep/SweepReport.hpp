#pragma once
// `clearfog sweep FILE --out DIR --html FILE.html` and `clearfog report DIR`: one self-contained
// HTML page for the points of a sweep (docs/sweeps.md): the results table (click a heading to sort),
// step time, MFU and memory per device against each axis (OOM points as red rings, failed points left
// out), and the Pareto front. Deterministic: the same points give the same bytes.
#include <filesystem>
#include <map>
#include <string>

#include "sweep/PointRecord.hpp"

namespace clearfog::sweep {

/// The page of `points`; `inputs_text` is shown verbatim as the inputs (manifest, sweep file).
std::string sweep_html(const std::string& sweep_name, const std::map<int, PointRecord>& points,
                       const std::string& inputs_text);

/// The page of a sweep output directory: its points/ and its manifest (sweep.json), with the sweep
/// file the manifest names when it can be read. Throws ConfigError located at `where` when DIR has
/// no points/ directory.
std::string sweep_report_html(const std::filesystem::path& out_dir, const std::string& where);

}  // namespace clearfog::sweep
