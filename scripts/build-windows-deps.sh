#!/usr/bin/env bash
# Builds what the Windows agent ships with -- gRPC, Protobuf, zstd and what they need (abseil,
# c-ares, re2, zlib, OpenSSL) -- for x86_64-w64-mingw32, from Debian's own source packages:
# Debian's MinGW-w64 has none of them. The result lives outside the repository, in a directory
# named after a hash of the package versions, this recipe and the toolchain file, and is reused
# until one of them changes; a fresh machine builds it once.
#
# Usage: scripts/build-windows-deps.sh        prints the install prefix on stdout
# Environment: PERFHIVE_WINDOWS_DEPS_CACHE  where prefixes live (default /var/cache/perfhive/
#                                           windows-deps for root, else ~/.cache/perfhive/...)
#              JOBS                         parallel compile jobs (nproc)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
toolchain=$here/../cmake/mingw-w64-x86_64.cmake

# Debian 12 source packages, pinned so the cache key names exactly what was built. The build
# order follows the dependencies: gRPC needs all the others but zstd (which the wire format uses).
packages=(
  zlib=1:1.2.13.dfsg-1
  libzstd=1.5.4+dfsg2-5
  c-ares=1.18.1-3
  re2=20220601+dfsg-1
  abseil=20220623.1-1+deb12u2
  protobuf=3.21.12-3+deb12u1
  openssl=3.0.17-1~deb12u2
  grpc=1.51.1-3
)

if [[ $(id -u) -eq 0 ]]; then
  default_cache=/var/cache/perfhive/windows-deps
else
  default_cache=${XDG_CACHE_HOME:-$HOME/.cache}/perfhive/windows-deps
fi
cache_root=${PERFHIVE_WINDOWS_DEPS_CACHE:-$default_cache}
key=$({ printf '%s\n' "${packages[@]}"; cat "$0" "$toolchain"; } | sha256sum | cut -c1-16)
prefix=$cache_root/$key
if [[ -f $prefix/.complete ]]; then
  echo "$prefix"
  exit 0
fi
jobs=${JOBS:-$(nproc)}
# Packages already built for this key are kept when a run is interrupted and not built again.
work=$cache_root/work-$key
mkdir -p "$work" "$prefix"
log() { echo "== windows deps: $*" >&2; }

# apt-get source needs deb-src entries for the suites the machine already uses.
ensure_deb_src() {
  if apt-get source --download-only --print-uris grpc >/dev/null 2>&1; then return; fi
  log "adding deb-src entries for Debian 12"
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo tee /etc/apt/sources.list.d/perfhive-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $sudo apt-get update -qq
}

# Unpacks one source package with Debian's patches applied; prints its directory.
unpack() {
  local spec=$1 name=${1%%=*}
  (cd "$work" && apt-get source -qq "$spec" >/dev/null 2>&1) ||
    { echo "apt-get source $spec failed" >&2; exit 1; }
  find "$work" -maxdepth 1 -type d -name "$name-*" | head -n 1
}

cmake_configure() {
  local src=$1 build=$2
  shift 2
  cmake -S "$src" -B "$build" -G Ninja -Wno-dev -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DPERFHIVE_WINDOWS_DEPS="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DBUILD_SHARED_LIBS=OFF \
    "$@" >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
}

# Builds the given targets (all when none), keeping the log for when it fails.
cmake_compile() {
  local build=$1
  shift
  cmake --build "$build" -j "$jobs" ${1:+--target "$@"} >"$build.build.log" 2>&1 ||
    { tail -n 60 "$build.build.log" >&2; exit 1; }
}

cmake_build() {
  cmake_configure "$@"
  cmake_compile "$2"
  cmake --install "$2" >/dev/null
}

# zlib's CMake would also build a DLL from a resource file Debian's sources do not carry; the
# static library alone is installed, under the name FindZLIB and gRPC look for.
build_zlib() {
  local src=$1 build=$work/zlib-build
  cmake_configure "$src" "$build"
  cmake_compile "$build" zlibstatic
  install -D -m 644 "$build/libzlibstatic.a" "$prefix/lib/libz.a"
  install -D -m 644 -t "$prefix/include" "$src/zlib.h" "$build/zconf.h"
}

