// "Copy link": a URL that reopens exactly one failing run. It carries the
// exercise, the replay token and the code that failed (the run depends on
// both), in the page's fragment, so nothing is sent to any server.

const PREFIX = "#replay=";

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** The fragment for a run: `#replay=<exercise>~<token>~<source>`. */
export function replayFragment({ exercise, token, source }) {
  return `${PREFIX}${exercise}~${encodeURIComponent(token)}~${toBase64Url(source)}`;
}

/** `{ exercise, token, source }` from a fragment, or null if it is not one (or is damaged). */
export function parseReplayFragment(hash) {
  if (!hash.startsWith(PREFIX)) return null;
  const [exercise, token, source] = hash.slice(PREFIX.length).split("~");
  if (!exercise || !token || source === undefined) return null;
  try {
    return { exercise, token: decodeURIComponent(token), source: fromBase64Url(source) };
  } catch {
    return null;
  }
}
