#pragma once
// The walker: reads a YAML file against the key table of its kind, applies --set overrides,
// follows references into other documents (files or inline mappings) and checks every value's
// type, unit and constraint. Problems are collected, never thrown, so that one run reports them all.
#include <filesystem>
#include <memory>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "config/DocumentKind.hpp"
#include "config/Override.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// Reads `file` as a document of `kind`, with the documents it references, and applies `overrides`
/// (key paths relative to this document). Appends every problem to `diagnostics`, in file order.
/// Returns nullptr only when nothing could be read (missing file, malformed YAML, another kind);
/// otherwise a document whose invalid values are absent (see ConfigDocument::complete()).
std::shared_ptr<const ConfigDocument> read_document_file(const std::filesystem::path& file, DocumentKind kind,
                                                         const std::vector<Override>& overrides,
                                                         std::vector<Diagnostic>& diagnostics);

}  // namespace clearfog::config
