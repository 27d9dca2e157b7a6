// Fetching and compiling a wasm module by URL, on any static host.
//
// `WebAssembly.compileStreaming` compiles while the bytes arrive, but only
// from a response served as `application/wasm`; under any other type (many
// hosts send `application/octet-stream` for a file type they do not know)
// it throws and the module never loads. So the type is checked first, and
// any other type is compiled from the whole body instead: slower by the
// download time, never broken. wasm-bindgen's own loader falls back the
// same way but warns on the console each time; handing it the compiled
// module keeps the console clean, which is how the tests find real problems.

/** The response for `url`, or an error naming the file and what to do. */
async function download(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`could not download ${url}: ${error.message}; check the connection and reload the page`);
  }
  if (!response.ok) {
    throw new Error(`could not download ${url}: the server answered ${response.status} ${response.statusText}; the site lacks this file (whoever hosts the lesson must publish the whole built folder)`);
  }
  return response;
}

/** Can this response be compiled as it arrives? */
function streamable(response) {
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/wasm" && typeof WebAssembly.compileStreaming === "function";
}

/** Resolves to the compiled `WebAssembly.Module` at `url`; rejects with a message naming the file. */
export async function compileWasm(url) {
  const response = await download(url);
  if (streamable(response)) return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * Like `compileWasm`, and the module's bytes too (`{ module, bytes }`), for
 * a caller that reads the module's layout: a streamed response is read a
 * second time from its clone while it compiles.
 */
export async function compileWasmAndRead(url) {
  const response = await download(url);
  if (streamable(response)) {
    const copy = response.clone();
    const [module, buffer] = await Promise.all([WebAssembly.compileStreaming(response), copy.arrayBuffer()]);
    return { module, bytes: new Uint8Array(buffer) };
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { module: await WebAssembly.compile(bytes), bytes };
}
