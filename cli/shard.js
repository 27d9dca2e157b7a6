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
  const sorted = [...named].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const start = Math.floor(((index - 1) * sorted.length) / count);
  const end = Math.floor((index * sorted.length) / count);
  return sorted.slice(start, end);
}
