# Script mode (cmake -P). Installs the build into a fresh prefix, checks that the exported targets
# name none of the internals or their dependencies, then configures and builds a separate project
# with find_package(gemmtune) whose code (C++ and C) and CMake lines are the README's snippets,
# extracted here, so the README cannot drift from what works. Runs the programs (they need no GPU).
# Arguments: BUILD_DIR, SOURCE_DIR, WORK_DIR, CUDA_ROOT.
set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/consumer)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${consumer})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB_RECURSE exported ${prefix}/*/cmake/gemmtune/gemmtuneTargets*.cmake)
if(NOT exported)
  message(FATAL_ERROR "no gemmtuneTargets*.cmake under ${prefix}")
endif()
foreach(f IN LISTS exported)
  file(READ ${f} text)
  if(text MATCHES "nlohmann|spdlog|fmt::|gemmtune_core|gemmtune_logging|gemmtune_runtime_objects")
    message(FATAL_ERROR "${f} leaks an internal dependency: ${CMAKE_MATCH_0}")
  endif()
endforeach()

# The fenced block of the given language that follows <!-- marker --> in README.md.
function(readme_snippet marker language out_var)
  file(READ ${SOURCE_DIR}/README.md readme)
  string(FIND "${readme}" "<!-- ${marker} -->" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no <!-- ${marker} --> marker")
  endif()
  string(SUBSTRING "${readme}" ${at} -1 rest)
  set(fence "```${language}\n")
  string(FIND "${rest}" "${fence}" open)
  if(open EQUAL -1)
    message(FATAL_ERROR "no ${language} block after <!-- ${marker} -->")
  endif()
  string(LENGTH "${fence}" fence_length)
  math(EXPR body_start "${open} + ${fence_length}")
  string(SUBSTRING "${rest}" ${body_start} -1 rest)
  string(FIND "${rest}" "```" close)
  string(SUBSTRING "${rest}" 0 ${close} body)
  set(${out_var} "${body}" PARENT_SCOPE)
endfunction()

readme_snippet("runtime-snippet" cpp code)
readme_snippet("runtime-cmake" cmake README_CMAKE)
readme_snippet("runtime-c-snippet" c c_code)
file(WRITE ${consumer}/readme_snippet.cpp "${code}")
file(WRITE ${consumer}/readme_snippet_c.c "${c_code}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/CMakeLists.txt.in ${consumer}/CMakeLists.txt @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/consumer_main.cpp ${consumer}/consumer_main.cpp COPYONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/consumer_c.c ${consumer}/consumer_c.c COPYONLY)

run_step("configure the consumer" ${CMAKE_COMMAND} -S ${consumer} -B ${consumer}/build
         -DCMAKE_PREFIX_PATH=${prefix} -DCUDAToolkit_ROOT=${CUDA_ROOT} -DCMAKE_BUILD_TYPE=Release)
run_step("build the consumer" ${CMAKE_COMMAND} --build ${consumer}/build -j 2)
foreach(program app app_static app_c)
  run_step("run ${program}" ${consumer}/build/${program})
endforeach()

# With no path and no $GEMMTUNE_RESULTS, the shared library finds the results installed beside it.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=GEMMTUNE_RESULTS GEMMTUNE_LOG_LEVEL=debug
                        ${consumer}/build/app OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT out MATCHES "share/gemmtune/results/nvidia-h100-80gb-hbm3.json: [0-9]+ shapes")
  message(FATAL_ERROR "the installed results were not found from the library's location:\n${out}")
endif()
message(STATUS "installed results found: ok")
