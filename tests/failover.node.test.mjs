// The failover simulator without a browser: its pure core (the clock, the
// visitor's faults, presets, what the page reads from a story), and the
// real simulation (its own wasm module, leaselab_failover: failoverRun) telling the
// lesson's story: when the leader fails another replica leads within a TTL
// and a few round trips, and a replica that comes back follows.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import initLeaselab, * as leaselab from "../web/pkg/leaselab_failover.js";
import {
  LOOKAHEAD_MS,
  PRESETS,
  TICK_REAL_MS_MAX,
  UNTIL_MS_MAX,
  announcement,
  headline,
  initialState,
  logLines,
  needsRun,
  replicaDetail,
  runRequest,
  snapshot,
  update,
} from "../web/src/widgets/failover-simulator/state.js";
import { timelineSvg } from "../web/src/widgets/failover-simulator/timeline.js";

/** A TTL and then a few round trips (latencies are at most 20 ms one way). */
const TTL_MS = 3_000;
const TAKEOVER_SLACK_MS = 200;

before(async () => {
  await initLeaselab({ module_or_path: readFileSync(new URL("../web/pkg/leaselab_failover_bg.wasm", import.meta.url)) });
});

const run = (request) => JSON.parse(leaselab.failoverRun(JSON.stringify(request)));

/** What the shell does after every action: a new run when the story is stale. */
function settle(state) {
  if (!needsRun(state)) return state;
  const request = runRequest(state);
  return update(state, { type: "ran", story: run(request), faults: request.faults });
}

/** Applies actions (settling after each), as clicks on the page would. */
function act(state, ...actions) {
  for (const action of actions) state = settle(update(state, action));
  return state;
}

/** Lets the clock run to `untilMs` in animation-frame-sized ticks. */
function playTo(state, untilMs) {
  state = settle(update(state, { type: "play" }));
  while (state.nowMs < untilMs) {
    const realMs = Math.min(16, (untilMs - state.nowMs) / state.speed);
    state = settle(update(state, { type: "tick", realMs }));
  }
  return state;
}

const at = (state) => snapshot(state.story, Math.floor(state.nowMs));

/** The first moment in [fromMs, toMs] at which `replica` leads, or null. */
function firstLeadingAt(story, replica, fromMs, toMs) {
  for (let atMs = fromMs; atMs <= toMs; atMs += 1) if (snapshot(story, atMs).leader === replica) return atMs;
  return null;
}

// ---- the pure core ---------------------------------------------------------------

test("the clock moves real time × speed, a long gap counts as one short tick, and it stops at the limit", () => {
  let state = initialState();
  state = update(state, { type: "tick", realMs: 100 });
  assert.equal(state.nowMs, 100);
  state = update(update(state, { type: "speed", speed: 4 }), { type: "tick", realMs: 100 });
  assert.equal(state.nowMs, 500);
  state = update(state, { type: "tick", realMs: 60_000 });
  assert.equal(state.nowMs, 500 + TICK_REAL_MS_MAX * 4, "a tab that slept does not skip the story");
  assert.equal(update(state, { type: "speed", speed: 3 }).speed, 4, "only the offered speeds");
  state = update(state, { type: "stop" });
  assert.equal(update(state, { type: "tick", realMs: 100 }).nowMs, state.nowMs, "a stopped clock stays");
  assert.equal(update(state, { type: "advance", ms: 1_000 }).nowMs, state.nowMs + 1_000, "+1 s works while stopped");
  const end = update({ ...state, nowMs: UNTIL_MS_MAX - 10, playing: true }, { type: "tick", realMs: 100 });
  assert.equal(end.nowMs, UNTIL_MS_MAX);
  assert.equal(end.playing, false);
  assert.equal(update(end, { type: "play" }).playing, false);
});

