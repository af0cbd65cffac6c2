# dist.cmake - the distributed layer (include/duo/dist.h), included from
# src/CMakeLists.txt.  Every build gets the API; -DDUO_MPI=ON makes it
# MPI's (MPI_COMM_WORLD), without it one process is rank 0 of 1.
#
# CUDA builds with MPI also look for NCCL (nccl.h, libnccl.so; hints:
# NCCL_HOME or NCCL_ROOT, the CUDA toolkit, the system paths): with it
# halo rows travel GPU to GPU through NCCL, without it through CUDA-aware
# MPI or pinned host buffers (backend_cuda/dist.cu decides at run time).
set(DUO_DIST_SOURCES distributed/dist_runtime.c distributed/dist_layout.c
  distributed/dist_reduce.c distributed/dist_halo.c distributed/dist_order.c distributed/dist_dot.c
  distributed/dist_pieces.c distributed/dot_chunks.c)
# dot_chunks.c holds kernels: CUDA C++ in a CUDA build.
if(DUO_BACKEND STREQUAL "cuda")
  set_source_files_properties(distributed/dot_chunks.c PROPERTIES LANGUAGE CUDA)
endif()
if(DUO_MPI)
  find_package(MPI REQUIRED COMPONENTS C)
  message(STATUS "duo: MPI ${MPI_C_VERSION} (${MPI_C_LIB_NAMES}); "
    "mpiexec: ${MPIEXEC_EXECUTABLE}")
  list(APPEND DUO_DIST_SOURCES distributed/comm_mpi.c)
  if(DUO_BACKEND STREQUAL "cuda")
    # dist.cu for the GPU path, device_host.c (as dist_host_*) for the
    # host path.
    list(APPEND DUO_DIST_SOURCES ${PROJECT_SOURCE_DIR}/backend_cuda/dist.cu
      ${PROJECT_SOURCE_DIR}/backend_cuda/dist_ipc.cu
      distributed/device_host.c)
    set_source_files_properties(distributed/device_host.c PROPERTIES
      COMPILE_DEFINITIONS DUO_DIST_HOST_PATH=1)
    find_path(DUO_NCCL_INCLUDE_DIR nccl.h
      HINTS $ENV{NCCL_HOME} $ENV{NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS}/..
      PATH_SUFFIXES include)
    find_library(DUO_NCCL_LIBRARY nccl
      HINTS $ENV{NCCL_HOME} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR}
      PATH_SUFFIXES lib lib64)
    if(DUO_NCCL_INCLUDE_DIR AND DUO_NCCL_LIBRARY)
      message(STATUS "duo: NCCL found: ${DUO_NCCL_LIBRARY} "
        "(halo rows GPU to GPU through NCCL)")
      set(DUO_HAVE_NCCL ON CACHE INTERNAL "NCCL found")
    else()
      message(STATUS "duo: NCCL not found (nccl.h, libnccl.so; set "
        "NCCL_HOME): halo rows through CUDA-aware MPI or host buffers")
      set(DUO_HAVE_NCCL OFF CACHE INTERNAL "NCCL found")
    endif()
  else()
    list(APPEND DUO_DIST_SOURCES distributed/device_host.c)
  endif()
else()
  list(APPEND DUO_DIST_SOURCES distributed/comm_single.c distributed/device_host.c)
endif()

function(duo_dist_setup target)
  if(NOT DUO_MPI)
    return()
  endif()
  target_compile_definitions(${target} PUBLIC DUO_HAVE_MPI=1)
  # MPI's include path and libraries; its compile flags (e.g. -pthread)
  # only for C, which nvcc would not take as they are.
  target_include_directories(${target} PUBLIC ${MPI_C_INCLUDE_DIRS})
  target_link_libraries(${target} PUBLIC ${MPI_C_LIBRARIES})
  if(MPI_C_COMPILE_OPTIONS)
    target_compile_options(${target} PUBLIC
      $<$<COMPILE_LANGUAGE:C>:${MPI_C_COMPILE_OPTIONS}>)
  endif()
  if(MPI_C_LINK_FLAGS)
    target_link_options(${target} PUBLIC ${MPI_C_LINK_FLAGS})
  endif()
  if(DUO_HAVE_NCCL)
    target_include_directories(${target} PRIVATE ${DUO_NCCL_INCLUDE_DIR})
    target_link_libraries(${target} PUBLIC ${DUO_NCCL_LIBRARY})
    target_compile_definitions(${target} PRIVATE DUO_HAVE_NCCL=1)
  endif()
  # OpenMPI's C++ bindings are not wanted when nvcc compiles mpi.h.
  target_compile_definitions(${target} PRIVATE OMPI_SKIP_MPICXX=1
                                               MPICH_SKIP_MPICXX=1)
endfunction()
