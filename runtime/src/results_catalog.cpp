// Only a file whose own fields pass every check of core's reader is added to the catalog, less the
// entries that fail theirs; the file's size is bounded before it is read.
#include "results_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "runtime_log.hpp"

namespace gemmtune {
namespace {

// Reads at most limit + 1 bytes, so a file that grows while being read is still bounded.
std::string read_bounded(const std::filesystem::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot be opened");
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw std::invalid_argument("cannot be read");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limit) throw std::invalid_argument(fmt::format("is larger than {} bytes", limit));
  return text;
}

TunedResults load_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw std::invalid_argument("cannot be read: " + ec.message());
  if (size > kMaxResultsFileBytes)
    throw std::invalid_argument(fmt::format("is larger than {} bytes", kMaxResultsFileBytes));
  return parse_results(read_bounded(path, kMaxResultsFileBytes), printable(path.string()));
}

void add_issue(ResultsCatalog& catalog, ResultsIssue::Kind kind, std::string message) {
  runtime_logger().warn("results {}", message);
  catalog.issues.push_back({kind, std::move(message)});
}

}  // namespace

TunedResults parse_results(std::string_view text, const std::string& origin) {
  // Every message may quote the file: made printable before it reaches a log line.
  try {
    TunedResults results = read_results_text(text, origin, BadEntry::leave_out);
    for (std::string& reason : results.left_out) reason = printable(reason);
    return results;
  } catch (const NotResultsDocument& e) {
    throw NotResultsDocument(printable(e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(printable(e.what()));
  }
}

ResultsCatalog load_results(const std::filesystem::path& path, bool must_exist) {
  ResultsCatalog catalog;
  const std::string shown = printable(path.string());
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    if (must_exist) add_issue(catalog, ResultsIssue::Kind::not_found, shown + ": does not exist");
    return catalog;
  }

  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(status)) {
    for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      // is_regular_file follows links and excludes devices and pipes, which could block a read.
      std::error_code entry_ec;
      if (it->path().extension() == ".json" && it->is_regular_file(entry_ec)) files.push_back(it->path());
    }
    if (ec)
      add_issue(catalog, ResultsIssue::Kind::invalid, shown + ": cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end());
  } else if (std::filesystem::is_regular_file(status)) {
    catalog.single_file = true;
    files.push_back(path);
  } else {
    add_issue(catalog, ResultsIssue::Kind::invalid, shown + ": is neither a regular file nor a directory");
    return catalog;
  }

  for (const auto& file : files) {
    const std::string file_shown = printable(file.string());
    try {
      catalog.files.push_back(load_file(file));
      if (const auto& left_out = catalog.files.back().left_out; !left_out.empty())
        add_issue(catalog, ResultsIssue::Kind::invalid,
                  fmt::format("{}: {} entr{} left out, the rest serve; the first {}", file_shown, left_out.size(),
                              left_out.size() == 1 ? "y" : "ies", left_out.front()));
      runtime_logger().debug("results {}: {} shapes for {} (sm_{})", file_shown,
                             catalog.files.back().shapes.size(), catalog.files.back().device.slug,
                             catalog.files.back().device.compute_capability);
    } catch (const NotResultsDocument& e) {
      if (catalog.single_file) {
        add_issue(catalog, ResultsIssue::Kind::invalid, file_shown + ": " + e.what());
      } else {
        runtime_logger().debug("results {}: skipped, {}", file_shown, e.what());
      }
    } catch (const std::invalid_argument& e) {
      add_issue(catalog, ResultsIssue::Kind::invalid, file_shown + ": " + e.what());
    }
  }
  if (must_exist && files.empty())
    add_issue(catalog, ResultsIssue::Kind::not_found, shown + ": holds no *.json results file");
  return catalog;
}

}  // namespace gemmtune
