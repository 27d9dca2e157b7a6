// The submission reader (cli/submissions.js, cli/archive.js) on the uploads
// learners make: one submission as a folder, a folder in a folder, a zip
// from Finder (with __MACOSX and .DS_Store), a stored zip, a tar, a gzip
// tar, the lesson's own export and a folder holding that export all get the
// same report; and the uploads nobody makes by accident (links, names that
// leave the archive, bombs, too many entries, encrypted or damaged archives)
// are refused with a message that names what was found.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { makeTar } from "../web/src/lesson/tar.js";
import { makeTarWithLinks, makeZip } from "./support/archives.mjs";
import { makeUploads, writeFolder } from "./support/uploads.mjs";
import { ARCHIVE_ENTRIES_MAX } from "../cli/archive.js";
import { SOURCE_BYTES_MAX } from "../runner/limits.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();
const SEEDS = ["--seeds", "3"];

function leaselab(args) {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ status: error ? error.code : 0, stdout, stderr }));
  });
}

const scratch = () => mkdtempSync(join(tmpdir(), "leaselab-uploads-"));

/** One learner's work: solutions to some exercises, starters to the rest, so each exercise scores differently. */
const WORK = Object.fromEntries(registry.exercises.map(({ name, file }) => [file, readFileSync(join(LESSON, name, `${["lease", "fencing"].includes(name) ? "starter" : "solution"}.js`), "utf8")]));

/** Each exercise's score and its tests' verdicts, from a JSON report: what must not depend on the upload's form. */
function verdicts(json) {
  return Object.fromEntries(json.results.map(({ exercise, report }) => [exercise, { score: report.score, problems: report.problems, tests: report.tests.map((one) => `${one.name}: ${one.status}`) }]));
}

test("one submission in every form learners upload gets the same report: folder, nested folder, zips, tars and the lesson's export", async () => {
  const dir = scratch();
  const forms = makeUploads(dir, WORK);
  const exported = readFileSync(forms.export);
  // Gradescope keeps an uploaded .tar as it is: a folder holding the export.
  mkdirSync(join(dir, "uploaded"));
  writeFileSync(join(dir, "uploaded/ownership-election-solutions.tar"), exported);
  forms.folderWithExport = join(dir, "uploaded");

  // A zip saved without its extension is still read as one, by its first bytes.
  writeFileSync((forms.unnamedZip = join(dir, "submission")), readFileSync(forms.finderZip));
  const reports = {};
  for (const [form, path] of Object.entries(forms)) {
    const result = await leaselab(["grade", path, "--require", "all", ...SEEDS, "--format", "json"]);
    assert.equal(result.status, 1, `${form}: ${result.stderr}`);
    reports[form] = verdicts(JSON.parse(result.stdout));
  }
  for (const [form, report] of Object.entries(reports)) assert.deepEqual(report, reports.folder, form);
  const scores = Object.values(reports.folder).map((one) => one.score);
  assert.ok(scores.some((score) => score === 0 || score < Math.max(...scores)), "the work mixes passing and failing exercises");
  assert.ok(Object.values(reports.folder).every((one) => one.problems.length === 0));

  // Paths show where each file was found, every folder of the way.
  const nested = JSON.parse((await leaselab(["grade", forms.nested, ...SEEDS, "--format", "json"])).stdout);
  assert.equal(nested.results[0].path, join(forms.nested, "a/b/c/cas.js"));
  const zipped = JSON.parse((await leaselab(["grade", forms.folderWithExport, ...SEEDS, "--format", "json"])).stdout);
  assert.equal(zipped.results[0].path, join(forms.folderWithExport, "ownership-election-solutions.tar/ownership-election/cas.js"));
});

test("a file at the top beside a full folder: the missing files point at the folder they are in", async () => {
  const dir = writeFolder(scratch(), { "lock.js": WORK["lock.js"], ...Object.fromEntries(Object.entries(WORK).map(([name, text]) => [`ownership-election/${name}`, text])) });
  const result = await leaselab(["grade", dir, "--require", "all", ...SEEDS]);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stdout, /error: cas\.js is missing from this submission, and this exercise is required, so it scores 0; it holds ownership-election\/cas\.js, in another folder than the files graded: put every exercise file in one folder and submit again\n/);
});

