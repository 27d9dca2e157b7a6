// The fencing race's pure core.
//
// The visitor's choices are the whole input: which worker, a pause of the
// old leader A between its local check and its write, a delay of one of
// A's requests in flight. The race itself runs in Rust
// (crates/wasm/src/fencing_race.rs, `fencingRaceRun`), from t = 0 to its
// end, whenever the choices change (`needsRun`, `runRequest`); the shell
// hands the story back with a "ran" action. A cursor (`atMs`) lets the
// visitor step through the story; everything the page shows at the cursor
// is read from the story here, so it is tested in Node without a browser.
//
// Every number that the Rust side also knows (the TTL, the hop latency,
// the limits of the sliders, the presets' choices) comes from the wasm's
// `fencingRaceSettings()`, handed to `initialState`.

/** The four workers, in the order the lesson builds them up. */
export const WORKERS = Object.freeze([
  { id: "trusts", label: "Trusts the caller", description: "Writes every request it receives." },
  { id: "asks", label: "Asks the store", description: "Reads the lock, writes only if the request's owner and version match it (the exercise's worker)." },
  { id: "atomic", label: "Atomic check-and-write", description: "One transaction in the store: if the lock still matches, write the data." },
  { id: "highest", label: "Keeps the highest token", description: "The data refuses any token below the highest it has seen." },
]);

/** Which hop of a request a delay holds up. */
export const HOPS = Object.freeze([
  { id: "toWorker", label: "on its way to the worker" },
  { id: "write", label: "the worker's write" },
]);

/** The lesson's scenarios; their choices come from the wasm (settings.presets, by id). */
export const PRESETS = Object.freeze([
  {
    id: "paused-leader",
    label: "A paused old leader",
    description: "A pauses between its check and its write for A3, past its lease. B takes over; A wakes and sends A3 anyway. Switch workers to see who stops it.",
  },
  {
    id: "delayed-request",
    label: "A delayed request",
    description: "A2 lingers in the network; A pauses and B takes over, so A2 arrives from an earlier tenure. Switch workers to see who stops it.",
  },
  {
    id: "read-write-gap",
    label: "The read-then-write gap",
    description: "The worker asks the store about A3 while A still holds the lock, but its write lands after B took over. Try the atomic and the highest-token workers.",
  },
]);

const WORKER_IDS = WORKERS.map((worker) => worker.id);
const HOP_IDS = HOPS.map((hop) => hop.id);

/**
 * A fresh widget: the calm run (no pause, no delay) with the asking worker,
 * the cursor at the end. `settings` is `fencingRaceSettings()`.
 */
export function initialState(settings) {
  checkSettings(settings);
  return {
    settings,
    worker: "asks",
    // Kept when switched off, so switching back restores the visitor's numbers.
    pause: { before: 0, ms: Math.min(2_500, settings.pauseMsMax) },
    delay: { request: 0, hop: "toWorker", ms: Math.min(3_000, settings.delayMsMax) },
    atMs: settings.untilMs,
    preset: null,
    story: null,
    storyKey: null,
  };
}

function checkSettings(settings) {
  const numbers = ["ttlMs", "latencyMs", "prepareMs", "untilMs", "pauseMsMax", "delayMsMax", "stepMs", "requestsPerLeader"];
  for (const name of numbers) {
    if (!Number.isSafeInteger(settings?.[name]) || settings[name] <= 0) throw new Error(`fencing race: settings.${name} must be a positive whole number (from fencingRaceSettings())`);
  }
  if (!Array.isArray(settings.presets)) throw new Error("fencing race: settings.presets must be a list (from fencingRaceSettings())");
}

/**
 * Actions:
 * - { type: "worker", worker }        one of WORKERS' ids
 * - { type: "pauseBefore", before }   pause A after the check for its request `before` (1-based); 0: no pause
 * - { type: "pauseMs", ms }           how long that pause lasts
 * - { type: "delayRequest", request } delay A's request `request` (1-based); 0: no delay
 * - { type: "delayHop", hop }         which hop of it (HOPS' ids)
 * - { type: "delayMs", ms }           by how much
 * - { type: "preset", preset }        the choices of one of PRESETS, cursor at the end (`workerBefore`: the worker it replaced)
 * - { type: "seek", atMs }            move the cursor
 * - { type: "step", direction }       the cursor to the next (+1) or previous (-1) moment something happened
 * - { type: "reset" }                 the calm run again
 * - { type: "ran", story, key }       the shell ran the race for the choices whose `requestKey` is `key`
 * Changing a choice by hand ends the preset.
 */