test("freezes, returns and crashes become faults at the clock's whole millisecond", () => {
  const check = (actions, expected) => {
    let state = { ...initialState(), nowMs: 0 };
    for (const [nowMs, action] of actions) state = update({ ...state, nowMs }, action);
    assert.deepEqual(state.faults, expected, JSON.stringify(actions));
  };
  check([[4_000.7, { type: "freeze", replica: 1 }]], [{ kind: "pause", replica: 1, atMs: 4_000, endMs: null }]);
  check(
    [
      [4_000, { type: "freeze", replica: 1 }],
      [9_500, { type: "resume", replica: 1 }],
    ],
    [{ kind: "pause", replica: 1, atMs: 4_000, endMs: 9_500 }],
  );
  // Back at once (the clock stopped): nothing happened.
  check(
    [
      [4_000, { type: "freeze", replica: 2 }],
      [4_000, { type: "resume", replica: 2 }],
    ],
    [],
  );
  // A crash ends a freeze; a crashed replica takes no more actions.
  check(
    [
      [1_000, { type: "freeze", replica: 3 }],
      [2_000, { type: "crash", replica: 3 }],
      [3_000, { type: "freeze", replica: 3 }],
      [3_000, { type: "crash", replica: 3 }],
    ],
    [
      { kind: "pause", replica: 3, atMs: 1_000, endMs: 2_000 },
      { kind: "crash", replica: 3, atMs: 2_000 },
    ],
  );
  // Nonsense is ignored: a replica that does not exist, a second freeze, a return without a freeze.
  check(
    [
      [1_000, { type: "freeze", replica: 4 }],
      [1_000, { type: "resume", replica: 1 }],
      [1_000, { type: "freeze", replica: 1 }],
      [2_000, { type: "freeze", replica: 1 }],
    ],
    [{ kind: "pause", replica: 1, atMs: 1_000, endMs: null }],
  );
});

test("a preset plays its steps at their exact times, and the visitor's own action ends the script", () => {
  let state = update(initialState(), { type: "preset", preset: "diagram" });
  assert.equal(state.preset.id, "diagram");
  while (state.nowMs < 12_000) state = update(state, { type: "tick", realMs: 170 });
  assert.deepEqual(state.faults, [{ kind: "pause", replica: 1, atMs: 4_000, endMs: 10_000 }]);

  state = update(initialState(), { type: "preset", preset: "diagram" });
  state = update(state, { type: "advance", ms: 2_000 });
  state = update(state, { type: "crash", replica: 2 });
  assert.equal(state.preset, null);
  state = update(state, { type: "advance", ms: 10_000 });
  assert.deepEqual(state.faults, [{ kind: "crash", replica: 2, atMs: 2_000 }]);
  assert.throws(() => update(state, { type: "explode" }), /unknown failover simulator action "explode"/);
});

test("a new run is needed when the faults change or the clock passes the end of the last run", () => {
  let state = initialState();
  assert.equal(needsRun(state), true);
  assert.deepEqual(runRequest(state), { untilMs: LOOKAHEAD_MS, faults: [] });
  const story = { untilMs: LOOKAHEAD_MS };
  state = update(state, { type: "ran", story, faults: state.faults });
  assert.equal(needsRun(state), false);
  assert.equal(needsRun({ ...state, nowMs: LOOKAHEAD_MS }), false);
  assert.equal(needsRun({ ...state, nowMs: LOOKAHEAD_MS + 1 }), true);
  assert.equal(needsRun(update(state, { type: "freeze", replica: 1 })), true);
  assert.equal(runRequest({ ...state, nowMs: UNTIL_MS_MAX - 5 }).untilMs, UNTIL_MS_MAX);
});

/** A small story by hand, to read the page's words from. */
const HAND_STORY = {
  untilMs: 12_000,
  replicas: 3,
  ttlMs: 3_000,
  workMs: 250,
  holds: [
    { replica: 1, fromMs: 10, toMs: 6_050, writesMs: [10, 1_530, 3_050] },
    { replica: 3, fromMs: 6_070, toMs: null, writesMs: [6_070, 7_600] },
  ],
  roles: [
    { replica: 1, role: "campaigning", fromMs: 0, toMs: 20 },
    { replica: 1, role: "leading", fromMs: 20, toMs: 10_000 },
    { replica: 1, role: "campaigning", fromMs: 10_000, toMs: null },
    { replica: 2, role: "campaigning", fromMs: 20, toMs: 8_000 },
    { replica: 3, role: "campaigning", fromMs: 40, toMs: 6_080 },
    { replica: 3, role: "leading", fromMs: 6_080, toMs: null },
  ],
  pauses: [{ replica: 1, fromMs: 4_000, toMs: 10_000 }],
  calls: [],
  events: [
    { kind: "acquired", atMs: 10, replica: 1, version: 2, after: null },
    { kind: "frozen", atMs: 4_000, replica: 1 },
    { kind: "expired", atMs: 6_050, replica: 1 },
    { kind: "acquired", atMs: 6_070, replica: 3, version: 5, after: 1 },
    { kind: "crashed", atMs: 8_000, replica: 2 },
    { kind: "resumed", atMs: 10_000, replica: 1 },
    { kind: "steppedDown", atMs: 10_000, replica: 1, reason: "windowPassed" },
    { kind: "following", atMs: 10_030, replica: 1, holder: 3 },
  ],
};

