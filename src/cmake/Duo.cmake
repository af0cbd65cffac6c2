# Duo.cmake - backend selection and duo_add_executable(), for this project
# and for projects that use duo (add_subdirectory(duo), then call it).
#
#   duo_add_executable(<target> SOURCES <kernel and app sources...>
#                      [HOST_SOURCES <plain C sources...>])
#
# SOURCES are compiled by nvcc as CUDA C++ in a CUDA build and by the C
# compiler otherwise; HOST_SOURCES always by the C compiler.
# duo_kernel_sources(<target> <sources...>) does the same for a target
# made some other way.  In a project configured without CMAKE_BUILD_TYPE
# (and no -O in its flags) kernel sources get -O3, as Release would give.
#
# Every target that links duo (duo_add_executable, or a plain
# target_link_libraries with duo::duo / duo::<backend>) compiles with
# duo's arithmetic and CPU target (duo_usage_requirements below):
#   - no floating-point contraction: C -ffp-contract=off (gnu dialects
#     included), nvcc --fmad=false on the GPU and -ffp-contract=off on
#     the host path, so a bare a*b+c rounds twice everywhere and gives the
#     same bits on every backend; fma() stays one instruction;
#   - the CPU baseline duo was built for (DUO_CPU_BASELINE: x86-64-v3 on
#     x86-64, where fma() is one instruction), not -march=native.
# Read from the variables of the same name (set before find_package or
# add_subdirectory, or -D...):
#   DUO_FAST_FMA=ON  let nvcc fuse a*b+c on the GPU (its default): faster
#                    compute-bound kernels, GPU results no longer the CPU's
#                    bits wherever a*b+c is written bare; the CPU paths
#                    still agree with each other;
#   DUO_NATIVE=ON    -march=native instead of the baseline: the binary
#                    runs only on CPUs with this machine's features.

macro(duo_setup_backend)
  if(DUO_BACKEND STREQUAL "cuda")
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR
        "DUO_BACKEND=cuda needs the CUDA toolkit (nvcc), which was not found. "
        "Install it or put nvcc on PATH, or build the CPU backends instead: "
        "make serial / make openmp.")
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper machine code plus PTX that any GPU from sm_80 on can JIT.
      set(CMAKE_CUDA_ARCHITECTURES "90-real;80-virtual")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # The host path (what a CUDA build runs where there is no GPU) is the
    # OpenMP backend.
    find_package(OpenMP REQUIRED COMPONENTS C)
  elseif(DUO_BACKEND STREQUAL "openmp")
    find_package(OpenMP REQUIRED COMPONENTS C)
  endif()
endmacro()

# The CPU target: DUO_CPU_FLAGS (C), DUO_CPU_CUDA_FLAGS (nvcc, for the
# host compiler), DUO_CPU_PLAIN_FLAGS (undo them: the files that must
# run on any x86-64, src/cpu_check.c) and DUO_CPU_TARGET (in words).
# x86-64-v3 (AVX2, FMA, BMI2, ...: every x86 CPU since 2013-2015) keeps
# fma() one instruction: without FMA in the target it is a libm call,
# about 4x slower in an fma-heavy kernel.  Compilers without
# -march=x86-64-v3 (gcc < 11, clang < 12) get -mavx2 -mfma.  Other
# architectures keep the compiler's default (aarch64 has fma in its
# base).  For duo's own build; consumers get the result through the
# exported targets and the .pc files.
function(duo_cpu_target)
  set(c_flags "")
  set(cuda_flags "")
  set(plain_flags "")
  set(target "the compiler's default")
  set(gnu_like OFF)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang|IntelLLVM")
    set(gnu_like ON)
  endif()
  set(x86_64 OFF)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|x64)$")
    set(x86_64 ON)
  endif()
  if(DUO_NATIVE AND gnu_like)
    set(c_flags -march=native)
    set(cuda_flags -Xcompiler=-march=native)
    set(target "this machine (-march=native)")
  elseif(DUO_CPU_BASELINE AND gnu_like AND x86_64)
    include(CheckCCompilerFlag)
    check_c_compiler_flag(-march=x86-64-v3 DUO_C_HAS_X86_64_V3)
    if(DUO_C_HAS_X86_64_V3)
      set(c_flags -march=x86-64-v3)
      set(cuda_flags -Xcompiler=-march=x86-64-v3)
      set(target "x86-64-v3 (-march=x86-64-v3)")
    else()
      set(c_flags -mavx2 -mfma)
      set(cuda_flags -Xcompiler=-mavx2,-mfma)
      set(target "AVX2 and FMA (-mavx2 -mfma)")
    endif()
  endif()
  if(c_flags AND x86_64)
    # -march=x86-64 undoes -march=...; -mno-avx undoes -mavx2 -mfma.
    set(plain_flags -march=x86-64 -mno-avx)
  endif()
  set(DUO_CPU_FLAGS "${c_flags}" PARENT_SCOPE)
  set(DUO_CPU_CUDA_FLAGS "${cuda_flags}" PARENT_SCOPE)
  set(DUO_CPU_PLAIN_FLAGS "${plain_flags}" PARENT_SCOPE)
  set(DUO_CPU_TARGET "${target}" PARENT_SCOPE)
endfunction()

