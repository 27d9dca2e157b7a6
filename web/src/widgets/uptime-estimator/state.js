// The uptime estimator's pure core: what a singleton's failures cost in
// availability. Each kind of failure happens some number of times per
// period and takes the service down for a while; the downtime per day,
// divided by the 86,400 seconds of a day, is the share of time lost.
//
// Failures are assumed not to overlap; that is the arithmetic the lesson
// uses, and it errs on the side of more downtime.

export const DAY_SECONDS = 86_400;

/** Periods a frequency can be given in, in seconds (a month is 30 days, a year 365). */
export const PERIODS = Object.freeze({ hour: 3_600, day: 86_400, week: 604_800, month: 2_592_000, year: 31_536_000 });

/** Units a downtime can be given in, in seconds. */
export const DOWNTIME_UNITS = Object.freeze({ s: 1, min: 60, h: 3_600 });

/** Largest number a field accepts: beyond it the figures mean nothing. */
export const FIELD_VALUE_MAX = 1_000_000;

/** The kinds of failure the lesson talks about, with the values each starts with. */
export const SOURCES = Object.freeze([
  { id: "crash", label: "Container crash, restarted", defaults: { count: "1", per: "day", downtime: "2", unit: "s" } },
  { id: "node", label: "Node dies, pod moves to another", defaults: { count: "1", per: "month", downtime: "5", unit: "min" } },
  { id: "rollout", label: "Rollout: old stops, new starts", defaults: { count: "1", per: "day", downtime: "2", unit: "min" } },
]);

/** The lesson's examples. Each lists the sources it switches on, with their values. */
export const PRESETS = Object.freeze([
  { id: "daily-crash", label: "Daily crash, 2 s restart", on: { crash: { count: "1", per: "day", downtime: "2", unit: "s" } } },
  { id: "daily-node", label: "Node dies daily, 5 min move", on: { node: { count: "1", per: "day", downtime: "5", unit: "min" } } },
  { id: "daily-rollout", label: "Daily 2-minute rollout", on: { rollout: { count: "1", per: "day", downtime: "2", unit: "min" } } },
  { id: "hourly-rollout", label: "Hourly 2-minute rollouts", on: { rollout: { count: "1", per: "hour", downtime: "2", unit: "min" } } },
]);

export function initialState() {
  return applyPreset({ preset: null, sources: {} }, PRESETS[0].id);
}

function applyPreset(state, presetId) {
  const preset = PRESETS.find((candidate) => candidate.id === presetId);
  if (!preset) return state;
  const sources = {};
  for (const source of SOURCES) {
    const chosen = preset.on[source.id];
    sources[source.id] = { enabled: Boolean(chosen), ...source.defaults, ...(chosen ?? {}) };
  }
  return { ...state, preset: preset.id, sources };
}

/**
 * Actions:
 * - { type: "preset", preset }                  load one of PRESETS
 * - { type: "toggle", source, enabled }         count a kind of failure or not
 * - { type: "edit", source, field, value }      field: count | per | downtime | unit
 */
export function update(state, action) {
  switch (action.type) {
    case "preset":
      return applyPreset(state, action.preset);
    case "toggle":
      if (!state.sources[action.source]) return state;
      return { ...state, preset: null, sources: { ...state.sources, [action.source]: { ...state.sources[action.source], enabled: Boolean(action.enabled) } } };
    case "edit":
      if (!state.sources[action.source] || !["count", "per", "downtime", "unit"].includes(action.field)) return state;
      return { ...state, preset: null, sources: { ...state.sources, [action.source]: { ...state.sources[action.source], [action.field]: String(action.value) } } };
    default:
      throw new Error(`unknown uptime estimator action "${action.type}"`);
  }
}

/** A number typed by a person: "2", "0.5", "1,5". Returns { value } or { error }. */
export function parseAmount(text) {
  const trimmed = String(text).trim().replace(",", ".");
  if (trimmed === "") return { error: "Enter a number." };
  const value = Number(trimmed);
  if (!Number.isFinite(value) || !/^\d*\.?\d*$/.test(trimmed)) return { error: "Enter a number such as 2 or 0.5." };
  if (value > FIELD_VALUE_MAX) return { error: `Enter at most ${FIELD_VALUE_MAX.toLocaleString("en")}.` };
  return { value };
}

