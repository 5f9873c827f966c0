# Joins a kernel template split into parts into the one program NVRTC compiles: every line
# `#include "PART"` is replaced by the text of PART (relative to the including file, joined the same
# way). Done at build time, not by NVRTC: the embedded text, the compile cache key (a hash of that
# text) and a file given to the tuner's --template then all cover every part, and nothing depends on
# where NVRTC would look for headers. `#line` directives keep NVRTC's messages pointing at the part
# and line they come from; without -lineinfo they leave no trace in the PTX
# (scripts/check-template-ptx.sh compares it).
#
# Included by EmbedFiles.cmake; in script mode, run from the repository root, writes the joined IN
# to OUT, the text the build embeds (e.g. for --template):
#   cmake -DIN=kernel_templates/sgemm.cuh -DOUT=joined.cuh -P cmake/JoinTemplate.cmake
function(gemmtune_join_parts path name out_var)
  file(READ ${path} text)
  get_filename_component(dir ${path} DIRECTORY)
  get_filename_component(name_dir ${name} DIRECTORY)
  if(name_dir)
    set(name_dir "${name_dir}/")
  endif()
  set(joined "")
  set(line 1)  # of `text`'s first line in the file
  string(REGEX MATCH "(^|\n)#include \"([^\"]+)\"[^\n]*\n" match "${text}")
  while(NOT match STREQUAL "")
    set(part ${CMAKE_MATCH_2})
    string(FIND "${text}" "${match}" at)
    if(match MATCHES "^\n")
      math(EXPR at "${at} + 1")  # the newline ends the line before
      string(SUBSTRING "${match}" 1 -1 match)
    endif()
    string(SUBSTRING "${text}" 0 ${at} before)
    string(LENGTH "${match}" match_length)
    math(EXPR rest_at "${at} + ${match_length}")
    string(SUBSTRING "${text}" ${rest_at} -1 text)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines before_lines)
    math(EXPR line "${line} + ${before_lines} + 1")
    if(NOT EXISTS ${dir}/${part})
      message(FATAL_ERROR "${path}: included part ${dir}/${part} does not exist")
    endif()
    gemmtune_join_parts(${dir}/${part} ${name_dir}${part} part_text)
    if(NOT part_text MATCHES "\n$")
      string(APPEND part_text "\n")
    endif()
    string(APPEND joined "${before}#line 1 \"${name_dir}${part}\"\n${part_text}#line ${line} \"${name}\"\n")
    string(REGEX MATCH "(^|\n)#include \"([^\"]+)\"[^\n]*\n" match "${text}")
  endwhile()
  string(APPEND joined "${text}")
  set(${out_var} "${joined}" PARENT_SCOPE)
endfunction()

# The joined text of the template at path, named `name` in NVRTC's messages where it has parts.
function(gemmtune_join_template path name out_var)
  gemmtune_join_parts(${path} ${name} joined)
  file(READ ${path} text)
  if(NOT joined STREQUAL text)
    set(joined "#line 1 \"${name}\"\n${joined}")
  endif()
  set(${out_var} "${joined}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE AND DEFINED IN)
  gemmtune_join_template(${IN} ${IN} joined)  # run from the repository root: named as when embedded
  file(WRITE ${OUT} "${joined}")
endif()
