/* Colours of the notebook code, drawn by the browser's CSS Custom Highlight API from the ranges the
   build wrote on each <pre> (data-hl; coursebuild/render/notebook_html.py): no element per token, so
   a long page stays under Lighthouse's DOM size. Without the API the code shows uncoloured.
   predict.js calls nbHighlight() on the cells it opens later. */
(() => {
  const supported = window.CSS && CSS.highlights && window.Highlight;
  const groups = new Map();
  window.nbHighlight = root => {
    if (!supported) return;
    for (const pre of root.querySelectorAll("pre[data-hl]")) {
      if (pre.dataset.hlDone) continue;
      pre.dataset.hlDone = "1";
      // the text nodes of the code (a search highlight may have split it) and where each starts
      const nodes = [];
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      for (let n, at = 0; (n = walker.nextNode()); at += n.length) nodes.push([n, at]);
      const place = (range, offset, end) => {
        let i = nodes.length - 1;
        while (i > 0 && nodes[i][1] > offset - (end ? 1 : 0)) i--;
        const [node, at] = nodes[i];
        const local = Math.min(offset - at, node.length);
        end ? range.setEnd(node, local) : range.setStart(node, local);
      };
      for (const part of pre.dataset.hl.split(";")) {
        const [name, list] = part.split("=");
        if (!groups.has(name)) groups.set(name, new Highlight());
        const highlight = groups.get(name);
        let end = 0;
        for (const pair of list.split(",")) {
          const [gap, length] = pair.split(":").map(Number);
          const start = end + gap;
          end = start + length;
          const range = document.createRange();
          place(range, start, false);
          place(range, end, true);
          highlight.add(range);
        }
      }
    }
    for (const [name, highlight] of groups) CSS.highlights.set(`nb-${name}`, highlight);
  };
  nbHighlight(document);
})();
