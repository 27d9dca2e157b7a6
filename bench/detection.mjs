// Detection power of the default suites on the known-buggy submissions
// (tests/fixtures/submissions/<exercise>/ and the accuracy corpus's bug-*
// files): for each file, how many named scenarios catch it (a certainty,
// whatever the random seeds), and the share of single random schedules that
// catch it on their own. A bug that no scenario catches depends on the
// random budget: with a share p per schedule, B schedules miss it with
// probability (1 - p)^B, which the last column gives for the default B.
//
//   node bench/detection.mjs [--seeds K] [filter]
//
// K random schedules per file (default: the registry's default budget),
// seeds 1..K, each graded alone without shrinking; `filter` keeps the files
// whose name contains it.
// Prints figures; never passes or fails.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { registryOf } from "../runner/registry.js";

const engines = await loadNodeEngines();
const registry = registryOf(engines.leaselab);
const DEFAULT_SEEDS = registry.defaults.seeds;

const args = process.argv.slice(2);
const seedsAt = args.indexOf("--seeds");
const SEEDS = seedsAt >= 0 ? Number(args.splice(seedsAt, 2)[1]) : DEFAULT_SEEDS;
if (!Number.isInteger(SEEDS) || SEEDS < 1) throw new Error("--seeds takes a whole number of random schedules, at least 1");
const filter = args[0] ?? "";
const FIXTURES = new URL("../tests/fixtures/", import.meta.url);

const files = [];
for (const exercise of registry.names) {
  for (const [folder, keep] of [
    [`submissions/${exercise}/`, (file) => file !== "starter.js"],
    [`accuracy/${exercise}/`, (file) => file.startsWith("bug-")],
  ]) {
    const url = new URL(folder, FIXTURES);
    // Every exercise has both corpora: a missing folder is a gap to fill, not an exercise to skip.
    if (!existsSync(url)) throw new Error(`tests/fixtures/${folder} is missing: every exercise in the registry needs its known-buggy files there (AUTHORING.md, "Adding an exercise")`);
    for (const file of readdirSync(url).sort()) {
      const name = `${folder}${file}`;
      if (file.endsWith(".js") && keep(file) && name.includes(filter)) files.push({ exercise, name, source: readFileSync(new URL(file, url), "utf8") });
    }
  }
}

/** No named scenario (a part past the last one): only the random-schedules test runs. */
const ONLY_RANDOM = [999_999, 1_000_000];

console.log(`detection on ${files.length} known-buggy files: named scenarios that fail, and the share of ${SEEDS} single random schedules that fail (default budget ${DEFAULT_SEEDS})`);
console.log(`  ${"file".padEnd(48)} named  random share  chance the default budget misses it`);
for (const { exercise, name, source } of files) {
  const grade = (options) => JSON.parse(engines.leaselab.gradeInEngine(exercise, source, registry.exercise(exercise).file, options));
  const named = grade({ seeds: 0, shrinkAttemptsMax: 0 });
  const namedFailures = (named.tests ?? []).filter((test) => test.status !== "passed").length;
  let caught = 0;
  for (let seed = 1; seed <= SEEDS; seed += 1) {
    const report = grade({ firstSeed: seed, seeds: 1, shrinkAttemptsMax: 0, scenarioPart: ONLY_RANDOM });
    if (report.problems || report.tests.at(-1).status !== "passed") caught += 1;
  }
  const share = caught / SEEDS;
  const miss = namedFailures > 0 ? "0 (a scenario catches it)" : (1 - share) ** DEFAULT_SEEDS < 1e-6 ? "< 1e-6" : ((1 - share) ** DEFAULT_SEEDS).toExponential(1);
  console.log(`  ${name.padEnd(48)} ${String(namedFailures).padStart(5)}  ${share.toFixed(3).padStart(12)}  ${miss}`);
}
