# mpi_tests.cmake - CTest cases run through mpiexec (label "mpi"),
# included from tests/CMakeLists.txt in builds with -DDUO_MPI=ON.
#
# duo_mpi_test(<name> NP <ranks> [TIMEOUT s] COMMAND <program> <args...>)
# runs `mpiexec -n <ranks> <program> <args...>`.  OpenMPI needs
# --oversubscribe to start more ranks than cores, and refuses to run as
# root unless told it may (CI runs as root): both are set here.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                OUTPUT_VARIABLE duo_mpiexec_version ERROR_QUIET)
set(DUO_MPIEXEC_FLAGS ${MPIEXEC_PREFLAGS})
if(duo_mpiexec_version MATCHES "Open MPI|OpenRTE")
  list(APPEND DUO_MPIEXEC_FLAGS --oversubscribe)
endif()
set(DUO_MPI_TEST_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 NCCL_NVLS_ENABLE=0)

function(duo_mpi_test name)
  cmake_parse_arguments(T "" "NP;TIMEOUT" "COMMAND;ENVIRONMENT" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP}
                   ${DUO_MPIEXEC_FLAGS} ${T_COMMAND})
  set(labels "${DUO_BACKEND};mpi")
  if(DUO_BACKEND STREQUAL "cuda")
    list(APPEND labels gpu fallback)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
    LABELS "${labels}" ENVIRONMENT "${DUO_MPI_TEST_ENV};${T_ENVIRONMENT}"
    SKIP_RETURN_CODE 77)
endfunction()

foreach(np 1 2 3 4)
  duo_mpi_test(mpi_dist_np${np} NP ${np} COMMAND $<TARGET_FILE:test_dist>)
endforeach()
# Each call's first exchange all-gathers 10 bytes per rank on up to 64
# ranks and all-reduces the whole record beyond (src/distributed/dist_reduce.c):
# the second way, forced, on 3 ranks.
duo_mpi_test(mpi_dist_agree_full_np3 NP 3
  ENVIRONMENT DUO_DIST_AGREE=full COMMAND $<TARGET_FILE:test_dist>)

# A rank that fails ends every rank, with its message, and no hang: the
# wrapper runs mpiexec under a time limit and checks the exit status and
# the message.
duo_add_executable(test_dist_abort SOURCES
  ${PROJECT_SOURCE_DIR}/tests/test_dist_abort.c)