/**
 * The figures for the current inputs:
 * { errors: { "crash.count": message, … }, parts: [{ id, label, downtimePerDaySeconds }],
 *   downtimePerDaySeconds, unavailability (0…1), availability (0…1), nines }
 * Disabled sources count for nothing and are not checked.
 */
export function estimate(state) {
  const errors = {};
  const parts = [];
  for (const source of SOURCES) {
    const input = state.sources[source.id];
    if (!input?.enabled) continue;
    const count = parseAmount(input.count);
    const downtime = parseAmount(input.downtime);
    if (count.error) errors[`${source.id}.count`] = count.error;
    if (downtime.error) errors[`${source.id}.downtime`] = downtime.error;
    if (count.error || downtime.error) continue;
    const perDay = (count.value * DAY_SECONDS) / PERIODS[input.per];
    parts.push({ id: source.id, label: source.label, downtimePerDaySeconds: perDay * downtime.value * DOWNTIME_UNITS[input.unit] });
  }
  const downtimePerDaySeconds = parts.reduce((sum, part) => sum + part.downtimePerDaySeconds, 0);
  const unavailability = Math.min(1, downtimePerDaySeconds / DAY_SECONDS);
  return { errors, parts, downtimePerDaySeconds, unavailability, availability: 1 - unavailability, nines: ninesOf(unavailability) };
}

/** Whole nines: 99.9 % → 3. A tiny tolerance keeps 99.99 % at 4 despite floating point. */
export function ninesOf(unavailability) {
  if (unavailability <= 0) return Infinity;
  if (unavailability >= 1) return 0;
  return Math.max(0, Math.floor(-Math.log10(unavailability) + 1e-9));
}

/**
 * Availability as a percentage with as many decimals as it takes to show
 * where it departs from 100 %, at least three: 99.998 %, 99.653 %, 96.667 %.
 */
export function formatAvailability(availability) {
  const unavailablePercent = (1 - availability) * 100;
  if (unavailablePercent <= 0) return "100 %";
  const decimals = Math.min(7, Math.max(3, Math.ceil(-Math.log10(unavailablePercent) - 1e-9)));
  return `${(availability * 100).toFixed(decimals)} %`;
}

const NINE_WORDS = ["no nines", "one nine", "two nines", "three nines", "four nines", "five nines", "six nines", "seven nines"];

export function ninesWords(nines) {
  if (nines === Infinity) return "never down";
  return NINE_WORDS[Math.min(nines, NINE_WORDS.length - 1)];
}

/** A duration for people: "0.86 s", "0.0017 s", "2 s", "2 min", "1 h 12 min", "1 day", "3.2 days". */
export function formatDuration(seconds) {
  if (seconds === 0) return "0 s";
  // Under a second, two significant digits: a tiny downtime must not read as "0 s".
  if (seconds < 1) return seconds < 0.001 ? `${trim((seconds * 1000).toPrecision(2))} ms` : `${trim(seconds.toPrecision(2))} s`;
  if (seconds < 10) return `${trim(seconds.toFixed(1))} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3_600) {
    const minutes = Math.floor(seconds / 60);
    const rest = Math.round(seconds - minutes * 60);
    return rest === 0 || minutes >= 10 ? `${Math.round(seconds / 60)} min` : `${minutes} min ${rest} s`;
  }
  if (seconds < DAY_SECONDS) {
    const hours = Math.floor(seconds / 3_600);
    const minutes = Math.round((seconds - hours * 3_600) / 60);
    return minutes === 0 || minutes === 60 ? `${Math.round(seconds / 3_600)} h` : `${hours} h ${minutes} min`;
  }
  const days = trim((seconds / DAY_SECONDS).toFixed(1));
  return `${days} ${days === "1" ? "day" : "days"}`;
}

function trim(text) {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** Downtime per day allowed by `nines` nines: 4 → 8.64 s. */
export function budgetPerDaySeconds(nines) {
  return DAY_SECONDS * 10 ** -nines;
}
