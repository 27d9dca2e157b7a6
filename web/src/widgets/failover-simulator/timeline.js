// The failover simulator's timeline, drawn from a run's story up to the
// clock's time: one lane per replica and one for the store, the last
// `windowMs` of time from left to right. On a replica's lane a thin line
// while it campaigns (follows), a thick bar in its colour while it leads,
// hatching while it is frozen, a cross where it crashed. On the store's
// lane, the lease: a bar in the holder's colour from the write that took it
// to its expiry, a notch at every renewal. Compare-and-swaps are arrows
// between a replica and the store (dashed when refused).
//
// Pure: returns SVG markup (numbers and fixed words only), so it is tested
// in Node and the shell sets it in one go.

const LEFT_PX = 84;
const RIGHT_PX = 14;
const TOP_PX = 22;
const LANE_PX = 38;
const BOTTOM_PX = 6;

/** How much time the timeline shows: less on a narrow screen, so it stays readable. */
export function windowMsFor(widthPx) {
  return widthPx < 560 ? 10_000 : 20_000;
}

/** The time range on screen at `atMs`: it fills from 0, then scrolls with the clock. */
export function visibleRange(atMs, windowMs) {
  const fromMs = Math.max(0, atMs - windowMs);
  return { fromMs, toMs: fromMs + windowMs };
}

/**
 * The timeline at `atMs` as an <svg> string, `widthPx` wide.
 * `id` makes the pattern's id unique on the page.
 */
export function timelineSvg(story, atMs, { widthPx = 720, id = "failover" } = {}) {
  const windowMs = windowMsFor(widthPx);
  const { fromMs, toMs } = visibleRange(atMs, windowMs);
  const lanes = story.replicas + 1;
  const heightPx = TOP_PX + lanes * LANE_PX + BOTTOM_PX;
  const plotPx = widthPx - LEFT_PX - RIGHT_PX;
  const x = (ms) => round(LEFT_PX + ((Math.min(Math.max(ms, fromMs), toMs) - fromMs) * plotPx) / windowMs);
  const laneY = (replica) => TOP_PX + (replica - 1) * LANE_PX + LANE_PX / 2;
  const storeY = laneY(lanes);
  // A span as the timeline sees it: clipped to what has happened and what is on screen.
  const clip = (span) => {
    const from = span.fromMs;
    const to = span.toMs === null || span.toMs > atMs ? atMs : span.toMs;
    return from > atMs || to < fromMs ? null : { from: Math.max(from, fromMs), to };
  };
  const parts = [];

  parts.push(
    `<defs><pattern id="${id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" class="failover-hatch-line"/></pattern></defs>`,
  );

  // The time axis.
  const tickMs = windowMs <= 10_000 ? 2_000 : 4_000;
  for (let tick = Math.ceil(fromMs / tickMs) * tickMs; tick <= toMs; tick += tickMs) {
    parts.push(`<line x1="${x(tick)}" y1="${TOP_PX - 4}" x2="${x(tick)}" y2="${heightPx - BOTTOM_PX}" class="failover-grid"/>`);
    parts.push(`<text x="${x(tick)}" y="12" text-anchor="middle" class="failover-tick">${tick / 1000} s</text>`);
  }

  // Lanes and their names.
  for (let lane = 1; lane <= lanes; lane += 1) {
    const y = laneY(lane);
    const isStore = lane === lanes;
    parts.push(`<line x1="${LEFT_PX}" y1="${y}" x2="${widthPx - RIGHT_PX}" y2="${y}" class="failover-lane${isStore ? " is-store" : ""}"/>`);
    parts.push(`<text x="6" y="${y + 4}" class="failover-lane-label">${isStore ? "store" : `replica ${lane}`}</text>`);
  }

  // Each replica's own account: following (thin), leading (thick).
  for (const span of story.roles) {
    const clipped = clip(span);
    if (!clipped) continue;
    const y = laneY(span.replica);
    if (span.role === "leading") {
      parts.push(`<rect x="${x(clipped.from)}" y="${y - 6}" width="${Math.max(1, x(clipped.to) - x(clipped.from))}" height="12" rx="2" class="failover-leading replica-${span.replica}"/>`);
    } else {
      parts.push(`<line x1="${x(clipped.from)}" y1="${y}" x2="${x(clipped.to)}" y2="${y}" class="failover-following"/>`);
    }
  }

  // Freezes: hatched over the lane.
  for (const span of story.pauses) {
    const clipped = clip(span);
    if (!clipped) continue;
    const y = laneY(span.replica);
    parts.push(`<rect x="${x(clipped.from)}" y="${y - 13}" width="${Math.max(2, x(clipped.to) - x(clipped.from))}" height="26" fill="url(#${id}-hatch)" class="failover-frozen"/>`);
  }

  // The lease in the store.
  for (const hold of story.holds) {
    const clipped = clip(hold);
    if (!clipped) continue;
    const left = x(clipped.from);
    const width = Math.max(1, x(clipped.to) - left);
    parts.push(`<rect x="${left}" y="${storeY - 10}" width="${width}" height="20" rx="3" class="failover-hold replica-${hold.replica}"/>`);
    for (const writeMs of hold.writesMs) {
      if (writeMs <= fromMs || writeMs > Math.min(atMs, toMs)) continue;
      parts.push(`<line x1="${x(writeMs)}" y1="${storeY - 10}" x2="${x(writeMs)}" y2="${storeY + 10}" class="failover-write"/>`);
    }
    if (width > 64) parts.push(`<text x="${left + 6}" y="${storeY + 4}" class="failover-hold-label">replica ${hold.replica}</text>`);
    if (hold.toMs !== null && hold.toMs <= atMs && hold.toMs >= fromMs) {
      parts.push(`<circle cx="${x(hold.toMs)}" cy="${storeY}" r="5" class="failover-expiry"/>`);
    }
  }

  // Compare-and-swaps, request and answer.
  for (const call of story.calls) {
    if (call.invokeMs > atMs || call.applyMs === null || call.applyMs > atMs) continue;
    const endMs = call.completeMs !== null && call.completeMs <= atMs ? call.completeMs : null;
    if ((endMs ?? call.applyMs) < fromMs) continue;
    const y = laneY(call.replica);
    const kind = call.ok ? "failover-call" : "failover-call is-refused";
    parts.push(`<line x1="${x(call.invokeMs)}" y1="${y}" x2="${x(call.applyMs)}" y2="${storeY - 10}" class="${kind}"/>`);
    if (endMs !== null) parts.push(`<line x1="${x(call.applyMs)}" y1="${storeY - 10}" x2="${x(endMs)}" y2="${y}" class="${kind}"/>`);
  }

  // Crashes.
  for (const event of story.events) {
    if (event.kind !== "crashed" || event.atMs > atMs || event.atMs < fromMs) continue;
    const cx = x(event.atMs);
    const y = laneY(event.replica);
    parts.push(`<path d="M${cx - 7},${y - 7} L${cx + 7},${y + 7} M${cx + 7},${y - 7} L${cx - 7},${y + 7}" class="failover-crash"/>`);
  }

  // Now.
  const nowX = x(atMs);
  parts.push(`<line x1="${nowX}" y1="${TOP_PX - 6}" x2="${nowX}" y2="${heightPx - BOTTOM_PX}" class="failover-now"/>`);

  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${widthPx} ${heightPx}" width="${widthPx}" height="${heightPx}" class="failover-svg" aria-hidden="true" focusable="false">${parts.join("")}</svg>`;
}

const round = (value) => Math.round(value * 10) / 10;
