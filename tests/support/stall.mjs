// A function for test submissions that never returns in any test's time, and
// not because of a loop the sandbox could interrupt: one indexOf call
// comparing about 10^12 characters, which does not return for many minutes
// (measured in Node with the runner: still running after 90 s; its time
// grows with the square of the length, 2.4 s at a 80,000-character
// haystack). No bytecode runs until it returns, so no step budget or
// wall-clock check inside the VM can end it: only a deadline outside does.
export const STALL = `function stall() {
  const haystack = "a".repeat(2_000_000);
  const needle = "a".repeat(1_000_000) + "b";
  return haystack.indexOf(needle);
}
`;
