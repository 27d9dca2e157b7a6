// The fencing race's timeline, drawn from a run's story up to the cursor:
// one lane for each leader, the worker, the store and the data (for the
// atomic worker the data lives in the store, and its lane says so), the
// whole run from left to right.
//
// On a leader's lane: a bar in its colour while it leads, a tick at each
// local check, hatching while it is paused. On the store's lane: the lease,
// a bar in the holder's colour from the write that took it to its expiry
// (a circle), a notch at every renewal. A request is a line from its leader
// to the worker (dashed where the network held it up), then the worker's
// read, transaction or write; where it ended, a mark with its name: a dot
// where it was applied, a triangle where it was applied late, a diamond
// where it was a double apply, a cross where it was turned away. Shapes,
// not only colours, tell them apart.
//
// Pure: returns SVG markup (numbers, fixed words and request names only),
// so it is tested in Node and the shell sets it in one go.

const TOP_PX = 22;
const LANE_PX = 40;
const BOTTOM_PX = 8;
const RIGHT_PX = 14;

/**
 * The lanes, top to bottom, for a story. For the atomic worker the data
 * lives in the store: its transaction goes to the store's lane, and its
 * effect shows on the data's lane at the same moment, joined by a dotted line.
 */
export function lanesFor(story) {
  const atomic = story.request.worker === "atomic";
  return [
    { id: "A", label: "leader A" },
    { id: "B", label: "leader B" },
    { id: "worker", label: "worker" },
    { id: "store", label: "store" },
    { id: "data", label: atomic ? "data (store)" : "data" },
  ];
}

/** Where each request ended: the lane of its mark. */
function markLane(request) {
  return request.outcome === "rejected" ? "worker" : "data";
}

/**
 * The timeline at `atMs` as an <svg> string, `widthPx` wide. `id` makes
 * the pattern's id unique on the page.
 */
