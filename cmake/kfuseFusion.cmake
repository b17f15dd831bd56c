# kfuse_add_fusion(TARGET <target> CONFIG <config.yaml> [FUSION <name>]
#                  [TUNING <results.json>] [OUTPUT_NAME <name>] [REWRITE_LAUNCHES])
#
# Adds a build step that runs `kfuse fuse` on CONFIG (only fusion FUSION when
# given; with TUNING, laid out as kfuse tune's measurements chose) and adds
# the fused source to TARGET. The step writes, under
# ${CMAKE_CURRENT_BINARY_DIR}/kfuse/<target>/:
#   <name>.fused.cu  the fused kernels and their launchers (compiled into TARGET)
#   <name>.fused.h   the launchers' declarations; that directory is on
#                    TARGET's include path, so `#include "<name>.fused.h"`
#   <name>.fused.d   what the step read (the config, the measurements, the
#                    kernels' sources and every header they include)
# <name> is OUTPUT_NAME, else FUSION, else the config's name. The step runs
# again when any of those files or kfuse itself changes, and not otherwise.
#
# Files the config lists under `replace:` (the fused file includes them and
# is compiled in their place, so fused kernels share their __device__ and
# __constant__ variables) are taken out of TARGET's sources; the function asks
# kfuse for them when CMake configures, and configures again when the config
# changes.
#
# With REWRITE_LAUNCHES, the step also rewrites the host code that launches
# the kernels (`kfuse fuse --rewrite-launches`): each host file the config's
# sites name is taken out of TARGET's sources and its rewritten copy, which
# calls the fused launchers, is compiled instead (a file under `replace:`
# only through the fused file). kfuse reads the originals, never the copies,
# so nothing it parses includes the header it writes.
#
# kfuse parses the kernels with TARGET's own compile commands: the function
# turns on EXPORT_COMPILE_COMMANDS for TARGET and passes the build
# directory's compile_commands.json (Makefile and Ninja generators). Files
# the database does not list borrow a neighbour's command.
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "kfuse_add_fusion needs CMake 3.20 or later (DEPFILE with Makefiles, "
                      "EXPORT_COMPILE_COMMANDS on a target); this is ${CMAKE_VERSION}")
endif()

# Sets <out> to the files `kfuse fuse CONFIG <option>` lists (--list-replaced
# or --list-rewritten), asked when CMake configures.
function(_kfuse_list out option config fusion)
  get_target_property(kfuse_exe kfuse::kfuse LOCATION)
  set(query "${kfuse_exe}" fuse "${config}" ${option})
  if(fusion)
    list(APPEND query --fusion "${fusion}")
  endif()
  execute_process(COMMAND ${query} OUTPUT_VARIABLE listed ERROR_VARIABLE error
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "kfuse_add_fusion: kfuse cannot read ${config}:\n${error}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${config}")
  string(STRIP "${listed}" listed)
  string(REPLACE "\n" ";" listed "${listed}")
  set(${out} "${listed}" PARENT_SCOPE)
endfunction()

# Takes <files> (absolute) out of TARGET's sources; each must be one.
function(_kfuse_remove_sources target config files)
  if(NOT files)
    return()
  endif()
  get_target_property(sources "${target}" SOURCES)
  get_target_property(source_dir "${target}" SOURCE_DIR)
  foreach(file IN LISTS files)
    set(found FALSE)
    foreach(source IN LISTS sources)
      get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
      if(path STREQUAL file)
        list(REMOVE_ITEM sources "${source}")
        set(found TRUE)
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "kfuse_add_fusion: ${config} replaces or rewrites ${file}, which is not "
                          "a source of ${target}")
    endif()
  endforeach()
  set_property(TARGET "${target}" PROPERTY SOURCES ${sources})
endfunction()

