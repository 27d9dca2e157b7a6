#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/). It makes
# sure Node 20 or newer is there and installs leaselab from the tarball in
# this bundle. The only network it uses is apt's, and only when Node is
# missing or too old; the package itself comes from the bundle.
#
# AUTOGRADER_ROOT (default /autograder) moves everything, for tests.
set -euo pipefail

ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PREFIX="$ROOT/leaselab"

node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'
}

if ! node_is_recent; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: Node 20 or newer is missing and installing it needs root; install Node 20+ and run setup.sh again" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # The distribution's own Node first (Ubuntu 24.04 and older ship Node 18
  # or older, which lacks what the grader uses)...
  apt-get install -y -qq nodejs npm || true
  if ! node_is_recent; then
    # ...else NodeSource's signed apt repository for Node 20.
    apt-get install -y -qq ca-certificates curl gnupg
    mkdir -p /etc/apt/keyrings
    curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor --yes -o /etc/apt/keyrings/nodesource.gpg
    echo "deb [signed-by=/etc/apt/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main" >/etc/apt/sources.list.d/nodesource.list
    apt-get update -qq
    apt-get install -y -qq nodejs
  fi
  if ! node_is_recent; then
    echo "setup.sh: could not install Node 20 or newer with apt; choose a newer base image in the autograder's settings" >&2
    exit 1
  fi
fi

shopt -s nullglob
tarballs=("$SOURCE"/leaselab-*.tgz)
if [ "${#tarballs[@]}" -ne 1 ]; then
  echo "setup.sh: expected exactly one leaselab-<version>.tgz in $SOURCE, found ${#tarballs[@]}; rebuild the bundle with \`cargo xtask dist\`" >&2
  exit 1
fi

# The tarball bundles its dependencies (QuickJS), so npm reads no registry.
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --offline --no-audit --no-fund --omit=dev "${tarballs[0]}"
"$PREFIX/node_modules/.bin/leaselab" --version
