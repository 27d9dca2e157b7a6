#!/usr/bin/env node
// The command-line grader: `leaselab grade <file-or-directory>… [options]`.
// It grades with the very runner and wasm the browser uses, so the verdicts
// are the browser's. See `leaselab --help`.
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
