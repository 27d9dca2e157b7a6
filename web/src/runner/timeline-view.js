// Draws a timeline model (timeline-model.js) as SVG: one lane per process
// and one for the store, time left to right. Calls are arrows from the
// process to the store (when it applied them) and back (when the answer
// arrived); ownership is a bar on the holder's lane; pauses are hatched,
// crashes and expiries marked; the current step is a cursor, the violation
// is ringed in red.

const SVG = "http://www.w3.org/2000/svg";
const LANE_HEIGHT_PX = 44;
const LEFT_PX = 56;
const RIGHT_PX = 16;
const TOP_PX = 24;

function svg(tag, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

/** Renders `model` with `currentStep` highlighted into a new <svg>. */
export function renderTimeline(model, currentStep, widthPx = 720) {
  const heightPx = TOP_PX + model.lanes.length * LANE_HEIGHT_PX + 8;
  const root = svg("svg", { viewBox: `0 0 ${widthPx} ${heightPx}`, class: "timeline-svg", role: "img", "aria-label": "Timeline of the failing run; use the step buttons to walk through it" });
  const spanMs = Math.max(1, model.endMs);
  const x = (atMs) => LEFT_PX + ((widthPx - LEFT_PX - RIGHT_PX) * atMs) / spanMs;
  const laneY = (lane) => TOP_PX + model.lanes.indexOf(lane) * LANE_HEIGHT_PX + LANE_HEIGHT_PX / 2;

  const defs = svg("defs");
  const marker = svg("marker", { id: "timeline-arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L8,4 L0,8 z", class: "timeline-arrowhead" }));
  const hatch = svg("pattern", { id: "timeline-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  hatch.append(svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "timeline-hatch-line" }));
  defs.append(marker, hatch);
  root.append(defs);

  // Time axis: a few ticks.
  const ticks = 5;
  for (let tick = 0; tick <= ticks; tick += 1) {
    const atMs = Math.round((spanMs * tick) / ticks);
    // The first and last labels are anchored inside the drawing, so neither is cut off at its edge.
    const anchor = tick === 0 ? "start" : tick === ticks ? "end" : "middle";
    const at = tick === 0 ? LEFT_PX : tick === ticks ? widthPx - 2 : x(atMs);
    root.append(svg("text", { x: at, y: 12, class: "timeline-tick", "text-anchor": anchor }, `${atMs} ms`));
  }

  for (const lane of model.lanes) {
    const y = laneY(lane);
    root.append(svg("line", { x1: LEFT_PX, y1: y, x2: widthPx - RIGHT_PX, y2: y, class: lane === "store" ? "timeline-lane timeline-lane-store" : "timeline-lane" }));
    root.append(svg("text", { x: 8, y: y + 4, class: "timeline-lane-label" }, lane));
  }
  // Events the grader left out of a very long run: a band across every lane, so nothing drawn inside it looks complete.
  if (model.gap) {
    const band = svg("rect", { x: x(model.gap.fromMs), y: TOP_PX - 4, width: Math.max(4, x(model.gap.toMs) - x(model.gap.fromMs)), height: heightPx - TOP_PX, class: "timeline-gap" });
    band.append(svg("title", {}, `${model.gap.count} events not shown`));
    root.append(band);
  }
  for (const pause of model.pauses) {
    const y = laneY(pause.lane);
    root.append(svg("rect", { x: x(pause.fromMs), y: y - 12, width: Math.max(2, x(pause.toMs) - x(pause.fromMs)), height: 24, class: "timeline-pause" }, null));
  }
  for (const hold of model.holds) {
    const y = laneY(hold.lane);
    const bar = svg("rect", { x: x(hold.fromMs), y: y - 5, width: Math.max(2, x(hold.toMs) - x(hold.fromMs)), height: 10, rx: 3, class: "timeline-hold" });
    bar.append(svg("title", {}, hold.label));
    root.append(bar);
  }
  const storeY = laneY("store");
  for (const call of model.calls) {
    if (call.request.op === "sleep") continue;
    const y = laneY(call.lane);
    if (call.applyMs !== null) {
      root.append(svg("line", { x1: x(call.invokeMs), y1: y, x2: x(call.applyMs), y2: storeY - 4, class: "timeline-call", "marker-end": "url(#timeline-arrow)" }));
      if (call.completeMs !== null) {
        root.append(svg("line", { x1: x(call.applyMs), y1: storeY - 4, x2: x(call.completeMs), y2: y, class: "timeline-reply", "marker-end": "url(#timeline-arrow)" }));
      }
    }
  }
  for (const mark of model.marks) {
    const y = laneY(mark.lane);
    const cx = x(mark.atMs);
    const shape =
      mark.kind === "crash"
        ? svg("path", { d: `M${cx - 6},${y - 6} L${cx + 6},${y + 6} M${cx + 6},${y - 6} L${cx - 6},${y + 6}`, class: "timeline-crash" })
        : mark.kind === "work"
          ? svg("circle", { cx, cy: y, r: 2.5, class: "timeline-work" })
          : svg("circle", { cx, cy: y, r: 5, class: `timeline-mark timeline-${mark.kind}` });
    shape.append(svg("title", {}, mark.label));
    root.append(shape);
  }
  const violation = model.steps.find((step) => step.violation);
  if (violation) root.append(svg("circle", { cx: x(violation.atMs), cy: laneY(violation.lane), r: 10, class: "timeline-violation" }));
  const current = model.steps[currentStep];
  if (current) {
    root.append(svg("line", { x1: x(current.atMs), y1: TOP_PX - 6, x2: x(current.atMs), y2: heightPx - 4, class: "timeline-cursor" }));
    root.append(svg("circle", { cx: x(current.atMs), cy: laneY(current.lane), r: 6, class: "timeline-current" }));
  }
  return root;
}

/** What each mark on the timeline means, as a list beside it (the same classes, so the same colours). */
export function renderTimelineLegend() {
  const item = (shape, text) => {
    const li = document.createElement("li");
    const icon = svg("svg", { viewBox: "0 0 24 16", width: 24, height: 16, "aria-hidden": "true", class: "timeline-legend-icon" });
    icon.append(...shape());
    li.append(icon, ` ${text}`);
    return li;
  };
  const list = document.createElement("ul");
  list.className = "timeline-legend";
  list.setAttribute("aria-label", "Legend of the timeline");
  list.append(
    item(() => [svg("rect", { x: 2, y: 3, width: 20, height: 10, rx: 3, class: "timeline-hold" })], "holds the lock (as the store sees it)"),
    item(() => [svg("line", { x1: 2, y1: 8, x2: 22, y2: 8, class: "timeline-call" })], "a call reaches the store"),
    item(() => [svg("line", { x1: 2, y1: 8, x2: 22, y2: 8, class: "timeline-reply" })], "its reply comes back"),
    item(() => [svg("rect", { x: 2, y: 2, width: 20, height: 12, class: "timeline-pause" })], "paused"),
    item(() => [svg("path", { d: "M6,2 L18,14 M18,2 L6,14", class: "timeline-crash" })], "crashed"),
    item(() => [svg("circle", { cx: 12, cy: 8, r: 5, class: "timeline-mark timeline-expire" })], "a lease expires"),
    item(() => [svg("circle", { cx: 12, cy: 8, r: 6, class: "timeline-violation" })], "the rule breaks"),
    item(() => [svg("line", { x1: 12, y1: 0, x2: 12, y2: 16, class: "timeline-cursor" }), svg("circle", { cx: 12, cy: 8, r: 4, class: "timeline-current" })], "the step on show"),
  );
  return list;
}
