// The comparison as JSON (schema gemmtune.compare/1) for scripts and dashboards. Measured and
// predicted winners are kept in separate objects, and predicted numbers carry "predicted_" in their
// names, so a consumer cannot take one for the other by accident.
#pragma once

#include <nlohmann/json.hpp>

#include "report/compare_report.hpp"

namespace gemmtune {


nlohmann::json comparison_json(const Comparison& comparison);

}  // namespace gemmtune
