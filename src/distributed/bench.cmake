# bench.cmake - duo-dist-bench (dist_bench.c), built with -DDUO_MPI=ON:
# the distributed layer against raw MPI_Allreduce / ncclAllReduce /
# MPI_Sendrecv.  Run by profiles/dist/run_dist_bench.sh.
duo_add_executable(duo-dist-bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/dist_bench.c)
if(DUO_HAVE_NCCL)
  target_include_directories(duo-dist-bench PRIVATE ${DUO_NCCL_INCLUDE_DIR})
  target_compile_definitions(duo-dist-bench PRIVATE DUO_HAVE_NCCL=1)
  target_link_libraries(duo-dist-bench PRIVATE CUDA::cudart)
endif()
