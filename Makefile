# Thin wrapper over CMake: each backend builds into build/<backend>.
#   make serial | openmp | cuda   configure and build that backend
#   make                          best backend here, run the apps' checks
#   make test                     serial + openmp suites; compile cuda if nvcc
#   make clean
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
CMAKE_FLAGS ?=

.PHONY: all serial openmp cuda test test-cuda clean

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

test: serial openmp
	cd build/serial && ctest --output-on-failure
	cd build/openmp && ctest --output-on-failure
	@if command -v nvcc >/dev/null 2>&1; then $(MAKE) --no-print-directory cuda; \
	 else echo "make test: nvcc not found, CUDA build not compiled"; fi

test-cuda: cuda
	cd build/cuda && ctest --output-on-failure

clean:
	rm -rf build
