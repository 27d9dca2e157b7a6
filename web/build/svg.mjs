// Inline SVG diagrams share the page's style sheet scope: a `<style>` inside
// one SVG applies to the whole document. Two diagrams that both style
// `.label` would restyle each other (and any HTML using that class). So the
// build prefixes every rule of a diagram's own style with that diagram's
// class, `svg.diagram-<name>`.

/** Adds `scopeClass` to the root `<svg>` (if missing) and scopes its `<style>` rules to it. */
export function scopeSvg(svg, scopeClass) {
  if (!/^\s*<svg[\s>]/.test(svg)) throw new Error("a diagram must start with <svg>");
  let scoped = svg.replace(/<svg\b[^>]*>/, (tag) => {
    const existing = /\sclass="([^"]*)"/.exec(tag);
    const classes = new Set((existing?.[1] ?? "").split(/\s+/).filter(Boolean));
    classes.add("diagram");
    classes.add(scopeClass);
    const attribute = `class="${[...classes].join(" ")}"`;
    return existing ? tag.replace(/\sclass="[^"]*"/, ` ${attribute}`) : tag.replace(/^<svg\b/, `<svg ${attribute}`);
  });
  scoped = scoped.replace(/<style>([\s\S]*?)<\/style>/g, (_, css) => `<style>${scopeCss(css, `svg.${scopeClass}`)}</style>`);
  return scoped;
}

/** Prefixes each selector of each flat rule with `scope`. At-rules are left alone. */
export function scopeCss(css, scope) {
  return css.replace(/([^{}]+)\{([^{}]*)\}/g, (rule, selectors, body) => {
    if (selectors.trim().startsWith("@")) return rule;
    const scopedSelectors = selectors
      .split(",")
      .map((selector) => selector.trim())
      .filter(Boolean)
      .map((selector) => `${scope} ${selector}`)
      .join(", ");
    const leading = selectors.match(/^\s*/)[0];
    return `${leading}${scopedSelectors} {${body}}`;
  });
}

/** The text of the SVG's <title>, for a visible caption. */
export function svgTitle(svg) {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title>/.exec(svg);
  return match ? match[1].trim() : null;
}
