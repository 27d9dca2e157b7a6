// Brings a DOM subtree in line with new HTML while keeping the nodes that
// stay (and with them focus, caret and scroll position): the views render
// strings from state, and this turns a re-render into the few changes it
// means. Nodes are matched by position; an element with a different tag or
// `data-key` is replaced rather than patched.

/** Makes `target`'s children match `html`. */
export function morph(target, html) {
  const template = target.ownerDocument.createElement("template");
  template.innerHTML = html;
  morphChildren(target, template.content);
}

function morphChildren(from, to) {
  const fromNodes = [...from.childNodes];
  const toNodes = [...to.childNodes];
  toNodes.forEach((next, index) => {
    const current = fromNodes[index];
    if (!current) from.append(next);
    else if (sameKind(current, next)) morphNode(current, next);
    else current.replaceWith(next);
  });
  for (const extra of fromNodes.slice(toNodes.length)) extra.remove();
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return true;
  return a.getAttribute("data-key") === b.getAttribute("data-key") && a.getAttribute("type") === b.getAttribute("type");
}

function morphNode(current, next) {
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  for (const { name } of [...current.attributes]) {
    if (!next.hasAttribute(name)) current.removeAttribute(name);
  }
  for (const { name, value } of [...next.attributes]) {
    if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  }
  // Form state lives in properties, not attributes, once the user has touched it.
  if (current instanceof HTMLInputElement) {
    current.checked = next.hasAttribute("checked");
    const value = next.getAttribute("value") ?? "";
    if (current.value !== value) current.value = value;
  }
  morphChildren(current, next);
}
