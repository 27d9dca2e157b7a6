// A failing run's trace turned into what the timeline draws: lanes, calls
// as arrows between a process and the store, ownership as bars, pauses,
// crashes and clock jumps, the console, and the steps to walk through.
// Pure: no DOM, so it is tested in Node.

const quote = (value) => (value === null || value === undefined ? "null" : JSON.stringify(value));

/** `compareAndSwap("locks/bar", "p1", null, { ttlMs: 1000 })` */
export function describeCall(request) {
  switch (request.op) {
    case "get":
      return `get(${quote(request.key)})`;
    case "cas": {
      const options = [];
      if (request.version !== null && request.version !== undefined) options.push(`version: ${request.version}`);
      if (request.ttlMs !== null && request.ttlMs !== undefined) options.push(`ttlMs: ${request.ttlMs}`);
      return `compareAndSwap(${quote(request.key)}, ${quote(request.nextValue)}, ${quote(request.currentValue)}${options.length ? `, { ${options.join(", ")} }` : ""})`;
    }
    case "delete":
      return request.version === null || request.version === undefined ? `delete(${quote(request.key)})` : `delete(${quote(request.key)}, { version: ${request.version} })`;
    case "watch":
      return `watch(${quote(request.key)}, ${request.afterVersion})`;
    case "list":
      return `list(${quote(request.prefix)})`;
    case "sleep":
      return `sleep(${request.ms})`;
    default:
      return request.op;
  }
}

function describeRecord(record) {
  return record === null || record === undefined ? "null" : `{ value: ${quote(record.value)}, version: ${record.version}, keyVersion: ${record.keyVersion} }`;
}

export function describeReply(reply) {
  switch (reply.reply) {
    case "get":
      return describeRecord(reply.record);
    case "cas":
      return reply.ok ? `{ ok: true, version: ${reply.version} }` : `{ ok: false, current: ${describeRecord(reply.current)} }`;
    case "delete":
      return `{ ok: ${reply.ok} }`;
    case "watch":
      return `{ type: "${reply.event.type}", version: ${reply.event.version} }`;
    case "list":
      return `{ version: ${reply.version}, records: [${reply.records.map((record) => `${quote(record.key)} created ${record.createVersion}`).join(", ")}] }`;
    case "slept":
      return "woke up";
    case "refused":
      return `error: ${reply.message}`;
    default:
      return reply.reply;
  }
}

function describeNote(note) {
  switch (note.note) {
    case "calling":
      return `calls ${note.function}()`;
    case "acquired":
      return `now believes it holds the lock (version ${note.version})`;
    case "notAcquired":
      return "tryLock() returned null";
    case "released":
      return `unlock(version ${note.version}) returned ${note.ok}`;
    case "elected":
      return `leads: campaign() returned ${note.key} (version ${note.version})`;
    case "resigned":
      return `resign() returned ${note.ok}`;
    case "work":
      return "does one unit of leader work";
    case "stepped":
      return "lead() returned: no longer leading";
    case "handled":
      return `handleRequest(${note.requestId} from ${note.owner}@${note.version}) returned ${note.accepted}`;
    case "sent":
      return `sends request ${note.requestId} stamped ${note.owner}@${note.version}`;
    case "console":
      return `console: ${note.text}`;
    case "failed":
      return `failed: ${note.message}`;
    default:
      return note.note;
  }
}

/**
 * `{ lanes, endMs, calls, holds, pauses, marks, steps, console }` where
 * lanes are "p1"… then "store"; calls are `{ lane, invokeMs, applyMs,
 * completeMs, text, step }`; holds are ownership bars `{ lane, fromMs, toMs,
 * label }`; steps are `{ index, atMs, lane, text, localMs, violation }`.
 */
export function timelineModel(trace, violation, processes) {
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
    const lane = laneOf(event.process);
    const happening = event.happening;
    let text;
    switch (happening.what) {
      case "invoke": {
        calls.set(happening.call, { lane, invokeMs: event.atMs, applyMs: null, completeMs: null, text: describeCall(happening.request), request: happening.request, step: index });
        text = `calls ${describeCall(happening.request)}`;
        break;
      }
      case "apply": {
        const call = calls.get(happening.call);
        if (call) call.applyMs = event.atMs;
        const request = call?.request;
        text = `the store applies ${request ? describeCall(request) : "a call"}: ${describeReply(happening.result)} (revision ${happening.revision})`;
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
        text = `gets ${describeReply(happening.reply)}${call ? ` from ${call.text}` : ""}`;
        break;
      }
      case "lost":
        text = "never gets its reply: it crashed";
        break;
      case "expire":
        closeHold(happening.key, event.atMs);
        marks.push({ kind: "expire", lane: "store", atMs: event.atMs, label: `${happening.key} expired` });
        text = `${quote(happening.key)} expires (revision ${happening.revision})`;
        break;
      case "pauseStart": {
        const pause = { lane, fromMs: event.atMs, toMs: happening.untilMs };
        pauses.push(pause);
        openPause.set(lane, pause);
        text = `is paused (stop-the-world) until t=${happening.untilMs} ms`;
        break;
      }
      case "pauseEnd":
        openPause.delete(lane);
        text = "resumes after its pause";
        break;
      case "crash":
        marks.push({ kind: "crash", lane, atMs: event.atMs, label: `${lane} crashes` });
        text = "CRASHES and never runs again";
        break;
      case "clockJump":
        marks.push({ kind: "jump", lane, atMs: event.atMs, label: `${lane}'s clock jumps ${happening.forwardMs} ms` });
        text = `its clock jumps ${happening.forwardMs} ms forward`;
        break;
      case "note":
        text = describeNote(happening.note);
        if (happening.note.note === "console") consoleLines.push({ step: index, lane, atMs: event.atMs, text: happening.note.text });
        if (happening.note.note === "work") marks.push({ kind: "work", lane, atMs: event.atMs, label: `${lane} works` });
        break;
      case "finish":
        text = "is done";
        break;
      default:
        text = happening.what;
    }
    steps.push({ index, atMs: event.atMs, localMs: event.localMs ?? null, lane, text, violation: violation?.traceIndex === index });
  });
  for (const hold of holds) hold.toMs ??= endMs;
  return { lanes, endMs, calls: [...calls.values()], holds, pauses, marks, steps, console: consoleLines };
}
