// The npm package (`cargo xtask dist` → dist/leaselab-<version>.tgz) as
// course staff use it: installed into an empty folder from the tarball alone
// on a machine with Node and no Rust, it grades exactly like the
// repository's CLI, byte for byte, and says which versions it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { envWithoutRust, fillSubmission, installPackage, requireDist, ROOT, run, scratchFolder, TARBALL, VERSION } from "./support/dist.mjs";

const registry = await loadNodeRegistry();
const scratch = scratchFolder("package");
const env = envWithoutRust(scratch);
const app = join(scratch, "app");
requireDist();
// Offline, with an empty npm cache: the tarball alone must be enough.
await installPackage(app, env);
const repoCli = join(ROOT, "cli/leaselab.mjs");
const passing = fillSubmission(join(scratch, "passing"), "solution", registry.exercises);
// A learner who has every exercise but the lock right: one exercise fails and is shrunk.
const failing = fillSubmission(join(scratch, "failing"), "solution", registry.exercises);
fillSubmission(failing, "starter", [registry.exercise("lock")]);

test("the machine these tests install on has no cargo or rustc on PATH", async () => {
  for (const tool of ["cargo", "rustc"]) {
    const found = await run(tool, ["--version"], { env });
    assert.equal(found.status, "ENOENT", `${tool} is reachable: ${found.stdout}`);
  }
});

test("the tarball holds the CLI, the runner and the grader's wasm (QuickJS inside), and nothing of Rust", () => {
  const files = execFileSync("tar", ["tzf", TARBALL], { encoding: "utf8" }).trim().split("\n");
  const own = files.filter((file) => !file.startsWith("package/node_modules/"));
  assert.ok(own.includes("package/cli/leaselab.mjs") && own.includes("package/runner/node/engines.js"), own.join("\n"));
  assert.ok(own.includes("package/web/pkg/leaselab_bg.wasm") && own.includes("package/web/pkg/leaselab.js"), own.join("\n"));
  assert.ok(own.includes("package/README.md") && own.includes("package/LICENSE"), own.join("\n"));
  assert.ok(!files.some((file) => file.startsWith("package/node_modules/")), "nothing else is bundled: the grader's wasm has QuickJS inside");
  const rust = files.filter((file) => /\.rs$|Cargo\.(toml|lock)$|\/target\/|\/crates\/|\/xtask\//.test(file));
  assert.deepEqual(rust, []);
  // Only the grader's module: the lesson's widgets' store module is no use to the CLI.
  assert.ok(!own.some((file) => file.includes("leaselab_store")), own.join("\n"));
});

test("the package's manifest is publishable: version, bin, files, engines, license, bundled runtime dependencies", () => {
  const manifest = JSON.parse(readFileSync(join(app, "node_modules/leaselab/package.json"), "utf8"));
  const repo = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  assert.equal(manifest.version, VERSION);
  assert.equal(manifest.private, undefined);
  assert.deepEqual(manifest.bin, { leaselab: "cli/leaselab.mjs" });
  assert.equal(manifest.engines.node, ">=20");
  assert.equal(manifest.license, "MIT");
  assert.deepEqual(manifest.dependencies, repo.dependencies ?? {});
  assert.deepEqual([...manifest.bundleDependencies].sort(), Object.keys(repo.dependencies ?? {}).sort());
  assert.equal(manifest.devDependencies, undefined);
});

test("`npx leaselab --version` prints the package's version, the grader's and the default budget", async () => {
  const printed = await run("npx", ["--no-install", "leaselab", "--version"], { env, cwd: app });
  assert.equal(printed.status, 0, printed.stderr);
  const lines = printed.stdout.split("\n");
  assert.equal(lines[0], `leaselab ${VERSION}`);
  assert.equal(lines[1], `grader ${registry.graderVersion}`);
  assert.match(lines[2], new RegExp(`^budget ${registry.defaults.seeds} random schedules per exercise`));
  const repo = await run("node", [repoCli, "--version"]);
  assert.equal(printed.stdout, repo.stdout);
});

for (const [label, folder, expectedStatus] of [["a passing", passing, 0], ["a failing", failing, 1]]) {
  test(`${label} submission gets the repository CLI's report, byte for byte, in text and JSON`, async () => {
    for (const format of ["text", "json"]) {
      const args = ["grade", folder, "--seeds", "40", "--format", format];
      const installed = await run("npx", ["--no-install", "leaselab", ...args], { env, cwd: app });
      const repo = await run("node", [repoCli, ...args]);
      assert.equal(installed.status, expectedStatus, installed.stderr);
      assert.equal(repo.status, expectedStatus, repo.stderr);
      assert.ok(installed.stdout.length > 0);
      assert.equal(installed.stdout, repo.stdout, `${format} reports differ`);
    }
  });
}
