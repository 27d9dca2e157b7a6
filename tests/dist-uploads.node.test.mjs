// One upload, one score, on every platform: the same learner's work as a
// folder, a nested folder, a Finder zip, a GNU tar and the lesson's own
// export, graded by the installed package's CLI, by the Gradescope bundle
// (unzipped and set up as Gradescope does; a zip upload unpacked by the
// platform, any other file kept as it is) and by the Exercism runner (one
// exercise per run), must give each exercise the same verdicts. The three
// read every upload through one reader (cli/submissions.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { DIST, envWithoutRust, installPackage, LESSON, requireDist, run, scratchFolder } from "./support/dist.mjs";
import { makeUploads } from "./support/uploads.mjs";

const registry = await loadNodeRegistry();
const SEEDS = 3;
const scratch = scratchFolder("uploads");
const env = { ...envWithoutRust(scratch), LEASELAB_SEEDS: String(SEEDS) };

// The CLI and the Exercism runner, from the package installed as course staff would.
const prefix = join(scratch, "opt-leaselab");
const cli = await installPackage(prefix, env);
const RUN_SH = join(requireDist(join(DIST, "exercism-test-runner")), "bin/run.sh");

// The Gradescope bundle, unzipped into source/ and set up (this machine's Node stands in for the pinned download).
const root = join(scratch, "autograder");
const gradescopeEnv = { ...env, AUTOGRADER_ROOT: root, LEASELAB_NODE: process.execPath };
mkdirSync(join(root, "source"), { recursive: true });
assert.equal((await run("unzip", ["-q", requireDist(join(DIST, "gradescope-autograder.zip")), "-d", join(root, "source")])).status, 0);
writeFileSync(join(root, "source/config.json"), JSON.stringify({ seed: null, seeds: SEEDS, require: "all" }));
const setup = await run(join(root, "source/setup.sh"), [], { env: gradescopeEnv });
assert.equal(setup.status, 0, setup.stderr);

// Solutions to some exercises, starters to the others: each exercise has its own verdicts to agree on.
const WORK = Object.fromEntries(registry.exercises.map(({ name, file }) => [file, readFileSync(join(LESSON, name, `${["lock", "election"].includes(name) ? "starter" : "solution"}.js`), "utf8")]));
const forms = makeUploads(join(scratch, "forms"), WORK);

/** What a platform stores for an upload: a zip is unpacked (Gradescope and Exercism do), any other file kept as it is. */
async function platformFolder(form, path) {
  const folder = join(scratch, "platform", form);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  if (path.endsWith(".zip")) assert.equal((await run("unzip", ["-q", path, "-d", folder])).status, 0);
  else if (path.endsWith(".tar")) cpSync(path, join(folder, basename(path)));
  else cpSync(path, folder, { recursive: true });
  return folder;
}

/** `{ exercise: ["test name: passed", …] }` from each platform's results. */
function fromCli(json) {
  return Object.fromEntries(json.results.map(({ exercise, report }) => [exercise, report.tests.map((one) => `${one.name}: ${one.status === "passed" ? "pass" : "fail"}`)]));
}

function fromGradescope(results) {
  const verdicts = Object.fromEntries(registry.names.map((name) => [name, []]));
  for (const one of results.tests) {
    const [exercise, ...rest] = one.name.split(": ");
    verdicts[exercise].push(`${rest.join(": ")}: ${one.status === "passed" ? "pass" : "fail"}`);
  }
  return verdicts;
}

const points = Object.fromEntries(registry.exercises.map(({ name, tests }) => [name, Object.fromEntries(tests.map((one) => [one.title, one.points]))]));

for (const [form, path] of Object.entries({ folder: forms.folder, nested: forms.nested, finderZip: forms.finderZip, tar: forms.tar, export: forms.export })) {
  test(`${form}: the CLI, Gradescope and Exercism give every exercise the same verdicts and score`, async () => {
    const graded = await run(process.execPath, [cli, "grade", path, "--require", "all", "--seeds", String(SEEDS), "--format", "json"], { env });
    assert.equal(graded.status, 1, graded.stderr);
    const expected = fromCli(JSON.parse(graded.stdout));
    assert.ok(Object.values(expected).every((tests) => tests.length > 1), "every exercise graded, none missing");
    const scores = Object.fromEntries(JSON.parse(graded.stdout).results.map(({ exercise, report }) => [exercise, report.score]));

    const folder = await platformFolder(form, path);
    rmSync(join(root, "submission"), { recursive: true, force: true });
    cpSync(folder, join(root, "submission"), { recursive: true });
    const autograded = await run(join(root, "source/run_autograder"), [], { env: gradescopeEnv });
    assert.equal(autograded.status, 0, autograded.stderr);
    const results = JSON.parse(readFileSync(join(root, "results/results.json"), "utf8"));
    assert.deepEqual(fromGradescope(results), expected, "Gradescope");
    assert.equal(results.score, Object.values(scores).reduce((sum, score) => sum + score, 0));

    for (const { name } of registry.exercises) {
      const output = join(scratch, "exercism-out", form, name);
      const ran = await run(RUN_SH, [name, `${folder}/`, `${output}/`], { env: { ...env, LEASELAB_PREFIX: prefix } });
      assert.equal(ran.status, 0, ran.stderr);
      const exercism = JSON.parse(readFileSync(join(output, "results.json"), "utf8"));
      const verdicts = exercism.tests.map((one) => `${one.name.split(": ").slice(1).join(": ")}: ${one.status}`);
      assert.deepEqual(verdicts, expected[name], `Exercism, ${name}`);
      // Exercism has no scores: the points of its passing tests are the CLI's score.
      const passed = exercism.tests.filter((one) => one.status === "pass").reduce((sum, one) => sum + points[name][one.name.split(": ").slice(1).join(": ")], 0);
      assert.equal(passed, scores[name], `Exercism's passing tests carry the CLI's score for ${name}`);
    }
  });
}
