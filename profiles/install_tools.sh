#!/usr/bin/env bash
# install_tools.sh - install what the profiling scripts use, where missing:
#
#   gprof2dot   (PyPI)    turns gprof's call graph into a Graphviz graph
#   dot         (Debian: graphviz)  draws that graph as a PNG
#   matplotlib  (PyPI)    the bar charts of profile_diff.py (optional)
#
#   ./profiles/install_tools.sh        (make profile* calls it)
#
# gprof itself comes with binutils, which the C toolchain already needs.
# Nothing here is required: each tool that cannot be installed is named
# in one line, and the scripts that use it skip that output and go on.
# Always exits 0.  Set DUO_PROFILE_NO_INSTALL=1 to only report what is
# missing without installing anything.
set -uo pipefail

python=${PYTHON:-python3}
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
no_install=${DUO_PROFILE_NO_INSTALL:-0}

have_module() { "$python" -c "import $1" >/dev/null 2>&1; }

pip_install() { # package
    [[ "$no_install" == 1 ]] && return 1
    command -v "$python" >/dev/null 2>&1 || return 1
    echo "install_tools: $python -m pip install $1"
    "$python" -m pip install -q "$1" ||
        "$python" -m pip install -q --user "$1"
}

apt_updated=0
apt_install() { # package
    [[ "$no_install" == 1 ]] && return 1
    [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 || return 1
    echo "install_tools: apt-get install -y $1"
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null; then
        return 0
    fi
    if [[ $apt_updated -eq 0 ]]; then
        apt_updated=1
        apt-get update -qq >/dev/null &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
    else
        return 1
    fi
}

if ! command -v gprof >/dev/null 2>&1; then
    echo "install_tools: gprof not found (it is part of binutils); trying apt-get"
    apt_install binutils || echo "install_tools: gprof not available"
fi

if ! have_module gprof2dot; then
    if ! pip_install gprof2dot || ! have_module gprof2dot; then
        echo "install_tools: gprof2dot not available (pip install gprof2dot failed" \
             "or was not tried)"
    fi
fi

if ! command -v dot >/dev/null 2>&1; then
    if ! apt_install graphviz || ! command -v dot >/dev/null 2>&1; then
        echo "install_tools: Graphviz dot not available (apt-get install graphviz" \
             "needs root and apt-get)"
    fi
fi

if ! have_module matplotlib; then
    if ! pip_install matplotlib || ! have_module matplotlib; then
        echo "install_tools: matplotlib not available: profile_diff.py will" \
             "skip its charts"
    fi
fi

echo "install_tools: gprof $(command -v gprof >/dev/null && echo yes || echo no)," \
     "gprof2dot $(have_module gprof2dot && echo yes || echo no)," \
     "dot $(command -v dot >/dev/null && echo yes || echo no)," \
     "matplotlib $(have_module matplotlib && echo yes || echo no)"
exit 0
