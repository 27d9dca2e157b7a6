// Deterministic option order for quiz questions.
//
// The renderer lists the correct options first, so the page must reorder
// them. The order is seeded by the question's id and the round (how many
// times the quiz was retried): the same learner sees the same order after a
// reload, the build can pre-render it, no answer position gives the answer
// away, and a retry shows the options in a new order.

/** FNV-1a, 32 bits: a small, stable string hash. */
export function hashString(text) {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  }
  return hash;
}

/** mulberry32: a tiny seeded generator of floats in [0, 1). */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates on a copy, driven by `random`. */
export function shuffled(items, random) {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/**
 * The order in which to show a multiple-choice question's options, as
 * indexes into `question.options`. Honours mdbook-quiz's `sort_answers`
 * (alphabetical) and `answer_index` (the single correct option at that
 * position, the distractors shuffled around it). `round` > 0 reshuffles.
 */
export function optionOrder(question, round = 0) {
  const base = question.id ?? question.prompt_html ?? "";
  // Round 0 keeps the order a first visit has always had; each later round (a retry) has its own.
  const seedText = round === 0 ? base : `${base}\u0000round ${round}`;
  const indexes = question.options.map((_, index) => index);
  if (question.sort_answers) {
    return indexes.sort((a, b) => question.options[a].html.localeCompare(question.options[b].html));
  }
  const random = seededRandom(hashString(seedText));
  const answerIndex = question.answer_index;
  if (Number.isInteger(answerIndex) && !question.multiple) {
    const correct = indexes.filter((index) => question.options[index].correct);
    const others = shuffled(indexes.filter((index) => !question.options[index].correct), random);
    if (correct.length === 1 && answerIndex >= 0 && answerIndex <= others.length) {
      others.splice(answerIndex, 0, correct[0]);
      return others;
    }
  }
  return shuffled(indexes, random);
}
