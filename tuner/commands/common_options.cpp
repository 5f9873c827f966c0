// The shared options' names, help texts and checks, in one place for every command that has them.
#include "commands/common_options.hpp"

#include <CLI/CLI.hpp>

#include "core/kernel_compiler.hpp"

namespace gemmtune {

void add_common(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--sizes", o.sizes, "Problem sizes: N (cube) or MxNxK, then :nn|nt|tn|tt, :bCOUNT, :PRECISION; comma-separated")
      ->capture_default_str();
  cmd.add_option_function<std::string>(
         "--precision",
         [&o](const std::string& name) {
           // CLI11's IsMember check below has already refused any other name.
           o.precision = parse_precision(name).value_or(Precision::fp32);
         },
         "Precision of the --sizes entries that name none: fp32 (default), 3xtf32, tf32, bf16, fp16")
      ->check(CLI::IsMember({"fp32", "3xtf32", "tf32", "bf16", "fp16"}));
  cmd.add_option("--space", o.space_path, "Search-space JSON (default: the built-in configs/sgemm.json)");
  cmd.add_option("--cache-dir", o.cache_dir,
                 "Compile cache directory (default: $GEMMTUNE_CACHE_DIR or ~/.cache/gemmtune)");
  cmd.add_flag("--no-cache", o.no_cache, "Do not read or write the compile cache");
  cmd.add_option("-j,--jobs", o.jobs,
                 "Parallel NVRTC compilations of the candidates a search measures (as many again compile "
                 "speculatively, at a lower priority)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd.add_option("--log-level", o.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

std::filesystem::path cache_dir_of(const CommonOptions& o) {
  if (o.no_cache) return {};
  return o.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(o.cache_dir);
}

}  // namespace gemmtune
