// Where the results installed with the library live: <prefix>/share/gemmtune/results, found from the
// file this code was loaded from (dladdr), so an install moved to another prefix still finds its own
// data and no absolute path is baked in.
#pragma once

#include <filesystem>

namespace gemmtune {

// The installed results directory, or an empty path when there is none (e.g. in a build tree).
std::filesystem::path installed_results_dir();

}  // namespace gemmtune
