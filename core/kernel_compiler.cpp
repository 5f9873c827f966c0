// NVRTC compilation with an on-disk cache. A cache entry is two files written atomically (temporary
// name, then rename): <key>.cubin and <key>.json, the latter holding the symbols, resources and a
// hash of the cubin, so a truncated or corrupted entry is detected and rebuilt, never loaded.
#include "core/kernel_compiler.hpp"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <nvrtc.h>
#include <spdlog/spdlog.h>

#include "core/atomic_file.hpp"
#include "core/embedded_files.hpp"
#include "core/kernel_path.hpp"
#include "core/stable_hash.hpp"

namespace gemmtune {
namespace {

constexpr const char* kTemplatePath = "kernel_templates/sgemm.cuh";

std::string embedded_template() {
  const std::string_view src = embedded_file(kTemplatePath);
  if (src.empty()) throw std::logic_error("kernel template was not embedded at build time");
  return std::string(src);
}

std::string reduce_expression(int c_type) {
  return fmt::format("gemmtune::splitk_reduce<{},{}>", kReduceThreads, c_type);
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "--std=c++17", "-Xptxas=-v",
          "-default-device"};
}

void check_arch(const std::string& arch) {
  static const std::regex pattern("sm_[0-9]{2,3}a?");
  if (!std::regex_match(arch, pattern)) throw std::invalid_argument("invalid GPU architecture '" + arch + "'");
}

// Config errors before any source reaches NVRTC.
void check_path(const KernelConfig& config, KernelPath path) {
  if (auto err = config_error(config)) throw std::invalid_argument("invalid kernel config: " + *err);
  if (path != KernelPath::general && config.vector_width == 1)
    throw std::invalid_argument("whole-vector copies need vector_width > 1 (" + config.name() + ")");
  if (path == KernelPath::whole_tiles && !has_whole_tiles_path(config))
    throw std::invalid_argument("only sgemm kernels with runs of 4 columns (thread_n a multiple of 4, no "
                                "transpose_b) have a whole-tile path (" + config.name() + ")");
  // Tensor maps read rows that start on 16-byte boundaries only: no general binary to build.
  if (path != KernelPath::whole_vectors && config.family == KernelFamily::wgmma)
    throw std::invalid_argument("the wgmma kernels serve 16-byte aligned operands only (" + config.name() + ")");
}

std::optional<CompiledKernel> load_cached(const std::filesystem::path& dir, const std::string& key) {
  const auto meta_text = read_whole_file(dir / (key + ".json"));
  if (!meta_text) return std::nullopt;
  return decode_cache_entry(*meta_text, read_whole_file(dir / (key + ".cubin")).value_or(std::string()), key);
}

void store_cached(const std::filesystem::path& dir, const std::string& key, const CompiledKernel& k) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const nlohmann::json meta = {{"cubin_bytes", k.cubin.size()},
                               {"cubin_hash", stable_hash_hex(k.cubin)},
                               {"symbol", k.symbol},
                               {"registers", k.resources.registers},
                               {"spill_store_bytes", k.resources.spill_store_bytes},
                               {"spill_load_bytes", k.resources.spill_load_bytes},
                               {"stack_bytes", k.resources.stack_bytes}};
  // The cubin first: a reader only trusts it once the metadata naming its hash exists.
  if (!write_file_atomically(dir / (key + ".cubin"), k.cubin) ||
      !write_file_atomically(dir / (key + ".json"), meta.dump())) {
    spdlog::debug("could not write compile cache entry {} in {}", key, dir.string());
  }
}

struct ProgramGuard {
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program) nvrtcDestroyProgram(&program);
  }
};

}  // namespace

std::optional<CompiledKernel> decode_cache_entry(const std::string& metadata, std::string cubin,
                                                 const std::string& key) {
  try {
    const auto meta = nlohmann::json::parse(metadata);
    // Numbers are checked before conversion: a float or a negative number where a count belongs would
    // otherwise reach an undefined float-to-integer conversion (seen while writing fuzz_compile_cache).
    const auto count = [&](const char* field) {
      const auto& value = meta.at(field);
      if (!value.is_number_unsigned() || value.get<unsigned long long>() > INT_MAX)
        throw std::invalid_argument(fmt::format("'{}' is not a count", field));
      return value.get<int>();
    };
    CompiledKernel k;
    k.cubin = std::move(cubin);
    if (k.cubin.size() != static_cast<std::size_t>(count("cubin_bytes")) ||
        stable_hash_hex(k.cubin) != meta.at("cubin_hash").get<std::string>()) {
      spdlog::warn("compile cache entry {} is corrupted; rebuilding it", key);
      return std::nullopt;
    }
    k.symbol = meta.at("symbol").get<std::string>();
    k.resources.registers = count("registers");
    k.resources.spill_store_bytes = count("spill_store_bytes");
    k.resources.spill_load_bytes = count("spill_load_bytes");
    k.resources.stack_bytes = count("stack_bytes");
    k.from_cache = true;
    return k;
  } catch (const std::exception& e) {
    spdlog::warn("compile cache entry {} is unreadable ({}); rebuilding it", key, e.what());
    return std::nullopt;
  }
}

