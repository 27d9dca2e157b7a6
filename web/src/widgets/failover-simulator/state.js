// The failover simulator's pure core.
//
// The visitor's actions are kept as a list of faults with times: a freeze
// of a replica from one moment to another (`endMs: null` while it lasts),
// a crash at a moment. The simulation itself is the Rust reference lease
// protocol on the wasm kernel (crates/wasm/src/failover.rs): the shell asks
// for a whole run from t = 0 whenever the faults change or the clock passes
// the end of the last run (`needsRun`, `runRequest`), and hands the answer,
// the run's story, back with a "ran" action. Everything the page shows at
// the clock's time is read from that story here (`snapshot`, `logLines`),
// so it is tested in Node without a browser.

/** The simulator's fixed numbers; the wasm module says the same (failoverSettings). */
export const REPLICAS = 3;
export const UNTIL_MS_MAX = 300_000;
export const FAULTS_MAX = 200;

/** Each run goes this far past the clock, so the clock reads ahead in it for a while. */
export const LOOKAHEAD_MS = 3_000;
/** The clock's speeds: simulated seconds per real second. */
export const SPEEDS = Object.freeze([0.5, 1, 2, 4]);
/** A tick never moves the clock more than this (a tab that slept must not skip the story). */
export const TICK_REAL_MS_MAX = 250;

/**
 * Scripted stories: at each `atMs` the action runs as if the visitor had
 * done it then. The first replays the lesson's diagram.
 */
export const PRESETS = Object.freeze([
  {
    id: "diagram",
    label: "Replay the diagram",
    description: "Replica 1 leads, fails, replica 3 takes over, replica 1 returns as a follower.",
    steps: [
      { atMs: 4_000, action: { type: "freeze", replica: 1 } },
      { atMs: 10_000, action: { type: "resume", replica: 1 } },
    ],
  },
  {
    id: "crash",
    label: "The leader crashes",
    description: "Replica 1 crashes for good; a follower takes over once its lease runs out.",
    steps: [{ atMs: 4_000, action: { type: "crash", replica: 1 } }],
  },
  {
    id: "short-freeze",
    label: "A short freeze",
    description: "Replica 1 freezes for 0.6 s, well inside its lease: it keeps leading.",
    steps: [
      { atMs: 4_200, action: { type: "freeze", replica: 1 } },
      { atMs: 4_800, action: { type: "resume", replica: 1 } },
    ],
  },
]);

/** A fresh simulator at t = 0. `playing`: whether the clock runs from the start. */
export function initialState({ playing = true } = {}) {
  return { nowMs: 0, playing, speed: 1, faults: [], preset: null, story: null, storyFaults: null };
}

/**
 * Actions:
 * - { type: "tick", realMs }            real time passed; the clock moves realMs × speed
 * - { type: "advance", ms }             move the clock by `ms` of simulated time, running or not
 * - { type: "play" } / { type: "stop" } run or stop the clock
 * - { type: "speed", speed }            one of SPEEDS
 * - { type: "freeze", replica }         stop-the-world pause of a replica (1-based), from now
 * - { type: "resume", replica }         end that replica's freeze now
 * - { type: "crash", replica }          the replica stops for good, now
 * - { type: "preset", preset }          start over and play one of PRESETS
 * - { type: "reset" }                   start over, no faults
 * - { type: "ran", story, faults }      the shell ran the simulation for `faults`
 * A visitor's own freeze, resume or crash ends a preset's script.
 */
export function update(state, action) {
  switch (action.type) {
    case "tick":
      return state.playing && action.realMs > 0 ? advanceClock(state, Math.min(action.realMs, TICK_REAL_MS_MAX) * state.speed) : state;
    case "advance":
      return action.ms > 0 ? advanceClock(state, action.ms) : state;
    case "play":
      return state.nowMs >= UNTIL_MS_MAX ? state : { ...state, playing: true };
    case "stop":
      return { ...state, playing: false };
    case "speed":
      return SPEEDS.includes(action.speed) ? { ...state, speed: action.speed } : state;
    case "freeze":
    case "resume":
    case "crash":
      return { ...applyFault(state, action), preset: null };
    case "preset": {
      const preset = PRESETS.find((candidate) => candidate.id === action.preset);
      if (!preset) return state;
      return { ...initialState({ playing: true }), speed: state.speed, preset: { id: preset.id, next: 0 } };
    }
    case "reset":
      return { ...initialState({ playing: state.playing }), speed: state.speed };
    case "ran":
      return { ...state, story: action.story, storyFaults: action.faults };
    default:
      throw new Error(`unknown failover simulator action "${action.type}"`);
  }
}

