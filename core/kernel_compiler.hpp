// Compiles KernelConfigs to CUBIN with NVRTC for a given architecture and reads the resources the
// compile reports (registers, spills, stack). Results go through an on-disk cache keyed by
// everything that can change the binary, so a second identical run compiles nothing. Thread-safe:
// the tuner calls compile() from many threads at once.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/kernel_config.hpp"

namespace gemmtune {

struct KernelResources {
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_bytes = 0;
  int spill_bytes() const { return spill_store_bytes + spill_load_bytes; }
};

struct CompiledKernel {
  std::string cubin;   // the binary, loadable with cudaLibraryLoadData
  std::string symbol;  // lowered (mangled) name of its kernel
  KernelResources resources;
  KernelPath path = KernelPath::general;  // the calls a GEMM binary serves
  bool from_cache = false;
  double compile_seconds = 0;
  // An sgemm GEMM that splits K: the kernel over C that reduces the slices (or scales C before
  // atomic split-K); the skinny kernels reduce inside their own launch. It does not depend on the config, so it is a program of its own, compiled once per
  // architecture; in every GEMM's program it cost a sixth of each compile.
  std::shared_ptr<const CompiledKernel> reduce;
  // A wgmma config with pretranspose: the kernel that copies MN-major operands K-major into the
  // workspace before the GEMM (kernel_templates/wgmma/transpose.cuh); compiled once per architecture.
  std::shared_ptr<const CompiledKernel> transpose;
};

// A failed compile, with the NVRTC log and options kept for the report.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& what, std::string log, std::vector<std::string> options)
      : std::runtime_error(what), log_(std::move(log)), options_(std::move(options)) {}
  const std::string& log() const { return log_; }
  const std::vector<std::string>& options() const { return options_; }

 private:
  std::string log_;
  std::vector<std::string> options_;
};

// What one NVRTC compile (nvrtc_compile below) yields.
struct NvrtcOutput {
  std::string cubin;
  std::string ptx;                         // the PTX the CUBIN was made from, if asked for
  std::vector<std::string> lowered_names;  // one per name expression, in order
  std::string log;
};

// Threads per block of the split-K reduction kernel.
inline constexpr int kReduceThreads = 256;

// The reduction kernel's C type (its CTYPE, reduce_kernel's c_type): 0 FP32, 1 bf16, 2 fp16.
inline int reduce_c_type(Precision precision, bool c16) {
  if (!c16) return 0;
  return precision == Precision::bf16 ? 1 : 2;
}

// True when config's launches need the split-K reduction kernel beside the GEMM.
inline bool needs_reduction(const KernelConfig& config) { return config.split_k > 1 && !is_skinny(config.family); }

// Tile edge of wgmma_transpose; its blocks have kTransposeTile * 4 threads.
inline constexpr int kTransposeTile = 64;

class KernelCompiler {
 public:
  // cache_dir empty: no disk cache. template_source empty: the embedded kernel_templates/sgemm.cuh,
  // its parts joined (cmake/JoinTemplate.cmake); else one whole program, as NVRTC gets it (tests pass
  // deliberately broken templates to prove that failures are contained). The skinny families always
  // compile the embedded kernel_templates/skinny.cuh, the tensor-core family kernel_templates/mma.cuh.
  explicit KernelCompiler(std::filesystem::path cache_dir, std::string template_source = {});

  // arch: "sm_75", "sm_80", "sm_90", ... (the wgmma family compiles for sm_90a when given sm_90 or
  // sm_90a, and refuses every other arch: compile_arch in kernel_config.hpp). Throws CompileError,
  // or std::invalid_argument for an invalid config (checked before any source reaches NVRTC). The general copy path serves every
  // call; whole vectors only the calls kernel_path_for (gemm_launch.hpp) gives it. A config that
  // splits K gets the reduction kernel too (CompiledKernel::reduce), one with pretranspose the copy
  // kernel (CompiledKernel::transpose).
  CompiledKernel compile(const KernelConfig& config, const std::string& arch,
                         KernelPath path = KernelPath::general) const;