test("links in an archive are refused, wherever they point; a name that leaves the archive is never read", async () => {
  const dir = scratch();
  writeFileSync(join(dir, "link.zip"), makeZip([{ name: "lock.js", link: "../../reference/lock.js" }, { name: "cas.js", data: WORK["cas.js"] }]));
  const zip = await leaselab(["grade", join(dir, "link.zip"), ...SEEDS, "--format", "json"]);
  assert.equal(zip.status, 2, zip.stderr);
  assert.match(zip.stderr, /link\.zip\/lock\.js is a link to \.\.\/\.\.\/reference\/lock\.js, not a file; submit the file itself, not a link/);
  const zipReport = JSON.parse(zip.stdout);
  assert.equal(zipReport.results.find((one) => one.exercise === "lock").report.score, 0);
  assert.equal(zipReport.results.find((one) => one.exercise === "cas").report.score, registry.exercise("cas").maxScore);

  writeFileSync(join(dir, "link.tar"), makeTarWithLinks([{ name: "sub/lock.js", link: "/etc/passwd" }]));
  const tar = await leaselab(["grade", join(dir, "link.tar"), ...SEEDS]);
  assert.equal(tar.status, 2, tar.stderr);
  assert.match(tar.stderr, /link\.tar\/sub\/lock\.js is a link to \/etc\/passwd, not a file/);

  writeFileSync(join(dir, "escape.zip"), makeZip([{ name: "../lock.js", data: WORK["lock.js"] }, { name: "/abs/cas.js", data: WORK["cas.js"] }, { name: "notes.txt", data: "hi" }]));
  const escape = await leaselab(["grade", join(dir, "escape.zip"), ...SEEDS]);
  assert.equal(escape.status, 2, escape.stderr);
  assert.match(escape.stderr, /escape\.zip: no exercise file found; a submission holds cas\.js, [^;]*; it holds notes\.txt\n$/);
});

test("bombs and floods are refused by their caps, named, and cost nothing else: a huge entry, too many entries, a huge archive", async () => {
  const dir = scratch();
  // 64 MiB of spaces deflate to about 64 KB, and the archive claims 100 bytes.
  writeFileSync(join(dir, "bomb.zip"), makeZip([{ name: "lock.js", data: Buffer.alloc(64 * 1024 * 1024, 0x20), size: 100 }, { name: "cas.js", data: WORK["cas.js"] }]));
  const bomb = await leaselab(["grade", join(dir, "bomb.zip"), ...SEEDS, "--format", "json"]);
  assert.equal(bomb.status, 2, bomb.stderr);
  assert.match(bomb.stderr, new RegExp(`bomb\\.zip/lock\\.js is more than ${SOURCE_BYTES_MAX} bytes, over the limit of ${SOURCE_BYTES_MAX} bytes`));
  assert.equal(JSON.parse(bomb.stdout).results.find((one) => one.exercise === "cas").report.score, registry.exercise("cas").maxScore);

  const many = Array.from({ length: ARCHIVE_ENTRIES_MAX + 1 }, (_, index) => ({ name: `f/${index}.txt`, data: "", method: 0 }));
  writeFileSync(join(dir, "flood.zip"), makeZip(many));
  const flood = await leaselab(["grade", join(dir, "flood.zip"), "--require", "all", ...SEEDS]);
  assert.equal(flood.status, 1, flood.stderr);
  assert.match(flood.stdout, new RegExp(`error: lock\\.js is missing from this submission, and this exercise is required, so it scores 0; [^\\n]*flood\\.zip cannot be read: it holds ${ARCHIVE_ENTRIES_MAX + 1} entries, more than the ${ARCHIVE_ENTRIES_MAX} an archive may hold`));
  writeFileSync(join(dir, "flood.tar"), makeTarWithLinks(many.map(({ name }) => ({ name, data: "" }))));
  const tarFlood = await leaselab(["grade", join(dir, "flood.tar"), ...SEEDS]);
  assert.equal(tarFlood.status, 2);
  assert.match(tarFlood.stderr, /flood\.tar cannot be read: it holds more than the 2000 entries an archive may hold; upload the files again/);

  // A gzip tar that unpacks past its cap (80 MiB of zeros in one entry).
  const huge = makeTarWithLinks([{ name: "big.bin", data: Buffer.alloc(80 * 1024 * 1024) }]);
  writeFileSync(join(dir, "huge.tar.gz"), gzipSync(huge));
  const unpacked = await leaselab(["grade", join(dir, "huge.tar.gz"), ...SEEDS]);
  assert.equal(unpacked.status, 2);
  assert.match(unpacked.stderr, /huge\.tar\.gz cannot be read: it unpacks to more than 64 MiB, far more than a submission/);
});