/** Moves the clock by `deltaMs`, running the preset's steps at their exact times on the way. */
function advanceClock(state, deltaMs) {
  let targetMs = Math.min(UNTIL_MS_MAX, state.nowMs + deltaMs);
  let next = state;
  for (;;) {
    const step = nextPresetStep(next);
    if (!step || step.atMs > targetMs) break;
    next = applyFault({ ...next, nowMs: Math.max(next.nowMs, step.atMs) }, step.action);
    next = { ...next, preset: { ...next.preset, next: next.preset.next + 1 } };
  }
  targetMs = Math.max(targetMs, next.nowMs);
  return { ...next, nowMs: targetMs, playing: next.playing && targetMs < UNTIL_MS_MAX };
}

function nextPresetStep(state) {
  if (!state.preset) return null;
  const preset = PRESETS.find((candidate) => candidate.id === state.preset.id);
  return preset?.steps[state.preset.next] ?? null;
}

/** The moment an action happens: the clock's time in whole milliseconds. */
const actionMs = (state) => Math.floor(state.nowMs);

/** Adds a visitor's action to the faults, if it makes sense now; otherwise leaves the state alone. */
function applyFault(state, action) {
  const { replica } = action;
  if (!Number.isInteger(replica) || replica < 1 || replica > REPLICAS) return state;
  const status = replicaFaults(state.faults, replica);
  if (status.crashed) return state;
  const atMs = actionMs(state);
  switch (action.type) {
    case "freeze":
      if (status.frozen || state.faults.length >= FAULTS_MAX) return state;
      return { ...state, faults: [...state.faults, { kind: "pause", replica, atMs, endMs: null }] };
    case "resume":
      return status.frozen ? { ...state, faults: endFreeze(state.faults, replica, atMs) } : state;
    case "crash":
      if (state.faults.length >= FAULTS_MAX) return state;
      return { ...state, faults: [...endFreeze(state.faults, replica, atMs), { kind: "crash", replica, atMs }] };
    default:
      return state;
  }
}

/** Ends the replica's ongoing freeze at `atMs`; a freeze that lasted no time at all is dropped. */
function endFreeze(faults, replica, atMs) {
  return faults.flatMap((fault) => {
    if (fault.kind !== "pause" || fault.replica !== replica || fault.endMs !== null) return [fault];
    return atMs > fault.atMs ? [{ ...fault, endMs: atMs }] : [];
  });
}

/** `{ frozen, crashed }`: what the visitor has done to a replica so far. */
export function replicaFaults(faults, replica) {
  return {
    frozen: faults.some((fault) => fault.kind === "pause" && fault.replica === replica && fault.endMs === null),
    crashed: faults.some((fault) => fault.kind === "crash" && fault.replica === replica),
  };
}

/** True when the last run does not cover the clock or was made for other faults. */
export function needsRun(state) {
  return state.story === null || state.storyFaults !== state.faults || state.story.untilMs < Math.floor(state.nowMs);
}

/** What to ask `failoverRun` for: from 0 to a little past the clock, with the faults. */
export function runRequest(state) {
  return { untilMs: Math.min(UNTIL_MS_MAX, Math.floor(state.nowMs) + LOOKAHEAD_MS), faults: state.faults };
}

// ---- reading the story at the clock's time ------------------------------------

const within = (span, atMs) => span.fromMs <= atMs && (span.toMs === null || atMs < span.toMs);

/** "t=4.2 s" */
export function formatTime(ms) {
  return `t=${(ms / 1000).toFixed(1)} s`;
}

/** "0.6 s", "12 s" */
export function formatSeconds(ms) {
  const seconds = ms / 1000;
  return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
}

/**
 * What is true at `atMs`:
 * { atMs, ttlMs, holder: { replica, expiresAtMs } | null, leader: replica | null,
 *   replicas: [{ replica, status, role, frozenSinceMs, crashedAtMs }] }
 * `status` is "crashed", "frozen", "leading", "campaigning" or "starting";
 * `role` is what the replica itself believes it is doing ("leading",
 * "campaigning" or null), also while frozen. The leader is the holder of
 * the key in the store, when it is up and leading.
 */
export function snapshot(story, atMs) {
  const hold = story.holds.find((candidate) => within(candidate, atMs)) ?? null;
  let holder = null;
  if (hold) {
    const lastWriteMs = hold.writesMs.filter((writeMs) => writeMs <= atMs).at(-1) ?? hold.fromMs;
    holder = { replica: hold.replica, expiresAtMs: lastWriteMs + story.ttlMs };
  }
  const replicas = [];
  for (let replica = 1; replica <= story.replicas; replica += 1) {
    const crash = story.events.find((event) => event.kind === "crashed" && event.replica === replica && event.atMs <= atMs);
    const pause = story.pauses.find((span) => span.replica === replica && within(span, atMs));
    const role = story.roles.find((span) => span.replica === replica && within(span, atMs))?.role ?? null;
    const status = crash ? "crashed" : pause ? "frozen" : (role ?? "starting");
    replicas.push({ replica, status, role: crash ? null : role, frozenSinceMs: pause && !crash ? pause.fromMs : null, crashedAtMs: crash ? crash.atMs : null });
  }
  const holderState = holder ? replicas[holder.replica - 1] : null;
  const leader = holderState?.status === "leading" ? holder.replica : null;
  return { atMs, ttlMs: story.ttlMs, holder, leader, replicas };
}

