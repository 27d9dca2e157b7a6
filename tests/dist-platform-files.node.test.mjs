// The platform files course staff copy (the GitHub workflows, the Gradescope
// setup, the Exercism image) held to the facts they share: one Node LTS line
// everywhere, read-only permissions, GitHub Classroom's points per exercise
// equal to the grader's, and a Node download that is installed only when
// its bytes are the pinned ones. The real download, on Ubuntu 22.04 and
// 24.04, is packaging/gradescope/check-on-ubuntu.sh's job.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { makeTarWithLinks } from "./support/archives.mjs";
import { run, scratchFolder } from "./support/dist.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const registry = await loadNodeRegistry();
const read = (path) => readFileSync(join(ROOT, path), "utf8");
const SETUP = read("packaging/gradescope/setup.sh");
const WORKFLOWS = ["grade-solutions.yml", "classroom.yml", "grade-class.yml"].map((name) => [name, read(`examples/github-actions/${name}`)]);

test("one Node LTS line everywhere: Gradescope's pinned download, the Exercism image and every workflow", () => {
  const pinned = /^NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(SETUP)?.[1];
  assert.ok(pinned, "setup.sh pins NODE_VERSION");
  // An even major is an LTS line; 20 ended in April 2026.
  assert.ok(Number(pinned) % 2 === 0 && Number(pinned) >= 22, `Node ${pinned} is not a supported LTS line`);
  assert.match(read("packaging/exercism/Dockerfile"), new RegExp(`^FROM node:${pinned}-`, "m"));
  for (const [name, text] of WORKFLOWS) {
    const versions = [...text.matchAll(/node-version: (\S+)/g)].map((match) => match[1]);
    assert.deepEqual(versions, [pinned], name);
  }
  // Both architectures' downloads are pinned by a SHA-256 of 64 hex digits.
  assert.equal([...SETUP.matchAll(/NODE_SHA256=[0-9a-f]{64} ;;/g)].length, 2);
  assert.doesNotMatch(SETUP, /apt-get install[^\n]*nodejs/, "no Node from apt");
});

test("every workflow reads the repository and nothing more, on actions that run on a current Node", () => {
  for (const [name, text] of WORKFLOWS) {
    assert.match(text, /^permissions:\n(  [a-z-]+: (read|write)\n)*  contents: read\n/m, name);
    assert.doesNotMatch(text, /contents: write/, name);
    for (const [, action, major] of text.matchAll(/uses: (actions\/[a-z-]+)@v(\d+)/g)) {
      assert.ok(Number(major) >= 6, `${name}: ${action}@v${major} runs on a Node that GitHub has retired`);
    }
  }
  // A seed in the learner's own repository is no secret: the learner's workflow takes none.
  assert.doesNotMatch(WORKFLOWS[0][1], /secrets\./);
  assert.match(WORKFLOWS[2][1], /LEASELAB_SEED: \$\{\{ secrets\.LEASELAB_SEED \}\}/);
});

test("GitHub Classroom: one test per exercise, worth the grader's points, every one reported", () => {
  const classroom = WORKFLOWS[1][1];
  const graders = [...classroom.matchAll(/- name: (\S+)\n +id: (\S+)\n +uses: classroom-resources\/autograding-command-grader@v1\n(?: +.*\n)*? +command: '"\$LEASELAB" grade \. --exercise (\S+)'\n +timeout: \d+\n +max-score: (\d+)/g)];
  assert.deepEqual(
    graders.map(([, name, id, exercise, points]) => [name, id, exercise, Number(points)]),
    registry.exercises.map(({ name, maxScore }) => [name, name, name, maxScore]),
  );
  assert.match(classroom, new RegExp(`runners: ${registry.names.join(",")}\\n`));
  for (const name of registry.names) assert.match(classroom, new RegExp(`${name.toUpperCase()}_RESULTS: "\\$\\{\\{ steps\\.${name}\\.outputs\\.result \\}\\}"`));
});

test("setup.sh installs no Node whose bytes are not the pinned ones, and says so", async () => {
  const root = scratchFolder("setup");
  mkdirSync(join(root, "source"), { recursive: true });
  // A tarball shaped like the real one (package/bin/node), with other bytes.
  const fake = join(root, "node.tgz");
  writeFileSync(fake, gzipSync(makeTarWithLinks([{ name: "package/bin/node", data: "#!/bin/sh\necho v24.0.0\n" }])));
  const ran = await run("bash", [join(ROOT, "packaging/gradescope/setup.sh")], { env: { ...process.env, AUTOGRADER_ROOT: root, LEASELAB_NODE_URL: `file://${fake}` } });
  assert.equal(ran.status, 1, ran.stderr);
  assert.match(ran.stderr, /^setup\.sh: the Node download from file:\/\/\S+ has SHA-256 [0-9a-f]{64}, not the pinned [0-9a-f]{64}; it is not the expected file, so it was not installed$/m);
  assert.equal((await run("test", ["-e", join(root, "node/bin/node")])).status, 1, "nothing installed");
  // A download that fails names the URL and what to do.
  const missing = await run("bash", [join(ROOT, "packaging/gradescope/setup.sh")], { env: { ...process.env, AUTOGRADER_ROOT: root, LEASELAB_NODE_URL: `file://${root}/nowhere.tgz` } });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /setup\.sh: could not download file:\/\/\S+nowhere\.tgz; check the image's network, or set LEASELAB_NODE_URL to a mirror of that file/);
});
