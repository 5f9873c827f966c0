// Files compiled into the binaries at build time (cmake/EmbedFiles.cmake): the kernel templates and
// the default configs, so an installed tool or library needs no source tree.
#pragma once

#include <string_view>

namespace gemmtune {

// The text of a file embedded under its repository path (e.g. "kernel_templates/sgemm.cuh"),
// or an empty view when no such file was embedded.
std::string_view embedded_file(std::string_view path);

}  // namespace gemmtune
