// The library may be the shared libgemmtune.so (in <prefix>/lib) or linked statically into a program
// (in <prefix>/bin); CMake passes the relative path from each of those directories to the results.
#include "install_location.hpp"

#include <dlfcn.h>

namespace gemmtune {
namespace {

const char kLocationMarker = 0;  // any object in this module: dladdr names the file holding it

}  // namespace

std::filesystem::path installed_results_dir() {
  Dl_info info{};
  std::filesystem::path module;
  if (dladdr(&kLocationMarker, &info) != 0 && info.dli_fname && *info.dli_fname) module = info.dli_fname;
  std::error_code ec;
  if (module.empty() || !std::filesystem::exists(module, ec))
    module = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (module.empty()) return {};
  module = std::filesystem::weakly_canonical(module, ec);
  for (const char* relative : {GEMMTUNE_LIBDIR_TO_RESULTS, GEMMTUNE_BINDIR_TO_RESULTS}) {
    const auto candidate = (module.parent_path() / relative).lexically_normal();
    if (std::filesystem::is_directory(candidate, ec)) return candidate;
  }
  return {};
}

}  // namespace gemmtune