build_libzstd() {
  cmake_build "$1/build/cmake" "$work/libzstd-build" -DZSTD_BUILD_SHARED=OFF \
    -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_TESTS=OFF -DZSTD_MULTITHREAD_SUPPORT=OFF
}

# c-ares 1.18.1 uses INADDRSZ on Windows without defining it (fixed upstream in 1.19).
build_c-ares() {
  cmake_build "$1" "$work/c-ares-build" -DCMAKE_C_FLAGS=-DINADDRSZ=4 -DCARES_STATIC=ON \
    -DCARES_SHARED=OFF \
    -DCARES_BUILD_TOOLS=OFF -DCARES_BUILD_TESTS=OFF
}

# Debian's re2 sources leave out the generated tables; Debian makes them from unicode-data.
build_re2() {
  make -C "$1" -s REBUILD_TABLES=1 re2/perl_groups.cc re2/unicode_casefold.cc \
    re2/unicode_groups.cc
  cmake_build "$1" "$work/re2-build" -DRE2_BUILD_TESTING=OFF
}

build_abseil() {
  cmake_build "$1" "$work/abseil-build" -DCMAKE_CXX_STANDARD=17 -DABSL_PROPAGATE_CXX_STD=ON \
    -DBUILD_TESTING=OFF
}

# Only the runtime library: code is generated on the build machine by Debian's own protoc of
# the same version.
build_protobuf() {
  cmake_build "$1" "$work/protobuf-build" -DCMAKE_CXX_STANDARD=17 -Dprotobuf_BUILD_TESTS=OFF \
    -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF -Dprotobuf_WITH_ZLIB=OFF
}

# OpenSSL without what neither gRPC's TLS nor perfhive's certificates use: ciphers and digests
# outside TLS 1.2/1.3's suites (ARIA, Blowfish, Camellia, CAST, IDEA, RC2/4/5, SEED, SM2/3/4, MD4,
# MDC2, RIPEMD, Whirlpool, BLAKE2, SipHash, scrypt), the legacy provider, SSLv3, DTLS, SRP, SRTP,
# SCTP, compression, binary curves, CMP, time stamps, certificate transparency and RFC 3779; and at
# -O1 (its own default is -O3). 241 s of CPU instead of 312 (docs/testing.md).
openssl_left_out=(no-legacy no-aria no-bf no-blake2 no-camellia no-cast no-idea no-md4 no-mdc2
  no-rc2 no-rc4 no-rc5 no-rmd160 no-seed no-siphash no-sm2 no-sm3 no-sm4 no-whirlpool no-scrypt
  no-srp no-ssl3 no-dtls no-ec2m no-cmp no-ts no-srtp no-sctp no-comp no-rfc3779 no-ct)
build_openssl() {
  local src=$1
  (cd "$src" && ./Configure mingw64 no-shared no-tests no-module "${openssl_left_out[@]}" \
    CFLAGS="-O1 -Wall" \
    --prefix="$prefix" --libdir=lib --cross-compile-prefix=x86_64-w64-mingw32- \
    >"$work/openssl.configure.log" 2>&1 &&
    make -j "$jobs" build_libs >"$work/openssl.build.log" 2>&1 &&
    make install_dev >/dev/null 2>&1) || { tail -n 60 "$work/openssl.build.log" >&2; exit 1; }
}

