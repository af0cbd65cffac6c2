# DuoInstall.cmake - what `cmake --install build/<backend> --prefix P`
# puts in P.  Every backend installs side by side in one prefix; files
# that all backends share (headers, duoConfig.cmake, Duo.cmake, the tools)
# are the same whichever backend installs them.
#
#   include/duo.h, include/duo/*.h            the API (one set for all)
#   lib/libduo_<backend>.a or .so             -DBUILD_SHARED_LIBS=ON: .so
#   lib/cmake/duo/duoConfig.cmake             find_package(duo CONFIG)
#   lib/cmake/duo/duoConfigVersion.cmake
#   lib/cmake/duo/duo-<backend>-targets.cmake duo::<backend>
#   lib/cmake/duo/Duo.cmake                   duo_add_executable()
#   lib/pkgconfig/duo-<backend>.pc            pkg-config duo-<backend>
#   bin/duo-compare, bin/duo-profile-diff     tools (no backend in them
#                                             that matters)
#   share/duo/profile_diff.py                 what duo-profile-diff runs
#   libexec/duo/<backend>/duo-<app>           the apps, one folder per
#                                             backend since their names
#                                             are the same
include(CMakePackageConfigHelpers)

set(DUO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/duo)
set(DUO_INSTALL_APPDIR ${CMAKE_INSTALL_LIBEXECDIR}/duo/${DUO_BACKEND})

# The library and its exported target duo::<backend>.
install(TARGETS duo EXPORT duo-${DUO_BACKEND}-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT duo-${DUO_BACKEND}-targets NAMESPACE duo::
  DESTINATION ${DUO_INSTALL_CMAKEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# The CMake package: one config for all backends; it picks duo::duo.
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/duoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/duoConfig.cmake
  INSTALL_DESTINATION ${DUO_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/duoConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/duoConfig.cmake
              ${PROJECT_BINARY_DIR}/duoConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/Duo.cmake
  DESTINATION ${DUO_INSTALL_CMAKEDIR})

# pkg-config: flags a plain Makefile needs for this backend.  The prefix
# is found from the .pc file's own place, so the tree can be moved.
file(RELATIVE_PATH DUO_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" DUO_PC_TO_PREFIX "${DUO_PC_TO_PREFIX}")
string(TOUPPER ${DUO_BACKEND} DUO_BACKEND_UPPER)
# The flags duo_usage_requirements() gives CMake consumers: no
# floating-point contraction (gcc fuses a*b+c in its gnu dialects, the
# default without -std=c11) and duo's CPU target (duo_cpu_target()).
# DUO_PC_VARIABLES: what a user may override with pkg-config
# --define-variable (duo.pc.in).
list(JOIN DUO_CPU_FLAGS " " duo_pc_cpu)
set(DUO_PC_VARIABLES "")
set(DUO_PC_CFLAGS "")
set(DUO_PC_LIBS "-lm")
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang|IntelLLVM")
  set(DUO_PC_CFLAGS "-ffp-contract=off ${duo_pc_cpu}")
endif()
if(DUO_BACKEND STREQUAL "serial" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  # As duo_cpu_options(): the kernels' `omp simd` hints, no OpenMP runtime.
  string(PREPEND DUO_PC_CFLAGS "-fopenmp-simd ")
elseif(DUO_BACKEND STREQUAL "openmp")
  string(PREPEND DUO_PC_CFLAGS "${OpenMP_C_FLAGS} ")
  set(DUO_PC_LIBS "${OpenMP_C_FLAGS} -lm")
elseif(DUO_BACKEND STREQUAL "cuda")
  # Static libduo_cuda.a holds nvcc's host code (C++ runtime) and needs
  # cudart; kernels in the user's sources must be compiled by nvcc.
  list(GET CUDAToolkit_INCLUDE_DIRS 0 duo_cuda_include)
  # The flags are nvcc's: the host path is OpenMP code, so kernel sources
  # need the host compiler's -fopenmp (and -ffp-contract=off for the
  # openmp build's bits), and the link the OpenMP runtime.  --fmad=false:
  # the GPU rounds a*b+c as the host does; --define-variable=fmad=true is
  # DUO_FAST_FMA=ON.
  set(DUO_PC_VARIABLES "fmad=false")
  string(REPLACE ";" "," duo_pc_cpu "${DUO_CPU_FLAGS}")
  if(duo_pc_cpu)
    string(PREPEND duo_pc_cpu ",")
  endif()
  set(DUO_PC_CFLAGS "-I${duo_cuda_include} --fmad=\${fmad}")
  string(APPEND DUO_PC_CFLAGS
    " -Xcompiler=-fopenmp,-ffp-contract=off,-fno-math-errno${duo_pc_cpu}")
  set(DUO_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart")
  foreach(lib IN LISTS OpenMP_C_LIB_NAMES)
    string(APPEND DUO_PC_LIBS " -l${lib}")
  endforeach()
  foreach(lib IN LISTS CMAKE_DL_LIBS)
    string(APPEND DUO_PC_LIBS " -l${lib}")
  endforeach()
  string(APPEND DUO_PC_LIBS " -lstdc++ -lm")
endif()
string(STRIP "${DUO_PC_CFLAGS}" DUO_PC_CFLAGS)
configure_file(${CMAKE_CURRENT_LIST_DIR}/duo.pc.in
  ${PROJECT_BINARY_DIR}/duo-${DUO_BACKEND}.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/duo-${DUO_BACKEND}.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Installed programs find a shared libduo_<backend> relative to themselves.
file(RELATIVE_PATH duo_bin_to_lib /prefix/${CMAKE_INSTALL_BINDIR}
  /prefix/${CMAKE_INSTALL_LIBDIR})
file(RELATIVE_PATH duo_app_to_lib /prefix/${DUO_INSTALL_APPDIR}
  /prefix/${CMAKE_INSTALL_LIBDIR})

# Tools: duo-compare (C) and duo-profile-diff (a launcher of the Python
# script, installed next to it under share/duo).
if(TARGET duo-compare)
  set_target_properties(duo-compare PROPERTIES
    INSTALL_RPATH "$ORIGIN/${duo_bin_to_lib}")
  install(TARGETS duo-compare RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
file(RELATIVE_PATH duo_bin_to_data /prefix/${CMAKE_INSTALL_BINDIR}
  /prefix/${CMAKE_INSTALL_DATADIR}/duo)
set(DUO_PROFILE_DIFF_PY "\"$(dirname \"$0\")/${duo_bin_to_data}/profile_diff.py\"")
configure_file(${PROJECT_SOURCE_DIR}/tools/duo-profile-diff.in
  ${PROJECT_BINARY_DIR}/install/duo-profile-diff @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/install/duo-profile-diff
  DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/tools/profile_diff.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/duo)

# The apps: every executable defined in src/apps.
if(DUO_BUILD_APPS)
  get_property(duo_app_targets DIRECTORY ${PROJECT_SOURCE_DIR}/src/apps
               PROPERTY BUILDSYSTEM_TARGETS)
  foreach(app IN LISTS duo_app_targets)
    get_target_property(type ${app} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set_target_properties(${app} PROPERTIES
        INSTALL_RPATH "$ORIGIN/${duo_app_to_lib}")
      install(TARGETS ${app} RUNTIME DESTINATION ${DUO_INSTALL_APPDIR})
    endif()
  endforeach()
endif()
