# The self-contained kfuse of scripts/package.sh: the same objects as
# build/bin/kfuse, linked against the static archives of LLVM, Clang,
# yaml-cpp, zlib and zstd and the static C++ runtime, so that it needs only
# glibc; installed (component `dist`) with Clang's resource headers at
# lib/clang/<major> beside it, where kfuse looks first.
#
#   cmake --build build --target kfuse-dist
#   cmake --install build --component dist --prefix STAGE
#
# Nothing here is built by default: the link of every LLVM archive is large.

find_program(KFUSE_LLVM_CONFIG llvm-config HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
file(GLOB KFUSE_CLANG_ARCHIVES ${LLVM_LIBRARY_DIR}/libclang[A-Z]*.a)
set(KFUSE_DIST_SUPPORTED FALSE)
if(KFUSE_LLVM_CONFIG AND KFUSE_CLANG_ARCHIVES)
  # Every component: the linker takes only the members something refers to.
  # Polly is a plugin; nothing of Clang's tooling refers to it.
  execute_process(COMMAND ${KFUSE_LLVM_CONFIG} --link-static --libnames all
                  OUTPUT_VARIABLE llvm_names OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE llvm_status)
  separate_arguments(llvm_names UNIX_COMMAND "${llvm_names}")
  list(FILTER llvm_names EXCLUDE REGEX "Polly")
  list(TRANSFORM llvm_names PREPEND ${LLVM_LIBRARY_DIR}/)
  find_library(KFUSE_YAML_ARCHIVE libyaml-cpp.a)
  find_library(KFUSE_ZLIB_ARCHIVE libz.a)
  find_library(KFUSE_ZSTD_ARCHIVE libzstd.a)
  if(llvm_status EQUAL 0 AND KFUSE_YAML_ARCHIVE AND KFUSE_ZLIB_ARCHIVE AND KFUSE_ZSTD_ARCHIVE)
    set(KFUSE_DIST_SUPPORTED TRUE)
  endif()
endif()
if(NOT KFUSE_DIST_SUPPORTED)
  message(STATUS "kfuse: no static LLVM/Clang, yaml-cpp, zlib or zstd archives; "
                 "the kfuse-dist target (scripts/package.sh) is not available")
  return()
endif()

get_property(kfuse_libraries GLOBAL PROPERTY KFUSE_LIBRARIES)
set(kfuse_archives)
foreach(library ${kfuse_libraries})
  list(APPEND kfuse_archives $<TARGET_FILE:${library}>)
endforeach()

# kfuse's own libraries link LLVM's shared library through their usage
# requirements; this executable takes their archives as files instead, so it
# inherits none of that, and gets their headers and definitions by hand.
add_executable(kfuse-dist EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tools/kfuse/kfuse.cpp)
add_dependencies(kfuse-dist ${kfuse_libraries})
target_include_directories(kfuse-dist PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_BINARY_DIR}/include)
target_include_directories(kfuse-dist SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_compile_definitions(kfuse-dist PRIVATE ${LLVM_DEFINITIONS})
# One group: the archives refer to each other in every order.
target_link_libraries(kfuse-dist PRIVATE
  -Wl,--start-group ${kfuse_archives} ${KFUSE_CLANG_ARCHIVES} ${llvm_names}
  ${KFUSE_YAML_ARCHIVE} ${KFUSE_ZSTD_ARCHIVE} ${KFUSE_ZLIB_ARCHIVE} -Wl,--end-group
  -static-libstdc++ -static-libgcc -lpthread -ldl -lrt -lm)
# Built under its target's name: an output named kfuse would also be the
# name of CMake's Ninja alias for it, which then builds this binary for
# `ninja kfuse` instead of bin/kfuse. It is installed as bin/kfuse.
set_target_properties(kfuse-dist PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/dist)

install(PROGRAMS $<TARGET_FILE:kfuse-dist> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME kfuse
        COMPONENT dist EXCLUDE_FROM_ALL)
# kfuse::kfuse of the installed archive, found from the package's own place.
file(RELATIVE_PATH kfuse_package_to_prefix /prefix/${KFUSE_PACKAGE_DIR} /prefix)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/cmake/dist/kfuseTargets.cmake CONTENT [[
# kfuse::kfuse: the self-contained kfuse installed beside this package.
get_filename_component(_kfuse_prefix "${CMAKE_CURRENT_LIST_DIR}/@kfuse_package_to_prefix@" ABSOLUTE)
if(NOT TARGET kfuse::kfuse)
  add_executable(kfuse::kfuse IMPORTED)
  set_target_properties(kfuse::kfuse PROPERTIES
                        IMPORTED_LOCATION "${_kfuse_prefix}/@CMAKE_INSTALL_BINDIR@/kfuse")
endif()
unset(_kfuse_prefix)
]] @ONLY)
# The whole include directory: host headers reach the x86 intrinsics and
# <stddef.h> as well as the CUDA wrappers. lib/, not CMAKE_INSTALL_LIBDIR:
# kfuse looks where clang does, <bin>/../lib/clang/<major>.
install(DIRECTORY ${KFUSE_CLANG_RESOURCE_DIR}/include/
        DESTINATION lib/clang/${LLVM_VERSION_MAJOR}/include COMPONENT dist EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_BINARY_DIR}/cmake/dist/kfuseTargets.cmake
              ${PROJECT_BINARY_DIR}/cmake/kfuseConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/kfuseConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/kfuseFusion.cmake
        DESTINATION ${KFUSE_PACKAGE_DIR} COMPONENT dist EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/reference.md
              DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT dist EXCLUDE_FROM_ALL)
# The licences of what is linked in, as Debian ships them.
foreach(package libclang-19-dev llvm-19-dev libyaml-cpp-dev zlib1g libzstd-dev)
  set(copyright /usr/share/doc/${package}/copyright)
  if(EXISTS ${copyright})
    install(FILES ${copyright} DESTINATION ${CMAKE_INSTALL_DOCDIR}/licenses
            RENAME ${package}.copyright COMPONENT dist EXCLUDE_FROM_ALL)
  endif()
endforeach()
if(EXISTS /usr/share/common-licenses/Apache-2.0)
  install(FILES /usr/share/common-licenses/Apache-2.0 DESTINATION ${CMAKE_INSTALL_DOCDIR}/licenses
          COMPONENT dist EXCLUDE_FROM_ALL)
endif()
