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

/** Resolves to the compiled `WebAssembly.Module` at `url`; rejects with a message naming the file. */
export async function compileWasm(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`could not download ${url}: ${error.message}; check the connection and reload the page`);
  }
  if (!response.ok) {
    throw new Error(`could not download ${url}: the server answered ${response.status} ${response.statusText}; the site lacks this file (whoever hosts the lesson must publish the whole built folder)`);
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/wasm" && typeof WebAssembly.compileStreaming === "function") {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}
