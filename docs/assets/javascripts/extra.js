/* Accessibility fixes that Material and nbconvert leave out (checked by tests/test_browser.py with
   axe-core). Loaded (deferred) at the end of <body> by overrides/main.html. */
(() => {
  // The search overlay has role="dialog" but no name: give it the search box's.
  const search = document.querySelector(".md-search[role=dialog]");
  const query = document.querySelector(".md-search__input");
  if (search && query && !search.hasAttribute("aria-label"))
    search.setAttribute("aria-label", query.getAttribute("aria-label"));
  // Its results box is a Tab stop of its own, also while closed (0 px high, invisible): the results
  // are links, reached by Tab and by the arrow keys (extra.css: closed, the box scrolls nothing).
  document.querySelector(".md-search__scrollwrap")?.removeAttribute("tabindex");

  // Notebook code and outputs that scroll (sideways, or a very tall output in its bounded box, extra.css)
  // must be reachable, and so scrollable, by keyboard; nothing else in a cell is a Tab stop but its copy
  // button (coursebuild/render/notebook_html.py).
  const reachable = () => {
    for (const box of document.querySelectorAll(".jupyter-wrapper :is(.jp-InputArea-editor > pre, .jp-OutputArea-output, .jp-OutputArea-output > pre)")) {
      const style = getComputedStyle(box);
      if ((box.scrollWidth > box.clientWidth && /auto|scroll/.test(style.overflowX))
          || (box.scrollHeight > box.clientHeight + 1 && /auto|scroll/.test(style.overflowY))) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    }
  };
  reachable();
  addEventListener("resize", reachable);

  // A notebook copy button's "Copied" notice (the text of its data-copied, drawn by extra.css) is made
  // when the reader first copies, not one element per code cell before; mkdocs-jupyter's script, which
  // listens after this one, shows it for a second.
  document.addEventListener("clipboard-copy", ev => {
    const button = ev.target;
    if (!button.dataset.copied || button.querySelector(".notice")) return;
    const notice = document.createElement("span");
    notice.className = "notice";
    notice.hidden = true;
    notice.dataset.text = button.dataset.copied;
    button.append(notice);
  }, true);

  // Material reads the query when a key is released: text pasted from a menu, dropped, or committed by
  // a Japanese or Korean input method without a key release would wait for the next key, under "Type to
  // start searching". Any change of the text counts as a key (tests/test_reader_ui.py).
  if (query) {
    const changed = () => query.dispatchEvent(new KeyboardEvent("keyup"));
    query.addEventListener("input", ev => ev.isComposing || changed());
    query.addEventListener("compositionend", changed);
  }

  // An Enter that confirms IME input (Japanese, Korean) must not open the first search result.
  // Material ignores keys between compositionstart and compositionend, but Safari sends that Enter
  // after compositionend, marked only by keyCode 229 (tests/test_search.py).
  addEventListener("keydown", ev => {
    if (ev.key === "Enter" && (ev.isComposing || ev.keyCode === 229) && ev.target === query)
      ev.stopPropagation();
  }, true);

  // Switching language keeps the reader's place: the link to the other language gets the section
  // being read (its heading's id: the same in every language where the heading is a message or code),
  // and the page there, when it has no such id, opens at the heading in the same position (every
  // language has the same sections in the same order: tests/test_parity.py).
  const headings = () => [...document.querySelectorAll(".md-content :is(h2, h3)[id]")];
  const reading = () => headings().filter(h => h.getBoundingClientRect().top <= 100).pop();
  for (const link of document.querySelectorAll(".md-select__link[hreflang]")) {
    link.addEventListener("click", () => {
      const section = reading();
      const url = new URL(link.href, location.href);
      url.hash = section ? section.id : "";
      link.href = url.href;
      try {
        sessionStorage.setItem("section", JSON.stringify({path: url.pathname, index: headings().indexOf(section)}));
      } catch (err) { /* storage refused: the id alone */ }
    }, true);
  }
  try {
    const left = JSON.parse(sessionStorage.getItem("section"));
    sessionStorage.removeItem("section");
    const id = decodeURIComponent(location.hash.slice(1));
    const section = left && left.path === location.pathname && !(id && document.getElementById(id)) && headings()[left.index];
    if (section) {
      history.replaceState(history.state, "", "#" + section.id);
      section.scrollIntoView();
    }
  } catch (err) { /* storage refused, or nothing left there */ }
})();
