#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/), on one of
# its Ubuntu base images (22.04 or 24.04). It installs two things, each from
# one place, and touches nothing else the image has (its apt Node, if any,
# is left alone and never used):
#
# - Node $NODE_VERSION, a supported LTS, into $ROOT/node: the Node.js project's
#   Linux build, as the npm registry serves it (the node-linux-<arch>
#   package), its exact bytes pinned by SHA-256 below, so every image runs
#   the same Node. Not apt: Ubuntu's own nodejs is too old (12 on 22.04, 18
#   on 24.04), and installing a newer one from another apt repository beside
#   it conflicts in dpkg on Gradescope's 22.04 image.
# - leaselab, unpacked from the tarball in this bundle into
#   $ROOT/leaselab/node_modules/leaselab: it bundles its dependencies, so no
#   npm and no registry is needed for it.
#
# The network is used once, for Node. LEASELAB_NODE_URL fetches the same
# file from a mirror (it must have the same SHA-256); LEASELAB_NODE names a
# Node binary to use instead (a test's own, or an image that brings one).
# AUTOGRADER_ROOT (default /autograder) moves everything, for tests.
set -euo pipefail

ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
NODE_DIR="$ROOT/node"
PREFIX="$ROOT/leaselab"

NODE_VERSION=24.22.3
case "$(uname -m)" in
  x86_64 | amd64) NODE_ARCH=x64 NODE_SHA256=6d747cda21df616c78e9ed4f8a816cbacd25f24c1abb4d9aa26773d000e24bd9 ;;
  aarch64 | arm64) NODE_ARCH=arm64 NODE_SHA256=ecdab33ad827e0bf4a856981f274ea7f2acdb942f9c517efb34edd9171c84d0d ;;
  *)
    echo "setup.sh: this machine is $(uname -m); leaselab's autograder installs Node for x86_64 and aarch64 only" >&2
    exit 1
    ;;
esac
NODE_URL="${LEASELAB_NODE_URL:-https://registry.npmjs.org/node-linux-$NODE_ARCH/-/node-linux-$NODE_ARCH-$NODE_VERSION.tgz}"

say() { echo "setup.sh: $*"; }
fail() {
  echo "setup.sh: $*" >&2
  exit 1
}

# Fetches $1 into $2 with whichever tool the image has, installing curl with apt only when it has none.
fetch() {
  if ! command -v curl >/dev/null 2>&1 && ! command -v wget >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || fail "neither curl nor wget is installed, and installing curl needs root"
    say "installing curl with apt (the image has neither curl nor wget)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl ca-certificates >/dev/null
  fi
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 --retry-delay 2 -o "$2" "$1"
  else
    wget -q --tries=3 -O "$2" "$1"
  fi
}

install_node() {
  if [ -n "${LEASELAB_NODE:-}" ]; then
    [ -x "$LEASELAB_NODE" ] || fail "LEASELAB_NODE is $LEASELAB_NODE, which is not an executable file"
    mkdir -p "$NODE_DIR/bin"
    ln -sf "$LEASELAB_NODE" "$NODE_DIR/bin/node"
    return
  fi
  if [ -x "$NODE_DIR/bin/node" ] && [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" = "v$NODE_VERSION" ]; then
    say "Node $NODE_VERSION is already in $NODE_DIR"
    return
  fi
  local download
  download="$(mktemp -d)"
  say "downloading Node $NODE_VERSION ($NODE_ARCH) from $NODE_URL"
  fetch "$NODE_URL" "$download/node.tgz" || fail "could not download $NODE_URL; check the image's network, or set LEASELAB_NODE_URL to a mirror of that file"
  local actual
  actual="$(sha256sum "$download/node.tgz" | cut -d ' ' -f 1)"
  [ "$actual" = "$NODE_SHA256" ] || fail "the Node download from $NODE_URL has SHA-256 $actual, not the pinned $NODE_SHA256; it is not the expected file, so it was not installed"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  tar -xzf "$download/node.tgz" -C "$NODE_DIR" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$download"
  [ "$("$NODE_DIR/bin/node" --version)" = "v$NODE_VERSION" ] || fail "$NODE_DIR/bin/node does not run as Node $NODE_VERSION"
}

install_node
say "Node $("$NODE_DIR/bin/node" --version) in $NODE_DIR"

shopt -s nullglob
tarballs=("$SOURCE"/leaselab-*.tgz)
[ "${#tarballs[@]}" -eq 1 ] || fail "expected exactly one leaselab-<version>.tgz in $SOURCE, found ${#tarballs[@]}; rebuild the bundle with \`cargo xtask dist\`"

# What npm install would lay out, without npm: the tarball holds the package and its bundled dependencies.
rm -rf "$PREFIX"
mkdir -p "$PREFIX/node_modules/leaselab"
tar -xzf "${tarballs[0]}" -C "$PREFIX/node_modules/leaselab" --strip-components=1 --no-same-owner
"$NODE_DIR/bin/node" "$PREFIX/node_modules/leaselab/cli/leaselab.mjs" --version
