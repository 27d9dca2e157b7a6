// `--shard I/N`: n machines grade disjoint parts of one class.
//
// Every machine is given the same inputs (the same folder of submissions and
// the same glob) and keeps only its part, so the split must depend on the
// class alone: not on the order the shell listed the inputs in, the machine's
// locale, or which machine runs which shard. It is made from the submissions'
// names (report-names.js: unique within a run) sorted by code point, cut into
// N contiguous blocks whose sizes differ by at most one.
//
// Contiguous blocks rather than round-robin or a hash of the name: each shard
// grades its block in name order, so the shards' CSVs, concatenated in shard
// order, are the whole class in name order, exactly the CSV of `--shard 1/1`.
// A hash would keep a submission on its machine when the class changes, but
// grading runs on a fixed snapshot of the class, and a hash balances badly on
// a small one.

/** The most parts a class can be split into: a bound, like every other input's. */
export const SHARDS_MAX = 10_000;

/**
 * Reads `I/N` (this machine grades part I of N). Returns `{ index, count }`,
 * or throws `makeError(message)` with a message that says what to write.
 */
export function parseShard(text, makeError = (message) => new Error(message)) {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text ?? "");
  if (!match) {
    throw makeError(`--shard needs I/N, this machine's part and how many parts, both whole numbers (2/5 grades the second of five parts); got ${text === undefined ? "nothing" : `"${text}"`}`);
  }
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1 || count > SHARDS_MAX) throw makeError(`--shard ${text}: the number of parts must be from 1 to ${SHARDS_MAX}`);
  if (index < 1 || index > count) throw makeError(`--shard ${text}: the part must be from 1 to ${count} (parts are numbered from 1)`);
  return { index, count };
}

/**
 * The named submissions (`[{ name, … }]`, names unique) that shard
 * `{ index, count }` grades, in name order. Over index = 1…count the parts
 * are disjoint, cover every submission, and concatenate to the whole class
 * in name order.
 */
export function shardOf(named, { index, count }) {
  const sorted = [...named].sort((a, b) => byCodePoint(a.name, b.name));
  const start = Math.floor(((index - 1) * sorted.length) / count);
  const end = Math.floor((index * sorted.length) / count);
  return sorted.slice(start, end);
}

/**
 * Orders two strings by code point. JavaScript's `<` compares UTF-16 code
 * units, which puts U+E000–U+FFFF (full-width letters, say) after every
 * character beyond U+FFFF (emoji), whose units are surrogates (U+D800–U+DFFF);
 * code-point order is the one other tools (and other languages) agree on.
 */
export function byCodePoint(a, b) {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A code unit's place in code-point order: surrogates (the planes beyond U+FFFF) after U+E000–U+FFFF. */
function codePointRank(unit) {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
