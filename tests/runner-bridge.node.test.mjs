// The bridge between the sandbox and the simulation: what crosses per step
// (`nextDelivery`, `applyOutbox`) and how a finished run reaches the grader
// (`handOff` tickets instead of JSON). The fast path must give exactly the
// reports of the plain JSON path, and a confused host must get a message
// rather than a wrong verdict.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { createCaseRunner } from "../runner/run-case.js";
import { createSandbox, DEFAULT_LIMITS, STOP_REASONS } from "../runner/sandbox.js";
import { loadNodeRegistry } from "../runner/node/engines.js";

const registry = await loadNodeRegistry();

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

const lessonFile = (exercise, name) => readFileSync(new URL(`../exercises/ownership-election/${exercise}/${name}`, import.meta.url), "utf8");
const fixture = (path) => readFileSync(new URL(`./fixtures/submissions/${path}`, import.meta.url), "utf8");

/** The first case a grading of `exercise` runs (a named scenario). */
function firstCase(exercise) {
  let first = null;
  try {
    engines.leaselab.gradeSubmission(exercise, { seeds: 0 }, (caseJson) => {
      first = caseJson;
      throw new Error("enough");
    });
  } catch {
    // The grader stops at the host's error; the case is what we wanted.
  }
  assert.ok(first, "the grader ran a case");
  return first;
}

async function reportBothWays(exercise, source) {
  await engines.quickjs.refill();
  const runner = createCaseRunner(engines, { exercise, source, fileName: registry.exercise(exercise).file });
  try {
    const viaJson = engines.leaselab.gradeSubmission(exercise, { seeds: 15 }, (caseJson) => runner.run(caseJson));
    const viaTicket = engines.leaselab.gradeSubmission(exercise, { seeds: 15 }, (caseJson) => runner.run(caseJson, { handOff: true }));
    return { viaJson, viaTicket };
  } finally {
    runner.dispose();
  }
}

test("a handed-off run grades exactly like its JSON: passing, and failing with shrinking", async () => {
  const cases = [
    ["lock", lessonFile("lock", "solution.js")],
    ["lease", lessonFile("lease", "solution.js")],
    ["lock", lessonFile("lock", "starter.js")],
    ["fencing", lessonFile("fencing", "starter.js")],
  ];
  for (const [exercise, source] of cases) {
    const { viaJson, viaTicket } = await reportBothWays(exercise, source);
    assert.equal(viaTicket, viaJson, `${exercise}: the two paths disagree`);
  }
  // And one whose failure is shrunk from a random schedule.
  const { viaJson, viaTicket } = await reportBothWays("lock", fixture("lock/unlock-without-version.js"));
  assert.equal(viaTicket, viaJson);
  assert.ok(JSON.parse(viaJson).score < JSON.parse(viaJson).maxScore, "the buggy lock fails");
});

test("a ticket that is not the latest hand-off is refused with a message", async () => {
  await engines.quickjs.refill();
  const runner = createCaseRunner(engines, { exercise: "lock", source: lessonFile("lock", "solution.js"), fileName: "lock.js" });
  try {
    assert.throws(
      () => engines.leaselab.gradeSubmission("lock", { seeds: 1 }, (caseJson) => runner.run(caseJson, { handOff: true }) + 1),
      /runCase answered with ticket \d+, which is not the latest Simulation\.handOff\(\)/,
    );
    // A ticket from an earlier run never fetches a later one: tickets are not reused.
    let earlier = null;
    assert.throws(
      () =>
        engines.leaselab.gradeSubmission("lock", { seeds: 1 }, (caseJson) => {
          const ticket = runner.run(caseJson, { handOff: true });
          if (earlier === null) {
            earlier = ticket;
            return ticket;
          }
          return earlier;
        }),
      /runCase answered with ticket \d+, which is not the latest Simulation\.handOff\(\)/,
    );
  } finally {
    runner.dispose();
  }
});

test("nextDelivery packs a step the way the harness reads it, and says when the run is over", () => {
  const sim = new engines.leaselab.Simulation(firstCase("lock"));
  try {
    assert.equal(sim.applyOutbox('c0|{"op":"sleep","ms":5}'), undefined);
    // [call, process, "<local clocks>", how, value]: how 2 resolves with undefined (a sleep ended).
    const [call, process, nows, how, value] = JSON.parse(sim.nextDelivery());
    assert.equal(call, 0);
    assert.equal(process, 0);
    assert.equal(nows.split(",").length, sim.processes);
    assert.equal(how, 2);
    assert.equal(value, null);
    assert.equal(sim.lastProcess, 0);
    for (let process = 0; process < sim.processes; process += 1) sim.applyOutbox(`f${process}|`);
    assert.equal(sim.nextDelivery(), "");
  } finally {
    sim.free();
  }
});

test("packDelivery (lab mode) packs etcd's replies as the simulation packs its own: the value the learner's code receives", () => {
  const pack = (reply) => JSON.parse(engines.leaselab.packDelivery(4, 1, "10,12", JSON.stringify(reply)));
  assert.deepEqual(pack({ reply: "cas", ok: true, version: 9, current: null }), [4, 1, "10,12", 1, { ok: true, version: 9 }]);
  const record = { value: "p2", version: 9, keyVersion: 2 };
  assert.deepEqual(pack({ reply: "cas", ok: false, version: null, current: record }), [4, 1, "10,12", 1, { ok: false, current: record }]);
  assert.deepEqual(pack({ reply: "get", record: null }), [4, 1, "10,12", 1, null]);
  assert.deepEqual(pack({ reply: "slept" }), [4, 1, "10,12", 2, null]);
  assert.deepEqual(pack({ reply: "refused", message: "too long" }), [4, 1, "10,12", 0, "too long"]);
  assert.throws(() => engines.leaselab.packDelivery(4, 1, "10,12", '{"reply":"fly"}'), /packDelivery: not a reply/);
  assert.throws(() => engines.leaselab.packDelivery(4, 1, '1"]', '{"reply":"slept"}'), /packDelivery: clocks must be whole milliseconds/);
});

