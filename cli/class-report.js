// The class report (`--report class.html` or `class.json`): what course
// staff read after grading a class, in one file that needs nothing else.
//
// - Each exercise's score distribution, drawn as a histogram (how a class
//   did reads at a glance from bars, not from 200 rows), with its median,
//   full marks, zeros and missing files.
// - The rules the class broke most, each with how many learners broke it
//   and who, and one example: that learner's failing test, its story (the
//   counterexample's timeline) and its replay token, which
//   `leaselab replay TOKEN FILE` turns back into the same run.
// - Every learner's scores, in a table.
//
// The example for a rule is the one of the learner first in name order, so
// the report depends on the class alone, not on which thread finished
// first. While the class is graded, `offer` sees each file's full report
// and keeps only the stories it may show, so memory does not grow with the
// class; the counts come from the scores-only reports at the end.
import { registry } from "./registry.js";
import { byCodePoint } from "./shard.js";
import { hundredths, ruleOf, storyOf, totals } from "./formats/common.js";
import { visible, visibleLines, wellFormedJson } from "./formats/escape.js";

/** The most learners a rule lists by name in the page (all are in the JSON). */
const LEARNERS_SHOWN_MAX = 40;
/** The most histogram bars an exercise gets; with more points than this, bars span several. */
const BARS_MAX = 20;

/** What the report says about a failure that broke no rule of the grader's table. */
const PSEUDO_RULES = {
  "missing-file": "The submission holds the exercise's file (under its exact name).",
  "not-graded": "The file is a readable source that loads, exports its functions and finishes grading in time.",
};

export class ClassReport {
  #examples = new Map();
  #settings;

  /** `settings`: `{ firstSeed, seeds, points }`, as the class was graded. */
  constructor(settings) {
    this.#settings = settings;
  }

  /** A file's full report as it is graded: keeps the story of each rule it breaks if this learner comes first by name. */
  offer(learner, exercise, path, report) {
    for (const test of report.tests) {
      const rule = ruleOf(test);
      if (rule === null || !test.counterexample) continue;
      const key = `${exercise}\u0000${rule}`;
      const kept = this.#examples.get(key);
      if (kept && byCodePoint(kept.learner, learner) <= 0) continue;
      this.#examples.set(key, { learner, path, test: test.name, message: test.message, story: storyOf(test), replayToken: test.counterexample.replayToken });
    }
  }

  /** The report's data, from every submission's graded results (scores-only reports will do). */
  data(graded) {
    const names = registry.names;
    const learners = [...graded].sort((a, b) => byCodePoint(a.name, b.name));
    const submissions = learners.map((one) => {
      const scores = {};
      const missing = [];
      for (const name of names) {
        const result = one.results.find((candidate) => candidate.exercise === name);
        scores[name] = result ? result.report.score : null;
        if (result?.missing) missing.push(name);
      }
      const { score, maxScore } = totals(one);
      return { name: one.name, scores, total: score, maxScore, missing };
    });

    const rules = new Map();
    const hit = (exercise, rule, learner, example) => {
      const key = `${exercise}\u0000${rule}`;
      if (!rules.has(key)) rules.set(key, { exercise, rule, learners: new Set(), failures: 0, example: null });
      const entry = rules.get(key);
      entry.learners.add(learner);
      entry.failures += 1;
      if (example && (!entry.example || byCodePoint(entry.example.learner, learner) > 0)) entry.example = example;
    };
    for (const one of learners) {
      for (const { exercise, path, missing = false, report } of one.results) {
        if (report.problems.length > 0) {
          const message = report.problems.join("\n");
          hit(exercise, ruleOf(null, { missing }), one.name, { learner: one.name, path, test: null, message, story: message, replayToken: null });
          continue;
        }
        for (const test of report.tests) {
          const rule = ruleOf(test);
          if (rule !== null) hit(exercise, rule, one.name, null);
        }
      }
    }
    const statements = new Map(registry.exercises.flatMap((exercise) => exercise.rules.map((rule) => [`${exercise.name}\u0000${rule.id}`, rule.statement])));
    const ruleList = [...rules.values()]
      .map((entry) => {
        const key = `${entry.exercise}\u0000${entry.rule}`;
        return {
          exercise: entry.exercise,
          rule: entry.rule,
          statement: statements.get(key) ?? PSEUDO_RULES[entry.rule] ?? null,
          learnerCount: entry.learners.size,
          failures: entry.failures,
          learners: [...entry.learners].sort(byCodePoint),
          example: entry.example ?? this.#examples.get(key) ?? null,
        };
      })
      .sort((a, b) => b.learnerCount - a.learnerCount || names.indexOf(a.exercise) - names.indexOf(b.exercise) || byCodePoint(a.rule, b.rule));

    const exercises = registry.exercises.map((exercise) => {
      const results = learners.map((one) => one.results.find((candidate) => candidate.exercise === exercise.name)).filter(Boolean);
      const maxScore = results[0]?.report.maxScore ?? this.#settings.points?.[exercise.name] ?? exercise.maxScore;
      const scores = results.filter((result) => !result.missing).map((result) => result.report.score);
      return {
        name: exercise.name,
        file: exercise.file,
        maxScore,
        graded: scores.length,
        missing: results.filter((result) => result.missing).length,
        fullMarks: scores.filter((score) => score >= maxScore).length,
        zero: scores.filter((score) => score === 0).length,
        median: median(scores),
        mean: scores.length > 0 ? hundredths(scores.reduce((sum, score) => sum + score, 0) / scores.length) : null,
        histogram: histogram(scores, maxScore),
      };
    });
    const maxTotal = submissions[0]?.maxScore ?? 0;
    const totalsOnly = submissions.map((one) => one.total);
    return {
      format: "leaselab-class-report",
      version: 1,
      graderVersion: registry.graderVersion,
      firstSeed: this.#settings.firstSeed,
      seeds: this.#settings.seeds,
      points: this.#settings.points ?? null,
      learners: submissions.length,
      total: { maxScore: maxTotal, median: median(totalsOnly), fullMarks: totalsOnly.filter((score) => score >= maxTotal).length, histogram: histogram(totalsOnly, maxTotal) },
      exercises,
      rules: ruleList,
      submissions,
    };
  }
}