function(kfuse_add_fusion)
  cmake_parse_arguments(PARSE_ARGV 0 KFUSE "REWRITE_LAUNCHES" "TARGET;CONFIG;FUSION;TUNING;OUTPUT_NAME"
                        "")
  if(KFUSE_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kfuse_add_fusion: unknown arguments: ${KFUSE_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT KFUSE_TARGET OR NOT TARGET "${KFUSE_TARGET}")
    message(FATAL_ERROR "kfuse_add_fusion: TARGET must name an existing target, not '${KFUSE_TARGET}'")
  endif()
  if(NOT KFUSE_CONFIG)
    message(FATAL_ERROR "kfuse_add_fusion: CONFIG is required")
  endif()
  if(NOT TARGET kfuse::kfuse)
    message(FATAL_ERROR "kfuse_add_fusion: kfuse::kfuse is not defined; find_package(kfuse) first")
  endif()

  get_filename_component(config "${KFUSE_CONFIG}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(KFUSE_OUTPUT_NAME)
    set(name "${KFUSE_OUTPUT_NAME}")
  elseif(KFUSE_FUSION)
    set(name "${KFUSE_FUSION}")
  else()
    get_filename_component(name "${config}" NAME_WE)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/kfuse/${KFUSE_TARGET}")
  set(source "${dir}/${name}.fused.cu")
  set(header "${dir}/${name}.fused.h")
  set(depfile "${dir}/${name}.fused.d")

  set(args fuse "${config}" -o "${source}" --header "${header}" --depfile "${depfile}"
           -p "${CMAKE_BINARY_DIR}")
  set(depends "${config}" "$<TARGET_FILE:kfuse::kfuse>")
  if(KFUSE_FUSION)
    list(APPEND args --fusion "${KFUSE_FUSION}")
  endif()
  if(KFUSE_TUNING)
    get_filename_component(tuning "${KFUSE_TUNING}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND args --tuning "${tuning}")
    list(APPEND depends "${tuning}")
  endif()
  if(CMAKE_CUDA_COMPILER_TOOLKIT_ROOT)
    list(APPEND args "--cuda-path=${CMAKE_CUDA_COMPILER_TOOLKIT_ROOT}")
  endif()

  _kfuse_list(replaced --list-replaced "${config}" "${KFUSE_FUSION}")
  _kfuse_remove_sources("${KFUSE_TARGET}" "${config}" "${replaced}")
  set(copies "")
  if(KFUSE_REWRITE_LAUNCHES)
    _kfuse_list(rewritten --list-rewritten "${config}" "${KFUSE_FUSION}")
    if(replaced)
      list(REMOVE_ITEM rewritten ${replaced})
    endif()
    _kfuse_remove_sources("${KFUSE_TARGET}" "${config}" "${rewritten}")
    list(APPEND args --rewrite-launches --rewrite-dir "${dir}/rewritten")
    # Replaced files' copies are compiled only through the fused file.
    _kfuse_list(all_rewritten --list-rewritten "${config}" "${KFUSE_FUSION}")
    foreach(file IN LISTS all_rewritten)
      get_filename_component(base "${file}" NAME)
      list(APPEND copies "${dir}/rewritten/${base}")
      if(file IN_LIST rewritten)
        target_sources("${KFUSE_TARGET}" PRIVATE "${dir}/rewritten/${base}")
      endif()
    endforeach()
  endif()

  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${source}" "${header}" ${copies}
    COMMAND kfuse::kfuse ${args}
    DEPENDS ${depends}
    DEPFILE "${depfile}"
    COMMENT "kfuse: fusing kernels of ${KFUSE_CONFIG} for ${KFUSE_TARGET}"
    VERBATIM)
  set_property(TARGET "${KFUSE_TARGET}" PROPERTY EXPORT_COMPILE_COMMANDS ON)
  target_sources("${KFUSE_TARGET}" PRIVATE "${source}" "${header}")
  target_include_directories("${KFUSE_TARGET}" PRIVATE "${dir}")
endfunction()