test("what the page says at each moment of a story", () => {
  const check = (atMs, expected) => {
    const view = snapshot(HAND_STORY, atMs);
    const actual = {
      title: headline(view).title,
      detail: headline(view).detail,
      heard: announcement(view),
      replicas: [1, 2, 3].map((replica) => replicaDetail(view, replica)),
    };
    assert.deepEqual(actual, expected, `at ${atMs} ms`);
  };
  check(1_000, {
    title: "Replica 1 leads",
    detail: "It renews its 3.0 s lease every 1.5 s and works in between.",
    heard: "Replica 1 leads.",
    replicas: ["Leader: renews every ttl/2, works in between.", "Follower: watches the key, held by replica 1.", "Follower: watches the key, held by replica 1."],
  });
  check(5_000, {
    title: "No replica leads",
    detail: "Replica 1 is frozen, but the store still holds its lease for 1.1 s. Nobody can take over until it runs out.",
    heard: "No replica leads.",
    replicas: ["Frozen for 1.0 s. It still believes it leads.", "Follower: watches the key, held by replica 1.", "Follower: watches the key, held by replica 1."],
  });
  check(6_060, {
    title: "No replica leads",
    detail: "The lease is free: replica 2 and replica 3 race to take it.",
    heard: "No replica leads.",
    replicas: ["Frozen for 2.1 s. It still believes it leads.", "Racing for the free lease.", "Racing for the free lease."],
  });
  check(11_000, {
    title: "Replica 3 leads",
    detail: "It renews its 3.0 s lease every 1.5 s and works in between.",
    heard: "Replica 3 leads.",
    replicas: ["Follower: watches the key, held by replica 3.", "Crashed at t=8.0 s. It never runs again.", "Leader: renews every ttl/2, works in between."],
  });
  assert.deepEqual(
    logLines(HAND_STORY, 12_000).map((line) => line.text),
    [
      "t=0.0 s: replica 1 took the lease (the key was free).",
      "t=4.0 s: replica 1 froze (a stop-the-world pause).",
      "t=6.0 s: replica 1's lease expired; the store deleted the key.",
      "t=6.1 s: replica 3 took over after replica 1's lease expired.",
      "t=8.0 s: replica 2 crashed.",
      "t=10.0 s: replica 1 came back after 6.0 s.",
      "t=10.0 s: replica 1 stepped down: by its own clock, its lease could have run out.",
      "t=10.0 s: replica 1 found replica 3 holding the lease and follows it.",
    ],
  );
  assert.equal(logLines(HAND_STORY, 4_000).length, 2, "nothing from the future");
});