function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return hundredths(sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2);
}

/**
 * `[{ from, to, count }]`: one bar per point from 0 to `maxScore` when it
 * is at most BARS_MAX, else BARS_MAX bars of equal width; `to` is
 * inclusive for the last bar, exclusive for the others.
 */
function histogram(scores, maxScore) {
  const perPoint = Number.isInteger(maxScore) && maxScore + 1 <= BARS_MAX;
  const bars = perPoint ? maxScore + 1 : BARS_MAX;
  const width = perPoint ? 1 : maxScore / BARS_MAX;
  const counts = Array.from({ length: bars }, (_, index) => ({ from: hundredths(index * width), to: perPoint ? index : hundredths((index + 1) * width), count: 0 }));
  for (const score of scores) {
    const index = perPoint ? Math.floor(score) : Math.min(bars - 1, Math.floor(score / width));
    counts[Math.max(0, index)].count += 1;
  }
  return counts;
}

/** The report as JSON. */
export function classReportJson(data) {
  return `${wellFormedJson(data)}\n`;
}

// ---- the page ---------------------------------------------------------------

/** Text for HTML content or a double-quoted attribute, control characters shown as escapes. */
function html(text) {
  return visible(String(text)).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Multi-line learner text (a story) for a <pre>. */
function preText(text) {
  return visibleLines(text).map((line) => line.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")).join("\n");
}

const percent = (part, whole) => (whole === 0 ? "0%" : `${Math.round((100 * part) / whole)}%`);

/** An SVG histogram: one bar per bucket, its count above it, the scores below; a <title> per bar for screen readers and tooltips. */
function histogramSvg(bars, { label, width = 440, height = 150 }) {
  const top = 16;
  const bottom = 22;
  const plot = height - top - bottom;
  const most = Math.max(1, ...bars.map((bar) => bar.count));
  const step = width / bars.length;
  const barWidth = Math.max(2, step - 3);
  const rects = bars
    .map((bar, index) => {
      const x = index * step + 1.5;
      const h = (bar.count / most) * plot;
      const y = top + plot - h;
      const range = bar.from === bar.to ? `${bar.from}` : `${bar.from}–${bar.to}`;
      const labelEvery = Math.ceil(bars.length / 10);
      const tick = index % labelEvery === 0 || index === bars.length - 1 ? `<text x="${x + barWidth / 2}" y="${height - 6}" class="tick">${html(bar.from)}</text>` : "";
      const count = bar.count > 0 ? `<text x="${x + barWidth / 2}" y="${y - 3}" class="count">${bar.count}</text>` : "";
      return `<g><title>${html(`${range} points: ${bar.count}`)}</title><rect x="${x}" y="${y}" width="${barWidth}" height="${Math.max(h, bar.count > 0 ? 1 : 0)}"></rect>${count}${tick}</g>`;
    })
    .join("");
  return `<svg class="histogram" role="img" aria-label="${html(label)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><line x1="0" y1="${top + plot}" x2="${width}" y2="${top + plot}" class="axis"></line>${rects}</svg>`;
}

/** The report as one HTML page: inline style, inline SVG, no script and nothing fetched. */
export function classReportHtml(data) {
  const settings = `grader ${html(data.graderVersion)}, ${data.seeds} random schedules per exercise from seed ${data.firstSeed}${data.points ? `, points ${html(Object.entries(data.points).map(([name, points]) => `${name}=${points}`).join(", "))}` : ""}`;
  const exerciseCards = data.exercises
    .map(
      (exercise) => `<section class="card" aria-labelledby="ex-${html(exercise.name)}">
<h3 id="ex-${html(exercise.name)}">${html(exercise.name)} <span class="file">${html(exercise.file)}</span></h3>
${histogramSvg(exercise.histogram, { label: `${exercise.name}: how many learners scored each number of points, out of ${exercise.maxScore}` })}
<p class="facts">out of ${exercise.maxScore}: median ${exercise.median ?? "–"}, full marks ${exercise.fullMarks} of ${exercise.graded}, zero ${exercise.zero}${exercise.missing > 0 ? `, <strong>file missing ${exercise.missing}</strong>` : ""}</p>
</section>`,
    )
    .join("\n");
  const ruleRows = data.rules
    .map((rule, index) => {
      const shown = rule.learners.slice(0, LEARNERS_SHOWN_MAX);
      const more = rule.learners.length - shown.length;
      const example = rule.example;
      const exampleBlock = example
        ? `<details><summary>Example: ${html(example.learner)}${example.test ? `, “${html(example.test)}”` : ""}</summary>
<pre class="story">${preText(example.story)}</pre>
${example.replayToken ? `<p class="token">Replay: <code>leaselab replay ${html(example.replayToken)} ${html(example.path)}</code></p>` : ""}
</details>`
        : "";
      return `<tr id="rule-${index + 1}">
<td class="num">${rule.learnerCount}<span class="share"> (${percent(rule.learnerCount, data.learners)})</span></td>
<td>${html(rule.exercise)}</td>
<td><code>${html(rule.rule)}</code>${rule.statement ? `<div class="statement">${html(rule.statement)}</div>` : ""}${exampleBlock}</td>
<td class="learners">${shown.map(html).join(", ")}${more > 0 ? ` and ${more} more (all in the JSON report)` : ""}</td>
</tr>`;
    })
    .join("\n");
  const names = data.exercises.map((exercise) => exercise.name);
  const learnerRows = data.submissions
    .map((one) => {
      const cells = names.map((name) => `<td class="num${one.missing.includes(name) ? " missing" : ""}">${one.scores[name] === null ? "–" : one.missing.includes(name) ? `0 <span class="note">missing</span>` : one.scores[name]}</td>`).join("");
      return `<tr><th scope="row">${html(one.name)}</th>${cells}<td class="num total">${one.total}/${one.maxScore}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>leaselab class report: ${data.learners} submissions</title>
<style>
:root { color-scheme: light dark; --bar: #3b6fb6; --muted: #595959; --line: #ccc; --text: #111; --page: #fff; }
@media (prefers-color-scheme: dark) { :root { --bar: #7aa7e8; --muted: #b0b0b0; --line: #555; --text: #eee; --page: #121212; } }
body { color: var(--text); background: var(--page); font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } .settings { color: var(--muted); margin-top: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .8rem; }
.card h3 { margin: .2rem 0; font-size: 1.05rem; } .file { color: var(--muted); font-weight: normal; font-size: .9rem; }
.histogram { max-width: 100%; height: auto; } .histogram rect { fill: var(--bar); } .histogram .axis { stroke: var(--line); }
.histogram text { font-size: 10px; text-anchor: middle; fill: currentColor; } .histogram .tick { fill: var(--muted); }
.facts { margin: .2rem 0; font-size: .9rem; }
table { border-collapse: collapse; width: 100%; } th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; } .share, .note { color: var(--muted); font-size: .85rem; }
.statement { font-size: .9rem; margin: .15rem 0; } .learners { font-size: .9rem; overflow-wrap: anywhere; }
table.rules { table-layout: fixed; } .rules th:nth-child(1) { width: 6.5rem; } .rules th:nth-child(2) { width: 6rem; } .rules th:nth-child(4) { width: 16rem; }
pre.story { font-size: 12px; overflow-x: auto; padding: .5rem; border: 1px solid var(--line); border-radius: 4px; }
.token code { overflow-wrap: anywhere; }
td.missing { color: #b00020; } @media (prefers-color-scheme: dark) { td.missing { color: #ff8a80; } }
details summary { cursor: pointer; margin-top: .3rem; }
</style>
</head>
<body>
<main>
<h1>leaselab class report</h1>
<p class="settings">${data.learners} submissions, graded by ${settings}.</p>
<h2>Scores</h2>
<section class="card" aria-labelledby="total">
<h3 id="total">Total <span class="file">out of ${data.total.maxScore}</span></h3>
${histogramSvg(data.total.histogram, { label: `Total: how many learners scored each number of points, out of ${data.total.maxScore}`, width: 900, height: 170 })}
<p class="facts">median ${data.total.median ?? "–"}, full marks ${data.total.fullMarks} of ${data.learners}</p>
</section>
<div class="cards">
${exerciseCards}
</div>
<h2>Rules broken most</h2>
${data.rules.length === 0 ? "<p>Every test of every submission passed.</p>" : `<p>Each rule with how many learners broke it at least once, an example story and its replay token (<code>leaselab replay TOKEN FILE</code> prints that run again on a learner's file).</p>
<table class="rules">
<thead><tr><th class="num">learners</th><th>exercise</th><th>rule</th><th>who</th></tr></thead>
<tbody>
${ruleRows}
</tbody>
</table>`}
<h2>Learners</h2>
<table class="learners-table">
<thead><tr><th>submission</th>${names.map((name) => `<th class="num">${html(name)}</th>`).join("")}<th class="num">total</th></tr></thead>
<tbody>
${learnerRows}
</tbody>
</table>
</main>
</body>
</html>
`;
}
