#include "parallel/ChunkPlacement.hpp"

#include <algorithm>

namespace clearfog::parallel {

ChunkPlacement::ChunkPlacement(const schedule::PipelineScheduleType& type, const schedule::PipelineShape& shape)
    : type_(type), shape_(shape), chunks_per_device_(type.chunks_per_device(shape)) {
  for (int j = 0; j < shape.micro_batches; ++j) directions_ = std::max(directions_, type.direction_of(shape, j) + 1);
  holders_.assign(static_cast<std::size_t>(type.model_chunks(shape)), {});
  for (int k = 0; k < model_chunks(); ++k)
    for (int direction = 0; direction < directions_; ++direction) {
      const int s = type.stage_of(shape, k, direction);
      auto& h = holders_[static_cast<std::size_t>(k)];
      if (std::find(h.begin(), h.end(), s) == h.end()) h.insert(std::upper_bound(h.begin(), h.end(), s), s);
    }
}

int ChunkPlacement::stage(int model_chunk, int direction) const { return type_.stage_of(shape_, model_chunk, direction); }

int ChunkPlacement::model_chunk(int stage, int local_chunk) const {
  return type_.place(shape_, stage, local_chunk).model_chunk;
}

int ChunkPlacement::direction_of(int micro_batch) const { return type_.direction_of(shape_, micro_batch); }

}  // namespace clearfog::parallel
