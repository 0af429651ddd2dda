#!/usr/bin/env bash
# Builds ndnSIM (ns-3 + ndnSIM + its NFD and ndn-cxx) outside this repository,
# in ns-3's optimized profile, and compiles the side-by-side scenarios of
# bench/ndnsim/scenarios/ into it as ns-3 scratch programs.
#
#   scripts/build-ndnsim.sh SRC_DIR
#
# Layout made under SRC_DIR (what ns-3's waf expects):
#   SRC_DIR/ns-3                      named-data-ndnSIM/ns-3-dev, branch ndnSIM-ns-3.30.1
#   SRC_DIR/ns-3/src/ndnSIM           named-data-ndnSIM/ndnSIM
#   SRC_DIR/ns-3/src/ndnSIM/NFD       named-data-ndnSIM/NFD
#   SRC_DIR/ns-3/src/ndnSIM/ndn-cxx   named-data-ndnSIM/ndn-cxx
#
# Version built: ndnSIM 2.8 (commit 28da73c, "Release documentation fixes", on top of
# "Prepare release 2.8"), NFD 0.7.0-ndnSIM (d1d38c85, the gitlink of ndnSIM 2.8),
# ndn-cxx 0.7.0-ndnSIM (tip of branch ndn-cxx-0.7.0-ndnSIM, 08da68ed, one compiler fix past
# the 2.8 gitlink f2a5806b), ns-3 ndnSIM-ns-3.30.1. ndnSIM 2.9 needs NFD 22.02, ndn-cxx 0.8.0
# and ns-3.35; none of those are in the stored mirrors, so 2.8 is the newest buildable set.
#
# Sources: each repository is cloned from $NS3_REPO, $NDNSIM_REPO, $NFD_REPO, $NDNCXX_REPO
# (defaults: the local mirrors under /work/.mirror if present, else GitHub).
# Other knobs: JOBS (default 2), NICE (default 19), REVS override with NS3_REV, NDNSIM_REV,
# NFD_REV, NDNCXX_REV.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 SRC_DIR" >&2
  exit 2
fi
SRC_DIR=$(realpath -m "$1")
HERE=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${JOBS:-2}
NICE=${NICE:-19}

