// The options shared by the commands that compile kernels (tune, plan, bench): --sizes, --precision, --space,
// --cache-dir, --no-cache, --jobs, --log-level. Declared once so every command spells, defaults
// and documents them alike.
#pragma once

#include <filesystem>
#include <string>

#include "core/precision.hpp"

#include "compile/thread_pool.hpp"

namespace CLI {
class App;
}

namespace gemmtune {

struct CommonOptions {
  std::string sizes = "512,1024,4096";
  Precision precision = Precision::fp32;  // of the --sizes entries that name none
  std::string space_path;
  std::string cache_dir;
  bool no_cache = false;
  unsigned jobs = default_parallelism();
  std::string log_level = "info";
};

// Adds the options to cmd, bound to o; the --sizes default shown in the help is o.sizes as it is now.
void add_common(CLI::App& cmd, CommonOptions& o);

// The compile cache directory: none with --no-cache, else --cache-dir or the default one.
std::filesystem::path cache_dir_of(const CommonOptions& o);

}  // namespace gemmtune
