#pragma once
// `clearfog run --ops`: which algorithm, protocol and channels the collectives of the iteration ran
// with — one row per kind of collective (operation, group size, bytes and choice), with how many
// there were and the name of the first, in plan order.
#include <nlohmann/json.hpp>
#include <string>

#include "collectives/CollectiveLog.hpp"

namespace clearfog::report {

std::string render_collective_table(const collectives::CollectiveLog& log);
nlohmann::ordered_json collective_table_json(const collectives::CollectiveLog& log);

}  // namespace clearfog::report
