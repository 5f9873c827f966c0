// Every config the shipped results ask for, and the built-in default, compiles with NVRTC for the
// architecture the runtime would compile it for, so an installed library never meets a results file
// it cannot build. Needs no GPU.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel_compiler.hpp"
#include "core/kernel_path.hpp"
#include "results_catalog.hpp"
#include "test_paths.hpp"

namespace gemmtune {
namespace {

TEST(ShippedResults, EveryConfigCompilesForItsGpu) {
  const ResultsCatalog catalog = load_results(testing_paths::source_dir() / "results", true);
  ASSERT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  const KernelCompiler compiler{""};  // no cache: really compile
  // Each config once per architecture: the portfolio's 171 cells name only nine kernels, and the
  // H100 and H200 files share winners, so compiling per problem repeated the same NVRTC work ~15
  // times over (minutes under AddressSanitizer). Any kernel raced at a portfolio cell may run
  // (config_selection.cpp), so a portfolio's whole menu is compiled; a measured file's alternatives
  // never run and are not.
  std::set<std::pair<std::string, std::string>> compiled;  // (config name, architecture)
  std::size_t problems = 0;
  for (const TunedResults& file : catalog.files) {
    const std::string arch = "sm_" + std::to_string(file.device.compute_capability);
    for (const TunedShape& shape : file.shapes) {
      ++problems;
      std::vector<KernelConfig> configs{shape.config};
      if (file.portfolio)
        for (const RacedConfig& raced : shape.raced) configs.push_back(raced.config);
      for (const KernelConfig& config : configs) {
        if (!compiled.emplace(config.name(), arch).second) continue;
        SCOPED_TRACE(file.origin + " " + config.name() + " " + arch);
        // The binary an aligned call of the tuned problem runs (the Hopper family has no general one).
        const GemmShape& p = shape.problem;
        EXPECT_GT(compiler.compile(config, arch, kernel_path_for(config, p.m, p.n, p.k, 4)).resources.registers, 0);
      }
    }
  }
  EXPECT_GT(problems, 0u);
  EXPECT_GT(compiled.size(), 0u);
}

TEST(ShippedResults, DefaultConfigCompilesForEverySupportedArchitecture) {
  const KernelCompiler compiler{""};
  for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    const CompiledKernel k = compiler.compile(default_config(), arch);
    EXPECT_GT(k.resources.registers, 0);
    EXPECT_EQ(k.resources.spill_bytes(), 0);
  }
}

}  // namespace
}  // namespace gemmtune