pick() { # local mirror if it exists, else the public URL
  if [[ -e "$1" ]]; then echo "$1"; else echo "$2"; fi
}
NS3_REPO=${NS3_REPO:-$(pick /work/.mirror/named-data-ndnSIM+ns-3-dev/repo/.git https://github.com/named-data-ndnSIM/ns-3-dev)}
NDNSIM_REPO=${NDNSIM_REPO:-$(pick /work/.mirror/named-data-ndnSIM+ndnSIM/repo https://github.com/named-data-ndnSIM/ndnSIM)}
NFD_REPO=${NFD_REPO:-$(pick /work/.mirror/named-data-ndnSIM+NFD/repo https://github.com/named-data-ndnSIM/NFD)}
NDNCXX_REPO=${NDNCXX_REPO:-$(pick /work/.mirror/named-data-ndnSIM+ndn-cxx/repo https://github.com/named-data-ndnSIM/ndn-cxx)}
NS3_REV=${NS3_REV:-origin/ndnSIM-ns-3.30.1}
NDNSIM_REV=${NDNSIM_REV:-28da73c}
NFD_REV=${NFD_REV:-d1d38c8558ce6ce71d9ba81ca6cf5dcfd0342820}
NDNCXX_REV=${NDNCXX_REV:-origin/ndn-cxx-0.7.0-ndnSIM}

# Debian packages: compiler, waf's Python, and the libraries ndn-cxx/NFD/ndnSIM link
# (boost graph, thread, unit_test_framework, system, random, date_time, iostreams, regex,
# program_options, chrono, filesystem, log; sqlite3; OpenSSL), plus GNU time for RSS.
DEBS=(g++ make python3 pkg-config git time libboost-all-dev libssl-dev libsqlite3-dev)
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${DEBS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  fi
else
  echo "not root: make sure these Debian packages are installed: ${DEBS[*]}" >&2
fi

checkout() { # repo rev dir
  local repo=$1 rev=$2 dir=$3
  if [[ ! -d "$dir/.git" ]]; then
    rm -rf "$dir"
    git clone -q --no-checkout "$repo" "$dir"
  fi
  # A missing blob (large data files absent from a mirror) must not stop the checkout
  # of everything else; ndnSIM builds none of the ns-3 modules those files belong to.
  git -C "$dir" checkout -q -f "$rev" 2>&1 | grep -v '^error: unable to read\|^error: invalid object' || true
  echo "$dir: $(git -C "$dir" log --oneline -1)"
}

mkdir -p "$SRC_DIR"
checkout "$NS3_REPO" "$NS3_REV" "$SRC_DIR/ns-3"
checkout "$NDNSIM_REPO" "$NDNSIM_REV" "$SRC_DIR/ns-3/src/ndnSIM"
checkout "$NFD_REPO" "$NFD_REV" "$SRC_DIR/ns-3/src/ndnSIM/NFD"
checkout "$NDNCXX_REPO" "$NDNCXX_REV" "$SRC_DIR/ns-3/src/ndnSIM/ndn-cxx"

# The scenarios are ns-3 scratch programs: waf builds every scratch/*.cc against all
# enabled modules.
shopt -s nullglob
for f in "$HERE"/bench/ndnsim/scenarios/*.cc "$HERE"/bench/ndnsim/scenarios/*.h; do
  cp "$f" "$SRC_DIR/ns-3/scratch/"
done
shopt -u nullglob

# ndnSIM's configure reads OpenSSL's version from include/openssl/opensslv.h with a
# pattern that predates OpenSSL 3 (whose OPENSSL_VERSION_NUMBER is an expression over
# several lines). Give it an OpenSSL root whose opensslv.h opens with the number in the
# old one-line form, inside #if 0, and otherwise is the system's; every other header and
# the libraries are the system's, by symlink.
ossl_inc=$(dirname "$(echo '#include <openssl/opensslv.h>' | g++ -xc++ -E -M - | tr ' ' '\n' | grep 'openssl/opensslv.h$')")
ossl_lib=$(dirname "$(g++ -print-file-name=libcrypto.so)")
OSSL_ROOT="$SRC_DIR/openssl-root"
rm -rf "$OSSL_ROOT"
mkdir -p "$OSSL_ROOT/include/openssl"
for h in "$ossl_inc"/*.h; do
  ln -s "$h" "$OSSL_ROOT/include/openssl/"
done
rm "$OSSL_ROOT/include/openssl/opensslv.h"
ossl_num=$(printf '#include <openssl/opensslv.h>\nOPENSSL_VERSION_NUMBER\n' | g++ -xc++ -E -P - | tail -1 | tr -d ' ()' )
ossl_num=$(python3 -c "print(hex(eval('$ossl_num'.rstrip('L'))))")
{
  echo '#if 0'
  echo "# define OPENSSL_VERSION_NUMBER ${ossl_num}L"
  echo '#endif'
  cat "$ossl_inc/opensslv.h"
} > "$OSSL_ROOT/include/openssl/opensslv.h"
ln -s "$ossl_lib" "$OSSL_ROOT/lib"

cd "$SRC_DIR/ns-3"
# Optimized profile (-O3 -march=native in ns-3.30). gcc 12 warns on much of this 2019-2020
# code (deprecated OpenSSL 3 calls, boost 1.74 deprecated headers, C++17 deprecations);
# --disable-werror keeps those warnings from stopping the build, CXXFLAGS_EXTRA quietens the
# noisiest ones. Only the modules ndnSIM and the grid helper need are built.
export CXXFLAGS_EXTRA="${CXXFLAGS_EXTRA:--Wno-deprecated-declarations -Wno-deprecated-copy -Wno-class-memaccess -Wno-unused-parameter -DBOOST_BIND_GLOBAL_PLACEHOLDERS -DBOOST_ALLOW_DEPRECATED_HEADERS}"
if [[ ! -f build/c4che/_cache.py || ${RECONFIGURE:-0} = 1 ]]; then
  nice -n "$NICE" python3 ./waf configure -d optimized --disable-werror \
    --disable-python --disable-tests --disable-examples \
    --enable-modules=ndnSIM,point-to-point-layout \
    --with-openssl="$OSSL_ROOT"
fi
nice -n "$NICE" python3 ./waf build -j"$JOBS"
echo "built: $SRC_DIR/ns-3/build (run a scenario: cd $SRC_DIR/ns-3 && ./waf --run 'SCENARIO --args')"