  // The split-K kernel over C for arch and C's element type (0 FP32, 1 bf16, 2 fp16): compiled (or
  // read from the disk cache) once per compiler.
  std::shared_ptr<const CompiledKernel> reduce_kernel(const std::string& arch, int c_type) const;
  // The pretranspose copy kernel for arch (sm_90 or sm_90a), likewise once per compiler.
  std::shared_ptr<const CompiledKernel> transpose_kernel(const std::string& arch) const;

  // The PTX of the same compile, never cached: scripts/check-template-ptx.sh compares it between
  // template revisions.
  std::string ptx(const KernelConfig& config, const std::string& arch, KernelPath path = KernelPath::general) const;

  const std::filesystem::path& cache_dir() const { return cache_dir_; }

  // The key a compile is cached under: hash of the family's template source, name expression,
  // options, NVRTC version and architecture (the one NVRTC gets: sm_90a for the wgmma family).
  std::string cache_key(KernelFamily family, const std::string& name_expression, const std::string& arch) const;

  // The binary from the disk cache, if it is there; never compiles the GEMM (but its helpers, the
  // split-K reduction and the pretranspose copy, are compiled when they are missing).
  std::optional<CompiledKernel> cached(const KernelConfig& config, const std::string& arch,
                                       KernelPath path = KernelPath::general) const;

  // The keys of every binary in the disk cache now (empty without one): the tuner's searches
  // prefer binaries that were compiled before the run began.
  std::unordered_set<std::string> cached_keys() const;

 private:
  // A family's program and its stable_hash, the start of every cache key.
  struct Template {
    explicit Template(std::string text);
    std::string source;
    std::uint64_t hash;
  };
  const Template& template_of(KernelFamily family) const;

  // Compiles one instantiation of the family's template, through the disk cache; label names it in
  // errors.
  CompiledKernel compile_expression(KernelFamily family, const std::string& expression, const std::string& arch,
                                    const std::string& label) const;
  // A kernel that does not depend on the config (the reduction, the copy), compiled once per
  // compiler for each family, expression and arch and shared by every binary that launches it.
  std::shared_ptr<const CompiledKernel> helper_kernel(KernelFamily family, const std::string& expression,
                                                      const std::string& arch, const std::string& label) const;
  // The config's helpers (reduce, transpose) added to its GEMM binary.
  void add_helpers(const KernelConfig& config, const std::string& arch, CompiledKernel& k) const;

  std::filesystem::path cache_dir_;
  Template sgemm_;
  Template skinny_;
  Template mma_;
  Template wgmma_;
  struct HelperKernels {
    std::mutex mutex;
    std::map<std::tuple<KernelFamily, std::string, std::string>, std::shared_ptr<const CompiledKernel>> by_key;
  };
  std::shared_ptr<HelperKernels> helper_kernels_ = std::make_shared<HelperKernels>();
};


// One NVRTC compile of any source to CUBIN for arch, with the project's options (and the PTX where
// asked for: only the template-change check reads it). Throws CompileError (log and options kept)
// or std::invalid_argument for a malformed arch.
NvrtcOutput nvrtc_compile(const std::string& source, const std::vector<std::string>& name_expressions,
                          const std::string& arch, bool with_ptx = false);

// Default cache directory: $GEMMTUNE_CACHE_DIR, else $XDG_CACHE_HOME/gemmtune, else
// ~/.cache/gemmtune, else a directory under the system temp dir.
std::filesystem::path default_cache_dir();

// "13.0"
std::string nvrtc_version();

// Decodes one disk cache entry: its metadata (the <key>.json text) and its cubin. nullopt, with a
// warning naming key, when the metadata is malformed or does not describe this cubin (a truncated,
// corrupted or foreign entry): the caller rebuilds it. Exposed for the fuzz target.
std::optional<CompiledKernel> decode_cache_entry(const std::string& metadata, std::string cubin,
                                                 const std::string& key);

// Parses the ptxas verbose log for one entry function (exposed for tests).
KernelResources parse_ptxas_resources(const std::string& log, const std::string& lowered_name);

}  // namespace gemmtune