/** The big line and the one under it: who leads now, and why (not). */
export function headline(view) {
  const { holder, leader, replicas, atMs } = view;
  if (leader !== null) return { title: `Replica ${leader} leads`, detail: `It renews its ${formatSeconds(view.ttlMs)} lease every ${formatSeconds(view.ttlMs / 2)} and works in between.` };
  const up = replicas.filter((replica) => replica.status !== "crashed");
  if (holder) {
    const left = formatSeconds(Math.max(0, holder.expiresAtMs - atMs));
    const holderStatus = replicas[holder.replica - 1].status;
    if (holderStatus === "frozen") return { title: "No replica leads", detail: `Replica ${holder.replica} is frozen, but the store still holds its lease for ${left}. Nobody can take over until it runs out.` };
    if (holderStatus === "crashed") return { title: "No replica leads", detail: `Replica ${holder.replica} crashed. Its lease runs out in ${left}; then a follower takes over.` };
    return { title: "No replica leads", detail: `Replica ${holder.replica} stepped down; its old lease runs out in ${left}.` };
  }
  if (up.length === 0) return { title: "No replica leads", detail: "Every replica has crashed. Reset to start again." };
  const racing = up.filter((replica) => replica.status === "campaigning").map((replica) => replica.replica);
  if (racing.length === 0) return { title: "No replica leads", detail: "The lease is free, but every replica that is up is frozen." };
  return { title: "No replica leads", detail: `The lease is free: ${listReplicas(racing)} ${racing.length === 1 ? "tries" : "race"} to take it.` };
}

/** What a screen reader hears when leadership changes (and only then). */
export function announcement(view) {
  return view.leader === null ? "No replica leads." : `Replica ${view.leader} leads.`;
}

/** One replica's line under its name. */
export function replicaDetail(view, replica) {
  const state = view.replicas[replica - 1];
  const holder = view.holder?.replica ?? null;
  switch (state.status) {
    case "crashed":
      return `Crashed at ${formatTime(state.crashedAtMs)}. It never runs again.`;
    case "frozen": {
      const since = `Frozen for ${formatSeconds(view.atMs - state.frozenSinceMs)}`;
      return state.role === "leading" ? `${since}. It still believes it leads.` : `${since}.`;
    }
    case "leading":
      return "Leader: renews every ttl/2, works in between.";
    case "campaigning":
      if (holder === null) return "Racing for the free lease.";
      if (holder === replica) return "Stepped down; waits for its own old lease to run out.";
      return `Follower: watches the key, held by replica ${holder}.`;
    default:
      return "Starting.";
  }
}

function listReplicas(replicas) {
  const names = replicas.map((replica) => `replica ${replica}`);
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The log: `[{ atMs, text }]` for every event up to `atMs`, oldest first. */
export function logLines(story, atMs) {
  const lines = [];
  for (const event of story.events) {
    if (event.atMs > atMs) break;
    lines.push({ atMs: event.atMs, text: `${formatTime(event.atMs)}: ${describeEvent(story, event)}` });
  }
  return lines;
}

function describeEvent(story, event) {
  const name = `replica ${event.replica}`;
  switch (event.kind) {
    case "acquired":
      if (event.after === null) return `${name} took the lease (the key was free).`;
      if (event.after === event.replica) return `${name} took the lease again after its own lease expired.`;
      return `${name} took over after replica ${event.after}'s lease expired.`;
    case "expired":
      return `replica ${event.replica}'s lease expired; the store deleted the key.`;
    case "steppedDown":
      return event.reason === "renewalFailed"
        ? `${name} stepped down: the store refused its renewal.`
        : `${name} stepped down: by its own clock, its lease could have run out.`;
    case "following":
      return `${name} found replica ${event.holder} holding the lease and follows it.`;
    case "frozen":
      return `${name} froze (a stop-the-world pause).`;
    case "resumed": {
      const pause = story.pauses.find((span) => span.replica === event.replica && span.toMs === event.atMs);
      return pause ? `${name} came back after ${formatSeconds(pause.toMs - pause.fromMs)}.` : `${name} came back.`;
    }
    case "crashed":
      return `${name} crashed.`;
    default:
      return `${name}: ${event.kind}.`;
  }
}
