#!/usr/bin/env bash
# install_deps.sh [serial|openmp|cuda] - install what duo-bench's
# yardsticks need, where this script can (run by `make bench*` before
# configuring, and by `make bench-deps`).
#
#   serial, openmp (default): OpenBLAS with its CBLAS header, the CPU gemm
#     yardstick.  Installed with apt-get (libopenblas-dev) when running as
#     root on a system with apt-get; otherwise the script says what to
#     install.  Optional: without it duo-bench still runs and measures
#     duo's gemm, and says that the yardstick was skipped.
#   cuda: CUB and cuBLAS come with the CUDA toolkit; nothing to install.
#
# Never fails the caller for a missing optional dependency (exit 0); exit
# 2 on a bad argument.  DUO_BENCH_NO_INSTALL=1 only reports.
set -uo pipefail

backend="${1:-openmp}"
say() { echo "bench-deps: $*"; }

case "$backend" in
  cuda)
    say "cuda: CUB and cuBLAS come with the CUDA toolkit; nothing to install."
    exit 0 ;;
  serial|openmp) ;;
  *)
    echo "usage: $0 [serial|openmp|cuda]" >&2
    exit 2 ;;
esac

have_openblas() {
  if command -v pkg-config >/dev/null 2>&1 &&
     pkg-config --exists openblas 2>/dev/null; then
    return 0
  fi
  # No pkg-config file: the library and a cblas.h where CMake looks.
  ldconfig -p 2>/dev/null | grep -q 'libopenblas[.]so' || return 1
  ls /usr/include/cblas.h /usr/include/*/cblas.h /usr/include/openblas/cblas.h \
     /usr/local/include/cblas.h /usr/local/include/openblas/cblas.h \
     >/dev/null 2>&1
}

if have_openblas; then
  say "OpenBLAS found (gemm yardstick)."
  exit 0
fi

how="install OpenBLAS with its headers (Debian/Ubuntu: apt-get install libopenblas-dev; Fedora: dnf install openblas-devel; macOS: brew install openblas), then rerun make bench; until then duo-bench skips the gemm yardstick"

if [ "${DUO_BENCH_NO_INSTALL:-0}" = 1 ]; then
  say "OpenBLAS not found; DUO_BENCH_NO_INSTALL=1, so: $how."
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  say "OpenBLAS not found, and this script installs only as root with apt-get: $how."
  exit 0
fi

# Bounded: a machine without network should not hang the benchmark.
limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 300"
say "OpenBLAS not found: apt-get install -y libopenblas-dev"
if ! DEBIAN_FRONTEND=noninteractive $limit apt-get install -y -qq \
     libopenblas-dev; then
  say "retrying after apt-get update"
  DEBIAN_FRONTEND=noninteractive $limit apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $limit apt-get install -y -qq \
      libopenblas-dev
fi
if have_openblas; then
  say "OpenBLAS installed."
else
  say "could not install OpenBLAS: $how."
fi
exit 0
