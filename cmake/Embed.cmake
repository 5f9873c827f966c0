# Turns text files into a C++ source defining gemmtune::embedded_file(path) -> std::string_view.
# Re-runs whenever one of the files changes, or one of PARTS, the files they include
# (JoinTemplate.cmake).
function(gemmtune_embed)
  cmake_parse_arguments(ARG "" "OUTPUT" "FILES;PARTS" ${ARGN})
  set(abs_files "")
  foreach(f IN LISTS ARG_FILES ARG_PARTS)
    list(APPEND abs_files ${CMAKE_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "|" files_arg "${ARG_FILES}")  # a list would be split by the shell
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DROOT=${CMAKE_SOURCE_DIR}
            "-DFILES=${files_arg}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${abs_files} ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake ${CMAKE_SOURCE_DIR}/cmake/JoinTemplate.cmake
    COMMENT "Embedding kernel templates and default configs"
    VERBATIM)
  set_source_files_properties(${ARG_OUTPUT} PROPERTIES GENERATED TRUE)
  set(GEMMTUNE_EMBEDDED_SOURCE ${ARG_OUTPUT} PARENT_SCOPE)
endfunction()
