// JUnit XML: one testsuite per exercise, one testcase per test; a failure
// carries the message (the one-line summary readers show as its title) and,
// as its body, the timeline, which holds the replay token once. Learner text goes
// through xmlText / xmlAttribute, so the document stays valid XML 1.0
// whatever a submission prints (control characters, U+FFFE, lone surrogates).
//
// Only the attributes the strictest common reader allows are written
// (Jenkins xUnit's JUnit schema, which skips a file that breaks it): on
// <testcase> name, classname and time, never file; on <testsuite> name,
// tests, failures, errors, skipped, time, timestamp, hostname and file (the
// exercise file graded). Times are measured: a suite's is the grading of
// its file, a test's the time from the end of the test before it (given
// when the file was graded in one piece; a file split between threads has
// only its suite's time). tests/fixtures/junit/xunit-junit.xsd states the
// schema and tests/cli-formats.node.test.mjs validates against it.
import { hostname } from "node:os";
import { xmlAttribute, xmlText } from "./escape.js";
import { flatTests } from "./common.js";

/** Seconds as the schema's time: a decimal number, never an exponent. */
const seconds = (value) => (Math.round(value * 1000) / 1000).toFixed(3);

export function renderJunit(graded) {
  const all = flatTests(graded);
  const host = xmlAttribute(hostname());
  const count = (tests, status) => tests.filter((t) => t.status === status).length;
  const total = graded.results.reduce((sum, result) => sum + (result.timing?.seconds ?? 0), 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites name="${xmlAttribute(graded.name)}" tests="${all.length}" failures="${count(all, "failed")}" errors="${count(all, "error")}" time="${seconds(total)}">`);
  for (const result of graded.results) {
    const tests = all.filter((test) => test.exercise === result.exercise && test.path === result.path);
    const timing = result.timing ?? null;
    const stamp = new Date(timing?.startedAt ?? Date.now()).toISOString().slice(0, 19);
    lines.push(
      `  <testsuite name="${xmlAttribute(result.exercise)}" tests="${tests.length}" failures="${count(tests, "failed")}" errors="${count(tests, "error")}" skipped="0" time="${seconds(timing?.seconds ?? 0)}" timestamp="${stamp}" hostname="${host}" file="${xmlAttribute(result.path)}">`,
    );
    for (const [index, test] of tests.entries()) {
      const time = timing?.testSeconds?.[index];
      const open = `    <testcase classname="leaselab.${xmlAttribute(result.exercise)}" name="${xmlAttribute(test.name)}"${time === undefined ? "" : ` time="${seconds(time)}"`}`;
      if (test.status === "passed") {
        lines.push(`${open}/>`);
      } else {
        const tag = test.status === "error" ? "error" : "failure";
        // Without a timeline the story is the message itself, already in the attribute.
        const body = test.story === test.message ? "" : test.story;
        lines.push(`${open}>`);
        lines.push(`      <${tag} message="${xmlAttribute(test.message ?? "")}" type="${test.rule ? xmlAttribute(test.rule) : tag}">${xmlText(body)}</${tag}>`);
        lines.push("    </testcase>");
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}
