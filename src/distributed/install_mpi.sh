#!/usr/bin/env bash
# install_mpi.sh - make sure OpenMPI (mpicc, mpirun and the headers) is
# present for the -DDUO_MPI=ON builds (make serial-mpi, openmp-mpi,
# cuda-mpi).  Run by .ci/run and by those make targets.
#
# Installs Debian's libopenmpi-dev and openmpi-bin with apt-get when they
# are missing and this runs as root on a system with apt-get; otherwise
# says what to install.  Exit 0 when MPI is there afterwards, 1 when not.
# DUO_MPI_NO_INSTALL=1 only reports.
set -uo pipefail

say() { echo "install_mpi: $*"; }

have_mpi() {
  command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1
}

if have_mpi; then
  say "found $(mpirun --version 2>/dev/null | head -n 1)"
  exit 0
fi

how="install OpenMPI with its headers (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin; Fedora: dnf install openmpi-devel), then rerun"

if [ "${DUO_MPI_NO_INSTALL:-0}" = 1 ]; then
  say "MPI not found; DUO_MPI_NO_INSTALL=1, so: $how."
  exit 1
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  say "MPI not found, and this script installs only as root with apt-get: $how."
  exit 1
fi

# Bounded: a machine without network must not hang the build.
limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 600"
pkgs="libopenmpi-dev openmpi-bin"
say "MPI not found: apt-get install -y $pkgs"
if ! DEBIAN_FRONTEND=noninteractive $limit apt-get install -y -qq \
     --no-install-recommends $pkgs; then
  say "retrying after apt-get update"
  DEBIAN_FRONTEND=noninteractive $limit apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $limit apt-get install -y -qq \
      --no-install-recommends $pkgs
fi
if have_mpi; then
  say "installed $(mpirun --version 2>/dev/null | head -n 1)"
  exit 0
fi
say "could not install MPI: $how."
exit 1
