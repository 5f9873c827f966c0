// Every config the shipped results ask for, and the built-in default, compiles with NVRTC for the
// architecture the runtime would compile it for, so an installed library never meets a results file
// it cannot build. Needs no GPU.
#include <gtest/gtest.h>

#include "kernel_compiler.hpp"
#include "results_catalog.hpp"
#include "test_paths.hpp"

namespace gemmtune {
namespace {

TEST(ShippedResults, EveryConfigCompilesForItsGpu) {
  const ResultsCatalog catalog = load_results(testing_paths::source_dir() / "results", true);
  ASSERT_TRUE(catalog.issues.empty()) << catalog.issues.front().message;
  const KernelCompiler compiler{""};  // no cache: really compile
  int compiled = 0;
  for (const TunedResults& file : catalog.files) {
    const std::string arch = "sm_" + std::to_string(file.compute_capability);
    for (const TunedShape& shape : file.shapes) {
      SCOPED_TRACE(file.origin + " " + shape.config.name());
      EXPECT_GT(compiler.compile(shape.config, arch).resources.registers, 0);
      ++compiled;
    }
  }
  EXPECT_GT(compiled, 0);
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
