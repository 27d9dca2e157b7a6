#!/usr/bin/env node
// The command-line grader: `leaselab grade <file-or-directory>… [options]`.
// It grades with the very runner and wasm the browser uses, so the verdicts
// are the browser's. See `leaselab --help`.
import { main } from "./main.js";

// A reader that stops early (`leaselab grade … | head`) is not worth a stack trace;
// the report was cut short, so the status is 2 (an output that could not be written).
process.stdout.on("error", (error) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(2);
});

process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
