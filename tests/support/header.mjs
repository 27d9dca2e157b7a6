// The header of a corpus file (the hostile and accuracy corpora): the
// leading `// key: value` comment lines, up to the first other line.
const HEADER = /^\/\/ ([a-z-]+): (.*)$/;

/** The header comments of a corpus file, as `{ key: value }`. */
export function parseHeader(text) {
  const header = {};
  for (const line of text.split("\n")) {
    const match = HEADER.exec(line);
    if (!match) break;
    header[match[1]] = match[2].trim();
  }
  return header;
}
