// A failing run's trace turned into what the timeline draws: lanes, calls
// as arrows between a process and the store, ownership as bars, pauses,
// crashes and clock jumps, the console, and the steps to walk through.
// Pure: no DOM, so it is tested in Node.
//
// The words are not made here: each event's sentence and each call's text
// come from the grader (`grader::timeline::event_words`, sent with every
// counterexample and by the wasm's `describeTrace`), so the page, the CLI's
// text timeline and lab mode say exactly the same thing. This file only lays
// them out.

/**
 * `{ lanes, endMs, calls, holds, pauses, marks, steps, console, gap }` where
 * lanes are "p1"… then "store"; calls are `{ lane, invokeMs, applyMs,
 * completeMs, text, step }`; holds are ownership bars `{ lane, fromMs, toMs,
 * label }`; steps are `{ index, atMs, lane, text, localMs, violation }`.
 * `words` is the grader's `[{ text, call? }]`, one per event of `trace`.
 * `omitted` is the counterexample's `{ after, count }` when the grader left
 * events out of a very long run (`grader::shown::shown_events`); `gap` is
 * then `{ afterStep, count, fromMs, toMs }`, the steps and times it falls
 * between, else null.
 */
export function timelineModel(trace, violation, processes, words, omitted = null) {
  if (!Array.isArray(words) || words.length < trace.length) throw new Error("timelineModel needs the grader's words for every event of the trace");
  const laneOf = (process) => (process === null || process === undefined ? "store" : `p${process + 1}`);
  const lanes = [...Array.from({ length: processes }, (_, index) => `p${index + 1}`), "store"];
  const calls = new Map();
  const holds = [];
  const openHold = new Map(); // key -> hold
  const pauses = [];
  const openPause = new Map();
  const marks = [];
  const steps = [];
  const consoleLines = [];
  const endMs = trace.length ? trace[trace.length - 1].atMs : 0;

  const closeHold = (key, atMs) => {
    const hold = openHold.get(key);
    if (hold) {
      hold.toMs = atMs;
      openHold.delete(key);
    }
  };

  trace.forEach((event, index) => {
    // Across events the grader left out, nobody is known to hold anything: a bar open before them ends where they begin.
    if (omitted && index === omitted.after && index > 0) {
      for (const key of [...openHold.keys()]) closeHold(key, trace[index - 1].atMs);
    }
    const lane = laneOf(event.process);
    const happening = event.happening;
    const { text, call: callText } = words[index];
    switch (happening.what) {
      case "invoke": {
        calls.set(happening.call, { lane, invokeMs: event.atMs, applyMs: null, completeMs: null, text: callText, request: happening.request, step: index });
        break;
      }
      case "apply": {
        const call = calls.get(happening.call);
        if (call) call.applyMs = event.atMs;
        const request = call?.request;
        if (request?.op === "cas" && happening.result.ok) {
          closeHold(request.key, event.atMs);
          const hold = { lane, key: request.key, fromMs: event.atMs, toMs: null, label: `${lane} holds ${request.key} (version ${happening.result.version})` };
          holds.push(hold);
          openHold.set(request.key, hold);
        }
        if (request?.op === "delete" && happening.result.ok) closeHold(request.key, event.atMs);
        break;
      }
      case "complete": {
        const call = calls.get(happening.call);
        if (call) call.completeMs = event.atMs;
        break;
      }
      case "lost":
        break;
      case "expire":
        closeHold(happening.key, event.atMs);
        marks.push({ kind: "expire", lane: "store", atMs: event.atMs, label: `${happening.key} expired` });
        break;
      case "pauseStart": {
        const pause = { lane, fromMs: event.atMs, toMs: happening.untilMs };
        pauses.push(pause);
        openPause.set(lane, pause);
        break;
      }
      case "pauseEnd":
        openPause.delete(lane);
        break;
      case "crash":
        marks.push({ kind: "crash", lane, atMs: event.atMs, label: `${lane} crashes` });
        break;
      case "clockJump":
        marks.push({ kind: "jump", lane, atMs: event.atMs, label: `${lane}'s clock jumps ${happening.forwardMs} ms` });
        break;
      case "note":
        if (happening.note.note === "console") consoleLines.push({ step: index, lane, atMs: event.atMs, text: happening.note.text });
        if (happening.note.note === "work") marks.push({ kind: "work", lane, atMs: event.atMs, label: `${lane} works` });
        break;
      default:
        break;
    }
    steps.push({ index, atMs: event.atMs, localMs: event.localMs ?? null, lane, text, violation: violation?.traceIndex === index });
  });
  for (const hold of holds) hold.toMs ??= endMs;
  const gap =
    omitted && omitted.after > 0 && omitted.after < trace.length
      ? { afterStep: omitted.after - 1, count: omitted.count, fromMs: trace[omitted.after - 1].atMs, toMs: trace[omitted.after].atMs }
      : null;
  return { lanes, endMs, calls: [...calls.values()], holds, pauses, marks, steps, console: consoleLines, gap };
}
