#!/usr/bin/env bash
# libconvo as a C++ project outside the tree uses it: installs the build into a
# temporary prefix, then builds tests/consumer/ against it with find_package(convo)
# and again with pkg-config libconvo, and runs both.
#
#   consumer_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || exit 1
cp -R "$src/tests/consumer" "$tmp/consumer"

cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log" >&2; echo "*** find_package(convo) failed" >&2; exit 1; }
cmake --build "$tmp/consumer/build" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log" >&2; echo "*** the consumer did not build with find_package(convo)" >&2; exit 1; }
"$tmp/consumer/build/consumer" || { echo "*** the consumer (CMake) gave the wrong output" >&2; exit 1; }

if command -v pkg-config >/dev/null 2>&1; then
  flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs libconvo) ||
    { echo "*** pkg-config libconvo failed" >&2; exit 1; }
  # shellcheck disable=SC2086
  c++ -O1 "$tmp/consumer/consumer.cc" -o "$tmp/consumer-pc" $flags ||
    { echo "*** the consumer did not build with pkg-config libconvo" >&2; exit 1; }
  "$tmp/consumer-pc" || { echo "*** the consumer (pkg-config) gave the wrong output" >&2; exit 1; }
else
  echo "pkg-config is not installed: only find_package(convo) was tried"
fi
