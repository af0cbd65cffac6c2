# Thin wrapper over CMake: each backend builds into build/<backend>.
#   make serial | openmp | cuda   configure and build that backend
#   make                          best backend here, run the apps' checks
#   make test                     serial + openmp suites; with nvcc also the
#                                 cuda build: its suite on the host path
#                                 (DUO_DEVICE=cpu, label fallback) and a
#                                 consumer of its install
#   make test-cuda                the cuda suite on the GPU
#   make compare                  every app on serial and on the fastest other
#                                 backend here, results compared value by value
#   make compare-host             the cuda build on its host path
#                                 (DUO_DEVICE=cpu) vs serial, every result bit
#                                 for bit; needs no GPU
#   make profile                  profile every build here, compare them
#                                 (profiles/README.md); one build only:
#                                 make profile-serial|profile-openmp|profile-cuda
#   make bench                    duo-bench on the best backend here (cuda if
#                                 nvcc and a GPU, else openmp, 2 threads):
#                                 duo vs CUB/cuBLAS or OpenMP/OpenBLAS, into
#                                 profiles/bench-<backend>.{csv,md};
#                                 make bench-serial|bench-openmp|bench-cuda,
#                                 BENCH_ARGS=--quick; make bench-deps
#   make asan                     serial and openmp suites under ASan + UBSan
#                                 (build/asan-serial, build/asan-openmp)
#   make valgrind                 every app at small sizes under memcheck
#   make fuzz                     each libFuzzer target for FUZZ_SECONDS (60)
#   make serial-mpi | openmp-mpi | cuda-mpi
#                                 the same with the distributed layer on MPI
#                                 (-DDUO_MPI=ON) into build/<backend>-mpi;
#                                 installs OpenMPI first where it can
#   make test-mpi                 serial-mpi, and its CTest label mpi
#   make compare-mpi              duo-heat, duo-cg and duo-bicgstab on 1..4
#                                 ranks vs the serial build, bit for bit
#                                 (duo-compare --exact)
#   make clean
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
CMAKE_FLAGS ?=

.PHONY: all serial openmp cuda test test-cuda compare compare-host clean
.PHONY: serial-mpi openmp-mpi cuda-mpi test-mpi compare-mpi mpi-deps
.PHONY: profile profile-serial profile-openmp profile-cuda
.PHONY: bench bench-serial bench-openmp bench-cuda bench-deps
.PHONY: asan asan-serial asan-openmp valgrind fuzz
FUZZ_SECONDS ?= 60
BENCH_ARGS ?=

all:
	@MAKE='$(MAKE)' ./src/apps/check_apps.sh

serial openmp:
	$(CMAKE) -S . -B build/$@ -DDUO_BACKEND=$@ $(CMAKE_FLAGS)
	$(CMAKE) --build build/$@ -j $(JOBS)

cuda:
	@command -v nvcc >/dev/null 2>&1 || { \
	  echo "make cuda: nvcc (the CUDA toolkit) was not found on PATH."; \
	  echo "  Install the CUDA toolkit, or build a CPU backend: make serial or make openmp."; \
	  exit 1; }
	$(CMAKE) -S . -B build/cuda -DDUO_BACKEND=cuda $(CMAKE_FLAGS)
	$(CMAKE) --build build/cuda -j $(JOBS)

mpi-deps:
	bash ./src/distributed/install_mpi.sh

serial-mpi openmp-mpi: mpi-deps
	$(CMAKE) -S . -B build/$@ -DDUO_BACKEND=$(@:%-mpi=%) -DDUO_MPI=ON $(CMAKE_FLAGS)
	$(CMAKE) --build build/$@ -j $(JOBS)

cuda-mpi: mpi-deps
	@command -v nvcc >/dev/null 2>&1 || { \
	  echo "make cuda-mpi: nvcc (the CUDA toolkit) was not found on PATH."; \
	  echo "  Install the CUDA toolkit, or build a CPU backend: make serial-mpi or make openmp-mpi."; \
	  exit 1; }
	$(CMAKE) -S . -B build/cuda-mpi -DDUO_BACKEND=cuda -DDUO_MPI=ON $(CMAKE_FLAGS)
	$(CMAKE) --build build/cuda-mpi -j $(JOBS)

test-mpi: serial-mpi
	cd build/serial-mpi && ctest --output-on-failure -L mpi

compare-mpi:
	@MAKE='$(MAKE)' bash ./src/distributed/compare_mpi.sh $(COMPARE_MPI_ARGS)

test: serial openmp
	cd build/serial && ctest --output-on-failure
	cd build/openmp && ctest --output-on-failure
	@if command -v nvcc >/dev/null 2>&1; then $(MAKE) --no-print-directory cuda && \
	   cd build/cuda && DUO_DEVICE=cpu ctest --output-on-failure -L 'fallback|install'; \
	 else echo "make test: nvcc not found, CUDA build not compiled"; fi

test-cuda: cuda
	cd build/cuda && DUO_DEVICE=gpu ctest --output-on-failure

compare:
	@MAKE='$(MAKE)' ./src/apps/compare_apps.sh

compare-host:
	@DUO_DEVICE=cpu MAKE='$(MAKE)' ./src/apps/compare_apps.sh cuda

profile:
	@MAKE='$(MAKE)' ./profiles/profile_all.sh

profile-serial profile-openmp:
	JOBS=$(JOBS) ./profiles/run_gprof.sh $(@:profile-%=%)

profile-cuda:
	@MAKE='$(MAKE)' ./profiles/run_cuda_profile.sh

bench:
	@JOBS=$(JOBS) CMAKE='$(CMAKE)' CMAKE_FLAGS='$(CMAKE_FLAGS)' bash ./src/bench/run_bench.sh auto $(BENCH_ARGS)

bench-serial bench-openmp bench-cuda:
	@JOBS=$(JOBS) CMAKE='$(CMAKE)' CMAKE_FLAGS='$(CMAKE_FLAGS)' bash ./src/bench/run_bench.sh $(@:bench-%=%) $(BENCH_ARGS)

bench-deps:
	bash ./src/bench/install_deps.sh

asan: asan-serial asan-openmp

asan-serial asan-openmp:
	JOBS=$(JOBS) CMAKE='$(CMAKE)' CMAKE_FLAGS='$(CMAKE_FLAGS)' bash ./tests/sanitize/run_asan.sh $(@:asan-%=%)

valgrind:
	JOBS=$(JOBS) CMAKE='$(CMAKE)' bash ./tests/sanitize/run_valgrind.sh

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(JOBS) CMAKE='$(CMAKE)' bash ./tests/fuzz/run_fuzz.sh

clean:
	rm -rf build
