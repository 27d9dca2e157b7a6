// Records every module a Node process resolves, one URL a line, into the
// file RECORD_IMPORTS names: `node --import ./tests/support/record-imports.mjs …`.
// The hooks run in their own thread (node:module's `register`), so they
// write to the file themselves.
import { register } from "node:module";

register("./record-imports-hooks.mjs", import.meta.url);