export function timelineSvg(story, atMs, { widthPx = 720, id = "fencing" } = {}) {
  const narrow = widthPx < 560;
  const leftPx = narrow ? 58 : 84;
  const lanes = lanesFor(story);
  const heightPx = TOP_PX + lanes.length * LANE_PX + BOTTOM_PX;
  const plotPx = widthPx - leftPx - RIGHT_PX;
  const x = (ms) => round(leftPx + (Math.min(Math.max(ms, 0), story.untilMs) * plotPx) / story.untilMs);
  const laneIndex = Object.fromEntries(lanes.map((lane, index) => [lane.id, index]));
  const y = (lane) => TOP_PX + laneIndex[lane] * LANE_PX + LANE_PX / 2;
  const upTo = (ms) => Math.min(ms ?? atMs, atMs);
  const parts = [];

  parts.push(
    `<defs><pattern id="${id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" class="fr-hatch-line"/></pattern></defs>`,
  );

  // The time axis.
  const tickMs = narrow ? 2_000 : 1_000;
  for (let tick = 0; tick <= story.untilMs; tick += tickMs) {
    parts.push(`<line x1="${x(tick)}" y1="${TOP_PX - 4}" x2="${x(tick)}" y2="${heightPx - BOTTOM_PX}" class="fr-grid"/>`);
    parts.push(`<text x="${x(tick)}" y="12" text-anchor="middle" class="fr-tick">${tick / 1000} s</text>`);
  }

  // Lanes and their names.
  for (const lane of lanes) {
    parts.push(`<line x1="${leftPx}" y1="${y(lane.id)}" x2="${widthPx - RIGHT_PX}" y2="${y(lane.id)}" class="fr-lane is-${lane.id}"/>`);
    const words = narrow && lane.id === "data" ? "data" : lane.label;
    parts.push(`<text x="4" y="${y(lane.id) + 4}" class="fr-lane-label">${words}</text>`);
  }

  // Each leader's account: leading (a bar), paused (hatching), checks (ticks).
  for (const span of story.leading) {
    if (span.fromMs > atMs) continue;
    const from = x(span.fromMs);
    parts.push(`<rect x="${from}" y="${y(span.leader) - 5}" width="${Math.max(1, x(upTo(span.toMs)) - from)}" height="10" rx="2" class="fr-leading leader-${span.leader}"/>`);
  }
  for (const span of story.pauses) {
    if (span.fromMs > atMs) continue;
    const from = x(span.fromMs);
    parts.push(`<rect x="${from}" y="${y(span.leader) - 13}" width="${Math.max(2, x(upTo(span.toMs)) - from)}" height="26" fill="url(#${id}-hatch)" class="fr-paused"/>`);
  }
  for (const check of story.checks) {
    if (check.atMs > atMs) continue;
    parts.push(`<line x1="${x(check.atMs)}" y1="${y(check.leader) - 11}" x2="${x(check.atMs)}" y2="${y(check.leader) + 11}" class="fr-check"/>`);
  }

  // The lease in the store.
  for (const hold of story.holds) {
    if (hold.fromMs > atMs) continue;
    const from = x(hold.fromMs);
    const width = Math.max(1, x(upTo(hold.toMs)) - from);
    const storeY = y("store");
    parts.push(`<rect x="${from}" y="${storeY - 9}" width="${width}" height="18" rx="3" class="fr-hold leader-${hold.leader}"/>`);
    for (const write of hold.writes.slice(1)) {
      if (write.atMs > atMs) continue;
      parts.push(`<line x1="${x(write.atMs)}" y1="${storeY - 9}" x2="${x(write.atMs)}" y2="${storeY + 9}" class="fr-renewal"/>`);
    }
    if (width > 46) parts.push(`<text x="${from + 5}" y="${storeY + 4}" class="fr-hold-label">${hold.leader} v${hold.writes[0].version}</text>`);
    if (hold.toMs !== null && hold.toMs <= atMs) parts.push(`<circle cx="${x(hold.toMs)}" cy="${storeY}" r="5" class="fr-expiry"/>`);
  }

  // The leaders' own store calls (acquire, renew), faintly.
  for (const call of story.calls) {
    if (call.caller === "worker" || call.sentMs > atMs || call.appliedMs === null) continue;
    const from = y(call.caller);
    parts.push(segment(x(call.sentMs), from, call.appliedMs, y("store"), atMs, call.sentMs, x, `fr-call${call.ok ? "" : " is-refused"}`));
    if (call.answeredMs !== null && call.appliedMs <= atMs) parts.push(segment(x(call.appliedMs), y("store"), call.answeredMs, from, atMs, call.appliedMs, x, `fr-call${call.ok ? "" : " is-refused"}`));
  }

  // Requests: to the worker, then the worker's read, transaction or write, then the mark.
  const marks = [];
  for (const request of story.requests) {
    if (request.sentMs > atMs) continue;
    const arrivedMs = request.arrivedMs ?? story.untilMs;
    parts.push(segment(x(request.sentMs), y(request.leader), arrivedMs, y("worker"), atMs, request.sentMs, x, `fr-request leader-${request.leader}${request.delayMs > 0 ? " is-delayed" : ""}`));
    if (request.readMs !== null && request.arrivedMs <= atMs) {
      parts.push(segment(x(request.arrivedMs), y("worker"), request.readMs, y("store"), atMs, request.arrivedMs, x, "fr-worker-call"));
      const answeredMs = request.readMs + story.latencyMs;
      if (request.readMs <= atMs) parts.push(segment(x(request.readMs), y("store"), answeredMs, y("worker"), atMs, request.readMs, x, "fr-worker-call"));
    }
    const atomic = story.request.worker === "atomic";
    if (request.writeSentMs !== null && request.writeSentMs <= atMs) {
      const landsMs = request.decidedMs ?? story.untilMs;
      parts.push(segment(x(request.writeSentMs), y("worker"), landsMs, y(atomic ? "store" : "data"), atMs, request.writeSentMs, x, `fr-write${request.writeDelayMs > 0 ? " is-delayed" : ""}`));
    }
    if (request.decidedMs !== null && request.decidedMs <= atMs) {
      // One transaction: the compare in the store and the write of the data, at one moment.
      if (atomic) parts.push(`<line x1="${x(request.decidedMs)}" y1="${y("store") + 9}" x2="${x(request.decidedMs)}" y2="${y("data") - 8}" class="fr-txn-link"/>`);
      marks.push({ cx: x(request.decidedMs), cy: y(markLane(request)), request });
    }
  }
  parts.push(...placeMarks(marks, narrow));

  // The cursor.
  if (atMs < story.untilMs) parts.push(`<line x1="${x(atMs)}" y1="${TOP_PX - 6}" x2="${x(atMs)}" y2="${heightPx - BOTTOM_PX}" class="fr-now"/>`);

  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${widthPx} ${heightPx}" width="${widthPx}" height="${heightPx}" class="fr-svg" aria-hidden="true" focusable="false">${parts.join("")}</svg>`;
}

