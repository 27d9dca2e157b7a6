// One learner's work in every form it reaches a grader: a folder, a folder
// in folders, a zip from Finder (its folder on every path, __MACOSX and a
// .DS_Store beside), a stored zip with folder entries, a GNU tar and a gzip
// tar of the folder, and the lesson's own export (what "Export my
// solutions" downloads, written by web/src/lesson/tar.js). The tests that
// hold every platform to one score grade these forms.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { makeTar } from "../../web/src/lesson/tar.js";
import { makeZip } from "./archives.mjs";

/** `{ file name: text }` written under `dir` (names may hold folders). */
export function writeFolder(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** `{ form: path }`: `files` (`{ lock.js: text, … }`) in every form, under `dir`. */
export function makeUploads(dir, files) {
  const entries = Object.entries(files);
  const forms = {};
  forms.folder = writeFolder(join(dir, "folder"), files);
  forms.nested = writeFolder(join(dir, "nested"), Object.fromEntries(entries.map(([name, text]) => [`a/b/c/${name}`, text])));
  const finder = [
    ...entries.map(([name, data]) => ({ name: `my solutions/${name}`, data })),
    { name: "my solutions/.DS_Store", data: Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]) },
    { name: "__MACOSX/my solutions/._lock.js", data: Buffer.from([0, 5, 0x16, 7]) },
  ];
  writeFileSync((forms.finderZip = join(dir, "finder.zip")), makeZip(finder));
  writeFileSync((forms.storedZip = join(dir, "stored.zip")), makeZip([{ name: "work", folder: true }, ...entries.map(([name, data]) => ({ name: `work/${name}`, data, method: 0 }))]));
  execFileSync("tar", ["-cf", (forms.tar = join(dir, "work.tar")), "-C", forms.folder, "."]);
  writeFileSync((forms.tgz = join(dir, "work.tar.gz")), gzipSync(readFileSync(forms.tar)));
  const exported = makeTar([...entries.map(([name, text]) => ({ name: `ownership-election/${name}`, text })), { name: "ownership-election/progress.json", text: '{"format": "leaselab-progress"}\n' }]);
  writeFileSync((forms.export = join(dir, "ownership-election-solutions.tar")), exported);
  return forms;
}
