// "Copy link": a URL that reopens exactly one failing run. It carries the
// exercise, the replay token and the code that failed (the run depends on
// both), in the page's fragment, so nothing is sent to any server.
//
// The fragment is `#replay=<exercise>~<token>~<source>`: the exercise is a
// plain name, the token is percent-encoded with `~` escaped too (a cas token
// is full of `~`, the mark for "expect absent"), and the source is base64url.
// None of the three can contain `~` once encoded, so any token and any
// source round-trip, and a link damaged on the way says what is wrong.

const PREFIX = "#replay=";
const SEPARATOR = "~";
const EXERCISE_NAME = /^[a-z][a-z0-9-]{0,63}$/;

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("the code part holds characters a link's code never has");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** `encodeURIComponent` leaves `~` alone; the fragment's separator must never appear inside a part. */
function encodePart(text) {
  return encodeURIComponent(text).replace(/~/g, "%7E");
}

/** The fragment for a run: `#replay=<exercise>~<token>~<source>`. */
export function replayFragment({ exercise, token, source }) {
  if (!EXERCISE_NAME.test(exercise)) throw new Error(`replayFragment: "${exercise}" is not an exercise name`);
  return `${PREFIX}${exercise}${SEPARATOR}${encodePart(token)}${SEPARATOR}${toBase64Url(source)}`;
}

/** Whether `hash` is meant as a replay link at all (it may still be damaged). */
export function isReplayFragment(hash) {
  return typeof hash === "string" && hash.startsWith(PREFIX);
}

/**
 * A replay fragment read back: `{ exercise, token, source }`; for a link
 * that is one but cannot be read, `{ exercise (or null), error }` with what
 * is wrong in a learner's words; null when `hash` is not a replay link.
 */
export function parseReplayFragment(hash) {
  if (!isReplayFragment(hash)) return null;
  const parts = hash.slice(PREFIX.length).split(SEPARATOR);
  const exercise = EXERCISE_NAME.test(parts[0] ?? "") ? parts[0] : null;
  if (parts.length !== 3 || exercise === null || parts[1] === "") {
    return { exercise, error: "the link is incomplete or was changed on the way (it should hold an exercise, a run and the code, separated by ~). Copy it again from the failing run." };
  }
  let token;
  try {
    token = decodeURIComponent(parts[1]);
  } catch {
    return { exercise, error: "the run in the link is damaged (bad percent-encoding). Copy the link again from the failing run." };
  }
  try {
    return { exercise, token, source: fromBase64Url(parts[2]) };
  } catch {
    return { exercise, error: "the code in the link is damaged (it is not base64url text). Copy the link again from the failing run." };
  }
}