# duo_mpi_fails(<name> NP <ranks> PATTERN <regex> [ENVIRONMENT <vars>]
#               COMMAND <program> <args>)
function(duo_mpi_fails name)
  cmake_parse_arguments(T "" "NP;PATTERN" "COMMAND;ENVIRONMENT" ${ARGN})
  string(REPLACE ";" " " flags "${DUO_MPIEXEC_FLAGS}")
  add_test(NAME ${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_dist_abort.sh
                   ${MPIEXEC_EXECUTABLE} "${flags}" ${T_NP} "${T_PATTERN}"
                   ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT 90
    LABELS "${DUO_BACKEND};mpi"
    ENVIRONMENT "${DUO_MPI_TEST_ENV};${T_ENVIRONMENT}")
endfunction()
foreach(np 2 3)
  duo_mpi_fails(mpi_dist_abort_np${np} NP ${np}
    PATTERN "duo-dist: rank [0-9]+ of ${np}:.*x is NULL"
    COMMAND $<TARGET_FILE:test_dist_abort>)
endforeach()

# duo-heat on several ranks: its own --check (bit-for-bit equality with
# the host reference, on rank 0 after the gather), including 1-row
# subdomains (7 rows on 4 ranks, boundary rows alone on a rank), and the
# refusal of more ranks than rows.
if(TARGET duo-heat)
  foreach(np 1 2 3 4)
    duo_mpi_test(mpi_heat_np${np} NP ${np}
      COMMAND $<TARGET_FILE:duo-heat> 67 35 --steps 101 --check --reps 1)
  endforeach()
  duo_mpi_test(mpi_heat_1row NP 4
    COMMAND $<TARGET_FILE:duo-heat> 7 4 --steps 5 --check --reps 1)
  duo_mpi_test(mpi_heat_2rows_3cols NP 2
    COMMAND $<TARGET_FILE:duo-heat> 3 2 --steps 3 --check --reps 1)
  duo_mpi_fails(mpi_heat_too_many_ranks NP 3
    PATTERN "3 ranks but only 2 rows"
    COMMAND $<TARGET_FILE:duo-heat> 5 2)
  duo_mpi_fails(mpi_dist_agree_bad NP 2
    PATTERN "DUO_DIST_AGREE=bogus. expected auto .the default. or full"
    ENVIRONMENT DUO_DIST_AGREE=bogus
    COMMAND $<TARGET_FILE:duo-heat> 8 8)
  # DUO_DIST_HALO: a name that is no path, on every build; a GPU path
  # where duo's memory is host memory (DUO_DEVICE=cpu takes a CUDA
  # build's host path, with or without a GPU).
  duo_mpi_fails(mpi_dist_halo_unknown NP 2
    PATTERN "DUO_DIST_HALO=bogus. expected ipc, nccl, cuda-aware-mpi or staged"
    ENVIRONMENT DUO_DIST_HALO=bogus
    COMMAND $<TARGET_FILE:duo-heat> 8 8)
  duo_mpi_fails(mpi_dist_halo_unavailable NP 2
    PATTERN "DUO_DIST_HALO=nccl is not available here: duo's memory is host"
    ENVIRONMENT DUO_DIST_HALO=nccl DUO_DEVICE=cpu
    COMMAND $<TARGET_FILE:duo-heat> 8 8)
endif()

# mpi_<app>_np2..4: compare_ranks.sh runs duo-<app> on 1 and on 2..4
# ranks and requires the same dump, bit for bit.
function(duo_mpi_compare_ranks app)
  foreach(np 2 3 4)
    add_test(NAME mpi_${app}_np${np}
      COMMAND bash ${PROJECT_SOURCE_DIR}/src/distributed/compare_ranks.sh
              ${MPIEXEC_EXECUTABLE} "${DUO_MPIEXEC_FLAGS}" ${np}
              $<TARGET_FILE:duo-${app}> $<TARGET_FILE:duo-compare>
              ${CMAKE_CURRENT_BINARY_DIR}/mpi_${app}_np${np})
    set_tests_properties(mpi_${app}_np${np} PROPERTIES TIMEOUT 180
      LABELS "${DUO_BACKEND};mpi" ENVIRONMENT "${DUO_MPI_TEST_ENV}")
  endforeach()
endfunction()

# duo-cg on several ranks: the dump (x and the residual history) of 2..4
# ranks equals one rank's, bit for bit; one rank runs the graph and
# duo_dot_async of the build without MPI, so this is also equality with
# that build (make compare-mpi checks the serial build itself).  Grids
# whose rows do not divide among the ranks, chunks of duo's dot order
# split between ranks, 1-row subdomains; --check on 2 ranks.
if(TARGET duo-cg)
  duo_mpi_compare_ranks(cg)
  duo_mpi_test(mpi_cg_check_np2 NP 2
    COMMAND $<TARGET_FILE:duo-cg> 45 38 --check --reps 1)
  duo_mpi_fails(mpi_cg_too_many_ranks NP 3
    PATTERN "3 ranks but only 2 rows"
    COMMAND $<TARGET_FILE:duo-cg> 5 2)
endif()

# duo-bicgstab the same way: two products with A per iteration (halo rows
# of p and of s; the upwind stencil weights the north row, the halo
# above, by 1 + cy and the south one by 1), fused pairs of dots through
# duo_dist_dots_async.  The same grids, --check on 2 ranks, more ranks than
# rows refused.
if(TARGET duo-bicgstab)
  duo_mpi_compare_ranks(bicgstab)
  duo_mpi_test(mpi_bicgstab_check_np2 NP 2
    COMMAND $<TARGET_FILE:duo-bicgstab> 45 38 --check --reps 1)
  # Strong convection (cell Peclet 25): the upwind west weight dominates.
  duo_mpi_test(mpi_bicgstab_convective_np3 NP 3
    COMMAND $<TARGET_FILE:duo-bicgstab> 37 23 --cx 50 --cy 3 --check
            --reps 1)
  duo_mpi_fails(mpi_bicgstab_too_many_ranks NP 3
    PATTERN "3 ranks but only 2 rows"
    COMMAND $<TARGET_FILE:duo-bicgstab> 5 2)
endif()
