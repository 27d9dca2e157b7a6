#!/usr/bin/env bash
# Runs dist/gradescope-autograder.zip as Gradescope does, on the Ubuntu
# releases Gradescope's base images are built from (22.04 jammy, 24.04
# noble), each a debootstrapped chroot: setup.sh as root from
# /autograder/source (it downloads the pinned Node and unpacks leaselab),
# then run_autograder for good, buggy, nested, zipped, tarred (the lesson's
# export), and empty uploads, each results.json checked for Gradescope's
# fields and the score the repository's own CLI gives the same files.
#
#   cargo xtask dist && sudo packaging/gradescope/check-on-ubuntu.sh [jammy] [noble]
#
# Needs root (debootstrap, chroot, mount), Debian's debootstrap, zip and
# unzip, and the network: the Ubuntu archive (UBUNTU_MIRROR, default
# http://archive.ubuntu.com/ubuntu/) for the chroots, which are kept in
# LEASELAB_UBUNTU_DIR (default /var/tmp/leaselab-ubuntu) for the next run,
# and whatever setup.sh downloads. A chroot is minimal (no curl), so
# setup.sh's own apt path is exercised too. Takes a few minutes per release
# the first time (debootstrap), under a minute after. On a network whose
# proxy re-signs TLS, the host's CURL_CA_BUNDLE is handed to setup.sh's curl.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
BUNDLE="$REPO/dist/gradescope-autograder.zip"
CHROOTS="${LEASELAB_UBUNTU_DIR:-/var/tmp/leaselab-ubuntu}"
MIRROR="${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu/}"
RELEASES=("$@")
[ "${#RELEASES[@]}" -gt 0 ] || RELEASES=(jammy noble)
SEEDS=20

[ "$(id -u)" = 0 ] || { echo "check-on-ubuntu.sh: run it as root (debootstrap and chroot need it)" >&2; exit 1; }
[ -f "$BUNDLE" ] || { echo "check-on-ubuntu.sh: $BUNDLE is missing; run \`cargo xtask dist\` first" >&2; exit 1; }
for tool in debootstrap zip unzip node; do
  command -v "$tool" >/dev/null || { echo "check-on-ubuntu.sh: $tool is missing (apt-get install $tool)" >&2; exit 1; }
done

LESSON="$REPO/exercises/ownership-election"
EXERCISES=(cas lock lease fencing election)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The uploads, made once on the host: each a folder whose contents become /autograder/submission.
fill() { # fill DIR solution|starter
  mkdir -p "$1"
  for exercise in "${EXERCISES[@]}"; do cp "$LESSON/$exercise/$2.js" "$1/$exercise.js"; done
}
fill "$WORK/uploads/good" solution
fill "$WORK/uploads/buggy" starter
fill "$WORK/uploads/nested/ownership-election/solutions" solution
fill "$WORK/zip-src/my-solutions" solution
mkdir -p "$WORK/zip-src/__MACOSX/my-solutions" "$WORK/uploads/zipped"
touch "$WORK/zip-src/__MACOSX/my-solutions/._lock.js" "$WORK/zip-src/my-solutions/.DS_Store"
(cd "$WORK/zip-src" && zip -qr "$WORK/uploads/zipped/submission.zip" my-solutions __MACOSX)
# The lesson's export: a tar whose folder ownership-election/ holds the files and progress.json.
fill "$WORK/tar-src/ownership-election" solution
echo '{"format": "leaselab-progress", "version": 1}' >"$WORK/tar-src/ownership-election/progress.json"
mkdir -p "$WORK/uploads/export"
tar -cf "$WORK/uploads/export/ownership-election-solutions.tar" -C "$WORK/tar-src" ownership-election
mkdir -p "$WORK/uploads/empty"

# What the repository's CLI gives each upload: the score every platform must agree on.
declare -A EXPECTED
for upload in good buggy nested zipped export empty; do
  # Exit status 1 (some test failed) is a verdict here, not a failure of the check.
  node "$REPO/cli/leaselab.mjs" grade "$WORK/uploads/$upload" --require all --seeds "$SEEDS" --format gradescope --out "$WORK/expected-$upload.json" 2>/dev/null || true
  EXPECTED[$upload]="$(node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).score))' "$WORK/expected-$upload.json")"
done

