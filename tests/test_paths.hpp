// Paths the tests need, found relative to the test binary (build/tests/<binary>) rather than
// baked in at build time, so a build carried to another machine still finds them.
#pragma once

#include <filesystem>
#include <string>

namespace gemmtune::testing_paths {

inline std::filesystem::path build_dir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path(); }

inline std::string cli() { return (build_dir() / "tuner" / "gemm-tune").string(); }

// The source tree: CMake's build/ sits inside it by convention (scripts/setup.sh).
inline std::filesystem::path source_dir() { return build_dir().parent_path(); }

inline std::string data(const std::string& name) { return (build_dir().parent_path() / "tests" / "data" / name).string(); }

}  // namespace gemmtune::testing_paths
