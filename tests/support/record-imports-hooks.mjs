// The resolve hook of record-imports.mjs.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.RECORD_IMPORTS, `${result.url}\n`);
  return result;
}