failures=0
for release in "${RELEASES[@]}"; do
  root="$CHROOTS/$release"
  if [ ! -x "$root/bin/bash" ]; then
    echo "== $release: debootstrap (minbase) from $MIRROR"
    mkdir -p "$CHROOTS"
    rm -rf "$root.partial"
    # Debian's debootstrap may not name the newest Ubuntu release; its script is the same as jammy's.
    script=""
    [ -e "/usr/share/debootstrap/scripts/$release" ] || script=/usr/share/debootstrap/scripts/gutsy
    debootstrap --variant=minbase "$release" "$root.partial" "$MIRROR" $script >"$CHROOTS/$release.log" 2>&1 || { echo "debootstrap failed; see $CHROOTS/$release.log" >&2; exit 1; }
    mv "$root.partial" "$root"
  fi
  echo "== $release ($(. "$root/etc/os-release" && echo "$PRETTY_NAME"))"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount --bind /proc "$root/proc"
  mount --bind /dev "$root/dev"
  # Gradescope's layout: the bundle unzipped into /autograder/source, run_autograder copied beside it.
  rm -rf "$root/autograder"
  mkdir -p "$root/autograder/source"
  unzip -q "$BUNDLE" -d "$root/autograder/source"
  echo "{\"seed\": null, \"seeds\": $SEEDS, \"require\": \"all\"}" >"$root/autograder/source/config.json"
  cp "$root/autograder/source/run_autograder" "$root/autograder/run_autograder"
  # A network whose proxy re-signs TLS has its own CA: the host's CURL_CA_BUNDLE, when set, goes in too.
  ca=()
  if [ -n "${CURL_CA_BUNDLE:-}" ] && [ -f "$CURL_CA_BUNDLE" ]; then
    cp "$CURL_CA_BUNDLE" "$root/autograder/host-ca.crt"
    ca=(CURL_CA_BUNDLE=/autograder/host-ca.crt)
  fi
  if chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${ca[@]}" bash /autograder/source/setup.sh >"$WORK/$release-setup.log" 2>&1; then
    echo "setup.sh: ok ($(grep -m1 '^setup.sh: Node' "$WORK/$release-setup.log"))"
  else
    echo "setup.sh FAILED on $release:" >&2
    tail -20 "$WORK/$release-setup.log" >&2
    failures=$((failures + 1))
    umount "$root/proc" "$root/dev"
    continue
  fi
  for upload in good buggy nested zipped export empty; do
    rm -rf "$root/autograder/submission" "$root/autograder/results"
    mkdir -p "$root/autograder/submission"
    cp -r "$WORK/uploads/$upload/." "$root/autograder/submission/"
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /autograder/run_autograder >"$WORK/$release-$upload.log" 2>&1 || true
    # Gradescope's fields and types, and the CLI's score for the same files.
    if verdict="$(node - "$root/autograder/results/results.json" "${EXPECTED[$upload]}" <<'CHECK'
const [file, expected] = process.argv.slice(2);
const results = JSON.parse(require("fs").readFileSync(file, "utf8"));
const visibility = ["hidden", "after_due_date", "after_published", "visible"];
const problems = [];
if (typeof results.score !== "number") problems.push("score is not a number");
if (typeof results.output !== "string") problems.push("output is not a string");
if (!Array.isArray(results.tests)) problems.push("tests is not a list");
for (const test of results.tests ?? []) {
  if (typeof test.name !== "string" || typeof test.score !== "number" || typeof test.max_score !== "number") problems.push(`test ${test.name}: name, score or max_score`);
  if (!["passed", "failed"].includes(test.status)) problems.push(`test ${test.name}: status ${test.status}`);
  if (!visibility.includes(test.visibility)) problems.push(`test ${test.name}: visibility ${test.visibility}`);
}
if (String(results.score) !== expected) problems.push(`score ${results.score}, but the CLI gives ${expected}`);
if (problems.length > 0) {
  console.log(problems.join("; "));
  process.exit(1);
}
console.log(`score ${results.score}, ${results.tests.length} tests`);
CHECK
    )"; then
      echo "  $upload: ok, $verdict"
    else
      echo "  $upload: FAILED, $verdict" >&2
      tail -5 "$WORK/$release-$upload.log" >&2
      failures=$((failures + 1))
    fi
  done
  umount "$root/proc" "$root/dev"
done
if [ "$failures" -gt 0 ]; then
  echo "check-on-ubuntu.sh: $failures check(s) failed" >&2
  exit 1
fi
echo "check-on-ubuntu.sh: the bundle installs and grades alike on ${RELEASES[*]}"