KernelResources parse_ptxas_resources(const std::string& log, const std::string& lowered_name) {
  KernelResources r;
  const auto start = log.find("Compiling entry function '" + lowered_name + "'");
  if (start == std::string::npos) return r;
  auto end = log.find("Compiling entry function", start + 1);
  const std::string section = log.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::smatch m;
  static const std::regex regs("Used ([0-9]+) registers");
  static const std::regex spills("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  if (std::regex_search(section, m, regs)) r.registers = std::stoi(m[1]);
  if (std::regex_search(section, m, spills)) {
    r.stack_bytes = std::stoi(m[1]);
    r.spill_store_bytes = std::stoi(m[2]);
    r.spill_load_bytes = std::stoi(m[3]);
  }
  return r;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

std::filesystem::path default_cache_dir() {
  if (const char* dir = std::getenv("GEMMTUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "gemmtune";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "gemmtune";
  return std::filesystem::temp_directory_path() / "gemmtune-cache";
}

NvrtcOutput nvrtc_compile(const std::string& source, const std::vector<std::string>& name_expressions,
                          const std::string& arch, bool with_ptx) {
  check_arch(arch);
  ProgramGuard guard;
  const auto options = nvrtc_options(arch);
  if (nvrtcCreateProgram(&guard.program, source.c_str(), "gemmtune.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw CompileError("nvrtcCreateProgram failed", "", options);
  for (const auto& expr : name_expressions) nvrtcAddNameExpression(guard.program, expr.c_str());
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(guard.program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  NvrtcOutput out;
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(guard.program, &log_size);
  out.log.assign(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(guard.program, out.log.data());
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  if (result != NVRTC_SUCCESS)
    throw CompileError(fmt::format("NVRTC failed on {}: {}", arch, nvrtcGetErrorString(result)), out.log, options);
  for (const auto& expr : name_expressions) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(guard.program, expr.c_str(), &lowered) != NVRTC_SUCCESS || !lowered)
      throw CompileError("no lowered name for " + expr, out.log, options);
    out.lowered_names.emplace_back(lowered);
  }
  std::size_t cubin_size = 0;
  if (nvrtcGetCUBINSize(guard.program, &cubin_size) != NVRTC_SUCCESS || cubin_size == 0)
    throw CompileError("NVRTC produced no CUBIN for " + arch, out.log, options);
  out.cubin.resize(cubin_size);
  nvrtcGetCUBIN(guard.program, out.cubin.data());
  if (!with_ptx) return out;
  std::size_t ptx_size = 0;
  if (nvrtcGetPTXSize(guard.program, &ptx_size) != NVRTC_SUCCESS || ptx_size == 0)
    throw CompileError("NVRTC produced no PTX for " + arch, out.log, options);
  out.ptx.resize(ptx_size);
  nvrtcGetPTX(guard.program, out.ptx.data());
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  return out;
}

KernelCompiler::KernelCompiler(std::filesystem::path cache_dir, std::string template_source)
    : cache_dir_(std::move(cache_dir)),
      sgemm_(template_source.empty() ? embedded_template() : std::move(template_source)),
      skinny_(std::string(embedded_file("kernel_templates/skinny.cuh"))),
      mma_(std::string(embedded_file("kernel_templates/mma.cuh"))),
      wgmma_(std::string(embedded_file("kernel_templates/wgmma.cuh"))) {}

KernelCompiler::Template::Template(std::string text) : source(std::move(text)), hash(stable_hash(source)) {}

const KernelCompiler::Template& KernelCompiler::template_of(KernelFamily family) const {
  if (family == KernelFamily::wgmma) return wgmma_;
  return is_skinny(family) ? skinny_ : family == KernelFamily::mma ? mma_ : sgemm_;
}

std::string KernelCompiler::cache_key(KernelFamily family, const std::string& name_expression,
                                      const std::string& requested_arch) const {
  // The hash of template source + the rest, with the source's part computed once. The arch is the
  // one NVRTC gets, so "sm_90" and "sm_90a" name one wgmma binary; an arch the family cannot compile
  // for keeps its name (compile refuses it, and no such key is ever written).
  const bool hopper_arch = requested_arch == "sm_90" || requested_arch == "sm_90a";
  const std::string arch = hopper_arch ? compile_arch(family, requested_arch) : requested_arch;
  std::string material = '\0' + name_expression + '\0' + arch + '\0' + nvrtc_version();
  for (const auto& opt : nvrtc_options(arch)) material += '\0' + opt;
  return arch + "-" + fmt::format("{:016x}", stable_hash(material, template_of(family).hash));
}

std::unordered_set<std::string> KernelCompiler::cached_keys() const {
  std::unordered_set<std::string> keys;
  if (cache_dir_.empty()) return keys;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(cache_dir_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") keys.insert(it->path().stem().string());
  return keys;
}

std::optional<CompiledKernel> KernelCompiler::cached(const KernelConfig& config, const std::string& arch,
                                                     KernelPath path) const {
  check_path(config, path);
  check_arch(arch);
  if (cache_dir_.empty()) return std::nullopt;
  std::optional<CompiledKernel> k =
      load_cached(cache_dir_, cache_key(config.family, config.name_expression(path), arch));
  if (!k) return std::nullopt;
  k->path = path;
  add_helpers(config, arch, *k);
  return k;
}

CompiledKernel KernelCompiler::compile(const KernelConfig& config, const std::string& arch, KernelPath path) const {
  check_path(config, path);
  CompiledKernel k =
      compile_expression(config.family, config.name_expression(path), arch, config.name());
  k.path = path;
  add_helpers(config, arch, k);
  return k;
}

void KernelCompiler::add_helpers(const KernelConfig& config, const std::string& arch, CompiledKernel& k) const {
  if (needs_reduction(config)) k.reduce = reduce_kernel(arch, reduce_c_type(config.precision, config.c16));
  if (config.pretranspose) k.transpose = transpose_kernel(arch);
}

std::shared_ptr<const CompiledKernel> KernelCompiler::helper_kernel(KernelFamily family, const std::string& expression,
                                                                    const std::string& arch,
                                                                    const std::string& label) const {
  std::lock_guard<std::mutex> lock(helper_kernels_->mutex);
  auto& slot = helper_kernels_->by_key[{family, expression, arch}];
  if (!slot) slot = std::make_shared<const CompiledKernel>(compile_expression(family, expression, arch, label));
  return slot;
}

std::shared_ptr<const CompiledKernel> KernelCompiler::reduce_kernel(const std::string& arch, int c_type) const {
  return helper_kernel(KernelFamily::sgemm, reduce_expression(c_type), arch, "splitk_reduce");
}

std::shared_ptr<const CompiledKernel> KernelCompiler::transpose_kernel(const std::string& arch) const {
  return helper_kernel(KernelFamily::wgmma, fmt::format("gemmtune::wgmma_transpose<{}>", kTransposeTile), arch,
                       "wgmma_transpose");
}

CompiledKernel KernelCompiler::compile_expression(KernelFamily family, const std::string& expression,
                                                  const std::string& requested_arch, const std::string& label) const {
  check_arch(requested_arch);
  const std::string arch = compile_arch(family, requested_arch);
  const std::string key = cache_key(family, expression, arch);
  if (!cache_dir_.empty()) {
    if (auto cached = load_cached(cache_dir_, key)) return *cached;
  }

  const auto t0 = std::chrono::steady_clock::now();
  NvrtcOutput out;
  try {
    out = nvrtc_compile(template_of(family).source, {expression}, arch);
  } catch (const CompileError& e) {
    throw CompileError(fmt::format("{} ({})", e.what(), label), e.log(), e.options());
  }
  CompiledKernel k;
  k.cubin = std::move(out.cubin);
  k.symbol = out.lowered_names[0];
  k.resources = parse_ptxas_resources(out.log, k.symbol);
  if (k.resources.registers == 0)
    throw CompileError("could not read register usage from the NVRTC log", out.log, nvrtc_options(arch));
  k.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!cache_dir_.empty()) store_cached(cache_dir_, key, k);
  return k;
}

std::string KernelCompiler::ptx(const KernelConfig& config, const std::string& arch, KernelPath path) const {
  check_path(config, path);
  try {
    return nvrtc_compile(template_of(config.family).source, {config.name_expression(path)},
                         compile_arch(config.family, arch), true)
        .ptx;
  } catch (const CompileError& e) {
    throw CompileError(fmt::format("{} ({})", e.what(), config.name()), e.log(), e.options());
  }
}

}  // namespace gemmtune
