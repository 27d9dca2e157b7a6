// An exercise's shell: hints that open one at a time (remembered), and the
// passed / not passed mark. The README, the exports and the runner's mount
// point are rendered by the build; the runner (web/src/runner) takes over
// `.exercise-runner` when it is connected (see main.js).

/** Mounts the exercise card `root` for `exercise` (name, hints count). */
export function mountExercise(root, exercise, progress) {
  // Progress changes often (a draft saves as the learner types); touch the DOM only where the text changes.
  const setText = (element, text) => {
    if (element && element.textContent !== text) element.textContent = text;
  };
  const hints = [...root.querySelectorAll(".hint")];
  const button = root.querySelector('button[data-action="hint"]');
  const hintStatus = root.querySelector(".hint-status");
  const passMark = root.querySelector(".exercise-status");

  function render() {
    const unlocked = Math.min(progress.getHintsUnlocked(exercise.name), hints.length);
    hints.forEach((hint, index) => {
      hint.hidden = index >= unlocked;
    });
    if (button) {
      button.hidden = unlocked >= hints.length;
      setText(button, `Show hint ${unlocked + 1} of ${hints.length}`);
    }
    setText(hintStatus, unlocked >= hints.length ? `All ${hints.length} hints are open.` : unlocked === 0 ? "Try on your own first; open a hint when you are stuck." : `${unlocked} of ${hints.length} hints open.`);
    if (passMark) {
      const passed = progress.isPassed(exercise.name);
      setText(passMark, passed ? "Passed" : "Not passed yet");
      passMark.classList.toggle("is-passed", passed);
    }
  }

  button?.addEventListener("click", () => {
    const unlocked = progress.unlockHint(exercise.name, hints.length);
    render();
    // Move to the hint just opened, so it is read next; once all are open the button is gone.
    hints[unlocked - 1]?.focus();
  });
  progress.subscribe(render);
  render();
  root.dataset.ready = "true";
}
