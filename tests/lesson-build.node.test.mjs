// The build-time page: highlighting, diagram scoping, the whole page from the
// real lesson, the progress marks, and the .tar the export writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { highlight, highlightBlocks } from "../web/build/highlight.mjs";
import { scopeCss, scopeSvg, svgTitle } from "../web/build/svg.mjs";
import { renderPage, lessonData } from "../web/build/page.mjs";
import { progressCounts, renderProgressSummary, renderTocMarks } from "../web/src/lesson/progress-view.js";
import { openAnswers } from "../web/src/lesson/answer-key.js";
import { storageKey } from "../web/src/storage/progress.js";
import { emptyProgress, update } from "../web/src/storage/schema.js";
import { makeTar } from "../web/src/lesson/tar.js";
import { solutionFiles } from "../web/src/lesson/actions.js";
import { lessonJson } from "./support/lesson.mjs";

const lesson = lessonJson();

// ---- highlighting: input → marked-up output --------------------------------

const highlightCases = [
  ["js", "const x = 1; // one", '<span class="tok-kw">const</span> x = <span class="tok-num">1</span>; <span class="tok-com">// one</span>'],
  ["js", 'await store.get("k")', '<span class="tok-kw">await</span> store.<span class="tok-fn">get</span>(<span class="tok-str">&quot;k&quot;</span>)'],
  ["js", "if (a.ok) return null;", '<span class="tok-kw">if</span> (a.<span class="tok-prop">ok</span>) <span class="tok-kw">return</span> <span class="tok-lit">null</span>;'],
  ["js", "{ ...record }", "{ ...record }"],
  ["js", "x.delete(k)", 'x.<span class="tok-fn">delete</span>(k)'],
  ["js", "`a ${b}` < 2", '<span class="tok-str">`a ${b}`</span> &lt; <span class="tok-num">2</span>'],
  ["sh", "etcdctl put --lease=abc /k v # note", '<span class="tok-fn">etcdctl</span> put <span class="tok-attr">--lease=abc</span> /k v <span class="tok-com"># note</span>'],
  ["sh", "etcdctl txn <<'TXN'\nput a b\nTXN", '<span class="tok-fn">etcdctl</span> txn <span class="tok-kw">&lt;&lt;&#39;TXN&#39;</span>\n<span class="tok-str">put a b</span>\n<span class="tok-kw">TXN</span>'],
  ["text", "<b>", "&lt;b&gt;"],
];
for (const [language, source, expected] of highlightCases) {
  test(`highlight ${language}: ${JSON.stringify(source)}`, () => assert.equal(highlight(source, language), expected));
}

test("highlightBlocks decodes the renderer's escaping once and makes blocks keyboard-scrollable", () => {
  const html = highlightBlocks('<p>x</p><pre><code class="language-js">a &amp;&amp; b &lt; &quot;c&quot;\n</code></pre><pre><code>plain &lt;</code></pre>');
  assert.equal(html, '<p>x</p><pre class="code" tabindex="0" data-language="js"><code class="language-js">a &amp;&amp; b &lt; <span class="tok-str">&quot;c&quot;</span>\n</code></pre><pre class="code" tabindex="0"><code>plain &lt;</code></pre>');
});

// ---- diagrams ------------------------------------------------------------------

test("a diagram's own styles apply only inside it", () => {
  assert.equal(scopeCss(".a { x: 1 }\n.b, .c d { y: 2 }", "svg.s"), "svg.s .a { x: 1 }\nsvg.s .b, svg.s .c d { y: 2 }");
  const svg = scopeSvg('<svg viewBox="0 0 1 1" class="diagram"><title>T</title><style>.label { fill: red; }</style></svg>', "diagram-t");
  assert.match(svg, /^<svg viewBox="0 0 1 1" class="diagram diagram-t">/);
  assert.match(svg, /svg\.diagram-t \.label \{ fill: red; \}/);
  assert.equal(svgTitle(svg), "T");
  assert.throws(() => scopeSvg("<div></div>", "x"), /must start with <svg>/);
});

// ---- the whole page -----------------------------------------------------------------

