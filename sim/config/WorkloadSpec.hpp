#pragma once
// A GPT-style decoder-only transformer.
#include <string>

namespace clearfog::config {

struct WorkloadSpec {
  std::string name;
  std::string source;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int ffn_hidden = 0;        // defaults to 4 * hidden
  int seq_length = 0;
  int vocab_size = 0;
};

}  // namespace clearfog::config