export function update(state, action) {
  const { settings } = state;
  switch (action.type) {
    case "worker":
      return WORKER_IDS.includes(action.worker) ? { ...state, worker: action.worker, preset: null } : state;
    case "pauseBefore": {
      const before = wholeIn(action.before, 0, settings.requestsPerLeader);
      return before === null ? state : { ...state, pause: { ...state.pause, before }, preset: null };
    }
    case "pauseMs": {
      const ms = stepped(action.ms, settings.stepMs, settings.pauseMsMax);
      return ms === null ? state : { ...state, pause: { ...state.pause, ms }, preset: null };
    }
    case "delayRequest": {
      const request = wholeIn(action.request, 0, settings.requestsPerLeader);
      return request === null ? state : { ...state, delay: { ...state.delay, request }, preset: null };
    }
    case "delayHop":
      return HOP_IDS.includes(action.hop) ? { ...state, delay: { ...state.delay, hop: action.hop }, preset: null } : state;
    case "delayMs": {
      const ms = stepped(action.ms, settings.stepMs, settings.delayMsMax);
      return ms === null ? state : { ...state, delay: { ...state.delay, ms }, preset: null };
    }
    case "preset": {
      const choices = settings.presets.find((preset) => preset.id === action.preset)?.request;
      if (!choices || !PRESETS.some((preset) => preset.id === action.preset)) return state;
      return {
        ...state,
        worker: choices.worker,
        // The view says when a scenario changed the worker the learner had chosen.
        workerBefore: state.worker,
        pause: choices.pause ? { ...choices.pause } : { ...state.pause, before: 0 },
        delay: choices.delay ? { ...choices.delay } : { ...state.delay, request: 0 },
        atMs: settings.untilMs,
        preset: action.preset,
      };
    }
    case "seek": {
      const atMs = Number(action.atMs);
      if (!Number.isFinite(atMs)) return state;
      return { ...state, atMs: Math.round(Math.min(settings.untilMs, Math.max(0, atMs))) };
    }
    case "step": {
      if (!state.story) return state;
      const times = momentTimes(state.story);
      const target = action.direction > 0 ? times.find((atMs) => atMs > state.atMs) ?? settings.untilMs : times.findLast((atMs) => atMs < state.atMs) ?? 0;
      return { ...state, atMs: target };
    }
    case "reset":
      return { ...initialState(settings), story: state.story, storyKey: state.storyKey };
    case "ran":
      return { ...state, story: action.story, storyKey: action.key };
    default:
      throw new Error(`unknown fencing race action "${action.type}"`);
  }
}

function wholeIn(value, min, max) {
  const number = Number(value);
  return Number.isInteger(number) && number >= min && number <= max ? number : null;
}

/** A duration from a slider: rounded to the step, at least one step, at most `max`. */
function stepped(value, stepMs, max) {
  const number = Number(value);
  if (!Number.isFinite(number)) return null;
  return Math.min(max, Math.max(stepMs, Math.round(number / stepMs) * stepMs));
}

/** What to ask `fencingRaceRun` for: the visitor's choices, with `null` for what is off. */
export function runRequest(state) {
  return {
    worker: state.worker,
    pause: state.pause.before > 0 ? { before: state.pause.before, ms: state.pause.ms } : null,
    delay: state.delay.request > 0 ? { request: state.delay.request, hop: state.delay.hop, ms: state.delay.ms } : null,
  };
}

/** The choices as one string: a story is current when it was made for the same key. */
export const requestKey = (request) => JSON.stringify(request);

/** True when the story on hand was made for other choices (or there is none yet). */
export function needsRun(state) {
  return state.story === null || state.storyKey !== requestKey(runRequest(state));
}

// ---- reading the story at the cursor -------------------------------------------

