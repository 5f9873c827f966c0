// Search-space parsing, enumeration and the named constraints. The constraints are cheap static
// rules; what they cannot know (real register counts, spills) is screened after compilation.
#include "search/search_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <type_traits>

#include "core/embedded_files.hpp"

namespace gemmtune {
namespace {

// The skinny families' own parameters come last: the strategies compare only the parameters that
// vary among a problem's candidates, so for sgemm they are as if absent.
// The first kTileShapeLength make the tile shape: pingpong among them, since it gives each wgmma
// consumer a whole block tile instead of its share of one.
const std::vector<std::string> kParameters = {
    "block_m",   "block_n",    "block_k",     "thread_m",       "thread_n",    "pingpong",     "warp_rows",
    "pad_a",     "pad_b",      "stages",      "async_copy",     "transpose_a", "vector_width", "min_blocks",
    "fma_order", "swizzle",    "split_k",     "split_k_atomic", "transpose_b", "lanes_k",      "warps_n",
    "k_groups",  "unroll",     "prefetch",    "warp_m",         "warp_n",      "round_split",  "consumers",
    "cluster",   "persistent", "pretranspose", "cluster_k"};

// The KernelConfig member behind an int parameter; null for the bools.
int KernelConfig::*int_field(const std::string& name) {
  static const std::map<std::string, int KernelConfig::*> ints = {
      {"block_m", &KernelConfig::block_m},       {"block_n", &KernelConfig::block_n},
      {"block_k", &KernelConfig::block_k},       {"thread_m", &KernelConfig::thread_m},
      {"thread_n", &KernelConfig::thread_n},     {"warp_rows", &KernelConfig::warp_rows},
      {"pad_a", &KernelConfig::pad_a},           {"pad_b", &KernelConfig::pad_b},
      {"stages", &KernelConfig::stages},         {"vector_width", &KernelConfig::vector_width},
      {"min_blocks", &KernelConfig::min_blocks}, {"fma_order", &KernelConfig::fma_order},
      {"swizzle", &KernelConfig::swizzle},       {"split_k", &KernelConfig::split_k},
      {"lanes_k", &KernelConfig::lanes_k},       {"warps_n", &KernelConfig::warps_n},
      {"k_groups", &KernelConfig::k_groups},     {"unroll", &KernelConfig::unroll},
      {"warp_m", &KernelConfig::warp_m},         {"warp_n", &KernelConfig::warp_n},
      {"consumers", &KernelConfig::consumers},   {"cluster", &KernelConfig::cluster},
      {"cluster_k", &KernelConfig::cluster_k}};
  const auto it = ints.find(name);
  return it == ints.end() ? nullptr : it->second;
}

// The KernelConfig member behind a bool parameter (written 0/1 in the space's value lists); null
// for the ints.
bool KernelConfig::*bool_field(const std::string& name) {
  static const std::map<std::string, bool KernelConfig::*> bools = {
      {"async_copy", &KernelConfig::async_copy},
      {"transpose_a", &KernelConfig::transpose_a},
      {"transpose_b", &KernelConfig::transpose_b},
      {"split_k_atomic", &KernelConfig::split_k_atomic},
      {"prefetch", &KernelConfig::prefetch},
      {"round_split", &KernelConfig::round_split},
      {"persistent", &KernelConfig::persistent},
      {"pretranspose", &KernelConfig::pretranspose},
      {"pingpong", &KernelConfig::pingpong}};
  const auto it = bools.find(name);
  return it == bools.end() ? nullptr : it->second;
}

bool is_bool_parameter(const std::string& name) {
  return bool_field(name) != nullptr;
}

int get_parameter(const KernelConfig& c, const std::string& name) {
  return is_bool_parameter(name) ? int(c.*bool_field(name)) : c.*int_field(name);
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// The rows of C a skinny kernel's block should hold for m rows: the smallest tile of its family
// that holds them all (B is then read once); 0 where the family does not serve m.
int skinny_rows_for(KernelFamily family, int m) {
  if (family == KernelFamily::skinny_stream) {
    for (int rows : {1, 2, 4, 8})
      if (m <= rows) return rows;
    return 0;
  }
  for (int rows : {8, 16, 32})
    if (m <= rows) return rows;
  return 0;
}

using Check = std::function<bool(const KernelConfig&, const DeviceProfile&, const GemmShape*,
                                 const ConstraintSettings&)>;

struct Constraint {
  std::string name;
  Check passes;
};

const std::vector<Constraint>& constraints() {
  static const std::vector<Constraint> list = {
      {"divisibility", [](const KernelConfig& c, const DeviceProfile&, const GemmShape*,
                          const ConstraintSettings&) { return !config_error(c).has_value(); }},
      {"architecture",
       [](const KernelConfig& c, const DeviceProfile& d, const GemmShape*, const ConstraintSettings&) {
         // The mma kernels' stages. Before sm_80 they copy tiles synchronously (no cp.async): a copy
         // has landed before the warp goes on, so a third stage would only hold shared memory (and
         // cost blocks per SM on the T4's 64 KB) without hiding any latency: 2 alone. From sm_80,
         // cp.async overlaps them: 3 and more, the spaces the sm_80+ results were tuned over (the 2
         // in configs/mma-fp16.json is the T4's).
         constexpr int kAsyncCopy = 80;
         if (c.family == KernelFamily::mma && (d.compute_capability < kAsyncCopy) != (c.stages <= 2)) return false;
         return runs_on(c, d.compute_capability);
       }},
      {"thread_count",
       [](const KernelConfig& c, const DeviceProfile& d, const GemmShape*, const ConstraintSettings& s) {
         const int t = c.threads();
         return t >= s.min_threads && t <= s.max_threads && t <= d.max_threads_per_block &&
                t * c.min_blocks <= d.max_threads_per_sm;
       }},
      {"micro_tile",
       [](const KernelConfig& c, const DeviceProfile&, const GemmShape*, const ConstraintSettings& s) {
         const int longer = std::max(c.thread_m, c.thread_n), shorter = std::min(c.thread_m, c.thread_n);
         return c.thread_m * c.thread_n <= s.max_outputs_per_thread &&
                longer <= s.max_micro_tile_aspect * shorter;
       }},
      {"shared_memory",
       [](const KernelConfig& c, const DeviceProfile& d, const GemmShape*, const ConstraintSettings&) {
         const auto bytes = c.shared_bytes();
         return bytes <= std::size_t(d.shared_bytes_per_block) &&
                bytes * std::size_t(c.min_blocks) <= std::size_t(d.shared_bytes_per_sm);
       }},
      {"register_estimate",
       [](const KernelConfig& c, const DeviceProfile& d, const GemmShape*, const ConstraintSettings& s) {
         const int cap = std::min(d.registers_per_thread, d.registers_per_sm / (c.threads() * c.min_blocks));
         return estimated_registers(c, s.register_overhead) <= cap;
       }},
      {"alignment",
       [](const KernelConfig& c, const DeviceProfile&, const GemmShape* p, const ConstraintSettings&) {
         // The wgmma kernels read A and B through tensor maps, whose rows start on 16-byte
         // boundaries: a problem whose packed rows do not (K not a multiple of 8 halves or 4
         // floats) has no binary of theirs.
         return c.family != KernelFamily::wgmma || !p || kernel_path_for(c, *p) == KernelPath::whole_vectors;
       }},
      {"load_balance",
       [](const KernelConfig& c, const DeviceProfile& d, const GemmShape* p, const ConstraintSettings& s) {
         if (!p) return true;
         // Tiles mostly outside C waste the block; a small problem wants a small tile.
         const double used = double(std::max(p->m, s.min_counted_rows)) * std::max(p->n, s.min_counted_rows);
         const double covered =
             double(ceil_div(p->m, c.block_m)) * c.block_m * ceil_div(p->n, c.block_n) * c.block_n;
         if (1.0 - used / covered > s.max_tile_waste) return false;
         // K's slices, in the launch (split_k) or in a cluster (cluster_k): only where the tiles do not
         // fill the GPU, and each slice long enough to pay.
         if (const int slices = c.split_k * c.cluster_k; slices > 1) {
           const double tiles = double(ceil_div(p->m, c.block_m)) * ceil_div(p->n, c.block_n) * p->batch;
           if (p->k / slices < s.min_k_per_split) return false;
           if (tiles >= s.split_k_max_waves * d.sm_count) return false;
         }
         return true;
       }},
      {"row_tile",
       [](const KernelConfig& c, const DeviceProfile&, const GemmShape* p, const ConstraintSettings&) {
         // A skinny kernel holds the problem's every row in one tile of the least rows that do.
         return !is_skinny(c.family) || !p || c.block_m == skinny_rows_for(c.family, p->m);
       }},
      {"k_tile_depth",
       [](const KernelConfig& c, const DeviceProfile&, const GemmShape*, const ConstraintSettings&) {
         // A 32-deep tile pays only where B's n-major tile is read in k runs (H200, 2026-11-29, m = 32
         // in nt: transpose_b 1.02-1.13x faster than at 16, copies that transpose B 0.80-0.90x).
         return c.family != KernelFamily::sgemm || c.block_k <= 16 || c.transpose_b;
       }},
      {"no_effect",
       [](const KernelConfig& c, const DeviceProfile&, const GemmShape* p, const ConstraintSettings&) {
         // Launch-time variants identical to swizzle 1 at this shape; atomic needs slices to add.
         if (c.split_k_atomic && c.split_k == 1) return false;
         // B's padding and its n-major shared layout serve only a B stored transposed (whose rows
         // are then copied as they are, or transposed over the banks).
         if ((c.pad_b != 0 || c.transpose_b) && (!p || !op_b_transposed(p->layout))) return false;
         if (!p) return c.swizzle == 1 && c.split_k == 1;
         return c.swizzle == 1 || ceil_div(p->m, c.block_m) > c.swizzle;
       }},
  };
  return list;
}

// Settings are bounded so that the constraints' integer arithmetic cannot overflow and no float
// reaches an int conversion out of range (both undefined behaviour, found by fuzz_search_space).
constexpr int kMaxSetting = 1000000;

template <typename T>
T get_setting(const nlohmann::json& obj, const char* key, T fallback, const std::string& constraint) {
  if (!obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  const bool typed = std::is_integral_v<T> ? v.is_number_integer() : v.is_number();
  if (!typed || v.get<double>() < 0 || v.get<double>() > kMaxSetting)
    throw std::invalid_argument(fmt::format("constraint '{}': '{}' must be {} in 0..{}", constraint, key,
                                            std::is_integral_v<T> ? "a whole number" : "a number",
                                            kMaxSetting));
  return v.get<T>();
}

}  // namespace

const std::vector<std::string>& constraint_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : constraints()) n.push_back(c.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& parameter_names() {
  return kParameters;
}

std::vector<int> parameter_values(const KernelConfig& config) {
  std::vector<int> values;
  values.reserve(kParameters.size());
  for (const auto& name : kParameters) values.push_back(get_parameter(config, name));
  return values;
}

std::vector<int> tile_shape_of(const std::vector<int>& values) {
  return {values.begin(), values.begin() + std::min(kTileShapeLength, values.size())};
}

int estimated_registers(const KernelConfig& c, int overhead) {
  if (c.family == KernelFamily::skinny_stream) {  // accumulators, B's loads in flight (twice with prefetch), A
    // A step is 4 k, or for a transposed B one 16-byte vector along k (8 for 16-bit operands), whose
    // B stays packed: a step's words are its bytes over 4.
    const int bytes = operand_bytes(c.precision);
    const int step_k = op_b_transposed(c.layout) ? 16 / bytes : 4;
    const int b_words = step_k * c.thread_n * bytes / 4;
    return c.block_m * c.thread_n + (c.prefetch ? 2 : 1) * c.unroll * b_words + step_k * c.block_m + overhead;
  }
  if (c.family == KernelFamily::skinny_tiled)  // accumulators and one 4-deep k step of fragments
    return c.thread_m * c.thread_n + 4 * (c.thread_m + c.thread_n) + overhead;
  if (c.family == KernelFamily::wgmma)  // a consumer thread's accumulators (3xtf32: and a k tile's sums)
    return wgmma_consumer_rows(c) / 64 * c.block_n / 2 * (c.precision == Precision::tf32x3 ? 2 : 1) + overhead;
  if (c.family == KernelFamily::mma) {  // accumulators (twice for 3xtf32's per-tile sums), two k steps of fragments
    const int accumulators = c.warp_m * c.warp_n / 32 * (c.precision == Precision::tf32x3 ? 2 : 1);
    return accumulators + 2 * (c.warp_m / 16 * 4 + c.warp_n / 8 * 2) + overhead;
  }
  const int threads = std::max(1, c.threads());
  const int accumulators = c.thread_m * c.thread_n;
  // Fragments of A and B for one step of the inner loop, double-buffered by the template. A
  // row-major in shared memory is read 4 k steps at a time, so a step covers 4 k values.
  const int k_run = c.transpose_a && !c.transpose_b ? 1 : std::min(4, c.block_k);
  const int fragments = 2 * k_run * (c.thread_m + c.thread_n);
  // The synchronous path stages the next tile in registers; cp.async does not.
  const int staging = c.async_copy ? 0 : (c.block_m * c.block_k + c.block_k * c.block_n) / threads;
  return accumulators + fragments + staging + overhead;
}

std::size_t SearchSpace::cross_product_size() const {
  std::size_t n = 1;
  for (const auto& [name, list] : values) n *= list.size();
  return n;
}

SearchSpace parse_search_space(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw std::invalid_argument(source + ": the search space must be a JSON object");
  if (!j.contains("parameters") || !j["parameters"].is_object())
    throw std::invalid_argument(source + ": missing object 'parameters'");
  SearchSpace space;
  space.source = source;
  if (j.contains("kernel")) {
    if (!j["kernel"].is_string()) throw std::invalid_argument(source + ": 'kernel' must be a string");
    try {
      space.family = parse_family(j["kernel"].get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: 'kernel' {}", source, e.what()));
    }
  }
  if (j.contains("precision")) {
    const auto precision = j["precision"].is_string() ? parse_precision(j["precision"].get<std::string>()) : std::nullopt;
    if (!precision) throw std::invalid_argument(source + ": 'precision' must be fp32, 3xtf32, tf32, bf16 or fp16");
    space.precision = *precision;
  }
  const bool tensor_cores = space.family == KernelFamily::mma || space.family == KernelFamily::wgmma;
  const bool sixteen_bit_stream = space.family == KernelFamily::skinny_stream && operand_bytes(space.precision) == 2;
  if (tensor_cores != (space.precision != Precision::fp32) && !sixteen_bit_stream)
    throw std::invalid_argument(source +
                                ": the mma and wgmma kernels serve 3xtf32, tf32, bf16 and fp16, skinny_stream fp32, bf16 "
                                "and fp16, the others fp32");
  for (const auto& [name, list] : j["parameters"].items()) {
    if (std::find(kParameters.begin(), kParameters.end(), name) == kParameters.end())
      throw std::invalid_argument(fmt::format("{}: unknown parameter '{}'", source, name));
    if (!list.is_array() || list.empty() || list.size() > 64)
      throw std::invalid_argument(
          fmt::format("{}: parameter '{}' needs a list of 1 to 64 values", source, name));
    std::set<int> seen;
    for (const auto& v : list) {
      int value = 0;
      if (is_bool_parameter(name)) {
        if (!v.is_boolean())
          throw std::invalid_argument(fmt::format("{}: '{}' takes true/false values", source, name));
        value = v.get<bool>() ? 1 : 0;
      } else {
        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 4096)
          throw std::invalid_argument(fmt::format("{}: '{}' takes integers in 0..4096", source, name));
        value = v.get<int>();
      }
      if (seen.insert(value).second) space.values[name].push_back(value);
    }
  }
  for (const auto& name : kParameters) {
    if (!space.values.count(name)) space.values[name] = {get_parameter(default_config(), name)};
  }
  if (j.contains("constraints")) {
    const auto& cs = j["constraints"];
    if (!cs.is_object()) throw std::invalid_argument(source + ": 'constraints' must be an object");
    for (const auto& [name, settings] : cs.items()) {
      const auto& names = constraint_names();
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::invalid_argument(
            fmt::format("{}: unknown constraint '{}' (known: {})", source, name, fmt::join(names, ", ")));
      if (!settings.is_object())
        throw std::invalid_argument(
            fmt::format("{}: constraint '{}' needs an object of settings", source, name));
      space.enabled.push_back(name);
      auto& s = space.settings;
      if (name == "thread_count") {
        s.min_threads = get_setting(settings, "min", s.min_threads, name);
        s.max_threads = get_setting(settings, "max", s.max_threads, name);
      } else if (name == "micro_tile") {
        s.max_outputs_per_thread = get_setting(settings, "max_outputs", s.max_outputs_per_thread, name);
        s.max_micro_tile_aspect = get_setting(settings, "max_aspect", s.max_micro_tile_aspect, name);
      } else if (name == "register_estimate") {
        s.register_overhead = get_setting(settings, "overhead", s.register_overhead, name);
      } else if (name == "load_balance") {
        s.max_tile_waste = get_setting(settings, "max_tile_waste", s.max_tile_waste, name);
        s.min_counted_rows = get_setting(settings, "min_counted_rows", s.min_counted_rows, name);
        s.min_k_per_split = get_setting(settings, "min_k_per_split", s.min_k_per_split, name);
        s.split_k_max_waves = get_setting(settings, "split_k_max_waves", s.split_k_max_waves, name);
      }
    }
  }
  // divisibility is what the template itself requires: never optional.
  if (std::find(space.enabled.begin(), space.enabled.end(), "divisibility") == space.enabled.end())
    space.enabled.insert(space.enabled.begin(), "divisibility");
  return space;
}

SearchSpace load_search_space(const std::filesystem::path& path) {
  std::string text;
  std::string source;
  if (path.empty()) {
    text = std::string(embedded_file("configs/sgemm.json"));
    source = "built-in configs/sgemm.json";
  } else {
    // A directory opens as a stream but throws from inside the read (std::ios_base::failure, exit 1):
    // refuse it here with the usual bad-input message.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw std::invalid_argument(
          fmt::format("cannot read search space '{}': is a directory", path.string()));
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(fmt::format("cannot read search space '{}'", path.string()));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    source = path.string();
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: malformed JSON ({})", source, e.what()));
  }
  return parse_search_space(j, source);
}

std::vector<SearchSpace> load_search_spaces(const std::filesystem::path& path) {
  std::vector<SearchSpace> spaces{load_search_space(path)};
  if (!path.empty()) return spaces;
  for (const char* file : {"configs/skinny-stream.json", "configs/skinny-tiled.json", "configs/skinny-stream-bf16.json",
                           "configs/skinny-stream-fp16.json", "configs/mma-3xtf32.json",
                           "configs/mma-tf32.json", "configs/mma-bf16.json", "configs/mma-fp16.json",
                           "configs/wgmma-bf16.json", "configs/wgmma-fp16.json", "configs/wgmma-pingpong-bf16.json",
                           "configs/wgmma-pingpong-fp16.json", "configs/wgmma-tf32.json", "configs/wgmma-pingpong-tf32.json",
                           "configs/wgmma-3xtf32.json"})
    spaces.push_back(parse_search_space(nlohmann::json::parse(embedded_file(file)), std::string("built-in ") + file));
  return spaces;
}

const SearchSpace& space_of(const std::vector<SearchSpace>& spaces, const KernelConfig& config) {
  for (const SearchSpace& space : spaces)
    if (space.family == config.family && space.precision == config.precision) return space;
  return spaces.front();
}

namespace {

// The first constraint config fails (an index into constraints()), or constraints().size().
// enabled[i]: constraints()[i] is on in this space.
std::size_t first_failed(const std::vector<bool>& enabled, const SearchSpace& space, const KernelConfig& config,
                         const DeviceProfile& device, const GemmShape* shape) {
  const auto& list = constraints();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (enabled[i] && !list[i].passes(config, device, shape, space.settings)) return i;
    // Without the divisibility rules (constraints()[0]) nothing else is meaningful (threads() may
    // divide by zero).
    if (i == 0 && !enabled[i] && config_error(config)) return i;
  }
  return list.size();
}

std::vector<bool> enabled_constraints(const SearchSpace& space) {
  std::vector<bool> enabled;
  for (const auto& c : constraints())
    enabled.push_back(std::find(space.enabled.begin(), space.enabled.end(), c.name) != space.enabled.end());
  return enabled;
}

}  // namespace

std::string rejecting_constraint(const SearchSpace& space, const KernelConfig& config,
                                 const DeviceProfile& device, const GemmShape* shape) {
  const std::size_t failed = first_failed(enabled_constraints(space), space, config, device, shape);
  return failed < constraints().size() ? constraints()[failed].name : std::string();
}

Enumeration enumerate(const SearchSpace& space, const DeviceProfile& device, const GemmShape* shape) {
  Enumeration result;
  // Each axis resolved to its KernelConfig member once: the cross product has about a million
  // points, and looking members up by name for each cost most of a second per problem.
  struct Axis {
    int KernelConfig::*int_member;
    bool KernelConfig::*bool_member;
    const std::vector<int>* values;
  };
  std::vector<Axis> axes;
  // B's padding and n-major layout serve only a B stored transposed: elsewhere they stay at their
  // defaults instead of multiplying the cross product by four only for no_effect to cut it back
  // (enumerating the whole default space cost a tuned nn shape about 15 s on the H100 machine).
  const bool b_transposed = shape && op_b_transposed(shape->layout);
  for (const auto& [name, list] : space.values) {
    if (!shape && (name == "swizzle" || name == "split_k")) continue;  // launch-time: fixed to 1
    if (!b_transposed && (name == "pad_b" || name == "transpose_b")) continue;  // default_config()'s
    axes.push_back({int_field(name), bool_field(name), &list});
  }
  const std::vector<bool> enabled = enabled_constraints(space);
  std::vector<std::size_t> removed(constraints().size(), 0);
  KernelConfig base = default_config();
  base.family = space.family;
  base.precision = space.precision;
  base.swizzle = 1;
  base.split_k = 1;
  if (shape) {  // fixed by the problem, never searched
    base.layout = shape->layout;
    base.c16 = shape->c16;  // only 16-bit spaces reach here with a c16 problem
  }
  std::vector<std::size_t> index(axes.size(), 0);
  while (true) {
    KernelConfig c = base;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const int value = (*axes[i].values)[index[i]];
      if (axes[i].bool_member) {
        c.*axes[i].bool_member = value != 0;
      } else {
        c.*axes[i].int_member = value;
      }
    }
    ++result.total;
    const std::size_t failed = first_failed(enabled, space, c, device, shape);
    if (failed == constraints().size()) {
      result.candidates.push_back(c);
    } else {
      ++removed[failed];
    }
    std::size_t axis = 0;
    while (axis < axes.size() && ++index[axis] == axes[axis].values->size()) index[axis++] = 0;
    if (axis == axes.size()) break;
  }
  for (std::size_t i = 0; i < removed.size(); ++i)
    if (removed[i] > 0) result.removed[constraints()[i].name] = removed[i];
  return result;
}

Enumeration enumerate(const std::vector<SearchSpace>& spaces, const DeviceProfile& device, const GemmShape* shape) {
  Enumeration all;
  for (const SearchSpace& space : spaces) {
    if (shape && space.precision != shape->precision) continue;  // another precision's kernels
    Enumeration one = enumerate(space, device, shape);
    all.candidates.insert(all.candidates.end(), one.candidates.begin(), one.candidates.end());
    for (const auto& [constraint, count] : one.removed) all.removed[constraint] += count;
    all.total += one.total;
  }
  return all;
}

}  // namespace gemmtune
