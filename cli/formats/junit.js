// JUnit XML: one testsuite per exercise, one testcase per test; a failure
// carries the message and, as its body, the timeline.
import { flatTests } from "./common.js";

function escape(text) {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    // Characters XML 1.0 forbids (a learner's console output may contain them).
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "");
}

export function renderJunit(graded) {
  const suites = new Map();
  for (const test of flatTests(graded)) {
    if (!suites.has(test.exercise)) suites.set(test.exercise, []);
    suites.get(test.exercise).push(test);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = flatTests(graded);
  lines.push(`<testsuites name="${escape(graded.name)}" tests="${all.length}" failures="${all.filter((t) => t.status === "failed").length}" errors="${all.filter((t) => t.status === "error").length}">`);
  for (const [exercise, tests] of suites) {
    const failures = tests.filter((t) => t.status === "failed").length;
    const errors = tests.filter((t) => t.status === "error").length;
    lines.push(`  <testsuite name="${escape(exercise)}" tests="${tests.length}" failures="${failures}" errors="${errors}">`);
    for (const test of tests) {
      const open = `    <testcase classname="leaselab.${escape(exercise)}" name="${escape(test.name)}" file="${escape(test.path)}"`;
      if (test.status === "passed") {
        lines.push(`${open}/>`);
      } else {
        const tag = test.status === "error" ? "error" : "failure";
        lines.push(`${open}>`);
        lines.push(`      <${tag} message="${escape(test.message)}">${escape([test.output, test.replayToken ? `replay: ${test.replayToken}` : ""].filter(Boolean).join("\n"))}</${tag}>`);
        lines.push("    </testcase>");
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}