/** "t=2.15 s" */
export function formatTime(ms) {
  return `t=${(ms / 1000).toFixed(2)} s`;
}

/** "0.9 s", "2.5 s", "50 ms" */
export function formatDuration(ms) {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(2))} s`;
}

/** Every moment something happened, in order, without repeats (for stepping). */
export function momentTimes(story) {
  return [...new Set(story.events.map((event) => event.atMs))].sort((a, b) => a - b);
}

const APPLIED = new Set(["applied", "late", "double"]);

/** Whether a request's write had landed (and was kept) by `atMs`. */
export const appliedBy = (request, atMs) => APPLIED.has(request.outcome) && request.decidedMs <= atMs;

/** A request as the visitor sees it at `atMs`: `{ id, leader, version, status, text }`. */
export function requestStatus(story, request, atMs) {
  const base = { id: request.id, leader: request.leader, version: request.version };
  if (request.sentMs > atMs) return { ...base, status: "unsent", text: "Not sent yet." };
  if (request.decidedMs === null || request.decidedMs > atMs) {
    const delayed = request.arrivedMs === null || request.arrivedMs > atMs ? request.delayMs : request.writeDelayMs;
    const where = request.arrivedMs === null || request.arrivedMs > atMs ? "On its way to the worker" : "With the worker";
    const undecided = request.decidedMs === null && atMs >= story.untilMs ? " The run ended before it was decided." : "";
    return { ...base, status: "pending", text: `${where}${delayed > 0 ? ` (delayed ${formatDuration(delayed)})` : ""}.${undecided}` };
  }
  return { ...base, status: request.outcome, text: outcomeText(story, request) };
}

function holderText(holder) {
  return holder === null ? "nobody holds the lock" : `the lock is ${holder.leader}'s at version ${holder.version}`;
}

/** Why a decided request ended as it did, in one sentence. */
export function outcomeText(story, request) {
  const at = formatTime(request.decidedMs);
  const newer = request.leader === "A" ? "B" : "A";
  switch (request.outcome) {
    case "applied":
      return `Applied at ${at}.`;
    case "late":
      return `Applied at ${at}, after ${request.leader}'s lease had passed to ${newer} (before any of ${newer}'s requests landed).`;
    case "double":
      return `Applied at ${at}, after ${newer}'s ${request.after}: both leaders' requests applied.`;
    case "rejected": {
      const holder = request.readHolder;
      const renewed = holder !== null && holder.leader === request.leader ? ` (${request.leader} renewed since it sent ${request.id})` : "";
      return `Rejected by the worker at ${at}: when it asked, ${holderText(holder)}${renewed}, not ${request.leader}'s at version ${request.version}.`;
    }
    case "refusedByStore":
      return `Refused by the store's transaction at ${at}: ${holderText(request.holderThen)}, not ${request.leader}'s at version ${request.version}.`;
    case "refusedByData":
      return `Refused by the data at ${at}: its token ${request.version} is below the highest it has seen, ${request.highestThen}.`;
    default:
      return `Decided at ${at}.`;
  }
}

/**
 * The big line and the one under it, at `atMs`: whether two leaders'
 * requests were both applied, and the request that shows it.
 * `tone`: "bad", "warn", "ok" or "calm".
 */
export function verdict(story, atMs) {
  const decided = story.requests.filter((request) => request.decidedMs !== null && request.decidedMs <= atMs);
  const double = decided.find((request) => request.outcome === "double");
  if (double) {
    const after = story.requests.find((request) => request.id === double.after);
    return {
      tone: "bad",
      title: "Two leaders' requests were both applied",
      detail: `${double.id} from ${double.leader}'s earlier tenure landed at ${formatTime(double.decidedMs)}, after ${after.id} from ${after.leader} had landed at ${formatTime(after.decidedMs)}.`,
    };
  }
  const late = decided.find((request) => request.outcome === "late");
  if (late) {
    return {
      tone: "warn",
      title: "A deposed leader's request was applied",
      detail: `${late.id} landed at ${formatTime(late.decidedMs)}, after ${late.leader} had lost the lease, though before any of the new leader's requests.`,
    };
  }
  const stopped = decided.filter((request) => !APPLIED.has(request.outcome));
  if (stopped.length > 0) {
    return {
      tone: "ok",
      title: "Only the lease holder's requests were applied",
      detail: `${listIds(stopped)} ${stopped.length === 1 ? "was" : "were"} stopped. ${outcomeText(story, stopped[0])}`,
    };
  }
  const takeover = story.holds.find((hold, index) => index > 0 && hold.fromMs <= atMs);
  return {
    tone: "calm",
    title: "Only the lease holder's requests were applied",
    detail: takeover ? `${takeover.leader} took over at ${formatTime(takeover.fromMs)}; nothing from the old tenure has landed since.` : "A holds the lease; nothing has gone wrong yet. Pause A or delay a request.",
  };
}

