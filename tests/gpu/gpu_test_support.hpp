// Shared by the gpu tier: skip cleanly where no GPU is present.
#pragma once

#include <gtest/gtest.h>

#include "device_profile.hpp"

#define GEMMTUNE_REQUIRE_GPU()                                                     \
  do {                                                                             \
    const auto gemmtune_devices_ = ::gemmtune::count_devices();                    \
    if (gemmtune_devices_.count == 0) GTEST_SKIP() << gemmtune_devices_.reason;    \
  } while (0)
