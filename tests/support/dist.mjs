// What the tests of `cargo xtask dist`'s artifacts share: where they are,
// installing the package as course staff would (an empty folder, no
// registry, no Rust on PATH), submissions made of the lesson's solutions or
// starters, and running a command to completion.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DIST = join(ROOT, "dist");
export const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
export const TARBALL = join(DIST, `leaselab-${VERSION}.tgz`);
export const LESSON = join(ROOT, "exercises/ownership-election");

/** Fails with what to do when `cargo xtask dist` has not run (`npm test` runs it first). */
export function requireDist(path = TARBALL) {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing; run \`cargo xtask dist\` (or \`npm run dist\`) first; \`npm test\` builds it before the node tests`);
  }
  return path;
}

/**
 * The environment of a machine with Node and npm but no Rust: PATH without
 * any folder that holds cargo or rustc, and an empty npm cache, so that an
 * install that needed the registry or a build would fail here.
 */
export function envWithoutRust(scratch) {
  const folders = (process.env.PATH ?? "").split(delimiter).filter((folder) => folder && !["cargo", "rustc"].some((tool) => existsSync(join(folder, tool))));
  return { ...process.env, PATH: folders.join(delimiter), npm_config_cache: join(scratch, "npm-cache"), npm_config_update_notifier: "false" };
}

/** Runs a command to its end: `{ status, stdout, stderr }`, never throws for a non-zero exit. */
export function run(file, args, options = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === "number" ? error.code : error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `npm install`s the tarball into `prefix` from the tarball alone (`--offline`). */
export async function installPackage(prefix, env) {
  mkdirSync(prefix, { recursive: true });
  const installed = await run("npm", ["install", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", requireDist()], { env });
  if (installed.status !== 0) throw new Error(`npm install of ${TARBALL} failed:\n${installed.stderr}`);
  return join(prefix, "node_modules/leaselab/cli/leaselab.mjs");
}

/** A scratch folder for one test file. */
export function scratchFolder(name) {
  return mkdtempSync(join(tmpdir(), `leaselab-${name}-`));
}

/**
 * Copies each exercise's `solution.js` or `starter.js` into `dir` under the
 * file name the grader expects (`exercises`: the registry's entries).
 */
export function fillSubmission(dir, which, exercises) {
  mkdirSync(dir, { recursive: true });
  for (const { name, file } of exercises) copyFileSync(join(LESSON, name, `${which}.js`), join(dir, file));
  return dir;
}