test("applyOutbox: a stop ends the batch there; unreadable or out-of-step lines stop the run with a reason, never throw", () => {
  const sim = new engines.leaselab.Simulation(firstCase("lock"));
  try {
    const reason = "printed more than 300 lines to the console";
    assert.equal(sim.applyOutbox(`n0|{"note":"console","text":"hi"}\ns0|${reason}\nc0|{"op":"sleep","ms":5}`), reason);
    assert.match(sim.applyOutbox("x0|"), /could not record \(an outbox line of an unknown kind\)/);
    assert.match(sim.applyOutbox("c0"), /could not record \(an outbox line without a separator\)/);
    assert.match(sim.applyOutbox("|"), /could not record \(an outbox line that names no kind\)/);
    assert.match(sim.applyOutbox('c0|{"op":"fly"}'), /could not record \(a store call: unknown variant `fly`/);
    // Numbers a u64 cannot hold, and a lone surrogate, are refused by name, not with an exception.
    assert.match(sim.applyOutbox('c0|{"op":"sleep","ms":1e21}'), /could not record \(a store call:/);
    assert.match(sim.applyOutbox('n0|{"note":"console","text":"\\ud83d"}'), /could not record \(a note:/);
    // The stop above dropped the call after it, so the harness's numbering still starts at 0;
    // a call from a process that does not exist cannot get that number.
    assert.match(sim.applyOutbox('c99|{"op":"sleep","ms":5}'), /a call numbered 0 by the harness, None by the simulation/);
  } finally {
    sim.free();
  }
});

test("the wall-clock backstop counts from the start of a run, and again from each restartClock (lab mode's steps, which wait for a real etcd in between)", async () => {
  await engines.quickjs.refill();
  let now = 0;
  const sandbox = createSandbox(engines.quickjs, { realNow: () => now });
  const { vm } = sandbox;
  /** Queues one promise job and runs it, `elapsedMs` after the clock last started. */
  const stepAfter = (elapsedMs, restart) => {
    if (restart) sandbox.restartClock();
    now += elapsedMs;
    vm.unwrapResult(vm.evalCode("Promise.resolve().then(() => 1)")).dispose();
    sandbox.drainJobs();
  };
  try {
    sandbox.beginRun();
    stepAfter(DEFAULT_LIMITS.wallMs - 1, false);
    assert.equal(sandbox.stopped, null);
    stepAfter(2, false);
    assert.equal(sandbox.stopped, STOP_REASONS.wall(DEFAULT_LIMITS), "a run's code gets the backstop once");
    sandbox.beginRun();
    for (let step = 0; step < 3; step += 1) stepAfter(DEFAULT_LIMITS.wallMs - 1, true);
    assert.equal(sandbox.stopped, null, "each step after restartClock gets the whole backstop");
  } finally {
    sandbox.release();
  }
});

test("the sandbox's newString hands QuickJS the text vm.newString does, through a buffer of the same size", async () => {
  await engines.quickjs.refill();
  const sandbox = createSandbox(engines.quickjs, { limits: DEFAULT_LIMITS });
  const { vm } = sandbox;
  // The sizes asked of QuickJS's allocator while `make` runs: the same sizes keep its heap used the same way.
  const module = vm.module;
  // Also how often the library's own character-by-character writer ran.
  const mallocs = (make) => {
    const sizes = [];
    let libraryWrites = 0;
    const { _malloc: malloc, stringToUTF8 } = module;
    module._malloc = (size) => {
      sizes.push(size);
      return malloc(size);
    };
    module.stringToUTF8 = (...args) => {
      libraryWrites += 1;
      return stringToUTF8(...args);
    };
    try {
      const handle = make();
      return { handle, sizes, libraryWrites };
    } finally {
      Object.assign(module, { _malloc: malloc, stringToUTF8 });
    }
  };
  try {
    // The string's UTF-16 code units, read inside the VM: what learner code would see.
    const unitsOf = vm.unwrapResult(vm.evalCode("(text) => { const units = []; for (let i = 0; i < text.length; i += 1) units.push(text.charCodeAt(i)); return units.join(','); }"));
    const seen = (handle) => vm.getString(vm.unwrapResult(vm.callFunction(unitsOf, vm.undefined, handle)));
    const texts = ["", "lock", '[3,1,"10,12",1,{"ok":true,"version":9}]', "é ü ß — “quotes”", "emoji 🦀 and 𝄞", "x".repeat(70_000), "é".repeat(300), "🦀".repeat(200), "lone \uD800 surrogate", "\uDC00 at the start", `${"y".repeat(300)}\uD800`];
    for (const text of texts) {
      const label = JSON.stringify(text.slice(0, 40));
      const fast = mallocs(() => sandbox.newString(text));
      const plain = mallocs(() => vm.newString(text));
      assert.equal(seen(fast.handle), seen(plain.handle), label);
      assert.deepEqual(fast.sizes, plain.sizes, `${label}: the buffers asked for`);
      assert.equal(plain.libraryWrites, 1, "the library writes its text itself");
      // Long well-formed text takes the native way; short text and a lone surrogate the library's.
      assert.equal(fast.libraryWrites, text.length >= 256 && text.isWellFormed() ? 0 : 1, `${label}: who wrote the text`);
      fast.handle.dispose();
      plain.handle.dispose();
    }
    unitsOf.dispose();
  } finally {
    sandbox.release();
  }
});