test("the timeline draws only what has happened, within its window", () => {
  const early = timelineSvg(HAND_STORY, 5_000, { widthPx: 720, id: "t" });
  assert.match(early, /class="failover-hold replica-1"/);
  assert.doesNotMatch(early, /replica-3"/, "replica 3 has not led yet");
  assert.match(early, /fill="url\(#t-hatch\)"/, "the freeze is hatched");
  const late = timelineSvg(HAND_STORY, 12_000, { widthPx: 720, id: "t" });
  assert.match(late, /class="failover-hold replica-3"/);
  assert.match(late, /class="failover-crash"/);
  assert.match(late, /class="failover-expiry"/);
  // On a phone the window is 10 s: at 30 s nothing before 20 s shows, so the first lease is gone.
  const phone = timelineSvg(HAND_STORY, 30_000, { widthPx: 340, id: "t" });
  assert.doesNotMatch(phone, /replica-1"/);
  assert.match(phone, />20 s</);
});

// ---- the real simulation --------------------------------------------------------

test("the lesson's diagram: replica 1 leads, fails, replica 3 takes over, replica 1 returns as a follower", () => {
  let state = settle(update(initialState(), { type: "preset", preset: "diagram" }));
  state = update(state, { type: "speed", speed: 4 });
  state = playTo(state, 3_900);
  assert.equal(at(state).leader, 1, "replica 1 leads first");

  state = playTo(state, 4_001);
  assert.deepEqual(state.faults, [{ kind: "pause", replica: 1, atMs: 4_000, endMs: null }]);
  assert.equal(at(state).replicas[0].status, "frozen");

  state = playTo(state, 9_990);
  const takeoverMs = firstLeadingAt(state.story, 3, 4_000, 9_990);
  assert.ok(takeoverMs !== null, "replica 3 takes over while replica 1 is frozen");
  assert.ok(takeoverMs <= 4_000 + TTL_MS + TAKEOVER_SLACK_MS, `replica 3 leads at ${takeoverMs} ms, within a TTL and a few round trips of the freeze`);
  for (let atMs = 4_000; atMs < takeoverMs; atMs += 10) assert.equal(snapshot(state.story, atMs).leader, null, `nobody leads at ${atMs} ms while the frozen leader's lease runs`);

  state = playTo(state, 30_000);
  assert.deepEqual(state.faults, [{ kind: "pause", replica: 1, atMs: 4_000, endMs: 10_000 }]);
  for (let atMs = takeoverMs; atMs <= 30_000; atMs += 50) assert.equal(snapshot(state.story, atMs).leader, 3, `replica 3 still leads at ${atMs} ms`);
  const lines = logLines(state.story, 30_000).map((line) => line.text);
  assert.ok(lines.includes("t=10.0 s: replica 1 stepped down: by its own clock, its lease could have run out."), lines.join("\n"));
  assert.ok(lines.some((line) => /replica 1 found replica 3 holding the lease and follows it/.test(line)), lines.join("\n"));
  assert.equal(at(state).replicas[0].status, "campaigning");
});

test("a crashed leader is replaced within a TTL and a few round trips, and never comes back", () => {
  let state = playTo(initialState(), 2_500);
  state = act(state, { type: "crash", replica: 1 });
  state = playTo(state, 20_000);
  const newLeader = snapshot(state.story, 20_000).leader;
  assert.ok(newLeader === 2 || newLeader === 3, `a follower leads, not ${newLeader}`);
  const takeoverMs = firstLeadingAt(state.story, newLeader, 2_500, 20_000);
  assert.ok(takeoverMs <= 2_500 + TTL_MS + TAKEOVER_SLACK_MS, `took over at ${takeoverMs} ms`);
  assert.equal(firstLeadingAt(state.story, 1, 2_500, 20_000), null);
  assert.equal(at(state).replicas[0].status, "crashed");
});

test("freezing a follower, or the leader briefly, changes nothing; crashing everyone leaves nobody", () => {
  let state = playTo(initialState(), 3_000);
  state = act(state, { type: "freeze", replica: 2 });
  state = playTo(state, 8_000);
  state = act(state, { type: "resume", replica: 2 });
  state = playTo(state, 12_000);
  for (let atMs = 100; atMs <= 12_000; atMs += 100) assert.equal(snapshot(state.story, atMs).leader, 1, `at ${atMs} ms`);

  state = settle(update(initialState(), { type: "preset", preset: "short-freeze" }));
  state = playTo(state, 12_000);
  assert.equal(state.story.holds.length, 1, "a 0.6 s freeze keeps the lease");
  assert.equal(at(state).leader, 1);

  state = playTo(initialState(), 1_000);
  state = act(state, { type: "crash", replica: 1 }, { type: "crash", replica: 2 }, { type: "crash", replica: 3 });
  state = playTo(state, 8_000);
  assert.equal(at(state).leader, null);
  assert.equal(at(state).holder, null, "the last lease expired even with nobody left");
  assert.equal(headline(at(state)).detail, "Every replica has crashed. Reset to start again.");
});

test("running further never rewrites the past", () => {
  const faults = [{ kind: "pause", replica: 1, atMs: 4_000, endMs: null }];
  const short = run({ untilMs: 6_000, faults });
  const long = run({ untilMs: 20_000, faults: [{ ...faults[0], endMs: 11_000 }] });
  const upTo = (story, untilMs) => story.events.filter((event) => event.atMs <= untilMs);
  assert.deepEqual(upTo(long, 6_000), upTo(short, 6_000));
  assert.deepEqual(short.pauses, [{ replica: 1, fromMs: 4_000, toMs: null }]);
  assert.deepEqual(long.pauses, [{ replica: 1, fromMs: 4_000, toMs: 11_000 }]);
});

test("failoverRun refuses bad requests with a message that says what to do", () => {
  assert.throws(() => run({ untilMs: 1_000, faults: [{ kind: "pause", replica: 4, atMs: 0, endMs: null }] }), /replicas are numbered 1 to 3/);
  assert.throws(() => run({ untilMs: 1_000, faults: [{ kind: "nap", replica: 1, atMs: 0 }] }), /pass \{ untilMs, faults/);
  assert.throws(() => run({ untilMs: 1_000.5, faults: [] }), /whole milliseconds/);
  assert.throws(() => run({ untilMs: UNTIL_MS_MAX + 1, faults: [] }), /reset the simulation/);
  assert.throws(() => leaselab.failoverRun("{"), /failoverRun: /);
  assert.equal(run({ untilMs: UNTIL_MS_MAX, faults: [] }).untilMs, UNTIL_MS_MAX, "the page's limit is the module's");
  assert.ok(PRESETS.every((preset) => preset.steps.every((step) => step.atMs < UNTIL_MS_MAX)));
});