/**
 * The lanes' names alone, as wide as the timeline's name column: laid over
 * the timeline's left edge when the drawing scrolls sideways, so the names
 * stay in view.
 */
export function laneLabelsSvg(story, { widthPx = 720 } = {}) {
  const leftPx = widthPx < 560 ? 58 : 84;
  const lanes = lanesFor(story);
  const heightPx = TOP_PX + lanes.length * LANE_PX + BOTTOM_PX;
  const labels = lanes.map((lane, index) => `<text x="4" y="${TOP_PX + index * LANE_PX + LANE_PX / 2 + 4}" class="fr-lane-label">${widthPx < 560 && lane.id === "data" ? "data" : lane.label}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${leftPx} ${heightPx}" width="${leftPx}" height="${heightPx}" class="fr-labels-svg" aria-hidden="true" focusable="false"><rect x="0" y="0" width="${leftPx}" height="${heightPx}" class="fr-labels-bg"/>${labels.join("")}</svg>`;
}

/** A line from (x1, y1) at `fromMs` towards (toMs, y2), cut at the cursor. */
function segment(x1, y1, toMs, y2, atMs, fromMs, x, className) {
  const endMs = Math.min(toMs, atMs);
  const fraction = toMs === fromMs ? 1 : (endMs - fromMs) / (toMs - fromMs);
  const x2 = x(endMs);
  const yEnd = round(y1 + (y2 - y1) * Math.max(0, Math.min(1, fraction)));
  return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${yEnd}" class="${className}"/>`;
}

/** How wide a mark's name is drawn, roughly: its characters at the label's size, and a gap. */
const labelWidthPx = (text) => text.length * 8 + 6;

/**
 * The marks, each with its name where no other name is: above the mark,
 * else below it, else higher above. Two requests decided a moment apart on
 * one lane (B4 just after A3) otherwise print their names over each other.
 */
function placeMarks(marks, narrow) {
  /** Per lane and place, the right edge of the last name put there. */
  const taken = new Map();
  const OFFSETS_PX = [-10, 20, -24];
  return [...marks]
    .sort((a, b) => a.cx - b.cx)
    .map(({ cx, cy, request }) => {
      const half = labelWidthPx(request.id) / 2;
      const offset = OFFSETS_PX.find((dy) => (taken.get(`${cy}:${dy}`) ?? -Infinity) <= cx - half) ?? OFFSETS_PX[0];
      taken.set(`${cy}:${offset}`, cx + half);
      return mark(cx, cy, request, narrow, offset);
    });
}

/** Where a request ended: its shape says how, its name (`labelDy` above or below it) says which. */
function mark(cx, cy, request, narrow, labelDy = -10) {
  const outcome = request.outcome;
  let shape;
  if (outcome === "applied") {
    shape = `<circle cx="${cx}" cy="${cy}" r="5" class="fr-mark is-applied leader-${request.leader}"/>`;
  } else if (outcome === "late") {
    shape = `<path d="M${cx},${cy - 7} L${cx + 7},${cy + 5} L${cx - 7},${cy + 5} Z" class="fr-mark is-late"/>`;
  } else if (outcome === "double") {
    shape = `<path d="M${cx},${cy - 8} L${cx + 8},${cy} L${cx},${cy + 8} L${cx - 8},${cy} Z" class="fr-mark is-double"/>`;
  } else {
    shape = `<path d="M${cx - 6},${cy - 6} L${cx + 6},${cy + 6} M${cx + 6},${cy - 6} L${cx - 6},${cy + 6}" class="fr-mark is-refused"/>`;
  }
  // On a narrow screen only the requests that did not simply apply are named.
  const label = narrow && outcome === "applied" ? "" : `<text x="${cx}" y="${cy + labelDy}" text-anchor="middle" class="fr-mark-label${outcome === "applied" ? "" : " is-notable"}">${request.id}</text>`;
  return `<g class="fr-outcome" data-request="${request.id}" data-outcome="${outcome}">${shape}${label}</g>`;
}

const round = (value) => Math.round(value * 10) / 10;
