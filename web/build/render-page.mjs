// Renders the lesson page at build time:
//
//   node web/build/render-page.mjs --lesson target/lesson/ownership-election.json --out web/dist/index.html
//
// The lesson JSON comes from `cargo run -p content -- render <lesson-dir>`;
// `cargo xtask build` runs both (xtask/src/build.rs, bundle_web). When the
// page's folder holds the grader's wasm, it is packed for download
// (grader-wasm.mjs) and the page names the packed file.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { packGraderWasm } from "./grader-wasm.mjs";
import { renderPage } from "./page.mjs";

const USAGE = "usage: node web/build/render-page.mjs --lesson <lesson.json> --out <index.html>";

function parseArguments(argv) {
  const options = {};
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if ((flag === "--lesson" || flag === "--out") && value) options[flag.slice(2)] = value;
    else throw new Error(`unknown or incomplete option "${flag ?? ""}"\n${USAGE}`);
  }
  if (!options.lesson || !options.out) throw new Error(USAGE);
  return options;
}

try {
  const options = parseArguments(process.argv.slice(2));
  let lesson;
  try {
    lesson = JSON.parse(readFileSync(options.lesson, "utf8"));
  } catch (error) {
    throw new Error(`cannot read the lesson JSON ${options.lesson}: ${error.message}; render it with \`cargo run -p content -- render <lesson-dir> --out ${options.lesson}\``);
  }
  const grader = packGraderWasm(dirname(options.out));
  const html = renderPage(lesson, undefined, grader);
  writeFileSync(options.out, html);
  console.error(`render-page: wrote ${options.out} (${html.length} bytes, ${lesson.sections.length} sections)`);
} catch (error) {
  console.error(`render-page: ${error.message}`);
  process.exit(1);
}
