// The registry of pipeline schedules: one line per schedule; each lives in its own file.
#include "schedule/PipelineSchedule.hpp"

namespace clearfog::schedule {

const PipelineScheduleType& gpipe_schedule();         // GPipeSchedule.cpp
const PipelineScheduleType& one_f_one_b_schedule();   // OneFOneBSchedule.cpp
const PipelineScheduleType& interleaved_schedule();   // InterleavedSchedule.cpp
const PipelineScheduleType& zero_bubble_h1_schedule();  // ZeroBubbleH1Schedule.cpp
const PipelineScheduleType& dualpipe_schedule();      // DualPipeSchedule.cpp

const std::vector<const PipelineScheduleType*>& pipeline_schedules() {
  static const std::vector<const PipelineScheduleType*> all = {
      &gpipe_schedule(), &one_f_one_b_schedule(), &interleaved_schedule(), &zero_bubble_h1_schedule(),
      &dualpipe_schedule()};
  return all;
}

}  // namespace clearfog::schedule
