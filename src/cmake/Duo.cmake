# Duo.cmake - backend selection and duo_add_executable(), for this project
# and for projects that use duo (add_subdirectory(duo), then call it).
#
#   duo_add_executable(<target> SOURCES <kernel and app sources...>
#                      [HOST_SOURCES <plain C sources...>])
#
# SOURCES are compiled by nvcc as CUDA C++ in a CUDA build and by the C
# compiler otherwise; HOST_SOURCES always by the C compiler.
# duo_kernel_sources(<target> <sources...>) does the same for a target
# made some other way.

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

# Compile options for duo's own C code and for kernel sources on CPU.
function(duo_cpu_options target)
  # -fno-math-errno lets sqrt and friends vectorize; results are the same,
  # only errno is no longer set by math functions.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wno-unknown-pragmas>)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-math-errno>)
  endif()
  if(DUO_NATIVE AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-march=native>)
  endif()
  if(DUO_BACKEND STREQUAL "cuda")
    # nvcc's host pass compiles every kernel a second time, as the host
    # path: with the OpenMP loops, and with the C build's arithmetic
    # (g++ would fuse a * b + c into an fma by default, which C11 does
    # not, and the host path must give the openmp build's bits).
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
    target_compile_options(${target} PUBLIC
      "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp,-ffp-contract=off,-fno-math-errno>")
    if(DUO_NATIVE)
      target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-march=native>)
    endif()
  elseif(DUO_BACKEND STREQUAL "openmp")
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
  elseif(DUO_BACKEND STREQUAL "serial" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    # Keep the `omp simd` vectorization hints without a threading runtime.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fopenmp-simd>)
  endif()
endfunction()

function(duo_kernel_sources target)
  if(DUO_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
                                PROPERTIES LANGUAGE CUDA)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
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
