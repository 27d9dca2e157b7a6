// JUnit XML: one testsuite per exercise, one testcase per test; a failure
// carries the message (the one-line summary readers show as its title) and,
// as its body, the timeline, which holds the replay token once. Learner text goes
// through xmlText / xmlAttribute, so the document stays valid XML 1.0
// whatever a submission prints (control characters, U+FFFE, lone surrogates).
import { xmlAttribute, xmlText } from "./escape.js";
import { flatTests } from "./common.js";

export function renderJunit(graded) {
  const all = flatTests(graded);
  const suites = new Map();
  for (const test of all) {
    if (!suites.has(test.exercise)) suites.set(test.exercise, []);
    suites.get(test.exercise).push(test);
  }
  const count = (tests, status) => tests.filter((t) => t.status === status).length;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(`<testsuites name="${xmlAttribute(graded.name)}" tests="${all.length}" failures="${count(all, "failed")}" errors="${count(all, "error")}">`);
  for (const [exercise, tests] of suites) {
    lines.push(`  <testsuite name="${xmlAttribute(exercise)}" tests="${tests.length}" failures="${count(tests, "failed")}" errors="${count(tests, "error")}">`);
    for (const test of tests) {
      const open = `    <testcase classname="leaselab.${xmlAttribute(exercise)}" name="${xmlAttribute(test.name)}" file="${xmlAttribute(test.path)}"`;
      if (test.status === "passed") {
        lines.push(`${open}/>`);
      } else {
        const tag = test.status === "error" ? "error" : "failure";
        // Without a timeline the story is the message itself, already in the attribute.
        const body = test.story === test.message ? "" : test.story;
        lines.push(`${open}>`);
        lines.push(`      <${tag} message="${xmlAttribute(test.message ?? "")}">${xmlText(body)}</${tag}>`);
        lines.push("    </testcase>");
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}