function listIds(requests) {
  const ids = requests.map((request) => request.id);
  return ids.length <= 1 ? ids.join("") : `${ids.slice(0, -1).join(", ")} and ${ids.at(-1)}`;
}

/** What a screen reader hears when the verdict changes (and only then). */
export function announcement(view) {
  return `${view.title}.`;
}

/** The log: `[{ atMs, text, tone }]` for every event up to `atMs`, oldest first. */
export function logLines(story, atMs) {
  const lines = [];
  for (const event of story.events) {
    if (event.atMs > atMs) break;
    const { text, tone } = describeEvent(story, event);
    lines.push({ atMs: event.atMs, text: `${formatTime(event.atMs)}: ${text}`, tone });
  }
  return lines;
}

function describeEvent(story, event) {
  const request = event.request === undefined ? null : story.requests[event.request];
  switch (event.kind) {
    case "acquired":
      return { text: `the store gave the lease to ${event.leader} (version ${event.version}).`, tone: "calm" };
    case "renewed":
      return { text: `${event.leader} renewed its lease (version ${event.version}).`, tone: "calm" };
    case "expired":
      return { text: `${event.leader}'s lease expired; the store deleted the lock.`, tone: "warn" };
    case "waiting":
      return { text: `${event.leader} found the lock held by ${event.holder} and watches it.`, tone: "calm" };
    case "paused":
      return { text: `${event.leader}'s check passed, then ${event.leader} paused for ${formatDuration(event.ms)} before its write.`, tone: "warn" };
    case "resumed":
      return { text: `${event.leader} resumed, still believing it leads, and sends the write it had prepared.`, tone: "warn" };
    case "sent":
      return { text: `${request.leader} sent ${request.id} with version ${request.version}${request.delayMs > 0 ? `; the network holds it up ${formatDuration(request.delayMs)}` : ""}.`, tone: "calm" };
    case "read":
      return { text: `the worker asked the store about ${request.id}: ${holderText(request.readHolder)}.`, tone: "calm" };
    case "decided": {
      const tone = request.outcome === "double" ? "bad" : request.outcome === "late" ? "warn" : APPLIED.has(request.outcome) ? "calm" : "ok";
      return { text: `${request.id}: ${lowerFirst(outcomeText(story, request))}`, tone };
    }
    case "steppedDown":
      return {
        text: event.reason === "renewalRefused" ? `${event.leader} stepped down: the store refused its renewal.` : `${event.leader} stepped down: by its own clock its lease could have run out.`,
        tone: "calm",
      };
    default:
      return { text: `${event.kind}.`, tone: "calm" };
  }
}

const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

/** The timeline in words, for screen readers: who held the lease, and each request's end so far. */
export function summary(story, atMs) {
  const holds = story.holds
    .filter((hold) => hold.fromMs <= atMs)
    .map((hold) => `${hold.leader} from ${formatTime(hold.fromMs)}${hold.toMs !== null && hold.toMs <= atMs ? ` until ${formatTime(hold.toMs)}` : " on"}`);
  const decided = story.requests.filter((request) => request.decidedMs !== null && request.decidedMs <= atMs).map((request) => `${request.id} ${request.outcome === "refusedByStore" || request.outcome === "refusedByData" ? "refused" : request.outcome}`);
  return `Lease: ${holds.length === 0 ? "nobody yet" : holds.join("; ")}. Requests: ${decided.length === 0 ? "none decided yet" : decided.join(", ")}.`;
}
