// How one candidate's evaluation (or a worker's answer) ended. The worker protocol, the tuning log
// and the results keep today's words ("ok", "compile", ...), so logs written before the enum read
// the same.
#pragma once

#include <optional>
#include <string_view>

namespace gemmtune {

enum class CandidateStatus {
  ok,         // verified and timed
  compile,    // NVRTC refused it
  resources,  // more registers, spills or memory than the GPU allows it
  incorrect,  // a result outside the error bound (or less accurate than its contract)
  timeout,    // no answer in time: the worker was killed
  launch,     // a launch failed or the worker died
  error,      // anything else the worker reported
};

constexpr std::string_view status_name(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::ok: return "ok";
    case CandidateStatus::compile: return "compile";
    case CandidateStatus::resources: return "resources";
    case CandidateStatus::incorrect: return "incorrect";
    case CandidateStatus::timeout: return "timeout";
    case CandidateStatus::launch: return "launch";
    case CandidateStatus::error: break;
  }
  return "error";
}

// The status a word names; an unknown word is an error.
constexpr CandidateStatus parse_status(std::string_view name) {
  for (const CandidateStatus s : {CandidateStatus::ok, CandidateStatus::compile, CandidateStatus::resources,
                                  CandidateStatus::incorrect, CandidateStatus::timeout, CandidateStatus::launch})
    if (name == status_name(s)) return s;
  return CandidateStatus::error;
}

}  // namespace gemmtune