# What `target` (duo's library) gives every target that links it, and
# itself where it applies: duo's arithmetic and the CPU target.  The
# choices are read, when each consumer is generated, from the properties
# DUO_FAST_FMA and DUO_NATIVE of `target` (set from the variables by
# duo's CMakeLists.txt and by duoConfig.cmake), so that an installed
# package follows the consumer's configure.  The CPU target comes from
# duo_cpu_target(); an installed package keeps the one it was built with.
function(duo_usage_requirements target)
  set(fast "$<BOOL:$<TARGET_PROPERTY:${target},DUO_FAST_FMA>>")
  set(native "$<BOOL:$<TARGET_PROPERTY:${target},DUO_NATIVE>>")
  set(c_gnu "$<COMPILE_LANG_AND_ID:C,GNU,Clang,AppleClang,IntelLLVM>")
  set(cuda "$<COMPILE_LANGUAGE:CUDA>")
  # -ffp-contract=off changes nothing in duo's own C code (C11 does not
  # contract); --fmad=false stays off duo's own GPU code, whose
  # arithmetic is tuned and written with explicit fma.
  target_compile_options(${target} PUBLIC "$<${c_gnu}:-ffp-contract=off>")
  target_compile_options(${target} INTERFACE
    "$<$<AND:${cuda},$<NOT:${fast}>>:--fmad=false>")
  target_compile_definitions(${target} INTERFACE "$<${fast}:DUO_FAST_FMA=1>")
  # (Conditions, not $<IF>: nvcc's -Xcompiler lists hold commas.)
  set(c_native "$<AND:${c_gnu},${native}>")
  set(c_base "$<AND:${c_gnu},$<NOT:${native}>>")
  target_compile_options(${target} PUBLIC
    "$<${c_native}:-march=native>" "$<${c_base}:${DUO_CPU_FLAGS}>"
    "$<$<AND:${cuda},${native}>:-Xcompiler=-march=native>"
    "$<$<AND:${cuda},$<NOT:${native}>>:${DUO_CPU_CUDA_FLAGS}>")
endfunction()

# Compile options for duo's own C code and for kernel sources on CPU.
function(duo_cpu_options target)
  # -fno-math-errno lets sqrt and friends vectorize; results are the same,
  # only errno is no longer set by math functions.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wno-unknown-pragmas>)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-math-errno>)
  endif()
  if(DUO_BACKEND STREQUAL "cuda")
    # nvcc's host pass compiles every kernel a second time, as the host
    # path: with the OpenMP loops, and with the C build's arithmetic
    # (g++ would fuse a * b + c into an fma by default, which C11 does
    # not, and the host path must give the openmp build's bits).
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
    target_compile_options(${target} PUBLIC
      "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp,-ffp-contract=off,-fno-math-errno>")
  elseif(DUO_BACKEND STREQUAL "openmp")
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
  elseif(DUO_BACKEND STREQUAL "serial" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    # Keep the `omp simd` vectorization hints without a threading runtime.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fopenmp-simd>)
  endif()
endfunction()

function(duo_kernel_sources target)
  # A C++ compiler other than nvcc does not take duo's kernel macros.
  foreach(src IN LISTS ARGN)
    get_source_file_property(lang ${src} TARGET_DIRECTORY ${target} LANGUAGE)
    if(NOT DUO_BACKEND STREQUAL "cuda" AND (lang STREQUAL "CXX" OR
       (NOT lang AND src MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C|CPP)$")))
      message(FATAL_ERROR "duo_kernel_sources(${target}): ${src} would be "
        "compiled by the C++ compiler.  Kernel sources are C files (the "
        "common subset of C11 and C++17), compiled by the C compiler in the "
        "serial and openmp builds and by nvcc in a cuda build; rename it "
        "to .c, or give it as HOST_SOURCES if it holds no kernels.")
    endif()
  endforeach()
  if(DUO_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
                                PROPERTIES LANGUAGE CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
  endif()
  # Without a build type CMake passes no -O at all: kernels ran 5x
  # slower.  Flags the project set itself (an -O in CMAKE_C_FLAGS or
  # CMAKE_CUDA_FLAGS) are left alone.
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES
     AND NOT "${CMAKE_C_FLAGS} ${CMAKE_CUDA_FLAGS}" MATCHES "(^| )-O")
    set_property(SOURCE ${ARGN} TARGET_DIRECTORY ${target}
                 APPEND PROPERTY COMPILE_OPTIONS -O3)
    get_property(told GLOBAL PROPERTY DUO_TOLD_NO_BUILD_TYPE)
    if(NOT told)
      set_property(GLOBAL PROPERTY DUO_TOLD_NO_BUILD_TYPE ON)
      message(STATUS "duo: no CMAKE_BUILD_TYPE: kernel sources are "
        "compiled with -O3 (set CMAKE_BUILD_TYPE, e.g. Release or Debug, "
        "to choose)")
    endif()
  endif()
  target_sources(${target} PRIVATE ${ARGN})
endfunction()

function(duo_add_executable target)
  cmake_parse_arguments(DUO "" "" "SOURCES;HOST_SOURCES" ${ARGN})
  if(NOT DUO_SOURCES AND NOT DUO_HOST_SOURCES)
    message(FATAL_ERROR "duo_add_executable(${target}): give SOURCES or HOST_SOURCES")
  endif()
  add_executable(${target} ${DUO_HOST_SOURCES})
  duo_kernel_sources(${target} ${DUO_SOURCES})
  target_link_libraries(${target} PRIVATE duo::duo)
  duo_cpu_options(${target})
endfunction()