test("an encrypted entry, a damaged archive and an archive inside an archive each say what to do", async () => {
  const dir = scratch();
  writeFileSync(join(dir, "secret.zip"), makeZip([{ name: "lock.js", data: WORK["lock.js"], encrypted: true }]));
  const secret = await leaselab(["grade", join(dir, "secret.zip"), ...SEEDS]);
  assert.equal(secret.status, 2);
  assert.match(secret.stderr, /secret\.zip\/lock\.js cannot be read from the archive: it is encrypted \(a password-protected zip\); zip the files again without a password/);

  const whole = makeZip(Object.entries(WORK).map(([name, data]) => ({ name, data })));
  writeFileSync(join(dir, "cut.zip"), whole.subarray(0, whole.length - 30));
  const cut = await leaselab(["grade", join(dir, "cut.zip"), ...SEEDS]);
  assert.equal(cut.status, 2);
  assert.match(cut.stderr, /cut\.zip cannot be read: it is not a zip archive that can be read \(no central directory: damaged or cut short\?\)/);

  // A zip inside a zip is not opened: one archive level at most.
  writeFileSync(join(dir, "outer.zip"), makeZip([{ name: "inner.zip", data: whole }]));
  const outer = await leaselab(["grade", join(dir, "outer.zip"), ...SEEDS]);
  assert.equal(outer.status, 2);
  assert.match(outer.stderr, /outer\.zip: no exercise file found; [^;]*; it holds inner\.zip\n$/);
});

test("a class of uploads: zips, tars and folders side by side, each learner named by their upload", async () => {
  const dir = scratch();
  const solutions = Object.fromEntries(registry.exercises.map(({ name, file }) => [file, readFileSync(join(LESSON, name, "solution.js"), "utf8")]));
  writeFileSync(join(dir, "ada.zip"), makeZip(Object.entries(solutions).map(([name, data]) => ({ name: `ada/${name}`, data }))));
  writeFileSync(join(dir, "ben.tar"), makeTar(Object.entries(solutions).map(([name, text]) => ({ name: `ownership-election/${name}`, text }))));
  writeFolder(join(dir, "cy"), { "lock.js": solutions["lock.js"] });
  const csv = join(dir, "scores.csv");
  const result = await leaselab(["grade", join(dir, "ada.zip"), join(dir, "ben.tar"), join(dir, "cy"), ...SEEDS, "--csv", csv]);
  assert.equal(result.status, 1, result.stderr);
  const total = registry.exercises.reduce((sum, one) => sum + one.maxScore, 0);
  const rows = readFileSync(csv, "utf8").trim().split("\n").slice(1);
  assert.match(rows[0], new RegExp(`^"ada\\.zip",.*,${total},${total},true,$`));
  assert.match(rows[1], new RegExp(`^"ben\\.tar",.*,${total},${total},true,$`));
  assert.match(rows[2], /^"cy",0,14,0,0,0,14,75,false,"cas lease fencing election"$/);
});