test("the page from the real lesson: every embed rendered, ids unique, data safe inside <script>", () => {
  const html = renderPage(lesson);
  assert.doesNotMatch(html, /class="embed"/, "no directive is left unrendered");
  for (const section of lesson.sections) assert.match(html, new RegExp(`<section class="lesson-section" id="${section.id}"`));
  assert.equal((html.match(/<svg /g) ?? []).length, Object.keys(lesson.diagrams).length);
  assert.equal((html.match(/class="exercise-runner" data-exercise="/g) ?? []).length, Object.keys(lesson.exercises).length);
  assert.equal((html.match(/<div class="quiz" role="group"/g) ?? []).length, Object.keys(lesson.quizzes).length);
  assert.match(html, /data-widget="uptime-estimator"/);
  assert.match(html, /data-widget="cas-playground"/);
  assert.match(html, /data-widget="failover-simulator"/);
  assert.match(html, /data-widget="fencing-race"/);
  assert.match(html, /Loading the simulation…/);
  assert.doesNotMatch(html, /Coming soon/);
  const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]);
  const duplicates = ids.filter((id, index) => ids.indexOf(id) !== index);
  assert.deepEqual(duplicates, []);
  for (const [, target] of html.matchAll(/href="#([^"]+)"/g)) assert.ok(ids.includes(target), `link target #${target} exists`);
  const script = html.slice(html.indexOf('<script type="application/json" id="lesson-data">'));
  assert.doesNotMatch(script.slice(48, script.lastIndexOf("</script>")), /<\/?script|<!--/i);
  assert.deepEqual(JSON.parse(script.slice(script.indexOf(">") + 1, script.lastIndexOf("</script>"))), lessonData(lesson));
});

test("bad content gives a message that names the place, not a broken page", () => {
  const broken = structuredClone(lesson);
  broken.sections[1].html += '<div class="embed" data-kind="quiz" data-src="quizzes/missing.toml"></div>';
  assert.throws(() => renderPage(broken), /section 02-do-you-need-election\.md embeds the quiz "quizzes\/missing\.toml"/);
  broken.sections[1].html = '<div class="embed" data-kind="widget" data-src="teleporter"></div>';
  assert.throws(() => renderPage(broken), /widget "teleporter", which this page does not know; known widgets: cas-playground, failover-simulator, fencing-race, uptime-estimator/);
  assert.throws(() => renderPage({ ...lesson, format_version: 99 }), /format_version 99/);
});

test("progress marks count what the learner did", () => {
  // The page opens the sealed answers before it counts (main.js); so does this test.
  const data = { ...lessonData(lesson), quizzes: openAnswers(lessonData(lesson).quizzes) };
  let progress = emptyProgress();
  progress = update(progress, { type: "section-read", section: "06-locks", at: 1 });
  progress = update(progress, { type: "exercise-passed", exercise: "lock", at: 2 });
  progress = update(progress, { type: "quiz-saved", quiz: "quizzes/locks-and-ttl.toml", answers: { "why-lock-ttl": { choice: [0], correct: true, fingerprint: null, at: 3 } }, view: null });
  const counts = progressCounts(data, progress);
  assert.deepEqual([counts.read, counts.passed, counts.answered, counts.right], [1, 1, 1, 1]);
  const locks = counts.sections.find((section) => section.id === "06-locks");
  assert.equal(renderTocMarks(locks), '<span class="visually-hidden">(read)</span><span class="toc-chip">Quiz 1/3 right<span class="visually-hidden">, 1 of 3 answered</span></span><span class="toc-chip is-done"><span class="toc-chip-mark" aria-hidden="true">✓</span>lock.js<span class="visually-hidden"> passed</span></span>');
  // A quiz all answered with one wrong is not a full score, and does not look like one; a wrong answer is no right one.
  progress = update(progress, { type: "quiz-saved", quiz: "quizzes/locks-and-ttl.toml", answers: Object.fromEntries(data.quizzes["quizzes/locks-and-ttl.toml"].questions.map((question, index) => [question.id, index === 0 ? { choice: [question.options.findIndex((option) => !option.correct)], correct: false, fingerprint: null, at: 4 } : { choice: question.options.flatMap((option, at) => (option.correct ? [at] : [])), correct: true, fingerprint: null, at: 4 }])), view: null });
  const all = progressCounts(data, progress);
  assert.deepEqual([all.answered, all.right], [3, 2]);
  assert.equal(renderTocMarks(all.sections.find((section) => section.id === "06-locks")).split("<span class=\"toc-chip")[1], '">Quiz 2/3 right<span class="visually-hidden"></span></span>');
  assert.match(renderProgressSummary(all), /<dt>Questions right<\/dt><dd><span class="progress-figure">2 \/ \d+<\/span>/);
});

// ---- export -------------------------------------------------------------------------

test("the export .tar holds each exercise's draft, or its starter, and every tar reads it", () => {
  const data = lessonData(lesson);
  const drafts = { lock: "export async function tryLock() {}\n// ünïcode ✓\n" };
  const progress = { getDraft: (name) => drafts[name] ?? null };
  const files = solutionFiles(data, progress);
  const folder = mkdtempSync(join(tmpdir(), "leaselab-tar-"));
  const tarPath = join(folder, "solutions.tar");
  writeFileSync(tarPath, makeTar(files, 1_700_000_000));
  const listing = execFileSync("tar", ["-tvf", tarPath], { encoding: "utf8" });
  assert.match(listing, /ownership-election\/lock\.js/);
  assert.equal(execFileSync("tar", ["-xOf", tarPath, "ownership-election/lock.js"], { encoding: "utf8" }), drafts.lock);
  assert.equal(execFileSync("tar", ["-xOf", tarPath, "ownership-election/cas.js"], { encoding: "utf8" }), lesson.exercises.cas.starter);
  assert.throws(() => makeTar([{ name: "x".repeat(101), text: "" }]), /1 to 100 printable ASCII/);
});

test("the widget registry is the folder web/src/widgets: the page builder reads every widget.json, and a bad one is named with what to fix", async () => {
  const { readWidgets, WIDGETS_DIR } = await import("../web/build/widgets.mjs");
  const { readdirSync, existsSync, mkdtempSync, mkdirSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const folders = readdirSync(WIDGETS_DIR).filter((name) => existsSync(join(WIDGETS_DIR, name, "widget.json"))).sort();
  assert.deepEqual(Object.keys(readWidgets()), folders);
  const dir = mkdtempSync(join(tmpdir(), "leaselab-widgets-"));
  mkdirSync(join(dir, "spinner"));
  writeFileSync(join(dir, "spinner", "widget.json"), JSON.stringify({ title: "Spinner", intro: "", waiting: "Loading…", wasm: null }));
  assert.throws(() => readWidgets(dir), /spinner\/widget\.json: "intro" must be a non-empty string/);
  writeFileSync(join(dir, "spinner", "widget.json"), JSON.stringify({ title: "Spinner", intro: "Spins.", waiting: "Loading…", wasm: null }));
  assert.throws(() => readWidgets(dir), /a widget needs view\.js/);
  writeFileSync(join(dir, "spinner", "view.js"), "export const load = async () => () => {};\n");
  assert.deepEqual(Object.keys(readWidgets(dir)), ["spinner"]);
});

test("a lesson is a folder: a second, tiny lesson renders through the same build into a page of its own, with its own id, exercises and storage key", () => {
  const ROOT = new URL("../", import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), "leaselab-second-lesson-"));
  const json = join(dir, "lesson.json");
  // The content crate's clean fixture is a complete lesson of one exercise: render it as the build does.
  execFileSync("cargo", ["run", "--quiet", "-p", "content", "--", "render", "crates/content/tests/fixtures/clean", "--out", json], { cwd: ROOT, stdio: "inherit" });
  const html = join(dir, "index.html");
  execFileSync("node", ["web/build/render-page.mjs", "--lesson", json, "--out", html], { cwd: ROOT });
  const page = readFileSync(html, "utf8");
  const script = /<script type="application\/json" id="lesson-data">([\s\S]*?)<\/script>/.exec(page)?.[1];
  assert.ok(script, "the page carries its lesson's data");
  const data = JSON.parse(script);
  assert.equal(data.id, "clean");
  assert.deepEqual(Object.keys(data.exercises), ["fencing"]);
  assert.equal(storageKey(data.id), "leaselab:clean:progress");
  assert.notEqual(storageKey(data.id), storageKey(lessonJson().id), "two lessons never share progress");
});
