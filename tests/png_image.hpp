// Just enough of a PNG decoder to look at a browser screenshot: 8-bit RGB or RGBA, not interlaced
// (what Chromium writes). Chunks are walked, the IDAT data inflated with zlib and each scanline's
// filter undone, giving plain RGBA pixels the tests can count.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemmtune::testing_paths {

struct RgbaImage {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;  // row-major, 4 bytes per pixel
};

inline std::uint32_t read_big_endian(const std::string& bytes, std::size_t at) {
  if (at + 4 > bytes.size()) throw std::runtime_error("PNG truncated");
  return std::uint32_t(std::uint8_t(bytes[at])) << 24 | std::uint32_t(std::uint8_t(bytes[at + 1])) << 16 |
         std::uint32_t(std::uint8_t(bytes[at + 2])) << 8 | std::uint32_t(std::uint8_t(bytes[at + 3]));
}

inline std::uint8_t paeth_predictor(int left, int up, int up_left) {
  const int p = left + up - up_left;
  const int to_left = std::abs(p - left), to_up = std::abs(p - up), to_up_left = std::abs(p - up_left);
  if (to_left <= to_up && to_left <= to_up_left) return std::uint8_t(left);
  return std::uint8_t(to_up <= to_up_left ? up : up_left);
}

// Throws std::runtime_error for anything it cannot read.
inline RgbaImage decode_png(const std::string& bytes) {
  static const std::string signature("\x89PNG\r\n\x1a\n", 8);
  if (bytes.compare(0, signature.size(), signature) != 0) throw std::runtime_error("not a PNG file");
  RgbaImage image;
  int channels = 0;
  std::string compressed;
  for (std::size_t at = signature.size(); at + 8 <= bytes.size();) {
    const std::uint32_t length = read_big_endian(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + length > bytes.size()) throw std::runtime_error("PNG chunk " + type + " truncated");
    const std::string data = bytes.substr(at + 8, length);
    if (type == "IHDR") {
      image.width = read_big_endian(data, 0);
      image.height = read_big_endian(data, 4);
      const int bit_depth = std::uint8_t(data.at(8)), colour_type = std::uint8_t(data.at(9));
      if (bit_depth != 8 || (colour_type != 2 && colour_type != 6) || data.at(12) != 0)
        throw std::runtime_error("PNG is not 8-bit RGB or RGBA without interlacing");
      channels = colour_type == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      compressed += data;
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (channels == 0 || image.width == 0 || image.height == 0)
    throw std::runtime_error("PNG without a usable IHDR");

  const std::size_t stride = std::size_t(image.width) * channels;
  std::vector<std::uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK ||
      raw_size != raw.size())
    throw std::runtime_error("PNG image data does not inflate to its size");

  std::vector<std::uint8_t> previous(stride, 0), current(stride);
  image.rgba.reserve(std::size_t(image.width) * image.height * 4);
  for (std::uint32_t y = 0; y < image.height; ++y) {
    const std::uint8_t* line = raw.data() + y * (stride + 1);
    const std::uint8_t filter = line[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int left = i >= std::size_t(channels) ? current[i - channels] : 0;
      const int up = previous[i];
      const int up_left = i >= std::size_t(channels) ? previous[i - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          predicted = 0;
          break;
        case 1:
          predicted = left;
          break;
        case 2:
          predicted = up;
          break;
        case 3:
          predicted = (left + up) / 2;
          break;
        case 4:
          predicted = paeth_predictor(left, up, up_left);
          break;
        default:
          throw std::runtime_error("PNG scanline with unknown filter " + std::to_string(filter));
      }
      current[i] = std::uint8_t(line[1 + i] + predicted);
    }
    for (std::uint32_t x = 0; x < image.width; ++x) {
      const std::uint8_t* pixel = current.data() + std::size_t(x) * channels;
      image.rgba.insert(image.rgba.end(),
                        {pixel[0], pixel[1], pixel[2], channels == 4 ? pixel[3] : std::uint8_t(255)});
    }
    previous.swap(current);
  }
  return image;
}

}  // namespace gemmtune::testing_paths