# gRPC's client and server library with TLS; the targets perfhive does not link (the
# plugin-support library for code generators, and the "unsecure" copies of the whole library
# without TLS, which would double the build) are left out of the build and the install. The
# plugin-support library still names libprotoc, which is not built here: code is generated on
# the build machine.
#
# The library is also built without xDS (Envoy's control plane, for service meshes), as gRPC's
# own GRPC_NO_XDS allows: an agent connects to one server it is told, never to one an
# environment variable's bootstrap file names. That is a third of gRPC's sources (about 40 large
# C++ files and 260 generated from Envoy's protos) and of its compile time. The files dropped are
# those of the `grpc` target that match xDS's folders and that the library without TLS, which
# gRPC builds without xDS, does not also list.
xds_only_sources='/xds/|envoy/|udpa/|validate/|opencensus/|google_c2p|filters/rbac/|'\
'server_config_selector/|upbdefs-generated/|google/api/'
build_grpc() {
  local src=$1 target
  awk -v xds="$xds_only_sources" '
    NR == FNR { if (/^add_library\(grpc_unsecure$/) u = 1; else if (u && /^\)/) u = 0
                else if (u) unsecure[$1] = 1
                next }
    /^add_library\(grpc$/ { g = 1 }
    g && /^\)/ { g = 0 }
    g && $1 ~ xds && !($1 in unsecure) { next }
    { print }
    END { print "target_compile_definitions(grpc PRIVATE GRPC_NO_XDS)" }
  ' "$src/CMakeLists.txt" "$src/CMakeLists.txt" >"$src/CMakeLists.txt.new"
  mv "$src/CMakeLists.txt.new" "$src/CMakeLists.txt"
  for target in grpc_unsecure grpc++_unsecure grpc_plugin_support; do
    sed -i "/^  install(TARGETS $target EXPORT gRPCTargets/,/^  )/d" "$src/CMakeLists.txt"
    echo "set_target_properties($target PROPERTIES EXCLUDE_FROM_ALL TRUE)" >>"$src/CMakeLists.txt"
  done
  cmake_build "$src" "$work/grpc-build" -DCMAKE_CXX_STANDARD=17 -DgRPC_BUILD_TESTS=OFF \
    -DgRPC_BUILD_CODEGEN=OFF -DgRPC_BUILD_CSHARP_EXT=OFF -DgRPC_INSTALL=ON \
    -DgRPC_ABSL_PROVIDER=package -DgRPC_CARES_PROVIDER=package -DgRPC_PROTOBUF_PROVIDER=package \
    -DgRPC_RE2_PROVIDER=package -DgRPC_SSL_PROVIDER=package -DgRPC_ZLIB_PROVIDER=package \
    -DOPENSSL_ROOT_DIR="$prefix" -DOPENSSL_USE_STATIC_LIBS=ON \
    -DProtobuf_PROTOC_LIBRARY=libprotoc-not-built
}

# Builds one package unless a run interrupted after it was built.
build_package() {
  local spec=$1 name=${1%%=*} src start=$SECONDS
  [[ -f $work/$name.built ]] && return
  log "$spec"
  rm -rf "${work:?}/$name"[-_]*
  src=$(unpack "$spec")
  "build_$name" "$src"
  touch "$work/$name.built"
  log "$name built in $((SECONDS - start)) s"
}

# Builds the packages in order, in a subshell of its own (a failure exits it, not the script).
build_lane() {
  local spec
  for spec in "$@"; do build_package "$spec"; done
}

# One function (and one line calling it), so that bash has read all of it before it runs:
# editing this file while it builds cannot change what the running build does. The packages
# gRPC needs depend on none of each other, so two lanes build them side by side: the packages
# whose time goes mostly to one-core configure scripts (c-ares' checks, OpenSSL's Configure)
# beside those that compile on every core. gRPC comes last, alone.
main() {
  ensure_deb_src
  local spec name lane_a=() lane_b=() last=""
  local configure_bound=" zlib libzstd c-ares openssl "
  for spec in "${packages[@]}"; do
    name=${spec%%=*}
    if [[ $name == grpc ]]; then
      last=$spec
    elif [[ $configure_bound == *" $name "* ]]; then
      lane_a+=("$spec")
    else
      lane_b+=("$spec")
    fi
  done
  build_lane "${lane_a[@]}" &
  local lane_a_pid=$!
  build_lane "${lane_b[@]}" &
  local lane_b_pid=$!
  local failed=0
  wait "$lane_a_pid" || failed=1
  wait "$lane_b_pid" || failed=1
  ((failed == 0)) || { echo "build-windows-deps: a package failed (log above)" >&2; exit 1; }
  build_package "$last"
  rm -rf "$work"
  touch "$prefix/.complete"
  log "all built in ${SECONDS} s into $prefix"
  echo "$prefix"
}

main "$@"; exit
